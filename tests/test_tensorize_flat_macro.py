"""#11: flat buffers whose row sizes are ``#define`` macros (``C[i * M + j]`` with
``#define M 192``, folded by the front end to ``C[192i + j]``) run as micro-kernel calls:
the pattern layer reads the subscript as element ``(i, j)`` of rows of 192 when isl
proves ``0 <= j < 192`` over the statement's domain (`pattern.constant_rows`), and the
call gets 192 as leading dimension. Each program is checked by execution: the original
and the output, compiled with the same flags, print the same numbers."""
from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import islpy as isl
import pytest

import polysched as ps
from polysched.bench import compile_c, run_binary
from polysched.pipeline import OptimizeOptions, optimize
from polysched.tensorize import builtin_intrinsics, cost, match_statement
from polysched.tensorize.pattern import constant_rows, statement_pattern

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
CFLAGS = ["-O2", "-ffp-contract=off"]
NATIVE = any(cost.native_path(i) for i in builtin_intrinsics() if i.name == "dgemm_packed")
CALL = "/* polysched: tensorize "


def _source(body: str, loops: list[tuple[str, str]], sizes: dict[str, int], lengths: dict[str, str],
            types: dict[str, str] | None = None, out: str = "C") -> str:
    """A program running ``body`` in ``loops`` ((iterator, bound[, start]), outermost first)
    over flat buffers of ``lengths`` elements (``types``: element type per buffer,
    double by default), sizes as overridable ``#define``s, printing every element of
    ``out``."""
    types = types or {}
    defines = "".join(f"#ifndef {n}\n#define {n} {v}\n#endif\n" for n, v in sizes.items())
    params = ", ".join(f"{'' if n == out else 'const '}{types.get(n, 'double')} *{n}" for n in lengths)
    nest = "".join("  " * (d + 1) + f"for ({v} = {start}; {v} < {bound}; {v}++)\n"
                   for d, (v, bound, start) in enumerate((*loop, 0)[:3] for loop in loops))
    decls = "".join(f"  {types.get(n, 'double')} *{n} = malloc(sizeof(*{n}) * ({length}));\n"
                    for n, length in lengths.items())
    fills = "".join(f"  for (long q = 0; q < ({length}); q++) {n}[q] = (q * {3 + 2 * k} + {k}) % 11 - 4;\n"
                    for k, (n, length) in enumerate(lengths.items()))
    fmt = '"%.17g\\n", (double)' if types.get(out, "double") in ("double", "float") else '"%ld\\n", (long)'
    return f"""#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
{defines}
static void kernel({params})
{{
  int {', '.join(loop[0] for loop in loops)};
#pragma scop
{nest}{'  ' * (len(loops) + 1)}{body}
#pragma endscop
}}

int main(void)
{{
{decls}{fills}  kernel({', '.join(lengths)});
  for (long q = 0; q < ({lengths[out]}); q++) printf({fmt}{out}[q]);
  return 0;
}}
"""


def _prints(tmp_path: Path, source: str, tag: str, defines=None, threads=(1, 2)) -> list[str]:
    """What ``source`` prints at each thread count, compiled with ``gcc -O2
    -ffp-contract=off -fopenmp`` (``defines``: ``-D`` sizes)."""
    path = tmp_path / f"{tag}.c"
    path.write_text(source)
    binary = tmp_path / (tag + "".join(f"_{k}{v}" for k, v in (defines or {}).items()))
    built = compile_c(path, binary, cflags=CFLAGS, defines=defines, openmp=True)
    assert built.ok, built.reason
    outputs = []
    for t in threads:
        run = run_binary(binary, threads=t, timeout=60)
        assert run.ok, f"{tag} threads={t}: {run.reason}"
        outputs.append(run.stdout)
    return outputs


def _same_results(tmp_path: Path, original: str, output: str, defines=None) -> None:
    [expected] = _prints(tmp_path, original, "original", defines, threads=(1,))
    assert expected
    assert _prints(tmp_path, output, "output", defines) == [expected, expected]


def _default(tmp_path: Path, source: str) -> str:
    """``polysched optimize --tile --parallel`` of ``source``: its output text."""
    path = tmp_path / "input.c"
    path.write_text(source)
    return optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True)).text


def _tensorized(tmp_path: Path, source: str, intrinsic: str) -> tuple[ps.Program, str]:
    """(the program, its output) with its statement run as calls of ``intrinsic``."""
    path = tmp_path / "input.c"
    path.write_text(source)
    program = ps.Program.from_file(path)
    return program, program.tensorize(program.scop.statements[0].name, intrinsic).c_code()


GEMM = dict(body="C[i * M + j] += A[i * K + k] * B[k * M + j];",
            loops=[("i", "N"), ("j", "M"), ("k", "K")],
            lengths={"C": "N * M", "A": "N * K", "B": "K * M"})


# -- the view itself, with isl ------------------------------------------------------------
def _rows(subscript: str, domain: str):
    affs, sizes = constant_rows(isl.Aff(subscript), isl.Set(domain))
    return [str(a) for a in affs], sizes


