"""Every integer the emitted loop code computes fits its counter type (emit_c/ranges.py).

The oracle is execution: a Python interpreter of isl's AST computes, exactly, every
value the loop code computes for given parameter values, and the interval bound of
`Ranges` must be at least the largest of them. End to end, schedules with large
coefficients (isl's scheduler gave { S[i, j] -> [2147483644i + j, i] } for fuzz program
3376, whose loop code overflowed long long) run as the original does, and isl schedules
with such coefficients give way to the Pluto scheduler.
"""
from __future__ import annotations

import re
from pathlib import Path

import islpy as isl
import pytest

from polysched.emit_c import generate, splice
from polysched.emit_c.codegen import EmitOptions, _RegionPrinter
from polysched.emit_c.ranges import Ranges
from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import extract
from polysched.textio import encode_source

from test_wrong_code import FLAG_SETS, assert_same_behaviour, build_and_run

_op = isl.ast_expr_op_type

KERNEL = r"""
#include <stdio.h>
double A[40][40];
void kernel(int n, int off) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = off; j < n; j++)
      A[i][j - off] = A[i][j - off] * 0.5 + i - j;
#pragma endscop
}
int main(void) {
  int calls[][2] = {{12, 0}, {12, 3}, {0, 0}, {1, 1}, {30, 2}};
  for (int c = 0; c < 5; c++) {
    for (int a = 0; a < 40; a++) for (int b = 0; b < 40; b++) A[a][b] = (a * 3 + b) % 11;
    kernel(calls[c][0], calls[c][1]);
    double s = 0;
    for (int a = 0; a < 40; a++) for (int b = 0; b < 40; b++) s += A[a][b] * (a + 2 * b + 1);
    printf("%.17g\n", s);
  }
  return 0;
}
"""

SCHEDULES = [
    "{ S0[i, j] -> [i, j] }",
    "{ S0[i, j] -> [7i + j, i] }",
    "{ S0[i, j] -> [13i - 5j, i] }",
    "{ S0[i, j] -> [i + j, j] }",
    "{ S0[i, j] -> [floor(i / 4), floor(j / 8), i, j] }",
    "{ S0[i, j] -> [floor((i + j) / 5), i - j, j] }",
]


def _value(expr: isl.AstExpr, env: dict[str, int], seen: list[int]) -> int:
    """``expr`` computed exactly under ``env``; ``seen[0]`` gets the largest magnitude
    of it and its sub-expressions."""
    kind = expr.get_type()
    if kind == isl.ast_expr_type.int:
        value = int(expr.get_val().to_python())
    elif kind == isl.ast_expr_type.id:
        value = env[expr.get_id().get_name()]
    else:
        op = expr.get_op_type()
        args = [expr.get_op_arg(k) for k in range(expr.get_op_n_arg())]
        if op in (_op.and_, _op.and_then):
            value = int(all(_value(a, env, seen) for a in args))
        elif op in (_op.or_, _op.or_else):
            value = int(any(_value(a, env, seen) for a in args))
        elif op in (_op.cond, _op.select):
            value = _value(args[1] if _value(args[0], env, seen) else args[2], env, seen)
        else:
            v = [_value(a, env, seen) for a in args]
            if op == _op.minus:
                value = -v[0]
            elif op in (_op.min, _op.max):
                value = min(v) if op == _op.min else max(v)
            elif op in (_op.add, _op.sub, _op.mul):
                value = v[0] + v[1] if op == _op.add else v[0] - v[1] if op == _op.sub else v[0] * v[1]
            elif op in (_op.div, _op.pdiv_q, _op.fdiv_q):
                value = v[0] // v[1]
            elif op in (_op.pdiv_r, _op.zdiv_r):       # C's remainder: the dividend's sign
                value = abs(v[0]) % abs(v[1]) * (1 if v[0] >= 0 else -1)
            else:
                compare = {_op.eq: int.__eq__, _op.le: int.__le__, _op.lt: int.__lt__,
                           _op.ge: int.__ge__, _op.gt: int.__gt__}[op]
                value = int(compare(v[0], v[1]))
    seen[0] = max(seen[0], abs(value))
    return value


