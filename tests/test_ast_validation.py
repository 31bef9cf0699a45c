"""Translation validation of isl's AST (emit_c/validate.py).

The oracle is execution: the AST is printed by isl itself, compiled with each
statement call printing its instance, and run. `ast_dates` must name exactly the
instances that ran, and its dates must increase along the run."""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import islpy as isl
import pytest

import polysched as ps
from polysched.bench import get
from polysched.emit_c.validate import CodegenError, ast_dates, validate_ast
from wrong_pipeline import reverse_every_schedule

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

PRELUDE = r"""#include <stdio.h>
#define min(x, y) ((x) < (y) ? (x) : (y))
#define max(x, y) ((x) > (y) ? (x) : (y))
#define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
static void ran(const char *name, const long *args, int n)
{ printf("%s", name); for (int k = 0; k < n; k++) printf(" %ld", args[k]); printf("\n"); }
#define CALL(name, ...) ran(name, (long[]){__VA_ARGS__}, sizeof((long[]){__VA_ARGS__}) / sizeof(long))
"""


def executed(ast: isl.AstNode, statements: list[str]) -> list[tuple]:
    """The statement instances the AST runs, in order (compiled and run)."""
    macros = "".join(f'#define {s}(...) CALL("{s}", __VA_ARGS__);\n' for s in statements)
    with tempfile.TemporaryDirectory(prefix="polysched-ast-") as directory:
        work = Path(directory)
        (work / "a.c").write_text(PRELUDE + macros + "int main(void) {\n" + ast.to_C_str() + "return 0;\n}\n")
        subprocess.run(["gcc", "-O0", "-o", str(work / "a"), str(work / "a.c")], check=True, timeout=60)
        lines = subprocess.run([str(work / "a")], capture_output=True, text=True, check=True, timeout=60).stdout
    return [(fields[0], *map(int, fields[1:])) for fields in (line.split() for line in lines.splitlines())]


def points(umap: isl.UnionMap) -> dict[tuple, tuple]:
    """{instance: date} of a finite single-valued map."""
    found = {}

    def on_map(m: isl.Map):
        name, n = m.get_tuple_name(isl.dim_type.in_), m.dim(isl.dim_type.in_)

        def on_point(p: isl.Point):
            coords = [p.get_coordinate_val(isl.dim_type.set, k).to_python()
                      for k in range(p.get_space().dim(isl.dim_type.set))]
            found[(name, *coords[:n])] = tuple(coords[n:])
        m.wrap().foreach_point(on_point)

    umap.foreach_map(on_map)
    return found


def tree(domain: str, *bands: str, unroll: bool = False) -> isl.Schedule:
    schedule = isl.Schedule.from_domain(isl.UnionSet(domain))
    node = schedule.get_root().child(0)
    for band in bands:
        node = node.insert_partial_schedule(isl.MultiUnionPwAff(band))
        if unroll:
            node = node.band_set_ast_build_options(isl.UnionSet("{ unroll[x] }"))
        node = node.child(0)
    return node.get_schedule()


def tiled(domain: str, band: str, size: int) -> isl.Schedule:
    schedule = tree(domain, band)
    node = schedule.get_root().child(0)
    n = node.band_n_member()
    sizes = isl.MultiVal.zero(node.band_get_space())
    for k in range(n):
        sizes = sizes.set_val(k, isl.Val(size))
    return node.band_tile(sizes).get_schedule()


