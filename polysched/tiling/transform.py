"""The tiling policy: decide, per band, which schedule primitives to apply, then apply them.

The policy reads the input tree and, for every band (outermost first), decides a list
of primitive steps on loops named ``(stmt, depth)``, the same steps a researcher calls
on :class:`polysched.Program` (``polysched.transform.primitives``):

    tile(S, sizes, d)                   tile loops d..d+n-1 (twice with l2tile)
    permute(S, order)                   point loops in stride-1 order
    permute(S, [d + j, ...])            the parallel tile loop moved outermost
    wavefront(S, d)                     when no tile loop is parallel: (t0 + t1, t1, ...)
    parallel(S, d', private, reductions)
    vectorize(S, innermost) / unroll(S, innermost [- 1], N)
    separate(S, innermost)              full/partial tiles of the innermost point loop apart

``S`` is a statement the band schedules and ``d`` the depth of the band's first loop
for ``S``. The steps are applied innermost band first, so the loop names decided on
the input tree stay valid (a step renames loops only at or below its own band), and
every band's steps are recorded in ``TilingReport.steps``: replaying them on the
input tree (``Program.replay``) gives the same schedule. Band flags (permutable,
coincident) are then recomputed from the dependences, and the result is checked for
legality before it is returned.

Every decision is asked of the dependences (``polysched.dependence.loops``): a band is
tiled only when permutable, a loop marked parallel only when it carries no dependence
except on private or reduction scalars (``polysched.dependence.scalars``), ``simd`` only
on a stride-1 loop that carries none at all.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import islpy as isl

from polysched.dependence import is_legal, mark_violations, violated_dependences
from polysched.dependence.loops import (band_flags, carried, distances, is_parallel, mupa_rows,
                                        node_band_flags, prefix_is_empty, prefix_rows, rows)
from polysched.dependence.scalars import ScopAccesses, classify_scalars, clause_candidate, reduced_cell
from polysched.errors import ArgumentError, PolyschedError, TransformError
from polysched.islutil import sets_of, val
from polysched.marks import Parallel, Simd, Tensorize, Unroll, try_parse_mark
from polysched.scop.model import FLOAT_TYPES, Scop
from polysched.transform import primitives
from polysched.transform.loops import node_at, path_of, statement_loops

from .cache import CacheSizes, cache_sizes
from .footprint import (EXACT_COUNT_LIMIT, band_space, choose_multiple, choose_sizes, instance_count,
                        outer_iterations)
from .options import BandReport, TileOptions, TilingReport
from polysched.schedule import SMALL_LOOP, small_inner_loops
from .stride import (Stride, classify, invariant_writes, member_scores, member_strides, point_order,
                     unit_stride_writes)

_band = isl.schedule_node_type.band
_mark = isl.schedule_node_type.mark


def min_parallel_trips(threads: int) -> int:
    """A parallel loop should give each of ``threads`` threads at least two iterations."""
    return max(4, 2 * threads)


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
    """The policy produced (or was given) a schedule that violates a dependence."""


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
        result = result.set_at(k, mupa.get_at(k).scale_down_val(val(size)).floor())
    return result


def _has_band_below(node: isl.ScheduleNode) -> bool:
    if node.get_type() == _band:
        return True
    return any(_has_band_below(node.child(i)) for i in range(node.n_children()))


def memory_validity(scop: Scop, accesses: ScopAccesses, deps) -> isl.UnionMap:
    """The dependences a transformation of ``scop`` must respect: the memory
    dependences recomputed per array (``accesses.all_memory()``) with ``deps`` (a
    ``Dependences``, a validity ``isl.UnionMap`` or None), under ``scop.context``, where
    the code runs (emit_c/versioning.py checks it at run time)."""
    validity = accesses.all_memory()
    if deps is not None:
        validity = validity.union(deps if isinstance(deps, isl.UnionMap) else deps.validity)
    return validity.intersect_params(scop.context)


def band_first_loop(scop: Scop, schedule: isl.Schedule, path: tuple[int, ...], present: set[str],
                    loops: dict[str, list]) -> tuple[str, int] | None:
    """``(stmt, depth)`` of the first loop of the band at ``path``: of the first statement
    in program order among ``present`` for which it is member 0; None when none is.
    ``loops``: `statement_loops` per statement name, filled as needed (a cache for one
    ``schedule``)."""
    for stmt in scop.statements:
        if stmt.name not in present:
            continue
        if stmt.name not in loops:
            try:
                loops[stmt.name] = statement_loops(scop, schedule, stmt.name)
            except TransformError:
                loops[stmt.name] = []
        for lp in loops[stmt.name]:
            if lp.path == path and lp.member == 0:
                return stmt.name, lp.depth
    return None


def _step(op: str, **args) -> dict:
    return {"op": op, "args": args}


def _parallel_step(stmt: str, depth: int, mark: Parallel) -> dict:
    args: dict = {"stmt": stmt, "depth": depth, "private": list(mark.private),
                  "reductions": [list(r) for r in mark.reductions]}
    if mark.lastprivate:
        args["lastprivate"] = list(mark.lastprivate)
    if mark.schedule:
        args["schedule"] = mark.schedule
    return {"op": "parallel", "args": args}


@dataclass
class _Chain:
    """The loops a band becomes, as the planner models them: the partial schedules of
    the band's loops outermost first (what the steps will produce), the depth of the
    first one for the band's statement, and the steps so far."""

    stmt: str
    depth: int
    loops: list[isl.MultiUnionPwAff]           # one-member schedules, outermost first
    steps: list[dict] = field(default_factory=list)

    def rows(self, prefix: isl.UnionMap, upto: int) -> isl.UnionMap:
        """The prefix rows followed by the first ``upto`` loops of the chain."""
        return rows(prefix, *(mupa_rows(m) for m in self.loops[:upto]))


