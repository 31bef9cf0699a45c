"""The oracle: every structural match (see :mod:`.problem`) by trying every injective
loop map and every operand-to-array assignment, then matching the trees recursively.
No SAT, no shared encoding: only the rules' text in :mod:`.problem` is common."""
from __future__ import annotations

import itertools

from .problem import Problem, StructuralMatch


def _ref_ok(problem: Problem, loop_of: dict[int, int], uref, vref) -> bool:
    rank_i, rank_p = len(uref.rows), len(vref.rows)
    if uref.array in problem.intrinsic.affine:
        used = {l for row in uref.rows for l, c in enumerate(row) if c}
        return rank_p > 0 and not any(vref.rows[dp][p] for l, p in loop_of.items() if l not in used
                                      for dp in range(rank_p))
    mapped = set(loop_of.values())
    stride1 = problem.intrinsic.stride1.get(uref.array, set())
    for dims in itertools.permutations(range(rank_p), rank_i):
        if any(di in stride1 and dims[di] != rank_p - 1 for di in range(rank_i)):
            continue
        if any(uref.rows[di][l] != vref.rows[dims[di]][p]
               for di in range(rank_i) for l, p in loop_of.items()):
            continue
        if any(vref.rows[dp][p] != 0 for dp in range(rank_p) if dp not in dims for p in mapped):
            continue
        return True
    return False


def _tree_ok(problem, loop_of, array_of, u, v) -> bool:
    intr, prog = problem.intrinsic.pattern, problem.pattern
    if u[0] == "ref" or v[0] == "ref":
        if u[0] != v[0]:
            return False
        uref, vref = intr.refs[u[1]], prog.refs[v[1]]
        return array_of[uref.array] == vref.array and _ref_ok(problem, loop_of, uref, vref)
    if u[0] == "const" or v[0] == "const":
        return u == v
    if u[0] in ("cast", "call"):
        if u[:2] != v[:2] or len(u) != len(v):
            return False
        return all(_tree_ok(problem, loop_of, array_of, a, b) for a, b in zip(u[2:], v[2:]))
    if u[0] != v[0] or len(u) != len(v):
        return False
    if all(_tree_ok(problem, loop_of, array_of, a, b) for a, b in zip(u[1:], v[1:])):
        return True
    if u[0] in ("+", "*") and len(u) == 3:
        return (_tree_ok(problem, loop_of, array_of, u[1], v[2])
                and _tree_ok(problem, loop_of, array_of, u[2], v[1]))
    return False


def brute_force_matches(problem: Problem) -> list[StructuralMatch]:
    """All structural matches, in loop-map order."""
    intr, prog = problem.intrinsic, problem.pattern
    if prog.tree is None:
        return []
    arrays = sorted({ref.array for ref in prog.refs})
    operands = intr.operands
    found = []
    for image in itertools.permutations(range(len(prog.loops)), len(intr.loops)):
        if not all(problem.loop_allowed(l, p) for l, p in enumerate(image)):
            continue
        loop_of = dict(enumerate(image))
        for choice in itertools.product(arrays, repeat=len(operands)):
            array_of = dict(zip(operands, choice))
            if any(intr.pattern.types[o] != prog.types.get(a) for o, a in array_of.items()):
                continue
            if any(array_of[intr.output] == array_of[o] for o in operands if o != intr.output):
                continue
            if _tree_ok(problem, loop_of, array_of, intr.pattern.tree, prog.tree):
                found.append((tuple((intr.loops[l], prog.loops[p]) for l, p in enumerate(image)),
                              tuple((o, array_of[o]) for o in operands)))
    return found