def test_constant_rows_splits_only_what_isl_proves():
    box = "{ S[i, j, k] : 0 <= i < 8 and 0 <= j < 192 and 0 <= k < 160 }"
    affs, sizes = _rows("{ S[i, j, k] -> [(192i + j)] }", box)
    assert sizes == [192] and len(affs) == 2
    # planes of rows: (b * 192 + j) * 160 + k
    affs, sizes = _rows("{ S[i, j, k] -> [(30720i + 160j + k)] }", box)
    assert sizes == [192, 160] and len(affs) == 3
    # a constant row offset moves to the rows: (i + 1) * 160 + k, (7 - i) * 160 + k
    assert _rows("{ S[i, j, k] -> [(160i + k + 160)] }", box) == (
        ["{ S[i, j, k] -> [(1 + i)] }", "{ S[i, j, k] -> [(k)] }"], [160])
    assert _rows("{ S[i, j, k] -> [(-160i + k + 1120)] }", box) == (
        ["{ S[i, j, k] -> [(7 - i)] }", "{ S[i, j, k] -> [(k)] }"], [160])
    # the inner part leaves its row: j reaches 191 > 3, k - 1 reaches -1
    assert _rows("{ S[i, j, k] -> [(4i + j)] }", box)[1] == []
    assert _rows("{ S[i, j, k] -> [(160i + k - 1)] }", box)[1] == []
    # unless k starts at 1: rows of 160 from k - 1 = 0
    assert _rows("{ S[i, k] -> [(160i + k - 1)] }", "{ S[i, k] : 0 <= i < 8 and 1 <= k <= 160 }") == (
        ["{ S[i, k] -> [(i)] }", "{ S[i, k] -> [(-1 + k)] }"], [160])
    # a parameter inside a row: unknown, no view
    assert _rows("[o] -> { S[i, j, k] -> [(160i + k + o)] }",
                 "[o] -> { S[i, j, k] : 0 <= i < 8 and 0 <= j < 192 and 0 <= k < 160 }")[1] == []


# -- by execution ---------------------------------------------------------------------------
@pytest.mark.skipif(not NATIVE, reason="this CPU runs no shipped f64 micro-kernel natively")
def test_gemm_on_flat_buffers_with_define_sizes(tmp_path):
    """The issue's reproducer (smaller): the default pipeline calls a micro-kernel with
    the macro row sizes as leading dimensions; with other ``-D`` sizes the run-time
    check of the folded sizes runs the original code, which must also agree."""
    source = _source(**GEMM, sizes={"N": 40, "M": 48, "K": 24})
    output = _default(tmp_path, source)
    assert CALL + "dgemm_packed" in output
    assert "(long)(48)" in output and "(long)(24)" in output
    _same_results(tmp_path, source, output)
    _same_results(tmp_path, source, output, defines={"N": "9", "M": "13", "K": "5"})


def test_transposed_operands(tmp_path):
    """``B[j * K + k]`` (the packed kernel: any strides) and ``A[k * N + i]`` (the 4x8
    kernel reads A down its columns): each view's row size is the stride of its rows."""
    sizes = {"N": 16, "M": 24, "K": 20}
    source = _source("C[i * M + j] += A[i * K + k] * B[j * K + k];", GEMM["loops"], sizes,
                     {"C": "N * M", "A": "N * K", "B": "M * K"})
    program, output = _tensorized(tmp_path, source, "dgemm_packed")
    assert CALL + "dgemm_packed" in output
    _same_results(tmp_path, source, output)
    source = _source("C[i * M + j] += A[k * N + i] * B[k * M + j];", GEMM["loops"], sizes,
                     {"C": "N * M", "A": "K * N", "B": "K * M"})
    program, output = _tensorized(tmp_path, source, "dgemm_4x8")
    assert CALL + "dgemm_4x8" in output
    _same_results(tmp_path, source, output)


def test_sizes_not_multiples_of_the_kernel_shape(tmp_path):
    """4x8 blocks over 13 x 19 (remainder tiles run the statement) and a loop of 7."""
    source = _source(**GEMM, sizes={"N": 13, "M": 19, "K": 7})
    program, output = _tensorized(tmp_path, source, "dgemm_4x8")
    assert CALL + "dgemm_4x8" in output and "(long)(19)" in output
    _same_results(tmp_path, source, output)


def test_rows_from_an_offset(tmp_path):
    """``C[i * M + j - 1]`` for 1 <= j <= M: rows of M from column j - 1."""
    source = _source("C[i * M + j - 1] += A[i * K + k - 1] * B[(k - 1) * M + j - 1];",
                     [("i", "N"), ("j", "M + 1", 1), ("k", "K + 1", 1)], {"N": 12, "M": 16, "K": 9},
                     GEMM["lengths"])
    program, output = _tensorized(tmp_path, source, "dgemm_4x8")
    assert CALL + "dgemm_4x8" in output
    _same_results(tmp_path, source, output)


