"""Tile-size model: the largest tile whose data fits a share of a cache.

The data a tile touches is, per array, the bounding box of the image of the tile's
instances under the array's access relations. The tile is a box of sizes ``T`` in the
band's schedule space, placed in the middle of the iteration space with the parameters
fixed to their known values (``scop.parameter_values``; unknown ones to
``DEFAULT_PARAMETER``):

    instances = { S[i] in domain : o <= P(S[i]) < o + T }    (P: the band's partial schedule)
    footprint = sum over arrays X of  prod_d (max a_d - min a_d + 1) * sizeof(X)

Among power-of-two sizes in ``CANDIDATES`` per member the model picks the one with the
most work per tile (iterations, capped by the extents) whose footprint fits the budget,
preferring equal sizes, then a longer innermost loop (vectorisation).
"""
from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import islpy as isl

from polysched.islutil import maps_of, sets_of, val
from polysched.scop.model import Scop

CANDIDATES = (4, 8, 16, 32, 64, 128, 256)

# shortest innermost tile size preferred (a few AVX-512 vectors of doubles)
MIN_INNER_SIZE = 64
# the share of the threads' rounds over a parallel tile loop that is work (9 tiles on
# 2 threads: 0.9), below which another size is preferred when one fits
MIN_THREAD_SHARE = 0.9
DEFAULT_PARAMETER = 1024
# isl counts a set's points one by one: past this many in its bounding box, the box is
# the count (helper-53: the 4-deep outer loops of a 5-deep triangular nest at n = 1024,
# ~4e10 points, kept the tiling busy past any budget)
EXACT_COUNT_LIMIT = 1_000_000
_ELEMENT_BYTES = {"double": 8, "float": 4, "int": 4, "long": 8, "short": 2, "char": 1,
                  "long long": 8, "long double": 16, "unsigned": 4, "int64_t": 8, "int32_t": 4,
                  "int16_t": 2, "int8_t": 1, "uint64_t": 8, "uint32_t": 4, "uint16_t": 2,
                  "uint8_t": 1, "size_t": 8}


def element_bytes(c_type: str) -> int:
    words = c_type.replace("unsigned", "").replace("signed", "").replace("const", "").split()
    key = " ".join(words) or "unsigned"
    return _ELEMENT_BYTES.get(key, _ELEMENT_BYTES.get(words[-1] if words else "", 8))


@dataclass
class BandSpace:
    """A band's instances with the parameters fixed, ready for footprint questions."""

    scop: Scop
    partial: isl.UnionMap          # { S[i] -> [b] } on the fixed-parameter domain
    accesses: list[isl.UnionMap]   # { S[i] -> X[a] }, one per distinct array reference
    lower: list[int]
    upper: list[int]

    @property
    def extents(self) -> list[int]:
        return [hi - lo + 1 for lo, hi in zip(self.lower, self.upper)]

    @functools.cached_property
    def references(self) -> list[tuple[isl.Map, list[isl.Aff | None]]]:
        """Each access map with its subscripts as affine functions (None where one is
        not: a min/max subscript), worked out once for all the tile sizes tried."""
        return [(relation, _subscripts(relation)) for reference in self.accesses
                for relation in maps_of(reference)]


def known_parameters(scop: Scop) -> isl.Set:
    """The context with every parameter fixed to its known value (``-D``/``#define``,
    else ``DEFAULT_PARAMETER``): the sizes the cost questions are asked at."""
    context = scop.context
    for i in range(context.dim(isl.dim_type.param)):
        name = context.get_dim_name(isl.dim_type.param, i)
        value = scop.parameter_values.get(name, DEFAULT_PARAMETER)
        context = context.fix_val(isl.dim_type.param, i, val(int(value)))
    if context.is_empty():
        # the default guess contradicts the context: keep it parametric but feasible
        context = scop.context.sample().params() if not scop.context.is_empty() else scop.context
    return context


def outer_iterations(scop: Scop, domain: isl.UnionSet, outer: isl.UnionMap) -> int | None:
    """How many distinct values ``outer`` (``{ S[i] -> [outer loop values] }``) takes on
    ``domain`` at the known sizes: how often a loop nested in those loops is entered.
    Past ``EXACT_COUNT_LIMIT`` points in their bounding box, the box's count (more).
    None when unknown (unbounded or parametric)."""
    values = sets_of(outer.intersect_domain(domain.intersect_params(known_parameters(scop))).range())
    if len(values) != 1:
        return None
    box = _box_points(values[0])
    if box is None:
        return None
    if box > EXACT_COUNT_LIMIT:
        sheared = _sheared_points(values[0])
        return box if sheared is None else min(box, sheared)
    count = values[0].count_val()
    return count.to_python() if count.is_int() else None


