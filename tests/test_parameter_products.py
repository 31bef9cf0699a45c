"""A product of sizes in a loop bound or subscript (``p < w * h``, ``A[i + w * h]``):
one value for the whole region, read as a parameter of its own (``w__x__h``, emitted as
the source's ``(w * h)``, its range checked at run time like any size). The outputs
match the original at sizes 0, 1, negative, and where the product leaves the checked
range, at 1 and 2 threads; unsigned factors (whose product wraps) stay refused."""
from __future__ import annotations

import pytest

from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import ScopError, extract
from compiled_runs import outputs_of

KERNEL = r"""#include <stdio.h>
#include <stdlib.h>
static void kernel(int w, int h, long c, const double *in, double *out, double *acc)
{
  int p, q, k;
#pragma scop
  for (p = 0; p < w * h; p++)
    out[p] = in[p] * 0.5 + w * h;
  for (q = 1; q < w * h - 1; q++)
    out[q] = out[q] + 0.25 * (out[q - 1] + out[q + 1]);
  for (k = 0; k < c * w * h; k++)
    acc[k % 7] = acc[k % 7] + 1.0 * k;
  for (p = 0; p < h; p++)
    for (q = 0; q < w; q++)
      out[p * w + q] += acc[(p + q) % 7] + (double)(w * h - p);
#pragma endscop
}
int main(int argc, char **argv)
{
  int w = atoi(argv[1]), h = atoi(argv[2]);
  long c = atol(argv[3]);
  int n = w * h > 0 ? w * h : 1;
  double *in = malloc(sizeof(double) * n), *out = calloc(n + 2, sizeof(double)), acc[7] = {0};
  for (int i = 0; i < n; i++) in[i] = (i * 37 % 11) * 0.125;
  kernel(w, h, c, in, out, acc);
  for (int i = 0; i < n; i++) printf("%.17g\n", out[i]);
  for (int i = 0; i < 7; i++) printf("%.17g\n", acc[i]);
  return 0;
}
"""

ARGUMENTS = [(13, 9, 3), (0, 5, 1), (5, 0, 2), (1, 1, 1), (-3, 4, 2), (-3, -4, 1), (100, 70, 0), (100, 70, -2),
             (3, 3, 8000000)]      # c * w * h = 72,000,000: beyond the range the optimized code assumes


def test_a_product_of_sizes_is_a_parameter():
    [scop] = extract(KERNEL, filename="k.c")
    assert {"w__x__h", "c__x__w__x__h"} <= set(scop.parameters)
    # computed in long long (the run-time check must not overflow where the source would not run)
    assert scop.c_texts["w__x__h"] == "(((long long) w) * h)"
    assert scop.c_texts["c__x__w__x__h"] == "(((long long) (((long long) c) * w)) * h)"
    # the product in a value (out[p] = ... + w * h) stays what it is: a read of w and h
    body = next(s for s in scop.statements if s.name == "S0")
    assert "w__x__h" not in {a.array for a in body.accesses}


@pytest.mark.parametrize("flags", [dict(tile=True, parallel=True), dict(scheduler="isl", tile=True, parallel=True),
                                   dict(fuse="max", tile=True, parallel=True, unroll=4)])
def test_products_run_like_the_original(flags, tmp_path):
    source = tmp_path / "k.c"
    source.write_text(KERNEL)
    result = optimize(source, OptimizeOptions.from_flags(**flags))
    assert "(((long long) w) * h)" in result.text
    assert outputs_of(result.text, tmp_path, "new", ARGUMENTS) == outputs_of(KERNEL, tmp_path, "orig", ARGUMENTS)


@pytest.mark.parametrize("declaration, message", [
    ("unsigned w, int h", "non-affine product 'w * h'"),          # wraps, and compares unsigned
    ("int w, int h, int *np", None),
])
def test_what_stays_refused(declaration, message):
    body = "p < w * h" if message else "p < w * *np"
    text = (f"void f({declaration}, double *a)\n{{\n  int p;\n#pragma scop\n  for (p = 0; {body}; p++)\n"
            "    a[p] = a[p] + 1.0;\n#pragma endscop\n}\n")
    with pytest.raises(ScopError) as info:
        extract(text, filename="f.c")
    assert (message or "non-affine product 'w * (*np)'") in info.value.message


def test_a_factor_whose_address_is_taken_is_checked_against_the_arrays():
    text = ("void g(int *);\nvoid f(int w, int h, double *a)\n{\n  int p;\n  g(&w);\n#pragma scop\n"
            "  for (p = 0; p < w * h; p++)\n    a[p] = a[p] + 1.0;\n#pragma endscop\n}\n")
    [scop] = extract(text, filename="f.c")
    assert "w" in scop.address_taken and "h" not in scop.address_taken