class _Policy:
    def __init__(self, scop: Scop, validity: isl.UnionMap, accesses: ScopAccesses,
                 options: TileOptions, caches: CacheSizes):
        self.scop = scop
        self.validity = validity
        self.accesses = accesses
        self.options = options
        self.caches = caches
        self.threads = options.target_threads()
        self.min_parallel_trips = min_parallel_trips(self.threads)
        self.report = TilingReport()
        self._scalars = {n for n, a in scop.arrays.items() if clause_candidate(a) or reduced_cell(scop, n)}
        self._array_deps = accesses.memory_except(self._scalars)
        self.plans: list[list[dict]] = []          # steps per band, in walk order
        self.reports: list[BandReport] = []        # the band of each plan
        self._loops: dict[str, list] = {}
        self._outer_simd = False                   # the band just planned put simd around deeper loops

    # -- walk (on the input tree: nothing is rewritten while deciding) -------------------
    def walk(self, schedule: isl.Schedule) -> None:
        self._schedule = schedule
        self._walk(schedule.get_root(), False)

    def _walk(self, node: isl.ScheduleNode, parallel_above: bool, simd_above: bool = False) -> None:
        if node.get_type() == _mark and isinstance(try_parse_mark(node.mark_get_id()), Tensorize):
            return        # the loops below are the intrinsic's: the call replaces them
        if node.get_type() == _band:
            if simd_above:
                # inside an ``omp simd`` loop no OpenMP construct may start
                options = self.options
                self.options = replace(options, simd=False, parallel=False)
                try:
                    self.plan_band(node, True)
                finally:
                    self.options = options
            else:
                self._outer_simd = False
                parallel_above = self.plan_band(node, parallel_above) or parallel_above
                simd_above = self._outer_simd
        for i in range(node.n_children()):
            self._walk(node.child(i), parallel_above, simd_above)

    def _name_of(self, node: isl.ScheduleNode) -> tuple[str, int] | None:
        """``(stmt, depth)`` of the band's first loop: a statement it schedules (the
        first in program order with instances there) for which that loop is the
        band's first member; None when no statement names it (the band runs no
        instance, or every statement is split over several branches)."""
        present = {s.get_tuple_name() for s in sets_of(node.get_domain()) if not s.is_empty()}
        return band_first_loop(self.scop, self._schedule, path_of(node), present, self._loops)

    # -- one band ----------------------------------------------------------------------
    def plan_band(self, node: isl.ScheduleNode, parallel_above: bool) -> bool:
        """Decide the steps for the band at ``node``; returns whether a parallel mark
        is among them. The band's questions are asked of the dependences between its
        own instances: its steps change the dates of no other instance (the order
        against those is decided above it), and smaller relations answer faster (adi's
        legality checks in the tiler: 0.32 s -> 0.18 s). `tile_with_report` checks the
        whole result."""
        whole = self.validity
        domain = node.get_domain()
        self.validity = whole.intersect_domain(domain).intersect_range(domain)
        try:
            return self._plan_band(node, domain, parallel_above)
        finally:
            self.validity = whole

    def _plan_band(self, node: isl.ScheduleNode, domain: isl.UnionSet, parallel_above: bool) -> bool:
        opts = self.options
        n = node.band_n_member()
        if n == 0:           # a zero-dimensional band schedules nothing: leave it
            return False
        mupa = node.band_get_partial_schedule()
        prefix = prefix_rows(node)
        n_prefix = node.get_schedule_depth()
        # parallel[k]: member k carries nothing inside the prefix and members 0..k-1
        coincident, permutable = band_flags(self.validity, prefix, mupa)
        report = BandReport(depth=n_prefix, members=n, schedule=str(mupa),
                            permutable=permutable, coincident=coincident)
        self.report.bands.append(report)
        if node.band_get_permutable() and not permutable:
            report.notes.append("input flags it permutable: dependences say no")
        name = self._name_of(node)
        if name is None:
            # (helper-89: a band under a context that holds for no parameter value said
            # this of statements split over branches only)
            runs = any(not s.is_empty() for s in sets_of(domain.intersect_params(self.scop.context)))
            report.notes.append("left as it is: no statement names its loops" if runs else
                                "left as it is: it runs no instance under the region's context")
            return False
        chain = _Chain(name[0], name[1], [_sliced(mupa, k, k + 1) for k in range(n)])
        is_leaf = not _has_band_below(node.child(0))
        wants_parallel = opts.parallel and not parallel_above

        placed = False
        narrow = self._narrow_skew(mupa, domain, n) if opts.tile and permutable and n >= 2 else None
        if narrow is not None:
            report.notes.append(f"not tiled: member {narrow[0]} is a skew that spans at most {narrow[1]} values "
                                f"for each value of the members before it")
        streaming = opts.tile and permutable and n >= 2 and narrow is None and not self._given_sizes(domain) \
            and not self._reuse_inside(domain, prefix, mupa)
        if streaming:
            report.notes.append("not tiled: no array element is used by two of its iterations (a stream)")
        if opts.tile and permutable and (n >= 2 or opts.tile_depth1) and narrow is None and not streaming:
            placed = self._tile(chain, node, mupa, domain, prefix, n_prefix, report, wants_parallel)
            innermost_member = (report.point_order or list(range(n)))[-1]
            points = len(chain.loops) - n
        else:
            order = list(range(n))
            if permutable and n >= 2 and opts.intra_tile_reorder:
                # the same stride-1 order as for point loops: legal for a permutable band
                order, report.jam_member = self._loop_order(node, mupa, prefix, n_prefix, report)
                if order != list(range(n)):
                    self._permute(chain, 0, order)
                    report.notes.append(f"loops reordered {order}")
            if wants_parallel:
                # (the loops in their new order: a row loop over a triangle shares its rows
                # out as a tile loop does its tiles)
                placed = self._parallelize(chain, 0, n, domain, prefix, permutable, report, "loop",
                                           band=_permuted(mupa, order),
                                           keep_innermost=permutable and is_leaf and
                                           self._keeps_innermost(node, n_prefix, order))
            innermost_member = next((k for k in range(n)
                                     if mupa.get_at(k).plain_is_equal(chain.loops[-1].get_at(0))), None)
            points = 0

        jam = self._jam_steps(chain, report, is_leaf, mupa)
        if not is_leaf and not jam and opts.simd and opts.intra_tile_reorder and innermost_member is not None:
            self._mark_around_inner_loops(chain, node, prefix, n_prefix, innermost_member, report)
        if is_leaf and (opts.simd or opts.unroll):
            # with a jam too: the copies go below the innermost loop, which stays a vector
            # loop when it was one (gemm's j; gesummv's innermost reduction never is)
            self._mark_innermost(chain, points, domain, prefix, node, n_prefix, innermost_member, report)
            if jam and report.simd and self._jam_breaks_simd(chain.steps + jam):
                jam, report.jam, report.jam_member = [], None, None
                report.notes.append("no unroll-and-jam: the jammed copies would make the vector loop "
                                    "carry a dependence")
        distributed = is_leaf and opts.simd and not report.simd and not opts.unroll and not jam and \
            opts.intra_tile_reorder and domain.n_set() >= 2 and self._distribute_innermost(chain, domain, report)
        if is_leaf and report.tiled and not distributed and domain.n_set() <= MAX_SEPARATED_STATEMENTS:
            # Skewed point loops of fused statements otherwise keep per-statement guards
            # (`if (c5 >= 2 * c4 + 2)`) inside the innermost loop, which stops gcc from
            # vectorizing it: jacobi-2d 2.2x, heat-3d 1.9x faster separated.
            chain.steps.append(_step("separate", stmt=chain.stmt, depth=chain.depth + len(chain.loops) - 1))
        chain.steps += jam
        self.plans.append(chain.steps)
        self.reports.append(report)
        report.steps = chain.steps
        return placed

    def _jam_breaks_simd(self, steps: list[dict]) -> bool:
        """Whether the band's ``simd`` loop carries a dependence once the loop around it
        is unroll-and-jammed: a dependence from ``(a, b)`` to ``(a + 1, b + 1)`` of the
        jammed and vector loops is carried by neither before the jam, and by the vector
        loop after it (the copies of ``a`` and ``a + 1`` share one body)."""
        try:
            candidate = apply_steps(self.scop, self._schedule, steps)
        except (TransformError, isl.Error):
            return False        # (the whole result's check decides)
        return any(v.kind == "mark" and "'simd'" in v.message for v in mark_violations(self.scop, candidate))

    def _permute(self, chain: _Chain, start: int, order: list[int]) -> None:
        """Loops ``start + order[k]`` become loop ``start + k`` of the chain."""
        if order == list(range(len(order))):
            return
        part = chain.loops[start:start + len(order)]
        chain.loops[start:start + len(order)] = [part[k] for k in order]
        chain.steps.append(_step("permute", stmt=chain.stmt,
                                 order=[chain.depth + start + k for k in order]))

    def _tile(self, chain: _Chain, node, mupa, domain, prefix, n_prefix, report, wants_parallel) -> bool:
        opts = self.options
        n = mupa.dim(isl.dim_type.set)
        all_given = self._given_sizes(domain)
        for note in self._unused_statement_sizes(domain):
            report.notes.append(note)
        given = all_given[:n]
        # (helper-46 F16: `sizes=8` tiled [8, 256] under the label "sizes=8", silently)
        if 0 < len(all_given) < n:
            report.notes.append(f"{len(all_given)} of {n} tile sizes given: the rest from the footprint model")
        elif len(all_given) > n and isinstance(opts.sizes, dict):
            # (one list for every band: longer than a shallow band is its use; see
            # _unused_sizes for a list longer than every band)
            report.notes.append(f"{len(all_given)} tile sizes given for {n} members: the last "
                                f"{len(all_given) - n} unused")
        space = None
        if len(given) < n or opts.l2tile:
            space = band_space(self.scop, domain, mupa, prefix)
        l1_budget = int(CACHE_SHARE * (self.caches.l1d if opts.l2tile else self.caches.l2))
        order = list(range(n))
        if opts.intra_tile_reorder and n >= 2:
            order, report.jam_member = self._loop_order(node, mupa, prefix, n_prefix, report)
            if opts.point_wavefront and report.jam_member is None and not opts.unroll:
                order = self._chain_breaking_order(prefix, mupa, order, report)
        report.point_order = order
        # a parallel outer tile loop needs a few tiles per thread; the innermost point
        # loop (the vector loop) should be long
        min_tiles = self.min_parallel_trips if wants_parallel else 1
        model = choose_sizes(space, n, l1_budget, min_outer_tiles=min_tiles, innermost=order[-1],
                             threads=self.threads if wants_parallel else 1) \
            if len(given) < n else []
        sizes = given + model[len(given):]
        jammed = report.jam_member
        if jammed is not None and jammed >= len(given) and opts.register_tile > 1:
            # the model's size of the loop to jam, a whole number of strips (`_jam_steps`)
            sizes[jammed] = -(-sizes[jammed] // opts.register_tile) * opts.register_tile
        diamond = n >= 2 and not any(report.coincident[:2]) and _concurrent_start(mupa)
        if diamond and len(given) < 2:
            # diamond tiles (ScheduleOptions.diamond): only equal sizes along the two
            # members keep a wavefront of tiles parallel to the start face
            sizes[0] = sizes[1] = min(sizes[0], sizes[1])
        if diamond:
            report.notes.append("diamond tiles (concurrent start)")
        report.tiled, report.sizes = True, sizes

        tiles = []
        if opts.l2tile:
            multiple = choose_multiple(space, sizes, int(CACHE_SHARE * self.caches.l2))
            report.l2_sizes = [s * m for s, m in zip(sizes, multiple)]
            chain.steps.append(_step("tile", stmt=chain.stmt, sizes=report.l2_sizes, depth=chain.depth))
            tiles.append(_tiled(mupa, report.l2_sizes))
        chain.steps.append(_step("tile", stmt=chain.stmt, sizes=sizes, depth=chain.depth + len(tiles) * n))
        tiles.append(_tiled(mupa, sizes))
        chain.loops = [_sliced(t, k, k + 1) for t in tiles for k in range(n)] + chain.loops
        self._permute(chain, len(tiles) * n, order)
        if diamond and order.index(0) < order.index(1):
            # inside a diamond tile the points run by time (h0 + h1 = λ·t) where h0 ran:
            # the original time loop outside, the stride-1 loop still innermost (along h0
            # alone, jacobi-1d's inner loop walked a diagonal); legal, as h0 and h1 are
            # both forward
            first = len(tiles) * n + order.index(0)
            second = len(tiles) * n + order.index(1)
            chain.loops[first] = chain.loops[first].add(chain.loops[second])
            chain.steps.append(_step("skew", stmt=chain.stmt, depth=chain.depth + first,
                                     by_depth=chain.depth + second, factor=1))
        elif opts.point_wavefront and n >= 2 and report.jam_member is None and not opts.unroll \
                and not self._parallel_member(prefix, mupa) and self._recurrence(prefix, mupa, order[-1]):
            # seidel-2d: each update waits for the one before (A[i][j - 1], same t), ~35
            # cycles of additions and a division; on a wavefront p0 + ... + p(n-1) they
            # are independent (a permutable band's dependences have no negative
            # component, so a carried one advances the sum). LARGE, 2 threads: 1.59x ->
            # 6.46x. Only for such a chain: elsewhere the wavefront's diagonal walk loses
            # (floyd-warshall 3.60x -> 0.45x, cholesky 3.29x -> 1.03x, jacobi-1d 2.57x -> 0.34x).
            first = len(tiles) * n
            for k in range(1, n):
                chain.loops[first] = chain.loops[first].add(chain.loops[first + k])
                chain.steps.append(_step("skew", stmt=chain.stmt, depth=chain.depth + first,
                                         by_depth=chain.depth + first + k, factor=1))
            report.point_wavefront = True

        placed = False
        if wants_parallel:
            placed = self._parallelize(chain, 0, n, domain, prefix, True, report, "tile loop", band=mupa)
            if not placed and n >= 2 and opts.wavefront:
                placed = self._wavefront(chain, n, domain, prefix, report, mupa)
        return placed

    def _parallel_when_innermost(self, prefix: isl.UnionMap, mupa: isl.MultiUnionPwAff, k: int) -> bool:
        """Does member ``k`` carry no dependence as the innermost loop (inside the prefix
        and all other members)?"""
        n = mupa.dim(isl.dim_type.set)
        members = [mupa_rows(mupa, [m]) for m in range(n)]
        return is_parallel(self.validity, rows(prefix, *(members[m] for m in range(n) if m != k)), members[k])

    def _parallel_member(self, prefix: isl.UnionMap, mupa: isl.MultiUnionPwAff) -> bool:
        """Is some member of the band parallel as the innermost loop?"""
        return any(self._parallel_when_innermost(prefix, mupa, k) for k in range(mupa.dim(isl.dim_type.set)))

    def _chain_breaking_order(self, prefix: isl.UnionMap, mupa: isl.MultiUnionPwAff, order: list[int],
                              report: BandReport) -> list[int]:
        """``order`` with a parallel member innermost instead of one that carries a
        chain of updates (`_recurrence`), when there is such a member: adi's sweeps
        divide by what the iteration before computed (``p[i][j - 1]``, ~15 cycles each)
        along the stride-1 ``j``; with ``i`` innermost the divisions of different rows
        are independent. The tile keeps the lines ``i`` walks across in cache."""
        n = len(order)
        inner = order[-1]
        if not self._recurrence(prefix, mupa, inner):
            return order
        for k in reversed(order[:-1]):
            if self._parallel_when_innermost(prefix, mupa, k):
                report.notes.append(f"member {k} innermost: member {inner} carries a chain of updates")
                return [m for m in order if m != k] + [k]
        return order

    def _recurrence(self, prefix: isl.UnionMap, mupa: isl.MultiUnionPwAff, inner: int) -> bool:
        """Does member ``inner``, as the innermost loop, carry a chain of updates
        (`ScopAccesses.recurrences`) at one constant distance: each iteration reads
        what the one a fixed number before wrote, all along the loop?"""
        n = mupa.dim(isl.dim_type.set)
        members = [mupa_rows(mupa, [k]) for k in range(n)]
        chains = self.accesses.recurrences().intersect_domain(mupa.domain()).intersect_range(mupa.domain())
        carried_chains = carried(chains, rows(prefix, *(members[m] for m in range(n) if m != inner)),
                                 members[inner])
        if carried_chains.is_empty():
            return False
        for vectors in distances(carried_chains, members[inner]):
            if not vectors.is_singleton():
                return False
        return True

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

    def _unused_statement_sizes(self, domain: isl.UnionSet) -> list[str]:
        """Notes for per-statement sizes the band scheduling ``domain`` does not take: a
        band takes its first statement's (helper-90: ``S0=16,32;S1=8,8`` on a band of
        both tiled it [16, 32] without a word)."""
        sizes = self.options.sizes
        if not isinstance(sizes, dict):
            return []
        present = {s.get_tuple_name() for s in sets_of(domain)}
        named = [stmt.name for stmt in self.scop.statements if stmt.name in present and stmt.name in sizes]
        return [f"tile sizes of {name} unused: {name} shares this band with {named[0]}, whose sizes it takes"
                for name in named[1:] if list(sizes[name]) != list(sizes[named[0]])]

    def _loop_order(self, node, mupa, prefix, n_prefix, report: BandReport) -> tuple[list[int], int | None]:
        """Order of the members of a permutable band: the innermost walks stride 1,
        preferably a member that carries no dependence once innermost (SIMD); and the
        member to unroll-and-jam (register tiling), or None.

        A SIMD member that walks some array across rows loses to the stride-1 member
        that carries a reduction chain when register tiling is on: that member stays
        innermost and the SIMD one is jammed, giving independent chains (gesummv's
        ``y[i] += B[i][j] * x[j]``: ``j`` innermost, ``i`` jammed; before, ``i``
        innermost walked ``B`` by columns, 0.73x the original at 1 thread)."""
        n = mupa.dim(isl.dim_type.set)
        scores = member_scores(self.scop, node, n_prefix)
        unit_writes = unit_stride_writes(self.scop, node, n_prefix)
        members = [mupa_rows(mupa, [k]) for k in range(n)]
        vectorizable = [
            unit_writes[k] and is_parallel(self.validity,
                                           rows(prefix, *(members[m] for m in range(n) if m != k)),
                                           members[k])
            for k in range(n)]
        order = point_order(scores, vectorizable)
        inner = order[-1]
        best = max(range(n), key=lambda k: (scores[k], k))
        if self.options.register_tile > 1 and not self.options.unroll and vectorizable[inner] \
                and not vectorizable[best] and scores[best] > scores[inner] \
                and Stride.STRIDED in member_strides(self.scop, node, n_prefix, inner):
            order = [k for k in range(n) if k != best] + [best]
            return order, inner if self._jam_unshifted(node, mupa, inner, report) else None
        if self.options.register_tile > 1 and not self.options.unroll and n >= 2 and n_prefix + n >= 3 \
                and vectorizable[inner]:
            # gemm's (i, k, j): every store is the same element all along k (C[i][j]),
            # so k's copies jammed into the vector loop update it in a register, in k's
            # order (the same sums), where the loop loaded and stored C once per k
            # (LARGE, 1 thread: gemm 1.34x, 2mm 1.43x, 3mm 1.36x, doitgen 1.90x). Such a
            # member goes just outside the vector loop: trmm's (k, i, j) becomes
            # (i, k, j), B[i][j] kept along k (1.22x at 2 threads). Along a triangle
            # too (trmm's k > i; symm's k < i 1.04x, where it once left guards in the
            # body). Not in a 2-deep nest, a matrix-vector stream with no reuse to keep
            # (mvt 0.89x; doitgen's 2-member band inside (r, q) reuses C4 and gains)
            invariant = invariant_writes(self.scop, node, n_prefix)
            keeping = [m for m in order[:-1] if invariant[m]]
            if keeping and self._jam_unshifted(node, mupa, keeping[-1], report):
                return [k for k in order[:-1] if k != keeping[-1]] + [keeping[-1], inner], keeping[-1]
        return order, None

    @staticmethod
    def _jam_unshifted(node, mupa: isl.MultiUnionPwAff, member: int, report: BandReport) -> bool:
        """May band member ``member`` be unroll-and-jammed? Not where a parameter shifts
        its bounds along another member (with a note): a band matrix's
        `max(i - KL, 0) <= j <= min(i + KU, n - 1)` jammed by 4 gave an AST of cases on
        `KL % 4` and `KU % 4` that took isl's validation past the codegen budget (then
        the untiled fallback, after 10-20 s); a triangle's `j <= i` jams (trmv at 2
        threads: 1.9x the original)."""
        if _coupled_without_parameters(node.get_domain(), mupa, member):
            return True
        report.notes.append("no unroll-and-jam: a parameter shifts the bounds of the loop to "
                            "jam along another loop")
        return False

    def _jam_steps(self, chain: _Chain, report: BandReport, is_leaf: bool,
                   mupa: isl.MultiUnionPwAff) -> list[dict]:
        """The unroll-and-jam step `_loop_order` asked for, on the chain's loop of
        band member ``report.jam_member``; only when no band is below (the copies are
        jammed into the innermost body) and that loop is not the innermost. The
        primitive isolates the full strips, which run without the guards of a partial
        one (``if (N >= 4 * c2 + 2)`` in the innermost loop)."""
        member = report.jam_member
        wanted = _sliced(mupa, member, member + 1) if member is not None else None
        position = next((k for k, lp in enumerate(chain.loops) if wanted is not None
                         and lp.plain_is_equal(wanted)), None)
        if not is_leaf or position is None or position == len(chain.loops) - 1:
            report.jam_member = None
            return []
        narrowing = _narrowing_float_update(self.scop, {s.get_tuple_name() for s in sets_of(mupa.domain())})
        factor = self.options.register_tile
        if report.tiled and report.sizes[member] % factor:
            # (helper-93: a 5-wide tile jammed by 4 leaves a partial strip in every tile,
            # which isl's AST generator splits into cases: 20 s of code generation, past
            # the budget, and the tiling was dropped)
            report.notes.append(f"no unroll-and-jam: the tile size {report.sizes[member]} is not a "
                                f"multiple of the factor {factor}")
            report.jam_member = None
            return []
        inner = report.point_order[-1] if report.tiled and report.point_order else None
        if inner is not None and inner != member and report.sizes[inner] < factor:
            # (helper-96: tiles of 3 along the vector loop, 4 copies jammed around it: a
            # triangle's AST of cases took the code generation past its budget; so few
            # iterations are no vector loop worth registers)
            report.notes.append(f"no unroll-and-jam: the innermost loop's tiles are {report.sizes[inner]} "
                                f"wide, fewer than the factor {factor}")
            report.jam_member = None
            return []
        if narrowing is not None:
            report.notes.append(f"no unroll-and-jam: {narrowing} stores a floating-point value into a narrower type "
                                f"(gcc 12 with AVX-512 drops the rounding between jammed copies)")
            report.jam_member = None
            return []
        parts = _linear_parts(mupa.get_at(member))
        if parts is None or not all(any(coefficients) for coefficients in parts.values()):
            # a statement the jammed loop does not move (gramschmidt's S2-S4 fused with
            # S5 under --fuse max: constant 0 along it) is one isl's AST generator
            # separates from every copy: no code after 600 s
            report.notes.append("no unroll-and-jam: some statement of the band is constant along "
                                "the loop to jam")
            report.jam_member = None
            return []
        report.jam = factor
        return [_step("unroll_and_jam", stmt=chain.stmt, depth=chain.depth + position, factor=factor)]

    # -- parallelism -------------------------------------------------------------------
    def _parallel_mark(self, domain, outer: isl.UnionMap, member: isl.UnionMap,
                       report: BandReport) -> Parallel | None:
        """The ``Parallel`` mark (with its private and reduction scalars) if the loop of
        ``member`` inside ``outer`` can run in parallel, else None."""
        if not is_parallel(self._array_deps, outer, member):
            return None
        verdict = classify_scalars(self.scop, self.accesses, domain, rows(outer, member),
                                   reassociate=self.options.reassociate)
        if not verdict.ok:
            for name, reason in verdict.blocking.items():
                note = f"{'scalar' if self.scop.arrays[name].is_scalar else 'array'} {name} blocks parallelism: {reason}"
                if note not in report.notes:
                    report.notes.append(note)
            return None
        for name in verdict.reassociated:
            asked = "--reassociate" if self.options.reassociate is True else "as the region's own reduction clause allows"
            note = f"floating-point reduction of {name} reassociated ({asked})"
            if note not in report.notes:
                report.notes.append(note)
        return Parallel(tuple(verdict.private), tuple((op, name) for name, op in verdict.reductions),
                        lastprivate=tuple(verdict.lastprivate))

    def _keeps_innermost(self, node, n_prefix: int, order: list[int]) -> bool:
        """Should the band's innermost loop (member ``order[-1]``) stay innermost even when
        it is the only one that could run in parallel outermost? When it walks some
        array with stride 1 and another member walks one across rows: moved outermost,
        that member would be innermost (``y[j] += A[i][j] * x[i]`` walked ``A`` by
        columns: 4.5-5.8x slower than the source, tester helper-102 D3). Blocks of 128
        to 2048 of it in parallel (strip-mined) were still 0.56-0.75x the source at 1
        thread and 0.7-1.2x at 2: a matrix-vector stream is bound by memory."""
        strides = [member_strides(self.scop, node, n_prefix, k) for k in order]
        return len(order) >= 2 and Stride.UNIT in strides[-1] and Stride.STRIDED not in strides[-1] and \
            any(Stride.STRIDED in other for other in strides[:-1])

    def _parallelize(self, chain: _Chain, start: int, n: int, domain, prefix, permutable,
                     report, what, band: isl.MultiUnionPwAff | None = None, keep_innermost: bool = False) -> bool:
        """Mark the outermost parallel loop among chain loops ``start .. start + n - 1``
        (one band): moved to the front when the band is permutable, else marked where
        it is (an inner parallel loop). ``band``: the members those loops tile, when
        they are tile loops, or the loops themselves: a parallel one whose iterations hold
        unequal work (a triangle ``j > i`` tiled along ``i``) hands them out dynamically.
        ``keep_innermost``: the last loop is not to be moved outermost
        (`_keeps_innermost`): it is the parallel loop only inside the others."""
        outer = chain.rows(prefix, start)
        strided_outside = False
        for j in range(n):
            inner_outer = outer if permutable else chain.rows(prefix, start + j)
            member = mupa_rows(chain.loops[start + j])
            mark = self._parallel_mark(domain, inner_outer, member, report)
            if mark is None:
                continue
            if permutable and keep_innermost and j == n - 1 and j:
                report.notes.append(f"parallel {what} {j} not moved outermost: it is the stride-1 loop, and the "
                                    f"loops then inside it would walk arrays across rows")
                strided_outside = True
                continue
            nested = not prefix_is_empty(prefix)
            if (nested or (j and not permutable)) and \
                    not self._enough_trips(domain, inner_outer, chain.loops[start + j], report, what, j):
                continue
            if not nested and _runs_once(domain, chain.loops[start + j]):
                # a channel loop 'for (c = 0; c < 3; c++)' in one tile of 4: its pragma
                # would be dropped (the loop runs once) and the band left sequential
                report.notes.append(f"parallel {what} {j} skipped: it runs once")
                continue
            if band is not None:
                mark = self._balanced(mark, domain, band, j, report)
            report.parallel, report.clauses = f"{what} {j}", mark.clauses()
            at = start
            if permutable:
                self._permute(chain, start, [j] + [k for k in range(n) if k != j])
                if j:
                    report.notes.append(f"parallel {what} {j} moved outermost")
            else:
                at = start + j
            chain.steps.append(_parallel_step(chain.stmt, chain.depth + at, mark))
            return True
        if permutable and n >= 2 and what == "loop":
            if self._parallelize_second(chain, start, n, domain, prefix, report):
                return True
            # (a tester: `--parallel` alone on a fused and skewed stencil said nothing of
            # why no loop ran in parallel; the source's order, whose sweeps are parallel,
            # ran 5-7x slower at 2 threads than this sequential one: jacobi-2d, fdtd-2d)
            report.notes.append("no parallel loop: the one that carries no dependence stays innermost (with "
                                "--tile, its tiles run in parallel)" if strided_outside else
                                "no parallel loop: each carries a dependence, also inside another (with "
                                "--tile, the tiles run in parallel wavefronts)")
        return False

    @staticmethod
    def _balanced(mark: Parallel, domain, band: isl.MultiUnionPwAff, member: int, report) -> Parallel:
        """``mark`` for the parallel (tile) loop of band member ``member``, with
        ``schedule=dynamic`` when its iterations hold unequal work: the band's iterations
        are no box along that member, and some statement's domain is no box (a triangle)."""
        if mark.reductions or _box_along(domain, band, member) or _boxes(domain):
            return mark
        # OpenMP's default hands out equal runs of iterations: correlation's 10 tiles
        # of 128 rows of j > i gave the first thread 76% of the work. Tile by tile, the
        # threads finish together (at 2 threads, LARGE: correlation and covariance
        # 1.45x faster, lu's wavefronts 1.24x). Not with a reduction: its partial
        # results would depend on which thread took which tile. Not where the
        # statements' domains are boxes, the band only skewed (a stencil's diamonds,
        # uneven at the edges alone): there a thread keeps the same tiles from one
        # parallel loop to the next (dynamic everywhere: floyd-warshall 0.53x, fdtd-2d
        # 0.80x; on the diamonds, jacobi-1d 0.86x, heat-3d 0.91x)
        report.notes.append(f"schedule=dynamic: the {'tiles' if report.tiled else 'rows'} hold unequal work")
        return replace(mark, schedule="dynamic")

    def _parallelize_second(self, chain: _Chain, start: int, n: int, domain, prefix, report) -> bool:
        """An untiled permutable band with no parallel member: the first pair (a, b), in
        the band's order, whose member b carries nothing once member a runs outside it,
        becomes loops (a, b, rest...), b parallel (if its forks pay, `_enough_trips`);
        else the band's first p >= 2 members in their order with the first member b that
        carries nothing inside them (a red-black sweep's i inside t and color).
        Pluto's schedule for LU is (i, k, j): no member is parallel, nor is any inside
        i; as (k, i, j), the original order, i is (helper-68: `--parallel` alone gave LU
        no parallel loop)."""
        outer = chain.rows(prefix, start)
        # (a, b) pairs, then the band's first p members in their order around a member b:
        # a red-black sweep (t, color, i, j) has i parallel inside t and color only
        arounds = [[a] for a in range(n)] + [list(range(p)) for p in range(2, n)]
        for kept in arounds:
            around = outer
            for a in kept:
                around = rows(around, mupa_rows(chain.loops[start + a]))
            for b in range(n):
                if b in kept:
                    continue
                mark = self._parallel_mark(domain, around, mupa_rows(chain.loops[start + b]), report)
                if mark is None or not self._enough_trips(domain, around, chain.loops[start + b],
                                                          report, "loop", b):
                    continue
                order = kept + [b] + [k for k in range(n) if k not in kept and k != b]
                self._permute(chain, start, order)
                inside = " and ".join(f"loop {a}" for a in kept)
                report.parallel, report.clauses = f"loop {b} inside {inside}", mark.clauses()
                if order != list(range(n)):
                    report.notes.append(f"loops reordered {order}: loop {b} is parallel inside {inside}")
                chain.steps.append(_parallel_step(chain.stmt, chain.depth + start + len(kept), mark))
                return True
        return False

    def _enough_trips(self, domain, outer, member_mupa, report, what, j) -> bool:
        """An inner parallel loop (inside a sequential one) pays a fork/join per outer
        iteration: only worth it with `min_parallel_trips` iterations or more and at
        most ``MAX_NESTED_FORKS`` outer iterations, each with ``MIN_INSTANCES_PER_FORK``
        statement instances or more on average (at the known parameter values; unknown
        counts are taken as favourable)."""
        space = band_space(self.scop, domain, member_mupa)
        if space is not None and space.extents[0] < self.min_parallel_trips:
            report.notes.append(f"inner parallel {what} {j} skipped: {space.extents[0]} iterations")
            return False
        if not prefix_is_empty(outer):
            forks = outer_iterations(self.scop, domain, outer)
            if forks is not None and forks > MAX_NESTED_FORKS:
                count = f"up to {forks:,} fork/joins (the outer loops' bounding box)" \
                    if forks > EXACT_COUNT_LIMIT else f"{forks} fork/joins"
                report.notes.append(f"inner parallel {what} {j} skipped: {count}")
                return False
            work = instance_count(self.scop, domain)
            if forks and work is not None and work < MIN_INSTANCES_PER_FORK * forks:
                report.notes.append(f"inner parallel {what} {j} skipped: about {work // forks} "
                                    f"instances per fork/join")
                return False
        return True

    def _wavefront(self, chain: _Chain, n: int, domain, prefix, report, band: isl.MultiUnionPwAff) -> bool:
        """Outer tile loops (t0, t1, ...) -> (t0 + t1) then (t1, ...), t1 parallel (its
        tiles handed out dynamically when they hold unequal work, as `_parallelize`'s)."""
        wave = chain.loops[0].add(chain.loops[1])
        mark = self._parallel_mark(domain, rows(prefix, mupa_rows(wave)), mupa_rows(chain.loops[1]),
                                   report)
        if mark is None:
            return False
        mark = self._balanced(mark, domain, band, 1, report)
        chain.loops[0] = wave
        report.wavefront = True
        report.parallel, report.clauses = "wavefront (tile loop 1)", mark.clauses()
        chain.steps.append(_step("wavefront", stmt=chain.stmt, depth=chain.depth))
        chain.steps.append(_parallel_step(chain.stmt, chain.depth + 1, mark))
        return True

    def _mark_innermost(self, chain: _Chain, points: int, domain, prefix, node, n_prefix,
                        member, report) -> None:
        """``simd`` (and ``unroll N``) on the innermost loop of the chain: simd only
        when that loop carries no dependence at all (scalars included) and walks some
        array with stride 1. ``points``: how many of the chain's loops are the point
        loops of a tiled band (the last ones), 0 when not tiled."""
        opts = self.options
        last = len(chain.loops) - 1
        simd = opts.simd and member is not None and self._vector_loop(chain, prefix, node, n_prefix, member)
        # the loops of the chain's last band: the point loops, or the whole band's
        # loops after its parallel one when that was marked where it is
        band_loops = points or self._last_band_size(chain)
        if simd:
            chain.steps.append(_step("vectorize", stmt=chain.stmt, depth=chain.depth + last))
            report.simd = True
        if opts.unroll and opts.unroll > 1:
            # GCC's unroll pragma cannot follow "omp simd" on the same loop: then it goes
            # on the loop around it (an unroll-and-jam request)
            parallel_at = {s["args"]["depth"] for s in chain.steps if s["op"] == "parallel"}
            if simd and band_loops >= 2 and chain.depth + last - 1 not in parallel_at:
                # (nor on a parallel loop: gcc rejects both pragmas on one loop; an
                # untiled band's parallel loop can be the one around the vector loop)
                chain.steps.append(_step("unroll", stmt=chain.stmt, depth=chain.depth + last - 1,
                                         factor=opts.unroll))
                report.unroll = opts.unroll
            elif not simd:
                chain.steps.append(_step("unroll", stmt=chain.stmt, depth=chain.depth + last,
                                         factor=opts.unroll))
                report.unroll = opts.unroll

    def _reuse_inside(self, domain: isl.UnionSet, prefix: isl.UnionMap, mupa: isl.MultiUnionPwAff) -> bool:
        """Is some array element used by two iterations of the band ``mupa`` that share
        the outer iterations ``prefix``? Without such reuse, tiles keep nothing in cache
        that the loops as they are would not: a 2x2 downsample (each input pixel read
        once) tiled 64 x 128 ran 1.6x slower at 1 thread (tester helper-102, D2).
        Scalars are left out: they live in registers."""
        refs = None
        for stmt in self.scop.statements:
            for acc in stmt.accesses:
                array = self.scop.arrays.get(acc.array)
                if array is not None and not array.is_scalar:
                    rel = isl.UnionMap.from_map(acc.relation)
                    refs = rel if refs is None else refs.union(rel)
        if refs is None:
            return False
        dates = rows(prefix, mupa_rows(mupa)).intersect_domain(domain)          # { S[i] -> [p, b] }
        used = prefix.range_product(refs.intersect_domain(domain))                # { S[i] -> [[p] -> X[a]] }
        # { [p, b] -> [[p] -> X[a]] }: one-to-one when no element is used twice for one p
        return not dates.reverse().apply_range(used).intersect_params(self.scop.context).is_injective()

    def _narrow_skew(self, mupa: isl.MultiUnionPwAff, domain: isl.UnionSet, n: int) -> tuple[int, int] | None:
        """``(k, width)`` for the first member ``k >= 1`` of the band that skews a small
        loop by the members before it (``4x + ky`` over a 5 x 5 convolution's ``ky``,
        which the scheduler skews to keep a private accumulator's band permutable) and
        takes at most `SMALL_LOOP` values for each value of those members; else None.
        Tiles along it hold a few of its values each, cut the small loop that gcc
        unrolls whole into pieces, and walk the arrays along a diagonal: helper-102's
        convolution ran 7-10x slower than the source tiled so."""
        for k in range(1, n):
            parts = _linear_parts(mupa.get_at(k))
            if not parts or not any(sum(1 for c in coefficients if c) >= 2 for coefficients in parts.values()):
                continue
            try:
                outer = isl.UnionMap.from_multi_union_pw_aff(_sliced(mupa, 0, k)).intersect_domain(domain)
                member = isl.UnionMap.from_union_pw_aff(mupa.get_at(k)).intersect_domain(domain)
                together = outer.apply_range(outer.reverse())          # { S[i] -> S'[i'] : same outer dates }
                spread = member.reverse().apply_range(together).apply_range(member).deltas()
                widths = [piece.dim_max(0) for piece in sets_of(spread)]
            except isl.Error:
                return None
            if not widths or not all(w.is_cst() for w in widths):
                continue
            ends = [aff.get_constant_val().to_python() for w in widths for _, aff in w.get_pieces()]
            width = max(ends, default=SMALL_LOOP) + 1
            if width <= SMALL_LOOP:
                return k, width
        return None

    def _mark_around_inner_loops(self, chain: _Chain, node, prefix, n_prefix, member, report) -> None:
        """``simd`` on the band's innermost loop when loops of deeper bands run inside it
        and none of them can be a vector loop (every member of every band below carries
        a dependence: symm's in-order reduction ``acc_x[j] += B[k][j] * A[i][k]`` over
        ``k`` inside ``j``), while this loop carries nothing and walks stride 1: gcc then
        vectorizes the loop around the inner ones, each lane running its own inner loop
        in order (bit-identical). gcc does so by itself only where it can tell the
        arrays apart, which it cannot in an outlined OpenMP loop: symm at LARGE, 2
        threads, 1.39 s without the pragma, 0.71 s with it. Nothing below it is then
        marked parallel or simd (`_walk`)."""
        if self._vector_loop_below(node.child(0)) or not self._vector_loop(chain, prefix, node, n_prefix, member):
            return
        chain.steps.append(_step("vectorize", stmt=chain.stmt, depth=chain.depth + len(chain.loops) - 1))
        report.simd = True
        report.notes.append("simd on the loop around inner loops that carry dependences (outer-loop vectorization)")
        self._outer_simd = True

    def _vector_loop(self, chain: _Chain, prefix, node, n_prefix, member) -> bool:
        """May the chain's innermost loop (band ``member``) be a vector loop: it carries no
        dependence at all (scalars included) and walks some array with stride 1, none
        with a large stride?"""
        strides = member_strides(self.scop, node, n_prefix, member)
        if Stride.UNIT not in strides or Stride.STRIDED in strides:
            return False
        last = len(chain.loops) - 1
        return is_parallel(self.validity, chain.rows(prefix, last), mupa_rows(chain.loops[last]))

    def _vector_loop_below(self, node: isl.ScheduleNode) -> bool:
        """Could a loop below ``node`` be a vector loop, or is it marked already (a band
        with a member that carries nothing, or any mark)?"""
        if node.get_type() == _mark:
            return True
        if node.get_type() == _band and node.band_n_member() > 0:
            coincident, _ = band_flags(self.validity, prefix_rows(node), node.band_get_partial_schedule())
            if any(coincident):
                return True
        return any(self._vector_loop_below(node.child(i)) for i in range(node.n_children()))

    def _distribute_innermost(self, chain: _Chain, domain: isl.UnionSet, report: BandReport) -> bool:
        """Fused statements whose common innermost loop carries a dependence (jacobi-1d's
        ``(t, 2t + i)``: S1 at c reads what S0 wrote at c + 1) do not vectorize; the
        innermost loop distributed over them (``sink``: one loop per statement, in the
        order below the band) may, when that is legal (no dependence from a later
        statement to an earlier one inside one iteration of the outer loops) and each
        statement's own loop then carries nothing and walks stride 1. Decided on the
        band's candidate tree (its steps applied to the input, then the sink); the
        vectorize steps follow. jacobi-1d LARGE, 1 thread: 0.82 s fused, 0.18 s
        distributed, 0.32 s the original. jacobi-2d's fused loop also stalls on
        store-to-load forwarding (S1 reads at c - 1 what S0 stored in the vector before):
        1.43 s fused, 0.80 s distributed (by hand)."""
        depth = chain.depth + len(chain.loops) - 1
        names = {piece.get_tuple_name() for piece in sets_of(domain) if not piece.is_empty()}
        try:
            candidate = apply_steps(self.scop, self._schedule, chain.steps)
            innermost = primitives.loop(self.scop, candidate, chain.stmt, depth, "distribute")
            if primitives.branch_below(candidate, innermost.path) is not None:
                extra = [_step("sink", stmt=chain.stmt, depth=depth)]
            else:
                # no sequence below: the statements share dates (jacobi-2d's Pluto band,
                # S1 shifted by one); one copy of the loop per statement, in program order
                order = [stmt.name for stmt in self.scop.statements if stmt.name in names]
                extra = [_step("distribute", stmt=name, depth=depth) for name in order[:-1]]
            candidate = apply_steps(self.scop, candidate, extra)
        except (TransformError, isl.Error):
            return False
        candidate_steps = chain.steps + extra
        if not is_legal(candidate, self.validity):
            return False
        vectorize = []
        for stmt in self.scop.statements:
            if stmt.name not in names:
                continue
            loops = statement_loops(self.scop, candidate, stmt.name)
            if len(loops) != depth + 1:
                return False
            inner = loops[-1]
            band = node_at(candidate, inner.path)
            if band.band_n_member() != 1 or _has_band_below(band.child(0)):
                return False
            member = mupa_rows(band.band_get_partial_schedule())
            strides = member_strides(self.scop, band, band.get_schedule_depth(), 0)
            if not is_parallel(self.validity, prefix_rows(band), member) or \
                    Stride.UNIT not in strides or Stride.STRIDED in strides:
                return False
            vectorize.append(_step("vectorize", stmt=stmt.name, depth=depth))
        if len(vectorize) < 2:
            return False
        chain.steps[:] = candidate_steps + vectorize
        report.simd = True
        report.notes.append("innermost loop distributed over its statements (fused it carries a "
                            "dependence; apart each one vectorizes)")
        return True

    @staticmethod
    def _last_band_size(chain: _Chain) -> int:
        """Loops of the chain's last band (a parallel mark placed on loop k of an
        unpermutable band starts a band there)."""
        last_mark = max((s["args"]["depth"] - chain.depth for s in chain.steps if s["op"] == "parallel"),
                        default=0)
        return len(chain.loops) - last_mark

    # -- applying the steps ------------------------------------------------------------
    def apply(self, schedule: isl.Schedule) -> isl.Schedule:
        """The decided steps, innermost band first (a step renames loops only at or
        below its own band, so the names decided on the input stay valid), then the
        band flags from the dependences."""
        for steps, report in reversed(list(zip(self.plans, self.reports))):
            try:
                schedule = apply_steps(self.scop, schedule, steps)
            except TransformError as err:   # a policy bug: this band stays as it was
                report.notes.append(f"left as it is: {err}")
        return _set_flags(schedule, self.validity)


def _box_along(domain: isl.UnionSet, mupa: isl.MultiUnionPwAff, member: int) -> bool:
    """Does band member ``member`` take the same values whatever the other members'
    values (the band's iterations, ``mupa`` over ``domain``, a box along it)?"""
    image = _band_image(domain, mupa)
    return image is not None and _product_along(image, member)


def _boxes(domain: isl.UnionSet) -> bool:
    """Is every statement's domain a box: each iterator's range the same whatever the
    other iterators' values (no triangle ``j > i``)?"""
    return all(_product_along(piece.reset_tuple_id(), d)
               for piece in sets_of(domain) for d in range(piece.dim(isl.dim_type.set)))


def _product_along(image: isl.Set, member: int) -> bool:
    """Is ``image`` the product of its values along dimension ``member`` and those
    along the others?"""
    n = image.dim(isl.dim_type.set)
    others = image.project_out(isl.dim_type.set, member, 1).insert_dims(isl.dim_type.set, member, 1)
    along = image.project_out(isl.dim_type.set, member + 1, n - member - 1) \
        .project_out(isl.dim_type.set, 0, member) \
        .insert_dims(isl.dim_type.set, 0, member).insert_dims(isl.dim_type.set, member + 1, n - member - 1)
    return others.intersect(along).is_subset(image)


def _coupled_without_parameters(domain: isl.UnionSet, mupa: isl.MultiUnionPwAff, member: int) -> bool:
    """Are the bounds of band member ``member`` that involve other members free of
    parameters (``j <= i``, not ``j <= i + K``), on the band's iterations (``mupa`` over
    ``domain``)? A box has no such bounds. Constraints on divisions count as coupled."""
    image = _band_image(domain, mupa)
    if image is None:
        return False
    image = image.remove_redundancies()
    n = image.dim(isl.dim_type.set)

    def involves(constraint: isl.Constraint, kind: isl.dim_type, positions) -> bool:
        return any(not constraint.get_coefficient_val(kind, k).is_zero() for k in positions)
    for piece in image.get_basic_sets():
        for constraint in piece.get_constraints():
            if not involves(constraint, isl.dim_type.set, [member]):
                continue
            if involves(constraint, isl.dim_type.div, range(piece.dim(isl.dim_type.div))):
                return False
            if involves(constraint, isl.dim_type.set, [k for k in range(n) if k != member]) \
                    and involves(constraint, isl.dim_type.param, range(piece.dim(isl.dim_type.param))):
                return False
    return True


def _band_image(domain: isl.UnionSet, mupa: isl.MultiUnionPwAff) -> isl.Set | None:
    """The band's iterations ``{ [b0, b1, ...] }``: ``mupa`` over ``domain``, or None when
    its statements' images are not one set."""
    sets = sets_of(isl.UnionMap.from_multi_union_pw_aff(mupa).intersect_domain(domain).range())
    return sets[0] if len(sets) == 1 else None


def _linear_parts(upa: isl.UnionPwAff) -> dict[str, list[int]] | None:
    """Per statement, the iterator coefficients of a band member ``{ S[i] -> [f(i)] }``;
    None when a statement's piece is not one affine expression."""
    parts: dict[str, list[int]] = {}
    pws = upa.get_pw_aff_list()
    for k in range(pws.n_pw_aff()):
        pieces = pws.get_at(k).get_pieces()
        if len(pieces) != 1:
            return None
        aff = pieces[0][1]
        name = aff.get_domain_space().get_tuple_name(isl.dim_type.set)
        parts[name] = [aff.get_coefficient_val(isl.dim_type.in_, d).to_python()
                       for d in range(aff.dim(isl.dim_type.in_))]
    return parts


def _concurrent_start(mupa: isl.MultiUnionPwAff) -> bool:
    """Are the band's first two members a diamond pair (``2t - i``, ``2t + i``): for every
    statement their sum a multiple of one iterator (the start face's normal), their
    difference not?"""
    first, second = _linear_parts(mupa.get_at(0)), _linear_parts(mupa.get_at(1))
    if not first or first.keys() != (second or {}).keys():
        return False
    for name, a in first.items():
        total = [x + y for x, y in zip(a, second[name])]
        if sum(1 for x in total if x) != 1 or all(x == y for x, y in zip(a, second[name])):
            return False
    return True


def apply_steps(scop: Scop, schedule: isl.Schedule, steps: list[dict]) -> isl.Schedule:
    """``schedule`` with ``steps`` applied in order (`apply_step`)."""
    for step in steps:
        schedule = apply_step(scop, schedule, step)
    return schedule


def apply_step(scop: Scop, schedule: isl.Schedule, step: dict) -> isl.Schedule:
    """One policy step with the primitive of the same name (no legality check: the
    policy checks the whole result)."""
    op, a = step["op"], step["args"]
    if op == "tile":
        return primitives.tile(scop, schedule, a["stmt"], a["sizes"], a["depth"])
    if op == "permute":
        return primitives.permute(scop, schedule, a["stmt"], a["order"])
    if op == "wavefront":
        return primitives.wavefront(scop, schedule, a["stmt"], a["depth"])
    if op == "separate":
        return primitives.separate(scop, schedule, a["stmt"], a["depth"])
    if op == "sink":
        return primitives.sink(scop, schedule, a["stmt"], a["depth"])
    if op == "distribute":
        return primitives.distribute(scop, schedule, a["stmt"], a["depth"])
    if op == "skew":
        return primitives.skew(scop, schedule, a["stmt"], a["depth"], a["by_depth"], a["factor"])
    if op == "unroll_and_jam":
        return primitives.unroll_and_jam(scop, schedule, a["stmt"], a["depth"], a["factor"])
    what = f"{op}({a['stmt']!r}, {a['depth']!r})"
    if op == "parallel":
        mark = Parallel(tuple(a["private"]), tuple(tuple(r) for r in a["reductions"]), a.get("schedule", ""),
                        tuple(a.get("lastprivate", ())))
    elif op == "vectorize":
        mark = Simd()
    elif op == "unroll":
        mark = Unroll(a["factor"])
    else:
        raise ValueError(f"unknown tiling step {op!r}")
    return primitives.mark(scop, schedule, a["stmt"], a["depth"], mark, what)


def _loop_rows(scop: Scop, schedule: isl.Schedule, loops, stmt: str) -> isl.Map | None:
    """``{ S[i] -> [l_0, ..., l_{D-1}] }``: the loops of ``stmt``, outermost first; None
    when ``stmt`` has no instance (the union map has no space to become a map in)."""
    domain = isl.UnionSet.from_set(scop.statement(stmt).domain)
    rows = None
    for lp in loops:
        upa = node_at(schedule, lp.path).band_get_partial_schedule().get_at(lp.member)
        row = isl.UnionMap.from_union_pw_aff(upa).intersect_domain(domain)
        rows = row if rows is None else rows.flat_range_product(row)
    if rows is None or rows.is_empty():
        return None
    return isl.Map.from_union_map(rows)


def _zero_distance(deps: isl.UnionMap, row: isl.UnionMap) -> bool:
    """Every dependence of ``deps`` has the same value of ``row`` at both ends."""
    for deltas in sets_of(deps.apply_domain(row).apply_range(row).deltas()):
        if not deltas.is_subset(isl.Set.universe(deltas.get_space()).fix_val(isl.dim_type.set, 0, isl.Val(0))):
            return False
    return True


def sink_stride_one_loops(scop: Scop, schedule: isl.Schedule,
                          validity: isl.UnionMap) -> tuple[isl.Schedule, list[dict]]:
    """``sink(S, d)`` steps: for a statement whose innermost loop stores with a stride
    other than 1 and whose stride-1 store loop is in another band above it (the point
    order cannot reach it: conv2d's channel loop ``k`` above the reduction loops
    ``r, s, c``, which must stay in order), that loop is moved innermost, where it
    vectorizes. Only a loop that carries nothing (every dependence has the same value
    of it at both ends, so any position is legal) and walks no array with a large
    stride; a loop around several statements sinks below each one's own loops (isl's
    band_sink distributes it over the sequence) when that holds for every one of them
    (`_sinks_for_all`)."""
    steps = []
    for stmt in scop.statements:
        if stmt.domain.intersect_params(scop.context).is_empty():
            continue
        candidate = _sink_candidate(scop, schedule, stmt.name)
        if candidate is None:
            continue
        loops = candidate[0]
        for lp in reversed(loops[:-1]):
            if lp.path == loops[-1].path:
                continue          # in the innermost loop's band: the point order's business
            if _sinks_for_all(scop, schedule, node_at(schedule, lp.path), lp, validity):
                steps.append(_step("sink", stmt=stmt.name, depth=lp.depth))
                schedule = primitives.sink(scop, schedule, stmt.name, lp.depth)
                break
    return schedule, steps


def _sink_candidate(scop: Scop, schedule: isl.Schedule, name: str):
    """``(loops, rows, refs, writes)`` of statement ``name`` when its innermost loop
    stores with a stride other than 1 (a loop above may be worth sinking), else None.
    ``rows``: ``_loop_rows``; ``refs``: ``(kind, relation)`` of its array references;
    ``writes``: their written relations."""
    try:
        loops = statement_loops(scop, schedule, name)
    except TransformError:
        return None
    if len(loops) < 2:
        return None
    stmt = scop.statement(name)
    refs = [(acc.kind, acc.relation) for acc in stmt.accesses
            if acc.array in scop.arrays and not scop.arrays[acc.array].is_scalar]
    writes = [rel for kind, rel in refs if kind != "read"]
    if not writes:
        return None
    rows = _loop_rows(scop, schedule, loops, name)
    if rows is None or any(classify(rows, w, len(loops) - 1) == Stride.UNIT for w in writes):
        return None
    if small_inner_loops(rows.range(), scop.parameter_values):
        # gcc unrolls the innermost loop whole (a FIR's taps): the loop above is the
        # vector loop already (sunk below the 5 taps, a FIR ran 4x slower)
        return None
    return loops, rows, refs, writes


def _sinks_for_all(scop: Scop, schedule: isl.Schedule, band: isl.ScheduleNode, lp,
                   validity: isl.UnionMap) -> bool:
    """May loop ``lp`` of ``band`` be sunk below all the other loops of the statements
    the band schedules? Each of them is a `_sink_candidate` that stores with stride 1
    along it and walks no array with a large stride along it, and every dependence
    between them has the same value of it at both ends."""
    band_domain = band.get_domain()
    for stmt_set in sets_of(band_domain):
        candidate = _sink_candidate(scop, schedule, stmt_set.get_tuple_name())
        if candidate is None:
            return False
        loops, rows, refs, writes = candidate
        position = [k for k, other in enumerate(loops) if other.path == lp.path and other.member == lp.member]
        if not position or loops[-1].path == lp.path:
            return False
        if not all(classify(rows, w, position[0]) == Stride.UNIT for w in writes) or \
                any(classify(rows, rel, position[0]) == Stride.STRIDED for _, rel in refs):
            return False
    member = isl.UnionMap.from_union_pw_aff(band.band_get_partial_schedule().get_at(lp.member))
    inside = validity.intersect_domain(band_domain).intersect_range(band_domain)
    return _zero_distance(inside, member.intersect_domain(band_domain))


def _set_flags(schedule: isl.Schedule, validity: isl.UnionMap) -> isl.Schedule:
    """Every band's permutable and coincident flags, from the dependences."""

    def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() == _band and node.band_n_member() > 0:
            flags = node_band_flags(validity, node)
            node = node.band_set_permutable(1 if flags.permutable else 0)
            for k, flag in enumerate(flags.parallel):
                node = node.band_member_set_coincident(k, 1 if flag else 0)
        for i in range(node.n_children()):
            node = visit(node.child(i)).parent()
        return node

    return visit(schedule.get_root()).get_schedule()


def _unused_sizes(report: TilingReport, options: TileOptions) -> None:
    """A note on the deepest tiled band when one list of sizes (for every band) is
    longer than every band: its last sizes tile nothing."""
    deepest = max(report.tiled, key=lambda band: band.members, default=None)
    if isinstance(options.sizes, list) and deepest is not None and len(options.sizes) > deepest.members:
        deepest.notes.append(f"{len(options.sizes)} tile sizes given, {deepest.members} members in the deepest "
                             f"band: the last {len(options.sizes) - deepest.members} unused")


def tile_with_report(scop: Scop, deps, schedule: isl.Schedule,
                     options: TileOptions | None = None,
                     caches: CacheSizes | None = None) -> tuple[isl.Schedule, TilingReport]:
    """Tile and mark ``schedule`` (a tree over ``scop.domain``); see the module docstring.

    ``deps``: a ``polysched.dependence.Dependences`` (its ``validity`` is used), a
    validity ``isl.UnionMap``, or None; memory dependences recomputed per array are
    always added. Raises ``TilingError`` if ``schedule`` itself violates a dependence.
    """
    options = options or TileOptions()
    if isinstance(options.sizes, dict):
        unknown = sorted(set(options.sizes) - {stmt.name for stmt in scop.statements})
        if unknown:
            raise ArgumentError(f"tile sizes for {unknown[0]!r}, which is no statement of the region "
                                f"({', '.join(stmt.name for stmt in scop.statements)})")
    accesses = ScopAccesses(scop)
    validity = memory_validity(scop, accesses, deps)
    sinks = []
    if options.intra_tile_reorder:
        schedule, sinks = sink_stride_one_loops(scop, schedule, validity)
    policy = _Policy(scop, validity, accesses, options, caches or cache_sizes())
    policy.report.sinks = sinks
    policy.walk(schedule)
    _unused_sizes(policy.report, options)
    result = policy.apply(schedule)
    if not is_legal(result, validity):
        # the input's fault, or else a bug of this policy: never hand out an illegal
        # schedule (the input is checked only here: legal output, nothing to report)
        if not is_legal(schedule, validity):
            raise TilingError(f"the schedule to tile violates dependences: "
                              f"{violated_dependences(schedule, validity)}")
        raise TilingError(f"tiling produced an illegal schedule; violated: "
                          f"{violated_dependences(result, validity)}")
    return result, policy.report


def tile(scop: Scop, deps, schedule: isl.Schedule,
         options: TileOptions | None = None) -> isl.Schedule:
    """``tile_with_report(...)[0]``."""
    return tile_with_report(scop, deps, schedule, options)[0]


def _runs_once(domain: isl.UnionSet, member: isl.MultiUnionPwAff) -> bool:
    """Does the loop of ``member`` (``{ S[i] -> [floor(i / 4)] }``) take at most one value
    over ``domain``, for every value of the parameters?"""
    image = isl.UnionMap.from_multi_union_pw_aff(member).intersect_domain(domain).range()
    values = sets_of(image)
    return len(values) == 1 and values[0].lex_lt_set(values[0]).is_empty()


def _narrowing_float_update(scop, names: set[str]) -> str | None:
    """The first statement among ``names`` that stores into a floating-point element of a
    narrower type than a value it reads (``float s += A[i][k] * B[k][j]`` with double
    ``A`` and ``B``, or a double constant: Statement.float_type_read), else None. gcc 12
    at -O3 with AVX-512 vectorizes two such updates of one element in a row without
    rounding to float between them (helper-77: jammed copies differed from the original
    in the last bit, which --verify caught; -O2 and AVX2 agree)."""
    def rank(c_type: str) -> int:
        c_type = scop.typedefs.get(c_type, c_type)
        return FLOAT_TYPES.index(c_type) if c_type in FLOAT_TYPES else -1

    for stmt in scop.statements:
        if stmt.name not in names:
            continue
        written = [rank(scop.arrays[a.array].element_type) for a in stmt.accesses
                   if a.kind != "read" and a.array in scop.arrays]
        written = [r for r in written if r >= 0]
        if not written:
            continue
        if stmt.float_type_read is None:        # (not read from C: its arrays' types)
            read = max((rank(scop.arrays[a.array].element_type) for a in stmt.accesses
                        if a.kind == "read" and a.array in scop.arrays), default=-1)
        else:
            read = rank(stmt.float_type_read)
        if read > min(written):
            return stmt.name
    return None
