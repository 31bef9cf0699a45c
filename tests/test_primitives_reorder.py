"""interchange, permute, skew, shift, reverse: the schedule before and after on a
small kernel, illegal cases with the witness confirmed by brute force, and the
transformed suite kernels verified by execution (MINI)."""
from __future__ import annotations

import pytest

from primitives_oracle import confirm_dependence_witness, from_body

import polysched as ps
from polysched.bench import get

# A[i][j] depends on A[i-1][j+1]: distance (1, -1), so i and j cannot be interchanged
DIAGONAL = """  for (i = 1; i < N; i++)
    for (j = 0; j < N - 1; j++)
      A[i][j] = A[i - 1][j + 1] + B[i][j];"""
# distance (1, 0): interchange is legal
COLUMN = """  for (i = 1; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = A[i - 1][j] * 0.5 + B[i][j];"""


def loops(p, stmt="S0"):
    return [expr for _, expr in p.loops(stmt)]


def test_interchange_before_after():
    p = from_body(COLUMN)
    assert loops(p) == ["i", "j"]
    q = p.interchange("S0", 0, 1)
    assert loops(q) == ["j", "i"]
    assert loops(p) == ["i", "j"]                          # p is a value: unchanged
    assert q.check().legal
    assert q.verify(dataset=None).ok


def test_interchange_illegal_with_witness():
    p = from_body(DIAGONAL)
    with pytest.raises(ps.TransformError) as info:
        p.interchange("S0", 0, 1)
    err = info.value
    assert "interchange('S0', 0, 1) is illegal" in str(err) and "raw dependence S0 -> S0" in str(err)
    confirm_dependence_witness(p, err)
    # a Python twin of the rejected schedule: (j, i)
    (i0, j0), (i1, j1) = err.witness.source[1], err.witness.sink[1]
    assert (j0, i0) >= (j1, i1)


def test_an_illegal_step_of_a_replayed_trace_is_named_and_keeps_its_witness():
    """helper-58: the refusal of an illegal step lacked the 'trace step N (op)' prefix
    the other replay errors have."""
    p = from_body(DIAGONAL)
    trace = [{"op": "shift", "args": {"stmt": "S0", "depth": 1, "amount": 0}},
             {"op": "interchange", "args": {"stmt": "S0", "d1": 0, "d2": 1}}]
    with pytest.raises(ps.TransformError) as info:
        p.shift("S0", 1, 0).interchange("S0", 0, 1)
    with pytest.raises(ps.TransformError) as replayed:
        p.replay(trace)
    assert str(replayed.value) == f"trace step 1 (interchange): {info.value}"
    assert replayed.value.witness is not None and replayed.value.kind == info.value.kind


def test_seidel_interchange_is_illegal():
    p = ps.Program.from_file(get("seidel-2d").path)
    with pytest.raises(ps.TransformError) as info:
        p.interchange("S0", 0, 1)
    err = info.value
    assert err.witness is not None and set(err.witness.parameters) == {"TSTEPS", "N"}
    confirm_dependence_witness(p, err)
    (t0, i0, j0), (t1, i1, j1) = err.witness.source[1], err.witness.sink[1]
    assert (i0, t0, j0) >= (i1, t1, j1)                    # (i, t, j) misorders the pair


def test_permute_merges_directly_nested_bands():
    p = ps.Program.from_file(get("gemm").path)              # original: S1 loops (i) (k) (j)
    assert loops(p, "S1") == ["i", "k", "j"]
    q = p.permute("S1", [2, 1])
    assert loops(q, "S1") == ["i", "j", "k"]
    assert q.verify().ok


def test_permute_rejects_non_permutations():
    p = ps.Program.from_file(get("gemm").path)
    with pytest.raises(ps.TransformError, match="permutation of consecutive"):
        p.permute("S1", [0, 2])


