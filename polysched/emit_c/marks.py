"""Mark nodes of the schedule tree and what they become in C.

The marks are the typed values of :mod:`polysched.marks` (the tree holds their
canonical text, no OpenMP); this module is the one place that turns them into pragmas.
A mark sits directly above the band whose *outermost* loop it applies to:

    Parallel()                          -> #pragma omp parallel for
    Parallel(private, reductions)       -> #pragma omp parallel for private(..) reduction(op:..)
    Parallel(schedule="dynamic")        -> #pragma omp parallel for schedule(dynamic)
    Simd()                              -> #pragma omp simd
    Ivdep()                             -> #pragma GCC ivdep
    Unroll(N)                           -> #pragma GCC unroll N
    Tensorize(name; stmt=.., l_*=.., a_*=..) -> a call of the intrinsic (tensorize.py)
    Jam()                               -> no pragma: scalar replacement in the innermost
                                           loops below it (scalar_replace.py)
    other Tensorize(...), anything else -> refused (ValueError): a request that cannot be honoured

isl's AST generator drops loops that run exactly once, and then the loop under a
mark may belong to a *deeper* band. A pragma there would be wrong (that loop was
never proven parallel), so every mark is tied to its schedule depth: before the
AST is built, each mark is replaced by a unique id remembered with the original
name and ``get_schedule_depth()``; the printer puts the pragma only on the for
loop whose iterator is the one of that depth.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polysched.errors import MarkError
from polysched.marks import Ivdep, Parallel, Simd, Unroll, try_parse_mark


def openmp_clauses(mark: Parallel) -> str:
    """``private(t, u) lastprivate(conditional: v) reduction(+:s, r) schedule(dynamic)``:
    the OpenMP clauses of ``mark``."""
    parts = []
    if mark.private:
        parts.append(f"private({', '.join(mark.private)})")
    if mark.lastprivate:
        # (conditional: the iteration that wrote it last, not the last iteration, which
        # may write nothing; a loop that writes nothing leaves it alone. GCC >= 10)
        parts.append(f"lastprivate(conditional: {', '.join(mark.lastprivate)})")
    by_op: dict[str, list[str]] = {}
    for op, name in mark.reductions:
        by_op.setdefault(op, []).append(name)
    for op, names in by_op.items():
        parts.append(f"reduction({op}:{', '.join(names)})")
    if mark.schedule:
        parts.append(f"schedule({mark.schedule.replace(',', ', ')})")
    return " ".join(parts)


def merged_parallel(marks: list[Parallel]) -> Parallel:
    """One ``Parallel`` with the clauses of ``marks`` stacked on one loop, each name
    once (``private(t) private(t)`` is refused by the compiler); raises ``MarkError``
    when they disagree (``t`` private in one, a reduction in another; two schedules)."""
    schedules = sorted({mark.schedule for mark in marks if mark.schedule})
    if len(schedules) > 1:
        raise MarkError(f"one loop is given two schedules: {' and '.join(schedules)}")
    return Parallel(private=[name for mark in marks for name in mark.private],
                    reductions=[pair for mark in marks for pair in mark.reductions],
                    schedule=schedules[0] if schedules else "",
                    lastprivate=[name for mark in marks for name in mark.lastprivate])


@dataclass(frozen=True)
class MarkInfo:
    """One mark of the schedule tree: its original id name and its schedule depth."""

    name: str
    depth: int
    tag: str = ""             # its unique id in the retagged tree (retag_marks)

    @property
    def loop_pragma(self) -> tuple[str, str] | None:
        """``(kind, argument)`` when the mark applies to a loop, else None.

        kinds: ``omp_parallel`` (argument: clauses), ``omp_simd``, ``gcc_ivdep``,
        ``gcc_unroll`` (argument: the factor).
        """
        mark = try_parse_mark(self.name)
        if isinstance(mark, Parallel):
            return "omp_parallel", openmp_clauses(mark)
        if isinstance(mark, Simd):
            return "omp_simd", ""
        if isinstance(mark, Ivdep):
            return "gcc_ivdep", ""
        if isinstance(mark, Unroll):
            return "gcc_unroll", str(mark.factor)
        return None

    def comment(self) -> str:
        return f"/* mark: {self.name.replace('*/', '* /')} */"


TAG_PREFIX = "polysched_mark_"


def retag_marks(schedule: isl.Schedule) -> tuple[isl.Schedule, dict[str, MarkInfo]]:
    """Replace every mark id by a unique ``polysched_mark_<k>``.

    Returns the new schedule and ``{unique id name: MarkInfo}``.
    """
    table: dict[str, MarkInfo] = {}

    def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() == isl.schedule_node_type.mark:
            tag = f"{TAG_PREFIX}{len(table)}"
            info = MarkInfo(node.mark_get_id().get_name(), node.get_schedule_depth(), tag)
            table[tag] = info
            node = node.delete().insert_mark(isl.Id(tag))
        for k in range(node.n_children()):
            node = visit(node.child(k)).parent()
        return node

    root = visit(schedule.get_root())
    return root.get_schedule(), table


def schedule_depth(schedule: isl.Schedule) -> int:
    """The largest number of band members on any root-to-leaf path."""

    def visit(node: isl.ScheduleNode) -> int:
        here = node.get_schedule_depth()
        if node.get_type() == isl.schedule_node_type.band:
            here += node.band_n_member()
        return max([here] + [visit(node.child(k)) for k in range(node.n_children())])

    return visit(schedule.get_root())
