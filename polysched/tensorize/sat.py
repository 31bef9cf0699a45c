"""Every structural match of an intrinsic in a statement, by SAT (python-sat).

Variables (all Boolean):

    x[l, p]          intrinsic loop l runs as program loop p
    y[o, a]          intrinsic operand o is program array a
    m[u, v]          intrinsic tree node u matches program tree node v
    s[u, v]          ... with the operands of a commutative u swapped
    w[u, v, dI, dP]  (u, v references) intrinsic dimension dI is program dimension dP

Clauses encode :mod:`.problem`'s rules: exactly one p per l and at most one l per p;
exactly one a per o, the output's array no input's; ``m[root, root]``; a matched
operator node matches its children (straight, or swapped when ``s``); a matched
reference implies its ``y``, an injective ``w`` (stride-1 dimensions only onto the
last program dimension), ``w[.., dI, dP] & x[l, p]`` only when the coefficients agree,
and ``x[l, p]`` only when every program dimension involving ``p`` is some ``w``'s image;
for an ``affine:`` operand, no ``w``: ``x[l, p]`` is excluded when the operand does not
use ``l`` and the program reference involves ``p``.
Enumeration adds, after each model, a clause blocking its ``x``/``y`` assignment, so
each (loop map, array map) is reported once whatever tree alignment proved it.
"""
from __future__ import annotations

import itertools
from collections import Counter

from pysat.formula import IDPool
from pysat.solvers import Solver

from .pattern import COMMUTATIVE, children, label
from .problem import Problem, StructuralMatch, affine_unused


def _amo(clauses: list, lits: list[int]) -> None:
    for a, b in itertools.combinations(lits, 2):
        clauses.append([-a, -b])


def encode(problem: Problem):
    """(clauses, pool, x vars, y vars) for ``problem``; None when trivially unsatisfiable."""
    prog, intr = problem.pattern, problem.intrinsic.pattern
    if prog.tree is None:
        return None
    unodes, vnodes = intr.nodes(), prog.nodes()
    # a match maps the intrinsic's tree onto the whole statement's, node for node
    # (the root to the root, each node's children to the children of its image)
    if Counter(map(label, unodes)) != Counter(map(label, vnodes)):
        return None
    pool = IDPool()
    clauses: list[list[int]] = []
    nl, np_ = len(intr.loops), len(prog.loops)
    x = {(l, p): pool.id(("x", l, p)) for l in range(nl) for p in range(np_) if problem.loop_allowed(l, p)}
    for l in range(nl):
        lits = [x[l, p] for p in range(np_) if (l, p) in x]
        if not lits:
            return None
        clauses.append(lits)
        _amo(clauses, lits)
    for p in range(np_):
        _amo(clauses, [x[l, p] for l in range(nl) if (l, p) in x])

    operands = problem.intrinsic.operands
    output = problem.intrinsic.output
    arrays = sorted({ref.array for ref in prog.refs})
    y = {(o, a): pool.id(("y", o, a)) for o in operands for a in arrays
         if "types" in problem.relax or intr.types[o] == prog.types.get(a)}
    for o in operands:
        lits = [y[o, a] for a in arrays if (o, a) in y]
        if not lits:
            return None
        clauses.append(lits)
        _amo(clauses, lits)
    for a in arrays if "aliasing" not in problem.relax else ():
        if (output, a) in y:
            for o in operands:
                if o != output and (o, a) in y:
                    clauses.append([-y[output, a], -y[o, a]])

    m = {}
    for ui, u in enumerate(unodes):
        for vi, v in enumerate(vnodes):
            if label(u) == label(v):
                m[ui, vi] = pool.id(("m", ui, vi))
    uid = {id(n): k for k, n in enumerate(unodes)}
    vid = {id(n): k for k, n in enumerate(vnodes)}
    if (0, 0) not in m:
        return None
    clauses.append([m[0, 0]])

    def child_lit(cu, cv):
        return m.get((uid[id(cu)], vid[id(cv)]))

    for (ui, vi), var in m.items():
        u, v = unodes[ui], vnodes[vi]
        if u[0] == "ref":
            _encode_ref(problem, clauses, pool, x, y, var, intr.refs[u[1]], prog.refs[v[1]], ui, vi)
            continue
        uc, vc = children(u), children(v)
        if u[0] in COMMUTATIVE and len(uc) == 2:
            swap = pool.id(("s", ui, vi))
            for sign, pairs in ((swap, zip(uc, vc)), (-swap, zip(uc, reversed(vc)))):
                for cu, cv in pairs:
                    lit = child_lit(cu, cv)
                    clauses.append([-var, sign] + ([lit] if lit else []))
        else:
            for cu, cv in zip(uc, vc):
                lit = child_lit(cu, cv)
                clauses.append([-var] + ([lit] if lit else []))
    return clauses, pool, x, y


def _encode_ref(problem, clauses, pool, x, y, var, uref, vref, ui, vi):
    o, a = uref.array, vref.array
    if (o, a) not in y:
        clauses.append([-var])
        return
    clauses.append([-var, y[o, a]])
    if o in problem.intrinsic.affine:
        # any strides: only a loop the operand does not vary along must not move it
        unused = affine_unused(uref, vref)
        if unused is None:
            clauses.append([-var])
            return
        clauses.extend([-var, -xv] for (l, p), xv in x.items() if (l, p) in unused)
        return
    rank_i, rank_p = len(uref.rows), len(vref.rows)
    stride1 = set() if "stride1" in problem.relax else problem.intrinsic.stride1.get(o, set())
    w = {}
    for di in range(rank_i):
        for dp in range(rank_p):
            if di in stride1 and dp != rank_p - 1:
                continue
            w[di, dp] = pool.id(("w", ui, vi, di, dp))
    for di in range(rank_i):
        lits = [w[di, dp] for dp in range(rank_p) if (di, dp) in w]
        clauses.append([-var] + lits)
        _amo(clauses, lits)
    for dp in range(rank_p):
        _amo(clauses, [w[di, dp] for di in range(rank_i) if (di, dp) in w])
    for (l, p), xv in x.items():
        for (di, dp), wv in w.items():
            if uref.rows[di][l] != vref.rows[dp][p]:
                clauses.append([-wv, -xv])
        for dp in range(rank_p):
            if vref.rows[dp][p] != 0:
                clauses.append([-var, -xv] + [w[di, dp] for di in range(rank_i) if (di, dp) in w])


def sat_matches(problem: Problem, solver: str = "g4") -> list[StructuralMatch]:
    """All structural matches (see :mod:`.problem`), in the order the solver finds them."""
    encoded = encode(problem)
    if encoded is None:
        return []
    clauses, _pool, x, y = encoded
    intr, prog = problem.intrinsic, problem.pattern
    found: list[StructuralMatch] = []
    with Solver(name=solver, bootstrap_with=clauses) as sat:
        while sat.solve():
            model = set(v for v in sat.get_model() if v > 0)
            xs = sorted((l, p) for (l, p), v in x.items() if v in model)
            ys = sorted(((o, a) for (o, a), v in y.items() if v in model),
                        key=lambda oa: intr.operands.index(oa[0]))
            found.append((tuple((intr.loops[l], prog.loops[p]) for l, p in xs), tuple(ys)))
            sat.add_clause([-x[k] for k in xs] + [-y[k] for k in ys])
    return found
