"""Random matrix-product nests (loop order, transposed operands, a scalar factor, a batch
loop, odd sizes), each tensorized with a randomly chosen legal match: the compiled
result equals the original's, on the host's ISA path."""
import random
import shutil

import pytest

import polysched as ps
from polysched.tensorize import builtin_intrinsics, match_statement

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
F64 = [i for i in builtin_intrinsics() if i.pattern.types[i.output] == "double"]


def _program(rng):
    sizes = {v: rng.choice([1, 3, 5, 8, 9, 16, 17, 24, 32]) for v in "ijk"}
    batch = rng.random() < 0.3
    order = rng.sample("ijk", 3)
    c = "C[i][j]" if rng.random() < 0.7 else "C[j][i]"
    a = "A[i][k]" if rng.random() < 0.7 else "A[k][i]"
    b = "B[k][j]" if rng.random() < 0.7 else "B[j][k]"
    dims = {"C": "[NI][NJ]" if c == "C[i][j]" else "[NJ][NI]",
            "A": "[NI][NK]" if a == "A[i][k]" else "[NK][NI]",
            "B": "[NK][NJ]" if b == "B[k][j]" else "[NJ][NK]"}
    if batch:
        c, a = c.replace("C[", "C[t][", 1), a.replace("A[", "A[t][", 1)
        dims["C"], dims["A"] = "[NT]" + dims["C"], "[NT]" + dims["A"]
    rhs = f"{a} * {b}" if rng.random() < 0.5 else f"alpha * {a} * {b}"
    body = f"{c} += {rhs};" if rng.random() < 0.5 else f"{c} = {rhs} + {c};"
    loops = (["t"] if batch else []) + order
    bound = {"t": "NT", "i": "NI", "j": "NJ", "k": "NK"}
    nest = "".join("  " * (d + 1) + f"for ({v} = 0; {v} < {bound[v]}; {v}++)\n" for d, v in enumerate(loops))
    def fill(name):
        n = dims[name].count("[")
        idx = [f"q{d}" for d in range(n)]
        ext = [e.strip("[]") for e in dims[name].replace("][", "] [").split()]
        head = "".join(f"for (int {q} = 0; {q} < {e}; {q}++) " for q, e in zip(idx, ext))
        sub = "".join(f"[{q}]" for q in idx)
        value = " + ".join(f"{rng.randint(1, 7)} * {q}" for q in idx)
        return head + f"{name}{sub} = ({value}) % 11 / 3.0 - 1;\n"
    def dump(name):
        n = dims[name].count("[")
        idx = [f"q{d}" for d in range(n)]
        ext = [e.strip("[]") for e in dims[name].replace("][", "] [").split()]
        head = "".join(f"for (int {q} = 0; {q} < {e}; {q}++) " for q, e in zip(idx, ext))
        return head + f'printf("%.17g\\n", {name}{"".join(f"[{q}]" for q in idx)});\n'
    return f"""#include <stdio.h>
#define NT 2
#define NI {sizes['i']}
#define NJ {sizes['j']}
#define NK {sizes['k']}
static double A{dims['A']}, B{dims['B']}, C{dims['C']};
static void kernel(double alpha)
{{
  int t, i, j, k;
#pragma scop
{nest}{'  ' * (len(loops) + 1)}{body}
#pragma endscop
}}
int main(void)
{{
  {fill('A')}  {fill('B')}  {fill('C')}  kernel(0.75);
  {dump('C')}  return 0;
}}
"""


def _tensorized_by_execution(tmp_path, rng, make, wanted: int, check=lambda program: None) -> None:
    """``wanted`` programs ``make(rng)`` with a legal match, each tensorized with a random
    one of them and verified against the original (``check``: more on the program)."""
    done = 0
    for attempt in range(60):
        if done == wanted:
            break
        path = tmp_path / f"p{attempt}.c"
        path.write_text(make(rng))
        p = ps.Program.from_file(path)
        check(p)
        stmt = p.scop.statements[0]
        legal = [m for rep in match_statement(p.scop, stmt, F64, p.deps) for m in rep.matches if m.legal]
        if not legal:
            continue
        m = rng.choice(legal)
        q = p.tensorize(stmt.name, m.intrinsic, match=m.loops)
        assert f"/* polysched: tensorize {m.intrinsic} */" in q.c_code()
        result = q.verify(dataset=None)
        assert result.status == "equal", (path.read_text(), m.describe(), result)
        done += 1
    assert done == wanted


def test_random_products_tensorized_by_execution(tmp_path):
    _tensorized_by_execution(tmp_path, random.Random(7), _program, 6)


def _flat(source: str) -> str:
    """``source`` (from `_program`) with its matrices reached through ``double *``
    parameters, sizes passed as ``int`` arguments, and subscripts as users of flat
    buffers write them (``A[i * nk + k]``, read by the front end as rows of a matrix).
    (With the ``#define`` sizes themselves the product is a constant stride, ``A[24i +
    k]``, which the matcher reads as rows too: tests/test_tensorize_flat_macro.py.)"""
    import re
    dims = {name: [e for e in re.findall(r"\[(\w+)\]", shape)]
            for name, shape in re.findall(r"\b([ABC])((?:\[\w+\])+)", source.split("static void")[0])}

    def flat(match):
        name, subscripts = match.group(1), re.findall(r"\[([^\]]+)\]", match.group(2))
        index = subscripts[0]
        for size, s in zip(dims[name][1:], subscripts[1:]):
            index = f"({index}) * {size.lower()} + {s}" if index != subscripts[0] else f"{index} * {size.lower()} + {s}"
        return f"{name}[{index}]"
    head, kernel = source.split("#pragma scop", 1)
    nest, tail = kernel.split("#pragma endscop", 1)
    nest = re.sub(r"\b([ABC])((?:\[[^\]]+\])+)", flat, nest)
    nest = re.sub(r"< (N[TIJK])\b", lambda m: "< " + m.group(1).lower(), nest)
    head = head.replace("static void kernel(double alpha)", "static void kernel(int nt, int ni, int nj, int nk, "
                        "double alpha, double *A, double *B, double *C)")
    tail = tail.replace("kernel(0.75);", "kernel(NT, NI, NJ, NK, 0.75, &A" + "[0]" * len(dims["A"]) + ", &B"
                        + "[0]" * len(dims["B"]) + ", &C" + "[0]" * len(dims["C"]) + ");")
    return head + "#pragma scop" + nest + "#pragma endscop" + tail


def test_random_products_on_flat_buffers_tensorized_by_execution(tmp_path):
    """The same products through ``double *`` parameters with linearised subscripts: they
    match as the two-dimensional ones do (their row sizes are the leading dimensions),
    and the tensorized programs compute what the originals compute."""
    def linearised(program):
        assert all(program.scop.arrays[name].linearized for name in "ABC"), program.scop.source
    _tensorized_by_execution(tmp_path, random.Random(11), lambda rng: _flat(_program(rng)), 4, linearised)
