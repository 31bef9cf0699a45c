"""A pointer a loop steps (``a += m;`` at the end of a row, ``i++, e++`` in the
increment, ``q -= m;`` walking up), as row-by-row C walks an image or a matrix: read
as ``a[(long) i * (long) (m) + j]`` (its value on entry plus the steps taken), the step making
no statement, and left where the original leaves it (session 50: refused, "'a' is a
pointer used as a whole value"). Checked by execution at edge sizes, 1 and 2 threads:
the second nest reads what the first wrote one row before through the stepped
pointer (and r steps by a size_t), the last one walks backwards with a dependence along its rows."""
from __future__ import annotations

import islpy as isl
import pytest

from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import ScopError, extract
from compiled_runs import image_driver, oracle_results, outputs_of

PROGRAM = r"""#include <stdio.h>
#include <stdlib.h>
static void kernel(int n, int m, double *a, const double *b, double *c, float *d, const double *base) {
  double *p = a, *q = c + n * m;
  const double *r = b;
  float *e = d;
  size_t sm = m > 0 ? (size_t) m : 0;
#pragma scop
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++)
      p[j] = p[j] * 0.5 + r[j];
    p += m;
    for (int j = 0; j < m; j++)
      p[j] += 0.25 * r[j];
    r = r + sm;
  }
  for (int i = 1; i <= n; i++, e++) {
    e[0] = e[0] + (float) i;
    *e = *e * 2.0f;
  }
  for (int t = 0; t < n; t++) {
    q -= m;
    for (int j = 1; j < m; j++)
      q[j] = q[j - 1] + base[j];
  }
#pragma endscop
  printf("%ld %ld %ld %ld\n", (long) (p - a), (long) (r - b), (long) (e - d), (long) (q - c));
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = atoi(argv[2]);
  int cells = (n > 0 ? n : 0) * (m > 0 ? m : 0) + (m > 0 ? m : 0) + 16;
  double *a = malloc(sizeof(double) * cells), *b = malloc(sizeof(double) * cells);
  double *c = malloc(sizeof(double) * cells), *base = malloc(sizeof(double) * cells);
  float *d = malloc(sizeof(float) * cells);
  for (int k = 0; k < cells; k++) { a[k] = k % 11; b[k] = k % 3; c[k] = k % 5; base[k] = k % 4; d[k] = k % 6; }
  kernel(n, m, a, b, c, d, base);
  double s = 0;
  for (int k = 0; k < cells; k++) s += (a[k] + 2 * b[k] + 3 * c[k] + 4 * d[k]) * (k % 7 + 1);
  printf("%.17g\n", s);
  return 0;
}
"""


def test_stepped_pointers_are_read_as_rows():
    [scop] = extract(PROGRAM, filename="p.c")
    assert len(scop.statements) == 5                        # the steps make no statement
    first, second = scop.statements[:2]
    assert "(p + (long) i * (long) (m))[j]" in first.body          # the text: the pointer where it is
    assert "(p + ((long) i + 1) * (long) (m))[j]" in second.body   # after 'p += m'
    writes = scop.writes.intersect_domain(scop.domain)
    # the second nest writes row i + 1 of p, which the first writes at the next i
    expected = isl.UnionMap("[n, m] -> { S1[i, j] -> p[i + 1, j] : 0 <= i < n and 0 <= j < m }")
    assert expected.is_subset(writes.intersect_domain(isl.UnionSet("[n, m] -> { S1[i, j] }")))


@pytest.mark.parametrize("flags", [dict(tile=True, parallel=True),
                                   dict(fuse="max", tile=True, parallel=True, unroll=2),
                                   dict(scheduler="isl", tile=True, parallel=True),
                                   dict(scheduler="identity")])
