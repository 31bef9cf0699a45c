"""Matrices with a leading dimension (BLAS's convention): ``C[i * ldc + j]`` for
``j < n`` is the element (i, j) of rows of ``ldc``, assuming ``n <= ldc`` (checked at
run time; the original code runs where it fails, e.g. on overlapping rows). Before,
the subscript was split piecewise for every ``n <= 2 ldc``: rows overlapped, the i loop
carried a dependence and ran sequentially, with a fork/join per row."""
from __future__ import annotations

import islpy as isl
import pytest

from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import extract

from compiled_runs import outputs_of

GEMM_LD = r"""#include <stdio.h>
#include <stdlib.h>
static void gemm(int m, int n, int k, double alpha, const double *A, int lda, const double *B, int ldb,
                 double beta, double *C, int ldc)
{
  int i, j, p;
#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      C[i * ldc + j] *= beta;
  for (i = 0; i < m; i++)
    for (p = 0; p < k; p++)
      for (j = 0; j < n; j++)
        C[i * ldc + j] += alpha * A[i * lda + p] * B[p * ldb + j];
#pragma endscop
}

int main(int argc, char **argv)
{
  int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]);
  int lda = atoi(argv[4]), ldb = atoi(argv[5]), ldc = atoi(argv[6]);
  int size = 4096;
  double *A = malloc(sizeof(double) * size), *B = malloc(sizeof(double) * size);
  double *C = malloc(sizeof(double) * size);
  for (int i = 0; i < size; i++) {
    A[i] = (i % 7) * 0.25 - 0.5;
    B[i] = (i % 5) * 0.5 - 1.0;
    C[i] = (i % 3) * 1.0 + 0.125;
  }
  gemm(m, n, k, 1.5, A, lda, B, ldb, 0.5, C, ldc);
  for (int i = 0; i < size; i++)
    printf("%.17g\n", C[i]);
  return 0;
}
"""

# (m, n, k, lda, ldb, ldc): padded rows, exact rows, overlapping rows of C (ldc < n:
# the original runs), empty and single sizes
ARGUMENTS = [(37, 29, 23, 31, 33, 35), (20, 20, 20, 20, 20, 20), (17, 30, 9, 12, 40, 21),
             (0, 5, 5, 5, 5, 5), (1, 1, 1, 1, 1, 1), (3, 0, 4, 4, 4, 4), (5, 6, 0, 1, 6, 6)]


def test_rows_of_a_leading_dimension_are_distinct_rows():
    [scop] = extract(GEMM_LD, filename="gemm_ld.c")
    update = scop.statements[1]
    relations = {str(a.relation.get_tuple_name(isl.dim_type.out)): a.relation for a in update.accesses}
    params = "[m, n, ldc, k, lda, ldb]"
    assert relations["C"].is_equal(isl.Map(f"{params} -> {{ S1[i, p, j] -> C[i, j] }}")
                                   .intersect_domain(update.domain))
    assert scop.context.is_subset(isl.Set(f"{params} -> {{ : n <= ldc and k <= lda and n <= ldb }}"))


@pytest.mark.parametrize("flags", [dict(tile=True, parallel=True), dict(tile=True, parallel=True, fuse="max"),
                                   dict(tile=True, parallel=True, tensorize=False)],
                         ids=["tile-par", "max-tile-par", "no-tensorize"])
def test_gemm_with_leading_dimensions_runs_right_and_in_parallel(tmp_path, flags):
    options = OptimizeOptions.from_flags(**flags)
    source = tmp_path / "gemm_ld.c"
    source.write_text(GEMM_LD)
    result = optimize(source, options)
    region = result.text.split("#pragma scop", 1)[1]
    # the outermost loop of the optimized code is the parallel one (rows split among threads)
    optimized = region.split("} else {", 1)[0]
    first_loop = optimized.index("for (")
    assert "#pragma omp parallel for" in optimized[:first_loop], optimized
    assert outputs_of(result.text, tmp_path, "new", ARGUMENTS) == \
        outputs_of(GEMM_LD, tmp_path, "orig", ARGUMENTS)


SYRK_LD = r"""#include <stdio.h>
#include <stdlib.h>
static void syrk(int n, int k, double alpha, double beta, const double *A, int lda, double *C, int ldc)
{
  int i, j, p;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j <= i; j++)
      C[i * ldc + j] *= beta;
    for (p = 0; p < k; p++)
      for (j = 0; j <= i; j++)
        C[i * ldc + j] += alpha * A[i * lda + p] * A[j * lda + p];
  }
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = atoi(argv[1]), k = atoi(argv[2]), lda = atoi(argv[3]), ldc = atoi(argv[4]);
  int size = 8192;
  double *A = malloc(sizeof(double) * size), *C = malloc(sizeof(double) * size);
  for (int i = 0; i < size; i++) {
    A[i] = (i % 7) * 0.25 - 0.5;
    C[i] = (i % 3) * 1.0 + 0.125;
  }
  syrk(n, k, 1.5, 0.5, A, lda, C, ldc);
  for (int i = 0; i < size; i++)
    printf("%.17g\n", C[i]);
  return 0;
}
"""


def test_register_tiled_elements_of_a_linearised_matrix(tmp_path):
    """The elements of ``C[i * ldc + j]`` that the jammed copies of syrk's j loop update
    all along the p loop are kept in scalars (scalar replacement looked for ``C[..][..]``
    in the text, found one subscript and left them in memory, which gcc then loaded and
    stored at every p: n = 2000, k = 300, 1 thread, 2.3x slower than the original, now
    1.7x faster)."""
    source = tmp_path / "syrk_ld.c"
    source.write_text(SYRK_LD)
    result = optimize(source, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert "double C_r0 = C[(" in result.text and "C_r0 += alpha * A[" in result.text, result.text
    arguments = [(45, 30, 33, 50), (64, 64, 64, 64), (1, 1, 1, 1), (0, 4, 4, 4), (7, 0, 1, 7), (30, 9, 12, 20)]
    assert outputs_of(result.text, tmp_path, "new", arguments) == outputs_of(SYRK_LD, tmp_path, "orig", arguments)