HELPER_14 = {
    # a product in a data-dependent condition: the overlap check took its address
    "condition": ("int w, int h, int n, double *A, double *B",
                  "  for (p = 0; p < n; p++)\n    if (A[p] > w * h)\n      B[p] = 1.0;\n"),
    # a second loop variable set from a product: the model's name was emitted
    "induction": ("int w, int h, int n, double *A, double *B",
                  "  if (w < 100)\n    for (p = 0, q = w * h - 1; p < q; p++, q--) {\n      t = A[p];\n"
                  "      A[p] = A[q];\n      A[q] = t;\n    }\n"),
    # under an 'if' the source does not take, the check computed w * h in int: overflow
    "guarded": ("int w, int h, int n, double *A, double *B",
                "  if (w < 100)\n    for (p = 0; p < w * h; p++)\n      A[p] += 1.0;\n"),
}


@pytest.mark.parametrize("case", list(HELPER_14))
def test_products_in_conditions_loop_variables_and_unreached_code(case, tmp_path):
    params, body = HELPER_14[case]
    text = ("#include <stdio.h>\n#include <stdlib.h>\nstatic void kernel(" + params + ")\n{\n  int p, q;\n"
            "  double t;\n#pragma scop\n" + body + "#pragma endscop\n}\n"
            "int main(int argc, char **argv)\n{\n  int w = atoi(argv[1]), h = atoi(argv[2]), n = atoi(argv[3]);\n"
            "  double A[100], B[100] = {0};\n  for (int k = 0; k < 100; k++) A[k] = k % 17;\n"
            "  if (n > 100 || (w < 100 && w * (long)h > 100)) return 1;\n  kernel(w, h, n, A, B);\n"
            "  for (int k = 0; k < 100; k++) printf(\"%g %g\\n\", A[k], B[k]);\n  return 0;\n}\n")
    source = tmp_path / "k.c"
    source.write_text(text)
    result = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True))
    arguments = [(3, 4, 50), (0, 5, 10), (10, 10, 100), (65536, 65537, 5)]
    assert outputs_of(result.text, tmp_path, "new", arguments) == outputs_of(text, tmp_path, "orig", arguments)


CAST = r"""#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int w = atoi(argv[1]), h = atoi(argv[2]);
  long n = (long)(w > 0 ? w : 1) * (h > 0 ? h : 1);
  double *a = calloc(n + 1, sizeof(double));
  long p;
#pragma scop
  for (p = 0; p < (long)w * h; p++)
    a[p] = a[p] + 0.5 * p;
#pragma endscop
  double s = 0;
  for (long i = 0; i < n; i++) s += a[i] * (i % 7);
  printf("%.17g\n", s);
  return 0;
}
"""


def test_a_factor_cast_to_a_signed_type(tmp_path):
    """helper-14: 'p < (long)w * h', the usual way to keep the product from overflowing
    int, was refused; a cast to a signed integer type is a factor like the others."""
    [scop] = extract(CAST, filename="c.c")
    assert scop.parameters == ["w__x__h"] and scop.variable_types["w__x__h"] == "long"
    source = tmp_path / "c.c"
    source.write_text(CAST)
    text = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True)).text
    arguments = [(7, 9), (0, 5), (1, 1), (-3, 4), (300, 200)]
    assert outputs_of(text, tmp_path, "new", arguments) == outputs_of(CAST, tmp_path, "orig", arguments)


PLANES = r"""#include <stdio.h>
#include <stdlib.h>
#define NPIX (w * h)
static void kernel(int w, int h, int c, const float *in, float *out)
{
  int i, p;
#pragma scop
  for (i = 0; i < c; i++)
    for (p = 0; p < NPIX; p++)
      out[i * (w * h) + p] = in[i * NPIX + p] * 2.0f + in[(c - 1 - i) * (w * h) + NPIX - 1 - p];
#pragma endscop
}
int main(int argc, char **argv)
{
  int w = atoi(argv[1]), h = atoi(argv[2]), c = atoi(argv[3]);
  int n = w * h * c > 0 ? w * h * c : 1;
  float *in = malloc(sizeof(float) * n), *out = calloc(n, sizeof(float));
  for (int k = 0; k < n; k++) in[k] = (k * 37 % 11) * 0.125f;
  kernel(w, h, c, in, out);
  for (int k = 0; k < n; k++) printf("%.9g\n", out[k]);
  return 0;
}
"""


@pytest.mark.parametrize("flags", [dict(tile=True, parallel=True), dict(fuse="max", tile=True, parallel=True)])
def test_planes_of_a_product_and_a_macro_of_one(flags, tmp_path):
    """helper-14: ``#define NPIX (w * h)`` in a bound, and planes of ``w * h`` elements
    (``out[i * (w * h) + p]``), were refused as non-affine products. The macro's product
    is a parameter as the written one is, and the planes are rows of that size."""
    [scop] = extract(PLANES, filename="k.c")
    assert "w__x__h" in scop.parameters
    source = tmp_path / "k.c"
    source.write_text(PLANES)
    result = optimize(source, OptimizeOptions.from_flags(**flags))
    assert "#pragma omp parallel for" in result.text
    arguments = [(7, 5, 3), (0, 5, 3), (5, 0, 2), (-3, -5, 2), (33, 17, 1), (1, 1, 0), (1, 1, 1)]
    assert outputs_of(result.text, tmp_path, "new", arguments) == outputs_of(PLANES, tmp_path, "orig", arguments)
