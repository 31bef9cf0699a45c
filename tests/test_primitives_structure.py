"""fuse, distribute, split_band: before/after trees, illegal cases with the witness
confirmed by brute force, execution verification."""
from __future__ import annotations

import islpy as isl
import pytest

from primitives_oracle import confirm_dependence_witness, from_body

import polysched as ps
from polysched.bench import get

# S1 reads x[i + 1], written by S0 at i + 1: fusing needs S1 shifted by one
PRODUCER_CONSUMER = """  for (i = 0; i < N; i++)
    x[i] = A[i][0] + 1.0;
  for (i = 0; i < N - 1; i++)
    y[i] = x[i + 1] * 2.0;"""

# S0 reads B[i-1][0], written by S1 one iteration earlier: a cycle, no distribution
CYCLE = """  for (i = 1; i < N; i++) {
    A[i][0] = B[i - 1][0] + 1.0;
    B[i][0] = A[i][0] * 0.5;
  }"""


def kinds(p):
    out = []

    def visit(node):
        out.append(str(node.get_type()).split(".")[-1])
        for k in range(node.n_children()):
            visit(node.child(k))
    visit(p.schedule.get_root())
    return out


def test_fuse_needs_a_shift_then_is_legal():
    p = from_body(PRODUCER_CONSUMER)
    assert kinds(p)[:2] == ["domain", "sequence"]
    with pytest.raises(ps.TransformError) as info:
        p.fuse(["S0", "S1"], 0)
    err = info.value
    assert "fuse(['S0', 'S1'], 0) is illegal" in str(err)
    confirm_dependence_witness(p, err)
    q = p.shift("S1", 0, 1).fuse(["S0", "S1"], 0)
    # one loop over both statements, a sequence inside it
    assert kinds(q)[:3] == ["domain", "band", "sequence"]
    assert [e for _, e in q.loops("S0")] == ["i"] and [e for _, e in q.loops("S1")] == ["1 + i"]
    assert q.verify(dataset=None).ok


def test_fuse_gemm_loops_level_by_level():
    p = ps.Program.from_file(get("gemm").path).auto_schedule()     # S0 (i, j) ; S1 (i, j, k)
    q = p.fuse(["S0", "S1"], 0).fuse(["S0", "S1"], 1)
    tree = repr(q.tree)
    assert tree.splitlines()[0].startswith("band") and "S0: 0 i" in tree and "S1: 1 j" in tree
    assert q.verify().ok


def test_fuse_misuse():
    p = ps.Program.from_file(get("gemm").path).auto_schedule()
    with pytest.raises(ps.TransformError, match="at least two statements"):
        p.fuse(["S0"], 0)
    with pytest.raises(ps.TransformError, match="depth 0, not 1"):
        p.fuse(["S0", "S1"], 1)
    with pytest.raises(ps.TransformError, match="already shared"):
        p.fuse(["S0", "S1"], 0).fuse(["S0", "S1"], 0)


def test_distribute_before_after():
    p = ps.Program.from_file(get("gemm").path)             # i { S0: j ; S1: k, j }
    assert kinds(p)[:3] == ["domain", "band", "sequence"]
    q = p.distribute("S1", 0)
    assert kinds(q)[:3] == ["domain", "sequence", "filter"]
    assert [e for _, e in q.loops("S1")] == ["i", "k", "j"]
    assert q.verify().ok


def test_distribute_a_loop_whose_statements_share_dates():
    """jacobi-2d under Pluto's band: one leaf band schedules S0 and S1 (no sequence below
    it). Distributing its innermost loop gives one copy per statement in program order;
    legal here, and the output is the original's."""
    p = ps.Program.from_file(get("jacobi-2d").path).auto_schedule()
    assert kinds(p) == ["domain", "band", "leaf"]
    q = p.distribute("S0", 2)
    assert kinds(q) == ["domain", "band", "sequence", "filter", "band", "leaf", "filter", "band", "leaf"]
    assert [e for _, e in q.loops("S1")] == [e for _, e in p.loops("S1")]
    assert q.verify().ok
    with pytest.raises(ps.TransformError, match="is illegal") as info:
        p.distribute("S0", 0)          # every S0 before every S1: S0 at t + 1 reads S1's A at t
    confirm_dependence_witness(p, info.value)


def test_distribute_of_a_cycle_is_illegal():
    p = from_body(CYCLE)
    with pytest.raises(ps.TransformError) as info:
        p.distribute("S1", 0)
    confirm_dependence_witness(p, info.value)


def test_distribute_single_statement_is_a_misuse():
    p = ps.Program.from_file(get("gemm").path).distribute("S1", 0)
    with pytest.raises(ps.TransformError, match="nothing to distribute") as info:
        p.distribute("S1", 1)
    assert info.value.violation is None


def test_split_band_keeps_the_order():
    p = ps.Program.from_file(get("gemm").path).auto_schedule()
    q = p.split_band("S1", 2)
    bands = [line for line in repr(q.tree).splitlines() if line.strip().startswith("band")]
    assert len(bands) == 3                                 # S0's band, S1 (i, j), S1 (k)
    assert q.loops("S1") == p.loops("S1") == [(0, "i"), (1, "j"), (2, "k")]
    assert q.c_code() == p.c_code()                        # same loops, same C
    assert q.split_band("S1", 2).schedule.plain_is_equal(q.schedule) or \
        str(q.split_band("S1", 2).schedule) == str(q.schedule)


@pytest.mark.parametrize("kernel,steps", [
    ("bicg", lambda p: p.distribute("S2", 1).distribute("S1", 0)),
    ("covariance", lambda p: p.distribute("S4", 1)),
    ("mvt", lambda p: p.auto_schedule(fuse="no").fuse(["S0", "S1"], 0)),
])
def test_suite_kernels_verify(kernel, steps):
    q = steps(ps.Program.from_file(get(kernel).path))
    result = q.verify()
    assert result.ok, result.reason