def _sheared_points(piece: isl.Set) -> int | None:
    """An upper bound on the points of ``piece`` tighter than its bounding box where
    its dimensions follow each other (``{ [t, c] : 0 <= t < T and t <= c <= t + 1 }``,
    a skewed schedule's: 2T, where the box has T^2): the product over dimensions of
    how many values each takes once the ones before it are fixed. None when unbounded."""
    total = 1
    n = piece.dim(isl.dim_type.set)
    for k in range(n):
        upto = piece.project_out(isl.dim_type.set, k + 1, n - k - 1)        # [i0, ..., ik]
        given = isl.Map.from_range(upto).move_dims(isl.dim_type.in_, 0, isl.dim_type.out, 0, k)
        width = given.lexmax_pw_multi_aff().sub(given.lexmin_pw_multi_aff()).get_pw_aff(0).max_val()
        if not width.is_int():
            return None
        total *= width.to_python() + 1
    return total


def _box_points(piece: isl.Set) -> int | None:
    """The number of points of ``piece``'s bounding box (None when unbounded)."""
    box = 1
    for k in range(piece.dim(isl.dim_type.set)):
        low, high = piece.dim_min_val(k), piece.dim_max_val(k)
        if not (low.is_int() and high.is_int()):
            return None
        box *= max(0, high.to_python() - low.to_python() + 1)
    return box


def instance_count(scop: Scop, domain: isl.UnionSet) -> int | None:
    """About how many statement instances ``domain`` has at the known sizes, counted by
    each statement's bounding box (an over-estimate for triangles, never enumerated).
    None when unknown (an extent depends on a size of unknown value: isl's extremum over
    every value is then infinite)."""
    total = 0
    for piece in sets_of(domain.intersect_params(known_parameters(scop))):
        if piece.is_empty():
            continue
        box = _box_points(piece)
        if box is None:
            return None
        total += box
    return total


def band_space(scop: Scop, domain: isl.UnionSet, mupa: isl.MultiUnionPwAff,
               prefix: isl.UnionMap | None = None) -> BandSpace | None:
    """None when the band's image is unbounded or empty at the fixed parameter values.

    ``prefix``: ``{ S[i] -> [outer band values] }``; a tile's data is what it touches
    during ONE iteration of the enclosing loops, so the instances are restricted to
    the first (lexmin) outer iteration (doitgen's (p, s) band inside r, q: without
    this, every r and q counted and the model chose 4x4 tiles).
    """
    fixed = domain.intersect_params(known_parameters(scop))
    if prefix is not None and any(m.dim(isl.dim_type.out) for m in maps_of(prefix)):
        outer = prefix.intersect_domain(fixed)
        first = outer.range().lexmin()
        if not first.is_empty():
            fixed = outer.intersect_range(first).domain()
    partial = isl.UnionMap.from_multi_union_pw_aff(mupa).intersect_domain(fixed)
    image = sets_of(partial.range())
    if len(image) != 1 or image[0].is_empty():
        return None
    lower, upper = [], []
    for k in range(image[0].dim(isl.dim_type.set)):
        lo, hi = image[0].dim_min_val(k), image[0].dim_max_val(k)
        if not (lo.is_int() and hi.is_int()):
            return None
        lower.append(lo.to_python())
        upper.append(hi.to_python())
    # One relation per distinct reference, not one per array: the bounding box of
    # A[i][j] together with the row A[k][j] and the column A[i][k] (floyd-warshall)
    # would span the whole array.
    references: dict[str, isl.UnionMap] = {}
    for stmt in scop.statements:
        for access in stmt.accesses:
            relation = isl.UnionMap.from_map(access.relation).intersect_domain(fixed)
            if not relation.is_empty():
                references.setdefault(str(access.relation), relation)
    return BandSpace(scop, partial, list(references.values()), lower, upper)