def _run(node: isl.AstNode, env: dict[str, int], seen: list[int]) -> None:
    """Executes the loop code of ``node``, computing what the C code computes."""
    kind = node.get_type()
    if kind == isl.ast_node_type.block:
        children = node.block_get_children()
        for k in range(children.n_ast_node()):
            _run(children.get_at(k), env, seen)
    elif kind == isl.ast_node_type.mark:
        _run(node.mark_get_node(), env, seen)
    elif kind == isl.ast_node_type.if_:
        if _value(node.if_get_cond(), env, seen):
            _run(node.if_get_then_node(), env, seen)
        elif node.if_has_else_node():
            _run(node.if_get_else_node(), env, seen)
    elif kind == isl.ast_node_type.user:
        call = node.user_get_expr()
        for k in range(1, call.get_op_n_arg()):
            _value(call.get_op_arg(k), env, seen)
    else:
        name = node.for_get_iterator().get_id().get_name()
        env = dict(env)
        env[name] = _value(node.for_get_init(), env, seen)
        if node.for_is_degenerate():
            _run(node.for_get_body(), env, seen)
            return
        while _value(node.for_get_cond(), env, seen):
            _run(node.for_get_body(), env, seen)
            env[name] += _value(node.for_get_inc(), env, seen)
            seen[0] = max(seen[0], abs(env[name]))


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_interval_bound_covers_every_value_computed(schedule):
    scop = extract(KERNEL)[0]
    printer = _RegionPrinter(scop, isl.Schedule.from_domain(scop.domain).insert_partial_schedule(
        isl.MultiUnionPwAff.from_union_map(isl.UnionMap(schedule).intersect_domain(scop.domain))),
        EmitOptions(), None)
    printer.region_text()
    ast = printer.build_ast()
    for n, off in [(0, 0), (1, 0), (5, 2), (17, 3), (30, 29)]:
        seen = [0]
        _run(ast, {"n": n, "off": off}, seen)
        bound = printer.ranges.largest({"n": (n, n), "off": (off, off)})
        assert bound >= seen[0], (schedule, n, off)
        # and not hopelessly loose: loop bounds are read from the loops themselves
        assert bound <= 64 * max(seen[0], 64), (schedule, n, off, bound, seen[0])


def test_ranges_know_nothing_of_a_counter_outside_its_loop():
    ranges = Ranges(["c0"])
    build = isl.AstBuild.from_context(isl.Set("[n] -> { : }"))
    ranges.record(build.expr_from_pw_aff(isl.PwAff("[n] -> { [(n + 1)] }")))
    assert ranges.largest({"n": (0, 10)}) == 11
    node = isl.AstBuild.from_context(isl.Set("[n] -> { : 0 <= n <= 10 }")).set_iterators(
        isl.IdList.from_id(isl.Id("c0"))).node_from_schedule_map(isl.UnionMap("[n] -> { S[i] -> [i] : 0 <= i < n }"))
    ranges.record(node.for_get_cond())           # printed outside the loop: unbounded
    assert ranges.largest({"n": (0, 10)}) >= 2 ** 63