def test_stepped_pointers_run_like_the_original(flags, tmp_path):
    source = tmp_path / "p.c"
    source.write_text(PROGRAM)
    text = optimize(source, OptimizeOptions.from_flags(**flags)).text
    assert "(p + (long) (" in text or "(p + (long) c" in text      # optimized, not kept as written
    sizes = [(5, 4), (0, 3), (3, 0), (1, 1), (-2, 5), (17, 9), (40, 33)]
    assert outputs_of(text, tmp_path, "new", sizes) == outputs_of(PROGRAM, tmp_path, "orig", sizes)


@pytest.mark.parametrize("region", [
    # read after its loop
    "  for (int i = 0; i < n; i++) {\n    for (int j = 0; j < m; j++)\n      a[j] = 1.0;\n    a += m;\n  }\n"
    "  a[0] = 2.0;\n",
    # stepped in a loop inside another loop of the region (a[k * n * m + ...])
    "  for (int k = 0; k < 3; k++)\n    for (int i = 0; i < n; i++) {\n      a[0] = 1.0;\n      a += m;\n    }\n",
    # by a value the region writes
    "  for (int i = 0; i < n; i++) {\n    a[0] = 1.0;\n    m = m + 1;\n    a += m;\n  }\n",
    # a loop that starts at a size
    "  for (int i = n; i < 2 * n; i++) {\n    a[0] = 1.0;\n    a += m;\n  }\n",
    # stepped twice
    "  for (int i = 0; i < n; i++) {\n    a[0] = 1.0;\n    a += m;\n    a += 1;\n  }\n",
    # under a condition
    "  for (int i = 0; i < n; i++) {\n    a[0] = 1.0;\n    if (i > 2)\n      a += m;\n  }\n",
])
def test_other_pointer_steps_stay_refused(region):
    text = f"void k(int n, int m, double *a) {{\n#pragma scop\n{region}#pragma endscop\n}}\n"
    with pytest.raises(ScopError, match="'a' is a pointer"):
        extract(text, filename="k.c")


def test_a_pointer_the_region_declares_again_stays_refused():
    text = ("void k(int n, int m, double *a, double *b) {\n#pragma scop\n  for (int i = 0; i < n; i++) {\n"
            "    a[0] = 1.0;\n    a += m;\n    {\n      double *a = b;\n      a[1] = 2.0;\n    }\n  }\n"
            "#pragma endscop\n}\n")
    with pytest.raises(ScopError, match="'a' is a pointer"):
        extract(text, filename="k.c")


def random_pointer_step_kernel(rng) -> str:
    """Random row sweeps over images a, b, c of w floats through pointers the row loop
    steps (``pa += w;`` before, between or after the statements, ``pa = pa + w`` or
    ``y++, pa += w``; ``qa -= w;`` first, walking up from the last row), mixed with
    direct ``a[y * w + x]`` accesses of the same images, called at sizes 0 to 33 by 20."""
    lo_x = rng.choice([0, 1, 1])
    hi_x = rng.choice(["w", "w - 1"]) if lo_x else "w"
    pointers = {"p" + k: f"{k}" for k in rng.sample("abc", rng.randint(1, 3))}
    if rng.random() < 0.5:
        pointers["q" + rng.choice("abc")] = None          # walks up: q -= w first
    reads = list(pointers)
    stmts = []
    for _ in range(rng.randint(1, 3)):
        terms = []
        for _ in range(rng.randint(1, 3)):
            dx = rng.choice([-1, 0, 1]) if lo_x and hi_x != "w" else 0
            xs = "x" if dx == 0 else f"x {'+' if dx > 0 else '-'} {abs(dx)}"
            if rng.random() < 0.6:
                terms.append(f"{rng.choice(['0.5f', '0.25f'])} * {rng.choice(reads)}[{xs}]")
            else:
                terms.append(f"{rng.choice(['0.5f', '1.5f'])} * {rng.choice('abc')}[y * w + {xs}]")
        target = f"{rng.choice(reads)}[x]" if rng.random() < 0.7 else f"{rng.choice('abc')}[y * w + x]"
        stmts.append(f"    for (int x = {lo_x}; x < {hi_x}; x++)\n      {target} {rng.choice(['=', '+='])} "
                     f"{' + '.join(terms)};\n")
    items, in_increment, after_step = list(stmts), [], False
    for name in pointers:
        if name.startswith("q"):
            items.insert(0, f"    {name} -= w;\n")
        elif rng.random() < 0.25:
            in_increment.append(f"{name} += w")
        else:
            at = rng.randint(0, len(items))
            after_step |= at < len(items)
            items.insert(at, f"    {name} {rng.choice(['+=', '= ' + name + ' +'])} w;\n")
    declarations = "".join(f"  float *{n} = {e if e else n[1] + ' + w * h'};\n" for n, e in pointers.items())
    header = f"for (int y = 0; y < {'h - 1' if after_step else 'h'}; {', '.join(['y++'] + in_increment)})"
    return f"""#include <stdio.h>
#include <stdlib.h>
static void kernel(int w, int h, float *a, float *b, float *c) {{
{declarations}#pragma scop
  {header} {{
{''.join(items)}  }}
#pragma endscop
}}
""" + image_driver("int", [(0, 0), (1, 1), (2, 3), (3, 3), (5, 9), (9, 5), (33, 20)])


