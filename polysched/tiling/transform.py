"""The tiling pass: tile permutable bands, order point loops, mark parallel / simd / unroll.

Input and output are isl schedule trees. For every band of the input tree (outermost
first) the pass builds a chain of bands, each possibly under mark nodes:

    [mark "parallel ..."]      tile band     { S[i] -> [floor(b_0/T_0), ...] }   (maybe wavefront)
                               point band    { S[i] -> [b_p0, b_p1, ...] }      (permuted members)
    [mark "simd"] [mark "unroll N"]  innermost point loop (own band)

where ``b = P(S[i])`` is the band's partial schedule. Every decision is checked with the
dependences (``analysis``), and the result is checked for legality before it is returned.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import islpy as isl

from polysched.dependence import violated_dependences
from polysched.dependence.loops import (is_parallel, is_permutable, mupa_rows, prefix_is_empty,
                                        prefix_rows, rows)
from polysched.dependence.scalars import ScopAccesses, classify_scalars
from polysched.errors import PolyschedError
from polysched.islutil import sets_of
from polysched.scop.model import Scop

from .cache import CacheSizes, cache_sizes
from .footprint import band_space, choose_multiple, choose_sizes, instance_count, outer_iterations
from .options import BandReport, TileOptions, TilingReport
from .stride import Stride, member_scores, member_strides, point_order, unit_stride_writes

_band = isl.schedule_node_type.band

# a parallel loop should give each thread (of this machine) at least two iterations
MIN_PARALLEL_TRIPS = max(4, 2 * (os.cpu_count() or 1))

# A parallel loop inside sequential ones forks and joins once per outer iteration
# (a few microseconds each): beyond this many, the overhead eats the gain (ludcmp's
# dot-product reductions inside (i, j) ran 0.5x with 4M forks; durbin's 20000 pay).
MAX_NESTED_FORKS = 50_000
# ... and each fork/join must have enough work to share: atax's inner y-update (2100
# instances, about 2 us of work per fork) ran 10x slower than the original at 2 threads
MIN_INSTANCES_PER_FORK = 50_000

# fraction of a cache level the data of one tile may take (the rest: other data, conflicts)
CACHE_SHARE = 0.5

# Full/partial tile separation of the innermost point loop multiplies its code by the
# number of statement combinations: only for bands of few statements.
MAX_SEPARATED_STATEMENTS = 6


class TilingError(PolyschedError, RuntimeError):
    """The pass produced (or was given) a schedule that violates a dependence."""


@dataclass
class _Segment:
    """One band of the chain that replaces an input band, with the marks above it."""

    mupa: isl.MultiUnionPwAff
    marks: list[str] = field(default_factory=list)
    # ask isl to separate the innermost member's loop into full and partial parts, so
    # the full part carries no guards and vectorizes (see transform_band)
    separate_last: bool = False

    @property
    def n(self) -> int:
        return self.mupa.dim(isl.dim_type.set)


def _permuted(mupa: isl.MultiUnionPwAff, order: list[int]) -> isl.MultiUnionPwAff:
    result = mupa
    for position, member in enumerate(order):
        result = result.set_at(position, mupa.get_at(member))
    return result


def _sliced(mupa: isl.MultiUnionPwAff, start: int, stop: int) -> isl.MultiUnionPwAff:
    n = mupa.dim(isl.dim_type.set)
    return mupa.drop_dims(isl.dim_type.set, stop, n - stop).drop_dims(isl.dim_type.set, 0, start)


def _tiled(mupa: isl.MultiUnionPwAff, sizes: list[int]) -> isl.MultiUnionPwAff:
    """``[floor(b_k / T_k)]``: the tile coordinates (sizes not scaled back)."""
    result = mupa
    for k, size in enumerate(sizes):
        result = result.set_at(k, mupa.get_at(k).scale_down_val(isl.Val(size)).floor())
    return result


def _has_band_below(node: isl.ScheduleNode) -> bool:
    if node.get_type() == _band:
        return True
    return any(_has_band_below(node.child(i)) for i in range(node.n_children()))


def _deps_validity(deps) -> isl.UnionMap | None:
    if deps is None:
        return None
    if isinstance(deps, isl.UnionMap):
        return deps
    return deps.validity


class _TilingPass:
    def __init__(self, scop: Scop, validity: isl.UnionMap, accesses: ScopAccesses,
                 options: TileOptions, caches: CacheSizes):
        self.scop = scop
        self.validity = validity
        self.accesses = accesses
        self.options = options
        self.caches = caches
        self.report = TilingReport()
        self._scalars = {n for n, a in scop.arrays.items() if a.is_scalar}
        self._array_deps = accesses.memory_except(self._scalars)

    # -- tree walk -------------------------------------------------------------------
    def walk(self, node: isl.ScheduleNode, parallel_above: bool) -> isl.ScheduleNode:
        """Transform the subtree at ``node``; returns the node at the same position."""
        if node.get_type() == _band:
            node, chain, parallel = self.transform_band(node, parallel_above)
            bottom = node
            for _ in range(chain):
                bottom = bottom.child(0)
            for i in range(bottom.n_children()):
                bottom = self.walk(bottom.child(i), parallel_above or parallel).parent()
            node = bottom
            for _ in range(chain):
                node = node.parent()
            return node
        for i in range(node.n_children()):
            node = self.walk(node.child(i), parallel_above).parent()
        return node

    # -- one band ----------------------------------------------------------------------
    def transform_band(self, node: isl.ScheduleNode, parallel_above: bool):
        """Replace the band at ``node`` by a chain of segments.

        Returns (node at the top of the chain, number of child steps from the top to
        the last band of the chain, whether a parallel mark was placed).
        """
        opts = self.options
        n = node.band_n_member()
        if n == 0:           # a zero-dimensional band schedules nothing: leave it
            return node, 0, False
        mupa = node.band_get_partial_schedule()
        domain = node.get_domain()
        prefix = prefix_rows(node)
        n_prefix = node.get_schedule_depth()
        members = [mupa_rows(mupa, [k]) for k in range(n)]
        permutable = is_permutable(self.validity, prefix, mupa)
        coincident = [is_parallel(self.validity, rows(prefix, *members[:k]), members[k])
                      for k in range(n)]
        report = BandReport(depth=n_prefix, members=n, schedule=str(mupa),
                            permutable=permutable, coincident=coincident)
        self.report.bands.append(report)
        if node.band_get_permutable() and not permutable:
            report.notes.append("input flags it permutable: dependences say no")
        is_leaf = not _has_band_below(node.child(0))
        wants_parallel = opts.parallel and not parallel_above

        segments: list[_Segment]
        parallel_placed = False
        if opts.tile and permutable and (n >= 2 or opts.tile_depth1):
            segments, parallel_placed = self._tile(node, mupa, domain, prefix, n_prefix,
                                                   report, wants_parallel)
            point_order_ = report.point_order or list(range(n))
            innermost_member = point_order_[-1]
        else:
            segments = [_Segment(mupa)]
            if permutable and n >= 2 and opts.intra_tile_reorder:
                # the same stride-1 order as for point loops: legal for a permutable band
                order = self._loop_order(node, mupa, prefix, n_prefix)
                if order != list(range(n)):
                    segments = [_Segment(_permuted(mupa, order))]
                    report.notes.append(f"loops reordered {order}")
            if wants_parallel:
                segments, parallel_placed = self._parallelize(segments, 0, domain, prefix,
                                                              permutable, report, "loop")
            innermost_member = self._innermost_original_member(segments, mupa)

        if is_leaf and (opts.simd or opts.unroll):
            segments = self._mark_innermost(segments, domain, prefix, node, n_prefix,
                                            innermost_member, report)
        if is_leaf and report.tiled and domain.n_set() <= MAX_SEPARATED_STATEMENTS:
            # Skewed point loops of fused statements otherwise keep per-statement guards
            # (`if (c5 >= 2 * c4 + 2)`) inside the innermost loop, which stops gcc from
            # vectorizing it: jacobi-2d 2.2x, heat-3d 1.9x faster separated.
            segments[-1].separate_last = True

        return self._build(node, segments, prefix), sum(1 + len(s.marks) for s in segments) - 1, \
            parallel_placed

    def _innermost_original_member(self, segments: list[_Segment], mupa) -> int | None:
        """Which member of the input band the innermost loop of the chain is."""
        last = segments[-1].mupa.get_at(segments[-1].n - 1)
        for k in range(mupa.dim(isl.dim_type.set)):
            if mupa.get_at(k).plain_is_equal(last):
                return k
        return None

    def _tile(self, node, mupa, domain, prefix, n_prefix, report, wants_parallel):
        opts = self.options
        n = mupa.dim(isl.dim_type.set)
        given = self._given_sizes(domain)[:n]
        space = None
        if len(given) < n or opts.l2tile:
            space = band_space(self.scop, domain, mupa, prefix)
        l1_budget = int(CACHE_SHARE * (self.caches.l1d if opts.l2tile else self.caches.l2))
        # a parallel outer tile loop needs a few tiles per thread
        min_tiles = MIN_PARALLEL_TRIPS if wants_parallel else 1
        model = choose_sizes(space, n, l1_budget, min_outer_tiles=min_tiles) \
            if len(given) < n else []
        sizes = given + model[len(given):]
        report.tiled, report.sizes = True, sizes

        order = list(range(n))
        if opts.intra_tile_reorder and n >= 2:
            order = self._loop_order(node, mupa, prefix, n_prefix)
        report.point_order = order

        tile_mupa = _tiled(mupa, sizes)
        segments = []
        if opts.l2tile:
            multiple = choose_multiple(space, sizes, int(CACHE_SHARE * self.caches.l2))
            report.l2_sizes = [s * m for s, m in zip(sizes, multiple)]
            segments.append(_Segment(_tiled(mupa, report.l2_sizes)))
        segments.append(_Segment(tile_mupa))
        segments.append(_Segment(_permuted(mupa, order)))

        placed = False
        if wants_parallel:
            segments, placed = self._parallelize(segments, 0, domain, prefix, True, report,
                                                 "tile loop")
            if not placed and n >= 2 and opts.wavefront:
                segments, placed = self._wavefront(segments, domain, prefix, report)
        return segments, placed

    def _given_sizes(self, domain: isl.UnionSet) -> list[int]:
        """The user's sizes for the band scheduling ``domain``: ``TileOptions.sizes``, or
        with per-statement sizes those of the band's first statement that has some."""
        sizes = self.options.sizes
        if not isinstance(sizes, dict):
            return list(sizes or [])
        present = {s.get_tuple_name() for s in sets_of(domain)}
        for stmt in self.scop.statements:
            if stmt.name in present and stmt.name in sizes:
                return list(sizes[stmt.name])
        return []

    def _loop_order(self, node, mupa, prefix, n_prefix) -> list[int]:
        """Order of the members of a permutable band: the innermost walks stride 1,
        preferably a member that carries no dependence once innermost (SIMD)."""
        n = mupa.dim(isl.dim_type.set)
        scores = member_scores(self.scop, node, n_prefix)
        unit_writes = unit_stride_writes(self.scop, node, n_prefix)
        members = [mupa_rows(mupa, [k]) for k in range(n)]
        vectorizable = [
            unit_writes[k] and is_parallel(self.validity,
                                           rows(prefix, *(members[m] for m in range(n) if m != k)),
                                           members[k])
            for k in range(n)]
        return point_order(scores, vectorizable)

    # -- parallelism -------------------------------------------------------------------
    def _parallel_clauses(self, domain, outer: isl.UnionMap, member: isl.UnionMap,
                          report: BandReport) -> str | None:
        """OpenMP clauses ("" for none) if the loop of ``member`` inside ``outer`` can run
        in parallel, else None. Scalars are handled by ``scalars.classify_scalars``."""
        if not is_parallel(self._array_deps, outer, member):
            return None
        verdict = classify_scalars(self.scop, self.accesses, domain, rows(outer, member),
                                   reassociate=self.options.reassociate)
        if not verdict.ok:
            for name, reason in verdict.blocking.items():
                note = f"scalar {name} blocks parallelism: {reason}"
                if note not in report.notes:
                    report.notes.append(note)
            return None
        for name in verdict.reassociated:
            note = f"floating-point reduction of {name} reassociated (--reassociate)"
            if note not in report.notes:
                report.notes.append(note)
        return verdict.clauses

    def _parallelize(self, segments, index, domain, prefix, permutable, report, what):
        """Mark the outermost parallel member of ``segments[index]``: moved to the front
        when the band is permutable, else split off (an inner parallel loop)."""
        seg = segments[index]
        outer = rows(prefix, *(mupa_rows(s.mupa) for s in segments[:index]))
        members = [mupa_rows(seg.mupa, [k]) for k in range(seg.n)]
        nested = not prefix_is_empty(prefix)
        for j in range(seg.n):
            inner_outer = outer if permutable else rows(outer, *members[:j])
            clauses = self._parallel_clauses(domain, inner_outer, members[j], report)
            if clauses is None:
                continue
            if (nested or (j and not permutable)) and \
                    not self._enough_trips(domain, inner_outer, _sliced(seg.mupa, j, j + 1),
                                           report, what, j):
                continue
            mark = "parallel" + (f" {clauses}" if clauses else "")
            report.parallel, report.clauses = f"{what} {j}", clauses
            if permutable:
                order = [j] + [k for k in range(seg.n) if k != j]
                new = [_Segment(_permuted(seg.mupa, order), [mark])]
                if j:
                    report.notes.append(f"parallel {what} {j} moved outermost")
            else:
                new = ([_Segment(_sliced(seg.mupa, 0, j))] if j else []) + \
                      [_Segment(_sliced(seg.mupa, j, seg.n), [mark])]
            new[0].marks = seg.marks + new[0].marks
            return segments[:index] + new + segments[index + 1:], True
        return segments, False

    def _enough_trips(self, domain, outer, member_mupa, report, what, j) -> bool:
        """An inner parallel loop (inside a sequential one) pays a fork/join per outer
        iteration: only worth it with ``MIN_PARALLEL_TRIPS`` iterations or more and at
        most ``MAX_NESTED_FORKS`` outer iterations, each with ``MIN_INSTANCES_PER_FORK``
        statement instances or more on average (at the known parameter values; unknown
        counts are taken as favourable)."""
        space = band_space(self.scop, domain, member_mupa)
        if space is not None and space.extents[0] < MIN_PARALLEL_TRIPS:
            report.notes.append(f"inner parallel {what} {j} skipped: {space.extents[0]} iterations")
            return False
        if not prefix_is_empty(outer):
            forks = outer_iterations(self.scop, domain, outer)
            if forks is not None and forks > MAX_NESTED_FORKS:
                report.notes.append(f"inner parallel {what} {j} skipped: {forks} fork/joins")
                return False
            work = instance_count(self.scop, domain)
            if forks and work is not None and work < MIN_INSTANCES_PER_FORK * forks:
                report.notes.append(f"inner parallel {what} {j} skipped: about {work // forks} "
                                    f"instances per fork/join")
                return False
        return True

    def _wavefront(self, segments, domain, prefix, report):
        """Outer tile band (t0, t1, ...) -> (t0 + t1) then (t1, ...), t1 parallel."""
        seg = segments[0]
        wave = seg.mupa.set_at(0, seg.mupa.get_at(0).add(seg.mupa.get_at(1)))
        first = _sliced(wave, 0, 1)
        clauses = self._parallel_clauses(domain, rows(prefix, mupa_rows(first)),
                                         mupa_rows(wave, [1]), report)
        if clauses is None:
            return segments, False
        mark = "parallel" + (f" {clauses}" if clauses else "")
        report.wavefront = True
        report.parallel, report.clauses = "wavefront (tile loop 1)", clauses
        new = [_Segment(first, list(seg.marks)), _Segment(_sliced(wave, 1, seg.n), [mark])]
        return new + segments[1:], True

    def _mark_innermost(self, segments, domain, prefix, node, n_prefix, member, report):
        """``simd`` (and ``unroll N``) on the innermost loop of the chain, split into its
        own band: simd only when that loop carries no dependence at all (scalars
        included) and walks some array with stride 1."""
        opts = self.options
        last = segments[-1]
        marks = []
        if opts.simd and member is not None:
            outer = rows(prefix, *(mupa_rows(s.mupa) for s in segments[:-1]),
                         *(mupa_rows(last.mupa, [k]) for k in range(last.n - 1)))
            inner = mupa_rows(last.mupa, [last.n - 1])
            strides = member_strides(self.scop, node, n_prefix, member)
            if is_parallel(self.validity, outer, inner) and Stride.UNIT in strides \
                    and Stride.STRIDED not in strides:
                marks.append("simd")
                report.simd = True
        outer_marks = []
        if opts.unroll and opts.unroll > 1:
            # GCC's unroll pragma cannot follow "omp simd" on the same loop: then it goes
            # on the loop around it (an unroll-and-jam request)
            if marks and last.n >= 2:
                outer_marks.append(f"unroll {opts.unroll}")
            elif not marks:
                marks.append(f"unroll {opts.unroll}")
            if marks or outer_marks:
                report.unroll = opts.unroll if (outer_marks or "simd" not in marks) else None
        if not marks:
            return segments
        if last.n == 1:
            last.marks.extend(marks)
            return segments
        segments = segments[:-1]
        if outer_marks and last.n > 2:
            segments.append(_Segment(_sliced(last.mupa, 0, last.n - 2), last.marks))
            segments.append(_Segment(_sliced(last.mupa, last.n - 2, last.n - 1), outer_marks))
        else:
            segments.append(_Segment(_sliced(last.mupa, 0, last.n - 1),
                                     last.marks + outer_marks))
        segments.append(_Segment(_sliced(last.mupa, last.n - 1, last.n), marks))
        return segments

    # -- tree surgery ------------------------------------------------------------------
    def _build(self, node, segments, prefix):
        """Replace the band at ``node`` by ``segments`` (outermost first), with flags
        recomputed from the dependences; returns the node at the top of the chain."""
        flags = []
        outer = prefix
        for seg in segments:
            members = [mupa_rows(seg.mupa, [k]) for k in range(seg.n)]
            permutable = is_permutable(self.validity, outer, seg.mupa)
            coincident = [is_parallel(self.validity, rows(outer, *members[:k]), members[k])
                          for k in range(seg.n)]
            flags.append((permutable, coincident))
            outer = rows(outer, *members)
        node = node.delete()
        for seg, (permutable, coincident) in zip(reversed(segments), reversed(flags)):
            node = node.insert_partial_schedule(seg.mupa)
            node = node.band_set_permutable(1 if permutable else 0)
            if seg.separate_last:
                node = node.band_member_set_ast_loop_type(seg.n - 1, isl.ast_loop_type.separate)
            for k, flag in enumerate(coincident):
                node = node.band_member_set_coincident(k, 1 if flag else 0)
            for mark in reversed(seg.marks):
                node = node.insert_mark(isl.Id(mark))
        return node