def _program_output(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "prog.c"
    path.write_bytes(encode_source(text))
    return build_and_run(path, tmp_path, "-O1")


@pytest.mark.parametrize("schedule, least, greatest", [
    # the fuzzer's schedule: 2147483644 * c0 stays in long long only for n <= 2
    ("{ S0[i, j] -> [2147483644i + j, i] }", 1, 4),
    # c0 reaches 2**20 * n, times 2**20 in isl's expressions: n is bounded further, and
    # the calls with n = 12 and 30 run the optimized code
    ("{ S0[i, j] -> [1048576i + j, i] }", 30, 2 ** 40),
])
def test_large_coefficients_bound_the_parameters(tmp_path, schedule, least, greatest):
    scop = extract(KERNEL)[0]
    text = generate(scop, schedule)
    bound = re.search(r"\(long long\)n <= (\d+)", text)
    assert bound and least <= int(bound.group(1)) <= greatest, text
    assert _program_output(tmp_path, splice(scop, text)) == _program_output(tmp_path, KERNEL)


def test_no_parameter_bound_helps_literal_bounds(tmp_path):
    """With literal bounds there is no parameter to bound: the original is kept."""
    text = KERNEL.replace("i < n;", "i < 12;").replace("j < n;", "j < 12;")
    scop = extract(text)[0]
    out = generate(scop, "{ S0[i, j] -> [1099511627776i + 3j, i] }")     # 2**40
    assert "original code kept: the loop code's arithmetic" in out, out
    assert _program_output(tmp_path, splice(scop, out)) == _program_output(tmp_path, text)


FUZZ_3376 = r"""
#include <stdio.h>
#define N 10
double A[29][22];
double B[33][18];
static void kernel(void)
{
  unsigned i, j;
  i = 7; j = 7;
#pragma scop
  for (i = 1; i <= N + 8; i++) {
    for (j = 2; j <= i - 1; j++) {
      A[j - 1][i + 2] = 0.5 * A[i - 1][1] + 0.25 * B[i + j - 4][j - 1] + 1.5 * A[j + N][i - j + 4] + 1.0;
    }
  }
#pragma endscop
}
int main(void)
{
  long a0, a1;
  for (a0 = 0; a0 < 29; a0++) for (a1 = 0; a1 < 22; a1++) A[a0][a1] = (double)((a0 * 7 + a1 * 3 + 1) % 13) * 0.125 - 0.75;
  for (a0 = 0; a0 < 33; a0++) for (a1 = 0; a1 < 18; a1++) B[a0][a1] = (double)((a0 * 7 + a1 * 3 + 2) % 13) * 0.125 - 0.75;
  kernel();
  for (a0 = 0; a0 < 29; a0++) for (a1 = 0; a1 < 22; a1++) printf("A %ld %ld %.17g\n", a0, a1, A[a0][a1]);
  return 0;
}
"""


def test_fuzz_3376_isl_scheduler_modes(tmp_path):
    """Unsigned iterators put 2**31 in the dependences' bounds; isl's scheduler used it
    as a coefficient, and the loop code segfaulted in the three isl modes."""
    modes = {f"isl-{fuse}": dict(scheduler="isl", fuse=fuse, tile=True, parallel=True)
             for fuse in ("no", "smart", "max")}
    modes["tile-par"] = FLAG_SETS["tile-par"]
    outputs = assert_same_behaviour(tmp_path, FUZZ_3376, modes=modes, opts=("-O1",))
    assert not any("2147483644" in text for text in outputs.values())


def test_isl_schedules_with_huge_coefficients_give_way_to_pluto(tmp_path, capsys):
    path = tmp_path / "fuzz.c"
    path.write_text(FUZZ_3376)
    optimize(path, OptimizeOptions.from_flags(scheduler="isl", fuse="no"))
    assert "isl's scheduler failed (isl's schedule has a coefficient of 2147483643); " \
           "used the Pluto scheduler instead" in capsys.readouterr().err


CHECK_KERNEL = r"""
double A[10];
void kernel(int n, int m) {
  int i;
#pragma scop
  for (i = n; i < m; i++)
    A[0] = A[0] + i;
#pragma endscop
}
"""


def test_the_check_tests_each_parameter_range_first(tmp_path):
    """The run-time check is evaluated before anything bounds the parameters: its
    ranges come first (comparisons only) and the rest, where the ranges do not keep it
    within int, is computed in long long. The C condition agrees with isl's set on
    every point, near INT_MAX and INT_MIN included, without undefined behaviour."""
    from polysched.bench import compile_c, run_binary
    scop = extract(CHECK_KERNEL)[0]
    printer = _RegionPrinter(scop, scop.schedule, EmitOptions(), None)
    assumed = isl.Set("[n, m] -> { : -67108864 <= n <= 67108864 and -67108864 <= m <= 67108864 "
                      "and (64n <= m + 5 or m <= n) }").align_params(scop.context.get_space())
    parts = printer.assumed_conditions(assumed)
    assert len(parts) == 2 and "<=" in parts[0] and "*" not in parts[0], parts
    assert "(long long)" in parts[1] and "(long long)" not in parts[0], parts
    values = [-2 ** 31, -2 ** 31 + 1, -67108865, -67108864, -5, -1, 0, 1, 2, 7, 1048577, 67108864,
              67108865, 2 ** 30, 2 ** 31 - 1]
    points = [(n, m) for n in values for m in values]
    condition = " && ".join(f"({p})" for p in parts)
    program = "#include <stdio.h>\n" + "\n".join(printer.helpers.definitions()) + "\n" + \
        "int main(void) {\n  static const long long p[][2] = {" + \
        ", ".join(f"{{{n}LL, {m}LL}}" for n, m in points) + "};\n" + \
        f"  for (int k = 0; k < {len(points)}; k++) {{\n    int n = (int)p[k][0], m = (int)p[k][1];\n" + \
        f"    printf(\"%d\\n\", ({condition}) ? 1 : 0);\n  }}\n  return 0;\n}}\n"
    (tmp_path / "check.c").write_text(program)
    built = compile_c(tmp_path / "check.c", tmp_path / "check",
                      cflags=["-O1", "-fsanitize=undefined", "-fno-sanitize-recover"])
    if not built.ok and "sanitize" in built.reason:
        pytest.skip("no UBSan runtime")
    assert built.ok, built.reason
    run = run_binary(tmp_path / "check", timeout=60)
    assert run.ok, run.reason
    expected = [str(int(not assumed.intersect(isl.Set(f"[n, m] -> {{ : n = {n} and m = {m} }}")
                                              .align_params(assumed.get_space())).is_empty()))
                for n, m in points]
    assert run.stdout.split() == expected


WIDE_UNSIGNED_START = r"""
#include <stdio.h>
#include <stdlib.h>
double A[8];
int main(int argc, char **argv) {
  size_t lo = (size_t)strtoull(argv[1], 0, 10), n = (size_t)strtoull(argv[2], 0, 10);
#pragma scop
  for (size_t i = lo; i < n; i++)
    A[i - lo] = A[i - lo] + 1.0;
#pragma endscop
  printf("%g %g %g %g\n", A[0], A[1], A[2], A[3]);
  return 0;
}
"""


def test_a_size_t_past_2_63_fails_the_check(tmp_path):
    """``(long long)lo`` of ``size_t lo = SIZE_MAX`` is -1: the check passed its
    ``lo <= 2^56`` and the loop ran from -1, where the original runs no iteration. The
    type's ``lo >= 0`` is tested too where the cast may break it."""
    from compiled_runs import outputs_of
    path = tmp_path / "wide.c"
    path.write_text(WIDE_UNSIGNED_START)
    text = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    arguments = [(2 ** 64 - 1, 3), (2 ** 63, 3), (2 ** 63 - 1, 3), (0, 3), (1, 3), (0, 0)]
    assert outputs_of(text, tmp_path, "opt", arguments) == \
        outputs_of(WIDE_UNSIGNED_START, tmp_path, "orig", arguments)


ROW_STRIDE = r"""
#include <stdio.h>
#include <stdlib.h>
void kernel(int n, int m, char *A, char *B) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[(long)i * m] = B[(long)i * m] + 1;
#pragma endscop
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = atoi(argv[2]);
  char *B = calloc((size_t)n * m + m + 1, 1);     /* untouched pages stay virtual */
  if (!B) return 1;
  kernel(n, m, B + m, B);                          /* A's row i is B's row i + 1 */
  unsigned long s = 0;
  for (int i = 0; i <= n; i++) s = s * 31 + B[(long)i * m];
  printf("%lu\n", s);
  return 0;
}
"""


def test_the_alias_check_addresses_are_computed_in_long_long(tmp_path):
    """The original's ``A[(long)i * m]`` does not wrap; the check's ``&A[(n - 1) * (m)]``
    did, in int, at n = 64, m = 2^26: the overlapping arrays seemed apart (undefined
    behaviour; found with -fsanitize=undefined)."""
    from polysched.bench import compile_c, run_binary
    path = tmp_path / "rows.c"
    path.write_text(ROW_STRIDE)
    text = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert "do not overlap" not in text and "(((long long)(n)) - 1) * (m)" in text, text
    (tmp_path / "opt.c").write_text(text)
    built = compile_c(tmp_path / "opt.c", tmp_path / "opt", openmp=True,
                      cflags=["-O1", "-fsanitize=undefined", "-fno-sanitize-recover",
                              "-DPOLYSCHED_PARALLEL_MIN_WORK=0"])
    if not built.ok and "sanitize" in built.reason:
        pytest.skip("no UBSan runtime")
    assert built.ok, built.reason
    for threads in (1, 2):
        run = run_binary(tmp_path / "opt", args=["64", str(2 ** 26)], threads=threads, timeout=60)
        assert run.ok, run.reason
        # the chain B[(i + 1) m] = B[i m] + 1, in order: 0, 1, ..., 64
        assert int(run.stdout) == _chain_hash(64)


def _chain_hash(n: int) -> int:
    total = 0
    for value in range(n + 1):
        total = (total * 31 + value) % 2 ** 64
    return total


NEAR_INT64_MAX = r"""
#include <stdio.h>
double A[40][40];
int main(void) {
  long long i, j;
  for (i = 0; i < 40; i++) for (j = 0; j < 40; j++) A[i][j] = (double)((i * 7 + j) % 11);
#pragma scop
  for (i = 9223372036854775776LL; i < 9223372036854775806LL; i++)
    for (j = 9223372036854775776LL; j < 9223372036854775806LL; j++)
      A[i - 9223372036854775775LL][j - 9223372036854775775LL] =
          A[i - 9223372036854775776LL][j - 9223372036854775774LL] + A[i - 9223372036854775775LL][j - 9223372036854775776LL];
#pragma endscop
  for (i = 0; i < 40; i += 3) printf("%.17g\n", A[i][i / 2]);
  return 0;
}
"""


def test_literal_bounds_near_int64_max(tmp_path):
    """Pluto's skewed schedule puts i + j past 2**63 in the tile-size model, where
    islpy's Val(int) raised TypeError (an internal error); the loop code itself would
    overflow, and the original is kept."""
    modes = {"tile-par": FLAG_SETS["tile-par"], "isl": dict(scheduler="isl", tile=True, parallel=True)}
    outputs = assert_same_behaviour(tmp_path, NEAR_INT64_MAX, modes=modes, opts=("-O1",))
    assert all("original code kept" in text for text in outputs.values())


LONG_ESTIMATE = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  long lo = atol(argv[1]), hi = atol(argv[2]);
  static double A[600];
  for (int k = 0; k < 600; k++) A[k] = k % 7;
#pragma scop
  for (long i = lo; i < hi; i++)
    for (long j = lo; j <= i; j++)
      A[i - lo] += A[j - lo] * 0.5;
#pragma endscop
  for (int k = 0; k < 600; k += 7) printf("%.17g\n", A[k]);
  return 0;
}
"""


def test_a_work_estimate_that_may_overflow_long_long_is_left_out(tmp_path):
    """The ``if`` clause's ``(255 * lo + 255) / 256`` of 256-wide tiles overflowed long
    long at lo near 2^56, which the check allows (UBSan found it): without a bound
    that keeps it in range the loop always forks."""
    from polysched.bench import compile_c, run_binary
    path = tmp_path / "long.c"
    path.write_text(LONG_ESTIMATE)
    text = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True, tile_sizes=[256, 256])).text
    assert "#pragma omp parallel for" in text and "255 * ((long long)(lo))" not in text, text
    arguments = [str(2 ** 56 - 300), str(2 ** 56 - 100)]
    outputs = []
    for name, source in (("orig", LONG_ESTIMATE), ("opt", text)):
        (tmp_path / f"{name}.c").write_text(source)
        built = compile_c(tmp_path / f"{name}.c", tmp_path / name, openmp=True,
                          cflags=["-O1", "-ffp-contract=off", "-fsanitize=undefined", "-fno-sanitize-recover"])
        if not built.ok and "sanitize" in built.reason:
            pytest.skip("no UBSan runtime")
        assert built.ok, built.reason
        for threads in (1, 2):
            run = run_binary(tmp_path / name, args=arguments, threads=threads, timeout=60)
            assert run.ok, run.reason
            outputs.append(run.stdout)
    assert len(set(outputs)) == 1