CASES = {
    "triangular tiles": tiled("{ S[i, j] : 0 <= i < 11 and 0 <= j <= i }",
                              "[{ S[i, j] -> [(i)] }, { S[i, j] -> [(j)] }]", 4),
    "skewed tiles": tiled("{ S[t, i] : 0 <= t < 5 and 1 <= i < 9 }",
                          "[{ S[t, i] -> [(t)] }, { S[t, i] -> [(2t + i)] }]", 3),
    "strided domain": tree("{ S[i, k] : 0 <= i < 6 and 0 <= k < 9 and k mod 3 = 1 }",
                           "[{ S[i, k] -> [(k)] }, { S[i, k] -> [(i + k)] }]"),
    "two statements": tree("{ S[i] : 0 <= i < 7; T[i, j] : 0 <= i < 7 and i <= j < 7 }",
                           "[{ S[i] -> [(i)]; T[i, j] -> [(j)] }]",
                           "[{ S[i] -> [(0)]; T[i, j] -> [(i + 1)] }]"),
    "unrolled": tree("{ S[i, j] : 0 <= i < 5 and 0 <= j < 3 }",
                     "[{ S[i, j] -> [(i)] }]", "[{ S[i, j] -> [(j)] }]", unroll=True),
    # isl's own bug (validate.py): the second member's loop is dropped, k = 1 never runs
    "isl drops a loop": tree("{ S[i, j, k] : 2 <= i <= 3 and 0 <= j <= 3 and 0 <= k <= 1 }",
                             "[{ S[i, j, k] -> [(4i + j)] }, { S[i, j, k] -> [(i + 2k)] }]"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_ast_dates_name_the_instances_the_compiled_ast_runs_in_its_order(case):
    schedule = CASES[case]
    statements = sorted({s.get_tuple_name() for s in _sets(schedule.get_domain())})
    ast = isl.AstBuild.from_context(isl.Set("{ : }")).node_from_schedule(schedule)
    arity = {s.get_tuple_name(): s.dim(isl.dim_type.set) for s in _sets(schedule.get_domain())}
    dates = points(ast_dates(ast, [f"c{k}" for k in range(8)], isl.Space.params_alloc(isl.DEFAULT_CONTEXT, 0), arity))
    run = executed(ast, statements)
    assert sorted(run) == sorted(dates)                      # the same instances, each once
    assert len(run) == len(set(run))
    order = [dates[instance] for instance in run]
    assert order == sorted(order) and len(set(order)) == len(order)
    instances = set(points(isl.UnionMap.from_domain(schedule.get_domain())))
    assert (set(run) == instances) == (case != "isl drops a loop")


def _sets(uset: isl.UnionSet) -> list[isl.Set]:
    found: list[isl.Set] = []
    uset.foreach_set(found.append)
    return found


SOURCE = r"""double A[20][20];
void kernel(void) {
  int i, j;
#pragma scop
  for (i = 1; i < 20; i++)
    for (j = 0; j < 20; j++)
      A[i][j] = A[i - 1][j] + 1.0;
#pragma endscop
}
"""


def _program():
    import polysched as ps
    return ps.Program.from_source(SOURCE, filename="validate.c")


def test_validate_rejects_an_ast_that_breaks_a_dependence():
    """The AST of a schedule reversing i (which carries A[i-1][j] -> A[i][j]) runs every
    instance once, in an order that breaks the dependence."""
    p = _program()
    reversed_i = isl.Schedule.from_domain(p.scop.domain).get_root().child(0).insert_partial_schedule(
        isl.MultiUnionPwAff("[{ S0[i, j] -> [(-i)] }, { S0[i, j] -> [(j)] }]")).get_schedule()
    ast = isl.AstBuild.from_context(p.scop.context).node_from_schedule(reversed_i)
    with pytest.raises(CodegenError, match="breaks a dependence"):
        validate_ast(ast, ["c0", "c1"], p.scop, p.deps)
    validate_ast(ast, ["c0", "c1"], p.scop, None)                # the instances alone are right


def test_emit_refuses_a_parallel_mark_on_a_loop_that_carries_a_dependence():
    """helper-58: the staged API's ``emit_file`` printed ``#pragma omp parallel for`` on
    ``i``, which carries ``A[i-1][j] -> A[i][j]`` (a race: wrong output at 2 threads in 9
    of 20 runs on its kernel), though ``check`` called the tree illegal. The same mark
    on ``j`` is printed."""
    from polysched.dependence import check
    from polysched.emit_c import emit_file
    p = _program()
    band = p.scop.schedule.get_root().child(0)
    on_i = band.insert_mark(isl.Id("parallel")).get_schedule()
    assert not check(p.scop, p.deps, on_i).legal
    with pytest.raises(CodegenError, match=r"mark 'parallel' is on a loop that carries a dependence: S0\["):
        emit_file([p.scop], [on_i], deps=[p.deps])
    with pytest.raises(CodegenError, match="carries a dependence"):
        emit_file([p.scop], [on_i])                         # dependences computed
    on_j = band.child(0).insert_mark(isl.Id("parallel")).get_schedule()
    assert check(p.scop, p.deps, on_j).legal
    text = emit_file([p.scop], [on_j], deps=[p.deps])
    assert text.count("#pragma omp parallel for") == 1
    assert text.index("#pragma omp parallel for") > text.index("for (int c0")


def test_emit_says_an_illegal_schedule_is_illegal_not_isl():
    """An illegal order given to code generation is the schedule's fault: the message
    says so (helper-58: it said "isl's AST breaks a dependence")."""
    from polysched.emit_c import generate
    p = _program()
    reversed_i = isl.Schedule.from_domain(p.scop.domain).get_root().child(0).insert_partial_schedule(
        isl.MultiUnionPwAff("[{ S0[i, j] -> [(-i)] }, { S0[i, j] -> [(j)] }]")).get_schedule()
    with pytest.raises(CodegenError, match=r"^the schedule violates a dependence .*the code runs \{ S0\[\d+, 0\] \} "
                                           r"before \(or with\) \{ S0\["):
        generate(p.scop, reversed_i, deps=p.deps)


def test_validate_rejects_an_ast_of_part_of_the_domain():
    p = _program()
    part = isl.Schedule.from_domain(p.scop.domain.intersect(isl.UnionSet("{ S0[i, j] : j < 19 }")))
    ast = isl.AstBuild.from_context(p.scop.context).node_from_schedule(part)
    with pytest.raises(CodegenError, match=r"never runs: .*S0\[\d+, 19\]"):
        validate_ast(ast, ["c0", "c1"], p.scop, p.deps)
    validate_ast(isl.AstBuild.from_context(p.scop.context).node_from_schedule(p.scop.schedule),
             ["c0", "c1"], p.scop, p.deps)


def test_a_wrong_schedule_that_slips_past_check_never_becomes_code(monkeypatch, tmp_path, capsys):
    """A pipeline whose scheduler reverses every loop and whose legality check says yes
    (a scheduler bug): the AST breaks a dependence, so `optimize` keeps the original
    schedule, says why, and the output computes what the original does."""
    from polysched import pipeline
    from polysched.bench import verify

    reverse_every_schedule(monkeypatch)
    source = tmp_path / "shift.c"
    source.write_text("#include <stdio.h>\n" + SOURCE +
                      'int main(void) { kernel(); printf("%g\\n", A[19][3]); return 0; }\n')
    result = pipeline.optimize(source, pipeline.OptimizeOptions.from_flags())
    [region] = result.regions
    assert region.fallback.startswith("the original schedule (the schedule violates a dependence")
    assert "violates a dependence" in capsys.readouterr().err
    out = tmp_path / "out.c"
    out.write_text(result.text)
    assert verify(source, out).ok


def test_a_division_printed_as_c_slash_needs_a_non_negative_dividend():
    """isl prints floor(c0 / 2) as C's ``c0 / 2`` (pdiv_q) when it knows c0 >= 0; C
    truncates towards zero, so for c0 = -3 the text would compute -1, not -2. The
    reader holds isl to that promise wherever the expression is evaluated."""
    from polysched.emit_c.validate import _Reader
    half = isl.AstExpr.from_id(isl.Id("c0")).pdiv_q(isl.AstExpr.from_val(isl.Val(2)))
    space = isl.Space.set_alloc(isl.DEFAULT_CONTEXT, 0, 1).set_dim_name(isl.dim_type.set, 0, "c0")
    reader = _Reader(space)
    reader.value(half)
    reader.check_dividends(isl.Set("{ [c0] : 0 <= c0 <= 9 }").set_dim_name(isl.dim_type.set, 0, "c0"))
    reader.value(half)
    with pytest.raises(CodegenError, match=r"negative value in c0 / 2"):
        reader.check_dividends(isl.Set("{ [c0] : -3 <= c0 <= 9 }").set_dim_name(isl.dim_type.set, 0, "c0"))


# c0 >= 2 && (c0 - 2) % 4 <= 2, and c0 < 2 || (c0 - 2) % 4 <= 2: the % runs where c0 >= 2
@pytest.mark.parametrize("connective", ["and_", "or_"])
def test_a_division_on_the_right_of_and_or_or_is_evaluated_only_where_c_gets_there(connective):
    """reverse + unroll_and_jam on gemm: isl guards ``(ni - 2) % 4`` with ``ni >= 6 &&``.
    The reader checked the dividend over every ni >= 1 and refused the AST
    (CodegenError, no code for a legal schedule). C does not evaluate the right side
    of ``&&`` where the left is false (of ``||``, where it is true)."""
    from polysched.emit_c.validate import _Reader
    c0 = isl.AstExpr.from_id(isl.Id("c0"))
    two = isl.AstExpr.from_val(isl.Val(2))
    rest = c0.sub(two).pdiv_r(isl.AstExpr.from_val(isl.Val(4))).le(two)
    left = c0.ge(two) if connective == "and_" else c0.lt(two)
    condition = getattr(left, connective)(rest)
    space = isl.Space.set_alloc(isl.DEFAULT_CONTEXT, 0, 1).set_dim_name(isl.dim_type.set, 0, "c0")
    reader = _Reader(space)
    where = isl.Set("{ [c0] : -5 <= c0 <= 9 }").set_dim_name(isl.dim_type.set, 0, "c0")
    reader.condition(condition)
    reader.check_dividends(where)
    # the same % outside the connective is still held to isl's promise
    reader.condition(rest)
    with pytest.raises(CodegenError, match=r"negative value in \(c0 - 2\) % 4"):
        reader.check_dividends(where)


def test_reverse_then_unroll_and_jam_generates_and_runs():
    """The program the reader used to refuse (see above): generated, and verified."""
    q = ps.Program.from_file(get("gemm").path).reverse("S0", 0).unroll_and_jam("S0", 0, 4)
    assert "% 4" in q.region_code()
    assert q.verify().ok


MATMUL = r"""double Cd[40][40], Ad[40][40], Bd[40][40];
long Cl[40][40], Al[40][40], Bl[40][40];
void f(int ni, int nj, int nk) {
  int i, j, k;
#pragma scop
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      for (k = 0; k < nk; k++)
        Cd[i][j] += Ad[i][k] * Bd[k][j];
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      for (k = 0; k < nk; k++)
        Cl[i][j] += Al[i][k] * Bl[k][j];
#pragma endscop
}
"""


def _hand_tensorized(tile: str, stmt: str, intrinsic: str, arrays: str) -> tuple:
    """The front end's scop of MATMUL and a tree: ``stmt`` alone, its band ``tile`` of
    block loops, then a hand-written tensorize mark over a ``[k, i, j]`` band."""
    from polysched.dependence import analyze
    from polysched.scop import extract
    [scop] = extract(MATMUL, filename="mm.c")
    domain = scop.domain.intersect(isl.UnionSet(f"[ni, nj, nk] -> {{ {stmt}[i, j, k] }}"))
    other = scop.domain.subtract(domain)
    tree = isl.Schedule.from_domain(domain)
    if tile:
        tree = tree.insert_partial_schedule(isl.MultiUnionPwAff(tile))
        leaf = tree.get_root().child(0).child(0)
    else:
        leaf = tree.get_root().child(0)
    node = leaf.insert_partial_schedule(isl.MultiUnionPwAff(
        f"[{{ {stmt}[i, j, k] -> [(k)] }}, {{ {stmt}[i, j, k] -> [(i)] }}, {{ {stmt}[i, j, k] -> [(j)] }}]"))
    node = node.insert_mark(isl.Id(f"tensorize({intrinsic}; stmt={stmt}, l_k=k, l_i=i, l_j=j, {arrays})"))
    rest = isl.Schedule.from_domain(other).insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(
        isl.UnionMap("[ni, nj, nk] -> { S0[i, j, k] -> [i, j, k]; S1[i, j, k] -> [i, j, k] }").intersect_domain(other)))
    tree = node.get_schedule()
    return scop, analyze(scop), rest.sequence(tree) if stmt == "S1" else tree.sequence(rest)


def test_emit_refuses_a_hand_written_tensorize_mark_whose_block_is_no_call():
    """helper-61: ``emit_file`` printed one ``dgemm_4x8`` call per 8 x 4 block (and per
    partial block) under a hand-written mark, and the double kernel on ``long`` arrays;
    ``Program.set_schedule`` refused both, ``emit_file`` now does too."""
    from polysched.emit_c import emit_file
    operands = "a_C=Cd, a_A=Ad, a_B=Bd"
    scop, deps, tree = _hand_tensorized("[{ S0[i, j, k] -> [(floor(i / 8))] }, { S0[i, j, k] -> [(floor(j / 4))] }]",
                                        "S0", "dgemm_4x8", operands)
    with pytest.raises(CodegenError, match=r"^the tensorize mark of dgemm_4x8: loop i of S0 does not run 4 values"):
        emit_file([scop], [tree], deps=[deps])
    with pytest.raises(ps.TransformError, match="loop i of S0 does not run 4 values"):
        ps.Program.from_source(MATMUL, filename="mm.c").set_schedule(tree)
    scop, deps, tree = _hand_tensorized("", "S1", "dgemm_packed", "a_C=Cl, a_A=Al, a_B=Bl")
    with pytest.raises(CodegenError, match=r"^the tensorize mark of dgemm_packed: S1 does not compute what "
                                           r"dgemm_packed does with this loop and operand mapping"):
        emit_file([scop], [tree], deps=[deps])
    scop, deps, tree = _hand_tensorized("", "S0", "dgemm_packed", operands)        # the same on double: a call
    assert "polysched_dgemm_packed(" in emit_file([scop], [tree], deps=[deps])


def test_check_and_emit_refuse_a_tree_with_an_extension_node_with_a_polysched_error():
    """helper-61: a raw islpy error ("cannot handle extension nodes") from both; now the
    refusal of the nodes polysched does not take, as for a guard."""
    from polysched.dependence import ScheduleError, check
    from polysched.emit_c import emit_file
    from polysched.dependence import analyze
    from polysched.scop import extract
    [scop] = extract(MATMUL, filename="mm.c")
    deps = analyze(scop)
    band = isl.MultiUnionPwAff.from_union_map(isl.UnionMap(
        "[ni, nj, nk] -> { S0[i, j, k] -> [i, j, k]; S1[i, j, k] -> [i, j, k] }").intersect_domain(scop.domain))
    tree = isl.Schedule.from_domain(scop.domain).insert_partial_schedule(band)
    node = tree.get_root().child(0).insert_sequence(isl.UnionSetList.from_union_set(
        isl.UnionSet("[ni, nj, nk] -> { S0[i, j, k] }")).add(isl.UnionSet("[ni, nj, nk] -> { S1[i, j, k] }")))
    leaf = node.child(0).child(0)
    extension = isl.ScheduleNode.from_extension(isl.UnionMap("[ni, nj, nk] -> { [i, j, k] -> S1[i, j, k] }"))
    tree = leaf.graft_after(extension).get_schedule()
    for call in (lambda: check(scop, deps, tree), lambda: emit_file([scop], [tree], deps=[deps])):
        with pytest.raises(ScheduleError, match=r"^the tree has extension nodes, which polysched does not take"):
            call()


def test_check_refuses_a_guard_node_that_would_drop_instances():
    """helper-61: ``check`` called a tree legal whose guard ``{ [] : 0 = 1 }``-style
    node drops instances (emit's AST validation refused it); polysched takes bands,
    sequences, sets, filters and marks only, as ``Program.set_schedule`` says."""
    from polysched.dependence import ScheduleError, check
    p = _program()
    guarded = p.scop.schedule.get_root().child(0).insert_guard(isl.Set("{ : 1 = 0 }")).get_schedule()
    with pytest.raises(ScheduleError, match=r"^the tree has guard nodes, which polysched does not take"):
        check(p.scop, p.deps, guarded)
    with pytest.raises(ps.TransformError, match="the tree has guard nodes"):
        p.set_schedule(guarded)