def tile_with_report(scop: Scop, deps, schedule: isl.Schedule,
                     options: TileOptions | None = None,
                     caches: CacheSizes | None = None) -> tuple[isl.Schedule, TilingReport]:
    """Tile and mark ``schedule`` (a tree over ``scop.domain``); see the module docstring.

    ``deps``: a ``polysched.dependence.Dependences`` (its ``validity`` is used), a
    validity ``isl.UnionMap``, or None; memory dependences recomputed per array are
    always added. Raises ``TilingError`` if ``schedule`` itself violates a dependence.
    """
    options = options or TileOptions()
    accesses = ScopAccesses(scop)
    validity = accesses.all_memory()
    given = _deps_validity(deps)
    if given is not None:
        validity = validity.union(given)
    # the code runs only under the context (emit_c/versioning.py checks it at run time)
    validity = validity.intersect_params(scop.context)
    bad = violated_dependences(schedule, validity)
    if not bad.is_empty():
        raise TilingError(f"the schedule to tile violates dependences: {bad}")
    tiling = _TilingPass(scop, validity, accesses, options, caches or cache_sizes())
    result = tiling.walk(schedule.get_root(), parallel_above=False).get_schedule()
    bad = violated_dependences(result, validity)
    if not bad.is_empty():       # a bug of this pass: never hand out an illegal schedule
        raise TilingError(f"tiling produced an illegal schedule; violated: {bad}")
    return result, tiling.report


def tile(scop: Scop, deps, schedule: isl.Schedule,
         options: TileOptions | None = None) -> isl.Schedule:
    """``tile_with_report(...)[0]``."""
    return tile_with_report(scop, deps, schedule, options)[0]