def test_skew_before_after_and_tiling_becomes_legal():
    p = ps.Program.from_file(get("seidel-2d").path)
    q = p.skew("S0", 1, 0, 1).skew("S0", 2, 1, 1).skew("S0", 2, 0, 1)
    assert loops(q) == ["t", "t + i", "2t + i + j"]
    with pytest.raises(ps.TransformError):
        p.tile("S0", [4, 4, 4])                            # not permutable before the skew
    r = q.tile("S0", [4, 4, 4])
    assert r.verify().ok


def test_skew_outer_by_inner_illegal():
    p = from_body(DIAGONAL)
    with pytest.raises(ps.TransformError) as info:
        p.skew("S0", 0, 1, 1)                              # (i + j, j): distance (0, -1)
    confirm_dependence_witness(p, info.value)
    (i0, j0), (i1, j1) = info.value.witness.source[1], info.value.witness.sink[1]
    assert (i0 + j0, j0) >= (i1 + j1, j1)


def test_skew_by_itself_is_a_misuse():
    with pytest.raises(ps.TransformError, match="by itself") as info:
        from_body(COLUMN).skew("S0", 1, 1, 2)
    assert info.value.violation is None


TWO = """  for (i = 0; i < N; i++)
    x[i] = A[i][0] + 1.0;
  for (i = 0; i < N - 1; i++)
    y[i] = x[i + 1] * 2.0;"""


def test_shift_moves_one_statement():
    p = from_body(TWO)
    q = p.shift("S1", 0, 1)
    assert loops(q, "S0") == ["i"] and loops(q, "S1") == ["1 + i"]
    assert q.verify(dataset=None).ok


def test_reverse_legal_and_illegal():
    p = ps.Program.from_file(get("gemm").path)
    q = p.reverse("S0", 1)                                 # C[i][j] *= beta: j carries nothing
    assert loops(q, "S0") == ["i", "-j"]
    assert q.verify().ok
    jac = ps.Program.from_file(get("jacobi-1d").path)
    with pytest.raises(ps.TransformError) as info:
        jac.reverse("S0", 0)                               # time runs backwards
    confirm_dependence_witness(jac, info.value)


@pytest.mark.parametrize("kernel,steps", [
    ("2mm", lambda p: p.auto_schedule().interchange("S1", 1, 2).interchange("S3", 0, 1)),
    ("jacobi-2d", lambda p: p.skew("S0", 1, 0, 1).skew("S0", 2, 0, 1)),
    ("syrk", lambda p: p.auto_schedule().reverse("S0", 1)),
])
def test_suite_kernels_verify(kernel, steps):
    q = steps(ps.Program.from_file(get(kernel).path))
    result = q.verify()
    assert result.ok, result.reason


def test_loops_in_different_branches_cannot_be_reordered():
    p = ps.Program.from_file(get("2mm").path)               # S1: i, j | sequence | k
    with pytest.raises(ps.TransformError, match=r"interchange\('S1', 1, 2\): .*different bands") as info:
        p.interchange("S1", 1, 2)
    assert info.value.violation is None


def test_a_refusal_through_a_block_array_names_it():
    """helper-58: interchange of a nest whose body declares ``double tmp[2];`` was
    refused through ``tmp`` without naming it."""
    source = ("double A[40][40], B[40][40];\nvoid f(int n) {\n  int i, j, q;\n#pragma scop\n"
              "  for (i = 1; i < n; i++)\n    for (j = 1; j < n; j++) {\n      double tmp[2];\n"
              "      for (q = 0; q < 2; q++)\n        tmp[q] = A[i - q][j];\n"
              "      B[i][j] = tmp[0] - tmp[1];\n    }\n#pragma endscop\n}\n")
    p = ps.Program.from_source(source)
    with pytest.raises(ps.TransformError, match=r"is illegal: .*\(through 'tmp', declared in a block of the "
                                                r"region: one array every iteration reuses"):
        p.interchange("S0", 0, 1)
    assert "private(tmp" in p.parallel("S0", 0).region_code()
