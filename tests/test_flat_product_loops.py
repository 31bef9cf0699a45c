"""A flat loop over a product of two sizes, ``for (int i = 0; i < n * m; i++)``, next to
row-major accesses of the same buffer (``A[i * m + j]``), as C over flat buffers clears,
scales or copies a whole matrix (polysched/scop/extract.py, `split_product_loops`).

Before: ``n * m`` was one size, ``n__x__m``, and the linearised ``A[i]`` row 0, column
``i``, under the assumption ``i < m``: the optimized code ran only where ``n * m <= m``.
Now the loop is the nest ``(i_hi, i_lo)`` over ``[0, n) x [0, m)``, ``i = i_hi * m +
i_lo``, and ``A[i]`` is ``A[i_hi, i_lo]``. Checked on the model and by execution against
the original at sizes 0, 1, negative and larger, under several modes."""
import islpy as isl
import pytest

from polysched import emit_c
from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import extract

from compiled_runs import outputs_of

MAIN = r"""
int main(int argc, char **argv) {
  int n = atoi(argv[1]), m = atoi(argv[2]), t = n * m > m ? n * m : m; if (t < 1) t = 1;
  double *A = malloc(sizeof(double) * t), *B = malloc(sizeof(double) * t), *B2 = malloc(sizeof(double) * t);
  for (int i = 0; i < t; i++) { A[i] = -1; B[i] = i % 9; B2[i] = -2; }
  k(n, m, A, B, B2);
  double s = 0; for (int i = 0; i < t; i++) s += (A[i] + 3 * B2[i]) * (i % 5 + 1);
  printf("%.17g\n", s);
  return 0;
}
"""


def _program(body: str) -> str:
    return ("#include <stdio.h>\n#include <stdlib.h>\n"
            "static void k(int n, int m, double *A, const double *B, double *B2) {\n"
            "#pragma scop\n" + body + "#pragma endscop\n}\n" + MAIN)


NEST = """  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i * m + j] += B[i * m + j] * 2.0 + B[j];
"""
PROGRAMS = {
    # the flat loop clears the buffer the nest then accumulates into
    "clear": _program("  for (int i = 0; i < n * m; i++)\n    A[i] = 0.0;\n" + NEST),
    # i used as a value, not only as a subscript
    "value": _program("  for (int i = 0; i < n * m; i++)\n    A[i] = i * 0.5;\n" + NEST),
    # after the nest, reading what it wrote
    "after": _program(NEST + "  for (int i = 0; i < n * m; i++)\n    B2[i] = A[i] + 1;\n"),
}
SIZES = [(0, 0), (0, 5), (5, 0), (1, 1), (3, 7), (7, 3), (16, 16), (-2, 3), (3, -2), (2, -3)]


def _flat_statement(scop, array: str):
    [stmt] = [s for s in scop.statements if any(a.kind == "write" and a.array == array for a in s.accesses)
              and "[i * m + j]" not in s.body]
    return stmt


def _at(context: isl.Set, **values) -> bool:
    """Whether ``context`` holds at the parameter values ``values`` (every parameter)."""
    names = [context.get_dim_name(isl.dim_type.param, k) for k in range(context.dim(isl.dim_type.param))]
    assert sorted(names) == sorted(values), names
    for k, name in enumerate(names):
        context = context.fix_val(isl.dim_type.param, k, isl.Val(values[name]))
    return not context.is_empty()


@pytest.mark.parametrize("name, array", [("clear", "A"), ("value", "A"), ("after", "B2")])
def test_the_flat_loop_is_a_nest_over_the_rows(name, array):
    [scop] = extract(PROGRAMS[name], filename=f"{name}.c")
    stmt = _flat_statement(scop, array)
    assert len(stmt.iterators) == 2 and stmt.domain.dim(isl.dim_type.set) == 2
    hi, lo = stmt.iterators
    [write] = [a.relation for a in stmt.accesses if a.kind == "write"]
    expected = isl.Map(f"[n, m] -> {{ {stmt.name}[{hi}, {lo}] -> {array}[{hi}, {lo}] : "
                       f"0 <= {hi} < n and 0 <= {lo} < m }}")
    assert write.is_equal(expected.align_params(write.get_space()))
    assert scop.arrays[array].dims == ["", "m"] and scop.arrays["A"].dims == ["", "m"]
    # no n * m <= m: the region runs optimized at n = 5, m = 7
    assert "n__x__m" not in scop.parameters and _at(scop.context, n=5, m=7)
    # the statement reads i as the expression of the new iterators
    assert f"({hi} * m + {lo})" in stmt.body
    if name == "value":
        assert f"= ({hi} * m + {lo}) * 0.5;" in stmt.body


@pytest.mark.parametrize("flags", [dict(tile=True, parallel=True), dict(scheduler="isl", parallel=True),
                                   dict(unroll=4)])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_optimized_code_gives_the_original_outputs(tmp_path, name, flags):
    src = tmp_path / f"{name}.c"
    src.write_text(PROGRAMS[name])
    result = optimize(src, OptimizeOptions.from_flags(**flags))
    [region] = result.regions
    assumed = emit_c.versioning_plan(region.scop, schedule=region.schedule).assumed
    assert _at(assumed, n=5, m=7)
    if flags.get("parallel"):
        assert "#pragma omp parallel for" in result.text
    expected = outputs_of(PROGRAMS[name], tmp_path, "orig", SIZES)
    assert outputs_of(result.text, tmp_path, "opt", SIZES) == expected
    assert len(set(expected)) > 3      # (the sizes give different outputs: the test can tell)


def test_a_flat_iterator_in_a_loop_bound_keeps_the_product_a_size():
    """``j < i`` would be ``j < i_hi * m + i_lo``, not affine: the region is read as
    before the split, ``n * m`` one size (``n__x__m``)."""
    text = _program("  for (int i = 0; i < n * m; i++)\n    for (int j = 0; j < i; j++)\n"
                    "      A[i] += B[j];\n")
    [scop] = extract(text, filename="bound.c")
    [stmt] = scop.statements
    assert stmt.iterators == ["i", "j"] and "n__x__m" in scop.parameters and stmt.body == "A[i] += B[j];"


def test_a_loop_that_leaves_its_iterator_alive_is_not_split():
    """``i`` declared before the loop ends at ``n * m`` (it may be read after the
    region): the loop stays flat."""
    text = _program("  for (int i = 0; i < n * m; i++)\n    A[i] = 0.0;\n").replace(
        "#pragma scop\n  for (int i = 0;", "  int i;\n#pragma scop\n  for (i = 0;")
    [scop] = extract(text, filename="live.c")
    assert scop.statements[0].iterators == ["i"] and "n__x__m" in scop.parameters


def test_the_inner_factor_is_the_row_size_of_the_arrays():
    """``m * n`` next to rows of ``m`` (``A[i * m + j]``): ``m`` is the inner factor,
    whichever side of the product it is on."""
    text = PROGRAMS["clear"].replace("i < n * m", "i < m * n")
    [scop] = extract(text, filename="swapped.c")
    stmt = _flat_statement(scop, "A")
    hi, lo = stmt.iterators
    assert stmt.body == f"A[({hi} * m + {lo})] = 0.0;"
    assert stmt.domain.is_equal(isl.Set(f"[n, m] -> {{ {stmt.name}[{hi}, {lo}] : 0 <= {hi} < n and 0 <= {lo} < m }}")
                                .align_params(stmt.domain.get_space()))
