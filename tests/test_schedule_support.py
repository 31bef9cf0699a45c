"""Hand-built SCoPs (isl strings, the polybench loop nests) and checks shared by the
scheduler tests and experiments/schedule_time.py. No tests here."""
from __future__ import annotations

import islpy as isl

from oracle_model import make_scop
from polysched.dependence import analyze, check
from polysched.schedule import violated_dependences


def _acc(params, stmt, iters, refs):
    p = ", ".join(params)
    it = ", ".join(iters)
    return [(kind, f"[{p}] -> {{ {stmt}[{it}] -> {ref} }}") for kind, ref in refs]


def _stmt(params, name, iters, cond, refs):
    p = ", ".join(params)
    return (name, iters, f"[{p}] -> {{ {name}[{', '.join(iters)}] : {cond} }}",
            _acc(params, name, iters, refs))


def _scop(params, stmts, sched):
    p = ", ".join(params)
    context = f"[{p}] -> {{ : " + " and ".join(f"{x} >= 4" for x in params) + " }"
    return make_scop(list(params), context, stmts, f"[{p}] -> {{ {sched} }}")


def jacobi_1d():
    P = ["T", "N"]
    d = "0 <= t < T and 1 <= i < N - 1"
    return _scop(P, [
        _stmt(P, "S1", ["t", "i"], d, [("read", "A[i - 1]"), ("read", "A[i]"), ("read", "A[i + 1]"),
                                      ("write", "B[i]")]),
        _stmt(P, "S2", ["t", "i"], d, [("read", "B[i - 1]"), ("read", "B[i]"), ("read", "B[i + 1]"),
                                      ("write", "A[i]")]),
    ], "S1[t, i] -> [t, 0, i]; S2[t, i] -> [t, 1, i]")


def _five(a):
    return [("read", f"{a}[i, j]"), ("read", f"{a}[i, j - 1]"), ("read", f"{a}[i, j + 1]"),
            ("read", f"{a}[i + 1, j]"), ("read", f"{a}[i - 1, j]")]


def jacobi_2d():
    P = ["T", "N"]
    d = "0 <= t < T and 1 <= i < N - 1 and 1 <= j < N - 1"
    return _scop(P, [
        _stmt(P, "S1", ["t", "i", "j"], d, _five("A") + [("write", "B[i, j]")]),
        _stmt(P, "S2", ["t", "i", "j"], d, _five("B") + [("write", "A[i, j]")]),
    ], "S1[t, i, j] -> [t, 0, i, j]; S2[t, i, j] -> [t, 1, i, j]")


def seidel_2d():
    P = ["T", "N"]
    d = "0 <= t < T and 1 <= i < N - 1 and 1 <= j < N - 1"
    refs = [("read", f"A[i + {a}, j + {b}]") for a in (-1, 0, 1) for b in (-1, 0, 1)]
    return _scop(P, [_stmt(P, "S1", ["t", "i", "j"], d, refs + [("write", "A[i, j]")])],
                 "S1[t, i, j] -> [t, i, j]")


def gemm():
    P = ["N"]
    return _scop(P, [
        _stmt(P, "S1", ["i", "j"], "0 <= i, j < N", [("read", "C[i, j]"), ("write", "C[i, j]")]),
        _stmt(P, "S2", ["i", "j", "k"], "0 <= i, j, k < N",
              [("read", "C[i, j]"), ("read", "A[i, k]"), ("read", "B[k, j]"), ("write", "C[i, j]")]),
    ], "S1[i, j] -> [i, j, 0, 0]; S2[i, j, k] -> [i, j, 1, k]")


def _matmul(P, init, upd, out, a, b, base):
    """``out = 0; out += a * b`` as two statements at outer position ``base``."""
    return [
        _stmt(P, init, ["i", "j"], "0 <= i, j < N", [("write", f"{out}[i, j]")]),
        _stmt(P, upd, ["i", "j", "k"], "0 <= i, j, k < N",
              [("read", f"{out}[i, j]"), ("read", f"{a}[i, k]"), ("read", f"{b}[k, j]"),
               ("write", f"{out}[i, j]")]),
    ], f"{init}[i, j] -> [{base}, i, j, 0, 0]; {upd}[i, j, k] -> [{base}, i, j, 1, k]"


def mm2():
    P = ["N"]
    s1, m1 = _matmul(P, "S1", "S2", "tmp", "A", "B", 0)
    s2, m2 = _matmul(P, "S3", "S4", "D", "tmp", "C", 1)
    return _scop(P, s1 + s2, f"{m1}; {m2}")


def mm3():
    P = ["N"]
    parts = [_matmul(P, "S1", "S2", "E", "A", "B", 0), _matmul(P, "S3", "S4", "F", "C", "D", 1),
             _matmul(P, "S5", "S6", "G", "E", "F", 2)]
    return _scop(P, [s for p in parts for s in p[0]], "; ".join(p[1] for p in parts))


def lu():
    P = ["N"]
    return _scop(P, [
        _stmt(P, "S1", ["i", "j", "k"], "0 <= i < N and 0 <= j < i and 0 <= k < j",
              [("read", "A[i, j]"), ("read", "A[i, k]"), ("read", "A[k, j]"), ("write", "A[i, j]")]),
        _stmt(P, "S2", ["i", "j"], "0 <= i < N and 0 <= j < i",
              [("read", "A[i, j]"), ("read", "A[j, j]"), ("write", "A[i, j]")]),
        _stmt(P, "S3", ["i", "j", "k"], "0 <= i < N and i <= j < N and 0 <= k < i",
              [("read", "A[i, j]"), ("read", "A[i, k]"), ("read", "A[k, j]"), ("write", "A[i, j]")]),
    ], "S1[i, j, k] -> [i, 0, j, 0, k]; S2[i, j] -> [i, 0, j, 1, 0]; S3[i, j, k] -> [i, 1, j, 0, k]")


