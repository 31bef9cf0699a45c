"""Hand-built SCoPs: may-writes, SCCs, vectors, and trees with marks and tiles."""
from __future__ import annotations

from pathlib import Path

import islpy as isl

from oracle_model import brute_force, make_scop, model_trace, relation_pairs
from polysched.dependence import KINDS, analyze, check

KERNELS = Path(__file__).parent.parent / "polysched" / "bench" / "kernels"


def _may_write_scop():
    # for i: S0: A[i] = ...; S1: if (unknown) A[i] = ...; S2: ... = A[i] + A[i - 1]
    # (S1's write is a may-write: it does not kill S0's value.)
    return make_scop(["N"], "[N] -> { : N >= 1 }", [
        ("S0", "i", "[N] -> { S0[i] : 0 <= i < N }", [("write", "[N] -> { S0[i] -> A[i] }")]),
        ("S1", "i", "[N] -> { S1[i] : 0 <= i < N }", [("may_write", "[N] -> { S1[i] -> A[i] }")]),
        ("S2", "i", "[N] -> { S2[i] : 0 <= i < N }", [("read", "[N] -> { S2[i] -> A[i] }"),
                                                      ("read", "[N] -> { S2[i] -> A[i - 1] }"),
                                                      ("write", "[N] -> { S2[i] -> B[i] }")]),
    ], '{ domain: "[N] -> { S0[i] : 0 <= i < N; S1[i] : 0 <= i < N; S2[i] : 0 <= i < N }", '
       'child: { schedule: "[N] -> [{ S0[i] -> [(i)]; S1[i] -> [(i)]; S2[i] -> [(i)] }]", '
       'child: { sequence: [ { filter: "{ S0[i] }" }, { filter: "{ S1[i] }" }, '
       '{ filter: "{ S2[i] }" } ] } } }')


def test_may_writes_do_not_kill():
    scop = _may_write_scop()
    deps = analyze(scop)
    flow = {(r.source, r.sink): r for r in deps.pairs("flow")}
    assert set(flow) == {("S0", "S2"), ("S1", "S2")}
    assert flow[("S0", "S2")].distances == [(1,), (0,)]
    assert flow[("S0", "S2")].levels == [1, 0]
    for values in ({"N": 1}, {"N": 4}):
        expected = brute_force(model_trace(scop, values))
        for kind in KINDS:
            assert relation_pairs(deps.relation(kind), values) == expected[kind], kind
    # A must-write in S1 would kill S0's value: only S1 -> S2 remains.
    scop.statements[1].accesses[0].kind = "write"
    flow = {(r.source, r.sink) for r in analyze(scop).pairs("flow")}
    assert flow == {("S1", "S2")}


def test_sccs_in_topological_order():
    from polysched.scop import extract

    (jacobi,) = extract(KERNELS / "jacobi-1d.c")
    assert analyze(jacobi).sccs() == [["S0", "S1"]]        # the t loop closes a cycle
    (gemm,) = extract(KERNELS / "gemm.c")
    deps = analyze(gemm)
    assert deps.sccs() == [["S0"], ["S1"]]
    g = deps.graph()
    assert set(g.edges) == {("S0", "S1"), ("S1", "S1")}
    assert sorted(g.edges["S0", "S1"]["kinds"]) == ["raw", "war", "waw"]
    scop = _may_write_scop()
    assert analyze(scop).sccs() == [["S0"], ["S1"], ["S2"]]


def test_vectors_of_a_non_uniform_dependence():
    from polysched.scop import extract

    (lu,) = extract(KERNELS / "lu.c")
    deps = analyze(lu)
    for rec in deps.pairs("raw"):
        assert rec.distance is None or all(isinstance(c, int) for c in rec.distance)
        assert len(rec.direction) == rec.common_loops
        for vec in rec.vectors:
            assert len(vec) == rec.common_loops