def footprint_bytes(space: BandSpace, sizes: list[int]) -> int:
    """Bytes touched by one tile of ``sizes`` placed in the middle of the band's range
    (per array, the union of the bounding boxes of its references: overlapping
    stencil references count once, a row and a column of a matrix do not make the
    whole matrix)."""
    box = isl.Set.universe(sets_of(space.partial.range())[0].get_space())
    for k, (lo, hi, size) in enumerate(zip(space.lower, space.upper, sizes)):
        origin = max(lo, (lo + hi + 1) // 2 - size // 2)
        box = box.lower_bound_val(isl.dim_type.set, k, val(origin))
        box = box.upper_bound_val(isl.dim_type.set, k, val(origin + size - 1))
    instances = space.partial.intersect_range(isl.UnionSet.from_set(box)).domain()
    boxes: dict[str, list[Box]] = {}      # per array: its references' boxes
    for relation, subscripts in space.references:
        hull = _reference_box(instances, relation, subscripts)
        if hull is None:
            return 1 << 62            # unbounded: never fits
        if hull is not NO_ELEMENT:
            boxes.setdefault(relation.get_tuple_name(isl.dim_type.out), []).append(hull)
    total = 0
    for name, parts in boxes.items():
        array = space.scop.arrays.get(name)
        width = element_bytes(array.element_type) if array is not None else 8
        total += union_size(parts) * width
    return total


Box = tuple[tuple[int, ...], tuple[int, ...]]      # (lower corner, upper corner), inclusive
NO_ELEMENT = object()         # a reference no instance of the tile makes


def _box_size(box: Box) -> int:
    size = 1
    for lo, hi in zip(*box):
        size *= max(0, hi - lo + 1)
    return size


def union_size(boxes: list[Box]) -> int:
    """Points in the union of integer boxes (isl's ``count_val`` would enumerate every
    point), exact by a sweep (`_union_volume`). Past ``MAX_EXACT_BOXES`` distinct
    boxes, the bounding box of them all (an over-estimate)."""
    boxes = list(dict.fromkeys(boxes))
    if len(boxes) > MAX_EXACT_BOXES:
        lower = tuple(min(b[0][d] for b in boxes) for d in range(len(boxes[0][0])))
        upper = tuple(max(b[1][d] for b in boxes) for d in range(len(boxes[0][0])))
        return _box_size((lower, upper))
    return _union_volume([b for b in boxes if all(lo <= hi for lo, hi in zip(*b))])


def _union_volume(boxes: list[Box]) -> int:
    """Points in the union of non-empty boxes: the first dimension cut into slabs at
    every box's start and end, each slab's width times the union of the boxes that
    span it, one dimension fewer. Inclusion-exclusion took 2^n terms (heat-3d's 8
    references per array: 0.13 s of its tiling)."""
    if not boxes:
        return 0
    if not boxes[0][0]:
        return 1
    cuts = sorted({b[0][0] for b in boxes} | {b[1][0] + 1 for b in boxes})
    total = 0
    for start, end in zip(cuts, cuts[1:]):
        spanning = list(dict.fromkeys((b[0][1:], b[1][1:]) for b in boxes
                                      if b[0][0] <= start and end - 1 <= b[1][0]))
        total += (end - start) * _union_volume(spanning)
    return total


# a stencil has up to 7-9 distinct references to one array
MAX_EXACT_BOXES = 10


def _subscripts(relation: isl.Map) -> list[isl.Aff | None]:
    """The subscripts of ``relation`` (``{ S[i] -> A[f(i)] }``) as affine functions of
    ``i``, None for one that is not (piecewise: a min/max subscript)."""
    n = relation.dim(isl.dim_type.out)
    try:
        functions = isl.PwMultiAff.from_map(relation)
    except isl.Error:
        return [None] * n
    out = []
    for d in range(n):
        piece = functions.get_at(d)
        try:
            out.append(piece.gist(piece.domain()).as_aff())
        except isl.Error:
            out.append(None)
    return out


def _reference_box(instances: isl.UnionSet, relation: isl.Map, subscripts: list[isl.Aff | None]):
    """The bounding box (lower and upper corner) of the elements ``relation``
    (``{ S[i] -> A[f(i)] }``, ``f`` as ``subscripts``) touches from ``instances``: per
    subscript, the extremes of the affine ``f_d`` over the statement's instances (an
    LP each, where the image set itself would need a projection); `NO_ELEMENT` when no
    instance of ``S`` is there, None when unbounded. Subscripts that are not affine
    functions fall back to the image's extremes."""
    domain = instances.extract_set(relation.get_space().domain())
    if domain.is_empty():
        return NO_ELEMENT
    image = None
    lower, upper = [], []
    for d, f in enumerate(subscripts):
        lo = hi = None
        if f is not None:
            try:
                lo, hi = domain.min_val(f), domain.max_val(f)
            except isl.Error:
                pass
        if lo is None:
            image = image if image is not None else domain.apply(relation)
            lo, hi = image.dim_min_val(d), image.dim_max_val(d)
        if not (lo.is_int() and hi.is_int()):
            return None
        lower.append(lo.to_python())
        upper.append(hi.to_python())
    return tuple(lower), tuple(upper)


def choose_sizes(space: BandSpace | None, n_members: int, budget: int,
                 candidates: tuple[int, ...] = CANDIDATES, min_outer_tiles: int = 1,
                 innermost: int | None = None, threads: int = 1) -> list[int]:
    """Tile sizes for a band of ``n_members`` under a footprint ``budget`` in bytes.

    ``min_outer_tiles``: when the outermost tile loop is to run in parallel, keep at
    least that many tiles along it (if some candidate allows it), so every thread
    gets work; ``threads``: the threads that share those tiles, preferably in full
    rounds. ``innermost``: the member whose point loop will be innermost (the vector
    loop, after the point order; default the last). Falls back to 32 per member when
    the band cannot be measured.
    """
    if space is None:
        return [32] * n_members
    extents = space.extents
    inner = n_members - 1 if innermost is None else innermost
    # a tile larger than the next power of two above the extent adds nothing
    def useful(k: int) -> list[int]:
        sizes = [c for c in candidates if c < extents[k]]
        bigger = [c for c in candidates if c >= extents[k]]
        return sizes + bigger[:1] if bigger else sizes or [candidates[0]]

    if n_members <= 3:
        grid = itertools.product(*(useful(k) for k in range(n_members)))
    else:   # deep bands (time-tiled 3-d stencils): equal outer sizes, a longer innermost
        grid = ([d if k == inner else c for k in range(n_members)] for c in candidates
                for d in useful(inner) if d >= c)
    best_key, best = None, None
    smallest = [min(useful(k)) for k in range(n_members)]
    # A larger tile touches a superset of a smaller one's data (the box only grows):
    # whatever is at least a size that does not fit does not fit, whatever is at most
    # one that fits fits. Largest first, most of the grid is decided without isl.
    fits: list[list[int]] = []
    misses: list[list[int]] = []
    grid = sorted((list(g) for g in grid), key=lambda g: (-sum(g), g))
    if grid and footprint_bytes(space, smallest) > budget:
        misses.append(smallest)          # nothing fits (conv2d: all of the weights per tile)
    for sizes in grid:
        if any(all(s >= m for s, m in zip(sizes, miss)) for miss in misses):
            continue
        if not any(all(s <= f for s, f in zip(sizes, fit)) for fit in fits):
            if footprint_bytes(space, sizes) > budget:
                misses.append(sizes)
                continue
            fits.append(sizes)
        work = 1
        for size, extent in zip(sizes, extents):
            work *= min(size, extent)
        spread = max(sizes) / min(sizes)
        tiles = -(-extents[0] // sizes[0])
        enough_tiles = tiles >= min_outer_tiles
        # the threads take the tiles in rounds, the last one partly idle: 5 tiles on 2
        # threads take 3 rounds for 2.5 rounds of work (trmm's 1200 columns in tiles of
        # 256: 1.22x slower than in tiles of 128, at 2 threads). Among too few tiles
        # for parallelism to pay anyway, the sizes are chosen as before
        balanced = enough_tiles and tiles / (threads * -(-tiles // threads)) >= MIN_THREAD_SHARE
        # the innermost point loop is the vector loop: a short one wastes the tile
        long_inner = sizes[inner] >= min(MIN_INNER_SIZE, extents[inner])
        key = (enough_tiles, balanced, long_inner, work, -spread, sizes[inner], -sum(sizes))
        if best_key is None or key > best_key:
            best_key, best = key, sizes
    return best if best is not None else smallest


def choose_multiple(space: BandSpace | None, sizes: list[int], budget: int) -> list[int]:
    """Second-level (L2) tile factor per member: the largest equal power-of-two multiple
    ``m`` (2..16) of ``sizes`` whose footprint fits ``budget``; at least 2."""
    if space is None:
        return [4] * len(sizes)
    chosen = 2
    for m in (2, 4, 8, 16):
        outer = [s * m for s in sizes]
        if any(o > 2 * e for o, e in zip(outer, space.extents)):
            break
        if footprint_bytes(space, outer) > budget:
            break
        chosen = m
    return [chosen] * len(sizes)