@pytest.mark.parametrize("seed", [500001, 500002, 500003])
def test_random_pointer_step_kernels(seed, tmp_path):
    """The fuzzer's oracle (polysched.fuzz.runner.Evaluator) on random kernels of this
    kind."""
    import random
    results = oracle_results(random_pointer_step_kernel(random.Random(seed)), tmp_path)
    assert [(r.mode, r.kind, r.detail) for r in results if r.kind != "ok"] == []


def test_a_step_in_the_increment_of_a_loop_without_braces(tmp_path):
    """'for (...; i++, a += m) a[0] += 1.0;': the body is one statement (a crash,
    "'Assignment' object has no attribute 'block_items'", before it was read)."""
    source = ("#include <stdio.h>\n#include <stdlib.h>\nvoid k(int n, int m, double *a) {\n#pragma scop\n"
              "  for (int i = 0; i < n; i++, a += m)\n    a[0] = a[1] + 1.0;\n#pragma endscop\n}\n"
              "int main(int argc, char **argv) {\n  int n = atoi(argv[1]), m = atoi(argv[2]);\n"
              "  double a[200];\n  for (int i = 0; i < 200; i++) a[i] = i % 7;\n  k(n, m, a);\n"
              "  double s = 0;\n  for (int i = 0; i < 200; i++) s += a[i] * (i + 1);\n  printf(\"%.17g\\n\", s);\n}\n")
    path = tmp_path / "k.c"
    path.write_text(source)
    text = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    assert "(a + (long)" in text
    sizes = [(0, 3), (1, 1), (10, 3), (30, 1), (20, 0), (5, 2)]
    assert outputs_of(text, tmp_path, "new", sizes) == outputs_of(source, tmp_path, "orig", sizes)


def test_a_loop_stepping_no_pointer_leaves_its_start_macro_free():
    """A loop that steps no pointer does not read its start's value: 'for (j = N - 2;
    j >= 1; j--)' pinned N to its -D value in the context (9d61c07 read every loop's
    start), and the generated code then served that value only."""
    text = ("#define N 20\nvoid k(double a[N], double b[N]) {\n#pragma scop\n"
            "  for (int j = N - 2; j >= 1; j--)\n    a[j] = a[j + 1] + b[j];\n"
            "  for (int i = N / 2; i < N; i++)\n    b[i] = a[i];\n#pragma endscop\n}\n")
    [scop] = extract(text, filename="k.c")
    assert scop.parameters == ["N"]
    assert scop.context.is_equal(isl.Set("[N] -> { : N >= 1 }"))