def test_tiled_tree_with_marks_is_checked_like_its_flat_map():
    from polysched.scop import extract

    (scop,) = extract(KERNELS / "jacobi-2d.c")
    deps = analyze(scop)
    tree = isl.Schedule.read_from_str(scop.context.get_ctx(), (
        '{ domain: "%s", child: { schedule: "[TSTEPS, N] -> ['
        '{ S0[t, i, j] -> [(t)]; S1[t, i, j] -> [(t)] }, '
        '{ S0[t, i, j] -> [(2t + i)]; S1[t, i, j] -> [(2t + i + 1)] }, '
        '{ S0[t, i, j] -> [(2t + j)]; S1[t, i, j] -> [(2t + j + 1)] }]", permutable: 1, '
        'child: { sequence: [ { filter: "{ S0[t, i, j] }" }, '
        '{ filter: "{ S1[t, i, j] }" } ] } } }') % scop.domain)
    band = tree.get_root().child(0)
    sizes = isl.MultiVal.zero(band.band_get_space())
    for k in range(3):
        sizes = sizes.set_val(k, isl.Val(4))
    tiled = band.band_tile(sizes)                  # tile loops, then point loops
    tiled = tiled.child(0).insert_mark(isl.Id("unroll(2)")).get_schedule()   # a known mark
    result = check(scop, deps, tiled)
    assert result.legal
    assert [b.n_member for b in result.bands] == [3, 3]
    assert all(b.permutable for b in result.bands)
    flat = check(scop, deps, tiled.get_map())
    assert flat.legal
    # The unskewed fused (t, i, j) band is illegal (tiled or not); the witness says where.
    plain = isl.Schedule.read_from_str(scop.context.get_ctx(), (
        '{ domain: "%s", child: { schedule: "[TSTEPS, N] -> ['
        '{ S0[t, i, j] -> [(t)]; S1[t, i, j] -> [(t)] }, '
        '{ S0[t, i, j] -> [(i)]; S1[t, i, j] -> [(i)] }, '
        '{ S0[t, i, j] -> [(j)]; S1[t, i, j] -> [(j)] }]", '
        'child: { sequence: [ { filter: "{ S0[t, i, j] }" }, '
        '{ filter: "{ S1[t, i, j] }" } ] } } }') % scop.domain)
    band = plain.get_root().child(0)
    result = check(scop, deps, band.band_tile(sizes).get_schedule())
    assert not result.legal
    assert all(v.witness.source_time >= v.witness.sink_time for v in result.violations)


def test_set_node_children_are_unordered():
    """A ``set`` node lets code generation pick any order: a dependence between two
    of its children that outer bands leave unordered is a violation."""
    from polysched.scop import extract

    (scop,) = extract(KERNELS / "gemm.c")
    deps = analyze(scop)
    text = ('{ domain: "%s", child: { schedule: "[{ S0[i, j] -> [(i)]; S1[i, k, j] -> [(i)] }]", '
            'child: { %s: [ { filter: "{ S0[i, j] }", child: { schedule: '
            '"[{ S0[i, j] -> [(j)] }]" } }, { filter: "{ S1[i, k, j] }", child: { schedule: '
            '"[{ S1[i, k, j] -> [(k)] }, { S1[i, k, j] -> [(j)] }]" } } ] } } }')
    assert check(scop, deps, text % (scop.domain, "sequence")).legal
    result = check(scop, deps, text % (scop.domain, "set"))
    assert not result.legal
    assert {(v.source, v.sink) for v in result.violations} == {("S0", "S1")}
    # the witness says why (helper-54: "at time [0] must run before ... at time [1]" read as kept)
    assert str(result.violations[0].witness).endswith(
        "but a set node holds them in different children, which isl may run in either order (use a sequence)")
    # Unordered children under the t loop of jacobi-1d: S0 -> S1 at equal t.
    (jac,) = extract(KERNELS / "jacobi-1d.c")
    jdeps = analyze(jac)
    text = ('{ domain: "%s", child: { schedule: "[{ S0[t, i] -> [(t)]; S1[t, i] -> [(t)] }]", '
            'child: { set: [ { filter: "{ S0[t, i] }" }, { filter: "{ S1[t, i] }" } ] } } }')
    assert not check(jac, jdeps, text % jac.domain).legal