def cholesky():
    P = ["N"]
    return _scop(P, [
        _stmt(P, "S1", ["i", "j", "k"], "0 <= i < N and 0 <= j < i and 0 <= k < j",
              [("read", "A[i, j]"), ("read", "A[i, k]"), ("read", "A[j, k]"), ("write", "A[i, j]")]),
        _stmt(P, "S2", ["i", "j"], "0 <= i < N and 0 <= j < i",
              [("read", "A[i, j]"), ("read", "A[j, j]"), ("write", "A[i, j]")]),
        _stmt(P, "S3", ["i", "k"], "0 <= i < N and 0 <= k < i",
              [("read", "A[i, i]"), ("read", "A[i, k]"), ("write", "A[i, i]")]),
        _stmt(P, "S4", ["i"], "0 <= i < N", [("read", "A[i, i]"), ("write", "A[i, i]")]),
    ], "S1[i, j, k] -> [i, 0, j, 0, k]; S2[i, j] -> [i, 0, j, 1, 0]; "
       "S3[i, k] -> [i, 1, k, 0, 0]; S4[i] -> [i, 2, 0, 0, 0]")


def reversal():
    """``for (i = N - 2; i >= 0; i--) A[i] = A[i + 1] + B[i];`` runs i downwards: the
    flow dependence S[i + 1] -> S[i] needs a negative coefficient."""
    P = ["N"]
    return _scop(P, [_stmt(P, "S1", ["i"], "0 <= i < N - 1",
                           [("read", "A[i + 1]"), ("read", "B[i]"), ("write", "A[i]")])],
                 "S1[i] -> [-i]")


def chain(n: int):
    """S1 writes A1 from A0, S2 writes A2 from A1 (neighbours), ... : n statements."""
    P = ["N"]
    stmts = [_stmt(P, f"S{k}", ["i"], "1 <= i < N - 1",
                   [("read", f"A{k - 1}[i - 1]"), ("read", f"A{k - 1}[i + 1]"), ("write", f"A{k}[i]")])
             for k in range(1, n + 1)]
    return _scop(P, stmts, "; ".join(f"S{k}[i] -> [{k}, i]" for k in range(1, n + 1)))


def nest(depth: int):
    """A depth-d stencil-like nest, A[i] = A[i - e_k] sums over all unit vectors."""
    P = ["N"]
    it = [f"i{k}" for k in range(depth)]
    refs = []
    for k in range(depth):
        idx = [f"{x} - 1" if m == k else x for m, x in enumerate(it)]
        refs.append(("read", f"A[{', '.join(idx)}]"))
    refs.append(("write", f"A[{', '.join(it)}]"))
    cond = " and ".join(f"1 <= {x} < N" for x in it)
    return _scop(P, [_stmt(P, "S1", it, cond, refs)], f"S1[{', '.join(it)}] -> [{', '.join(it)}]")


HAND_KERNELS = {
    "jacobi-1d": jacobi_1d, "jacobi-2d": jacobi_2d, "seidel-2d": seidel_2d, "gemm": gemm,
    "2mm": mm2, "3mm": mm3, "lu": lu, "cholesky": cholesky,
}


def assert_legal(scop, deps, schedule):
    """Legal by the dependence package's check() and by our own isl test, and every
    permutable/coincident flag confirmed by check()'s band analysis."""
    assert schedule.get_domain().is_equal(scop.domain)
    assert violated_dependences(schedule, deps.validity).is_empty()
    verdict = check(scop, deps, schedule)
    assert verdict.legal, str(verdict)
    for band in verdict.bands:
        assert not band.mismatches, band.mismatches
    return verdict


def bands(schedule: isl.Schedule) -> list[isl.ScheduleNode]:
    out = []

    def visit(node):
        if node.get_type() == isl.schedule_node_type.band:
            out.append(node)
        for k in range(node.n_children()):
            visit(node.child(k))

    visit(schedule.get_root())
    return out


def rows(band: isl.ScheduleNode, stmt: str) -> list[list[int]]:
    """Coefficient rows (iterators, then constant) of ``stmt`` in ``band``."""
    partial = band.band_get_partial_schedule()
    out = []
    for k in range(band.band_n_member()):
        upa = partial.get_at(k)
        for m in _maps(isl.UnionMap.from_union_pw_aff(upa)):
            if m.get_tuple_name(isl.dim_type.in_) == stmt:
                pa = isl.PwMultiAff.from_map(m).get_pw_aff(0)
                affs = []
                pa.foreach_piece(lambda s, a: affs.append(a))
                assert len(affs) == 1
                aff = affs[0]
                n = aff.dim(isl.dim_type.in_)
                out.append([aff.get_coefficient_val(isl.dim_type.in_, i).to_python() for i in range(n)]
                           + [aff.get_constant_val().to_python()])
    return out


def _maps(umap):
    out = []
    umap.foreach_map(out.append)
    return out


def analyze_scop(scop):
    return analyze(scop)


def _sets(uset):
    out = []
    uset.foreach_set(out.append)
    return out