def test_rows_that_overlap_are_not_delinearised(tmp_path):
    """``C[i * 4 + j]`` with j up to 7: element (i, j + 4) is (i + 1, j), so no view and
    no call (a kernel holding both in registers would lose updates); still correct."""
    source = _source("C[i * W + j] += A[i * K + k] * B[k * M + j];", GEMM["loops"],
                     {"N": 16, "M": 8, "K": 12, "W": 4}, {"C": "(N - 1) * W + M", "A": "N * K", "B": "K * M"})
    path = tmp_path / "input.c"
    path.write_text(source)
    program = ps.Program.from_file(path)
    stmt = program.scop.statements[0]
    refs = {r.array: r for r in statement_pattern(program.scop, stmt).refs}
    assert refs["C"].sizes is None and len(refs["C"].rows) == 1
    assert refs["A"].sizes == ("", "12") and refs["B"].sizes == ("", "8")
    assert not any(m for rep in match_statement(program.scop, stmt, builtin_intrinsics(), program.deps)
                   for m in rep.matches)
    output = _default(tmp_path, source)
    assert CALL not in output
    _same_results(tmp_path, source, output)


def test_batch_of_products_as_planes_of_rows(tmp_path):
    """``A[(b * M + i) * K + k]``: planes of rows, the batch loop outside the calls."""
    source = _source("C[(b * M + i) * N + j] += A[(b * M + i) * K + k] * B[k * N + j];",
                     [("b", "T"), ("i", "M"), ("j", "N"), ("k", "K")], {"T": 3, "M": 12, "N": 16, "K": 10},
                     {"C": "T * M * N", "A": "T * M * K", "B": "K * N"})
    path = tmp_path / "input.c"
    path.write_text(source)
    program = ps.Program.from_file(path)
    refs = {r.array: r for r in statement_pattern(program.scop, program.scop.statements[0]).refs}
    assert refs["A"].sizes == ("", "12", "10") and refs["C"].sizes == ("", "12", "16")
    program, output = _tensorized(tmp_path, source, "dgemm_4x8")
    assert CALL + "dgemm_4x8" in output
    _same_results(tmp_path, source, output)


def test_int8_products(tmp_path):
    """int8 x int8 -> int32 on flat buffers (remainders in both block loops)."""
    source = _source("C[i * M + j] += A[i * K + k] * B[k * M + j];", GEMM["loops"], {"N": 10, "M": 20, "K": 36},
                     GEMM["lengths"], types={"C": "int32_t", "A": "int8_t", "B": "int8_t"})
    program, output = _tensorized(tmp_path, source, "i8dot_s8s8_4x8")
    assert CALL + "i8dot_s8s8_4x8" in output
    _same_results(tmp_path, source, output)


def _macro_flat(source: str) -> str:
    """A program of test_tensorize_apply_random's `_program` with its matrices declared
    one-dimensional (``static double A[NI * NK]``) and subscripted with the ``#define``
    sizes (``A[(i) * NK + k]``, a constant stride for the front end)."""
    head, rest = source.split("static void kernel", 1)
    dims = {name: re.findall(r"\[(\w+)\]", shape) for name, shape in re.findall(r"\b([ABC])((?:\[\w+\])+)", head)}
    head = re.sub(r"\b([ABC])((?:\[\w+\])+)", lambda m: f"{m.group(1)}[{' * '.join(dims[m.group(1)])}]", head)

    def flat(m):
        name, subscripts = m.group(1), re.findall(r"\[([^\]]+)\]", m.group(2))
        index = subscripts[0]
        for size, s in zip(dims[name][1:], subscripts[1:]):
            index = f"({index}) * {size} + {s}"
        return f"{name}[{index}]"
    return head + "static void kernel" + re.sub(r"\b([ABC])((?:\[[^\]]+\])+)", flat, rest)


def test_random_products_with_define_sizes(tmp_path):
    """Random products (loop orders, transposed operands, a scalar factor, a batch loop,
    odd sizes) over one-dimensional arrays: a random legal match of a bit-identical f64
    kernel, run against the original."""
    from test_tensorize_apply_random import _program
    exact = [i for i in builtin_intrinsics()
             if i.pattern.types[i.output] == "double" and i.exact and not i.library]
    rng = random.Random(5)
    done = 0
    for attempt in range(40):
        if done == 3:
            break
        source = _macro_flat(_program(rng))
        path = tmp_path / "input.c"
        path.write_text(source)
        program = ps.Program.from_file(path)
        assert all(len(program.scop.arrays[n].dims) == 1 and not program.scop.arrays[n].linearized for n in "ABC")
        stmt = program.scop.statements[0]
        legal = [m for rep in match_statement(program.scop, stmt, exact, program.deps) for m in rep.matches if m.legal]
        if not legal:
            continue
        match = rng.choice(legal)
        output = program.tensorize(stmt.name, match.intrinsic, match=match.loops).c_code()
        assert CALL + match.intrinsic in output, source
        _same_results(tmp_path, source, output)
        done += 1
    assert done == 3
