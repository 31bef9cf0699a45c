"""Schedule primitives on isl schedule trees.

Each function takes ``(scop, schedule, ...)`` and returns a new ``isl.Schedule``;
it raises :class:`TransformError` for a misuse (unknown statement, loop out of range,
wrong number of sizes) but does **not** judge legality: :func:`polysched.transform.apply`
checks every result against the exact dependences. Loops are named ``(stmt, depth)``
(see loops.py); a primitive on a loop acts on the whole band member, i.e. on every
statement that shares the loop, except :func:`shift`, which moves one statement.

Band members are affine functions of the statement instances, ``b = P(S[i])``; the
primitives rewrite them (isl notation, for a band ``[{ S[i, j] -> [(i)] }, { S[i, j] -> [(j)] }]``):

    interchange(S, 0, 1)     [(j)], [(i)]
    skew(S, 1, 0, 2)         [(i)], [(j + 2i)]
    shift(S, 1, 3)           [(i)], [(j + 3)]               only S's instances move
    reverse(S, 1)            [(i)], [(-j)]
    strip_mine(S, 1, 4)      [(i)], [(floor(j/4))], [(j)]
    tile(S, [32, 8])         [(floor(i/32)), (floor(j/8))] / [(i), (j)]       two bands
    wavefront(S, 0)          [(i + j)] / [(j)]
    split_band(S, 1)         [(i)] / [(j)]
    unroll_and_jam(S, 0, 2)  [(floor(i/2))] / jam / [(j)] / [(i)] unrolled by isl's AST generator
    separate(S, 1)           [(i)], [(j)]: j generated as full and partial loops
    sink(S, 0)               [(j)] / [(i)]: loop 0 moved below every other loop
"""
from __future__ import annotations

import islpy as isl

from polysched.errors import TransformError
from polysched.islutil import sets_of, val, without_ast_options
from polysched.limits import MAX_JAM, MAX_SIZE
from polysched.marks import Jam, Mark, Parallel, Simd, try_parse_mark

from .loops import Loop, loop, node_at, path_of, statement_loops

_t = isl.schedule_node_type


# -- helpers -------------------------------------------------------------------------

def _mupa(upas: list[isl.UnionPwAff]) -> isl.MultiUnionPwAff:
    result = isl.MultiUnionPwAff.from_union_pw_aff(upas[0])
    for upa in upas[1:]:
        result = result.flat_range_product(isl.MultiUnionPwAff.from_union_pw_aff(upa))
    return result


def _members(node: isl.ScheduleNode) -> list[isl.UnionPwAff]:
    mupa = node.band_get_partial_schedule()
    return [mupa.get_at(k) for k in range(node.band_n_member())]


def _replace_band(node: isl.ScheduleNode, bands: list[list[isl.UnionPwAff]]) -> isl.ScheduleNode:
    """Replace the band at ``node`` by a chain of bands (outermost first); returns the
    node of the top band (or of what replaced the band when ``bands`` is empty)."""
    anchored = node.is_subtree_anchored()
    if anchored:
        # isl deletes no band above AST options that name its values (the isolated
        # strips of a jam below, made before this band was tiled): those options are
        # dropped, and the jams' isolated strips computed again below the new bands
        # (AST options change only how the code is laid out, never what runs)
        node = node.map_descendant_bottom_up(lambda n: without_ast_options(n, loop_types=False))
    node = node.delete()
    for members in reversed([b for b in bands if b]):
        node = node.insert_partial_schedule(_mupa(members))
    if anchored and node.get_type() == _t.band:
        node = node.map_descendant_bottom_up(_reisolated_jam)
    return node


def _reisolated_jam(node: isl.ScheduleNode) -> isl.ScheduleNode:
    """A jam's strip band (``node``, right above a ``Jam`` mark) with its full strips
    isolated again (`_isolate_full_strips`); any other node as it is."""
    if node.get_type() != _t.band or node.n_children() != 1 or node.child(0).get_type() != _t.mark \
            or node.child(0).mark_get_id().get_name() != Jam().text():
        return node
    below = node.child(0)
    while below.get_type() in (_t.band, _t.mark) and below.n_children() == 1:
        if below.get_type() == _t.band:
            unrolled = [k for k in range(below.band_n_member())
                        if below.band_member_get_ast_loop_type(k) == isl.ast_loop_type.unroll]
            if unrolled:
                factor = _strip_factor(node.band_get_partial_schedule().get_at(node.band_n_member() - 1))
                point = below.band_get_partial_schedule().get_at(unrolled[0])
                return node if factor is None else _isolate_full_strips(node, point, factor)
        below = below.child(0)
    return node


def _strip_factor(strip: isl.UnionPwAff) -> int | None:
    """``f`` of a strip ``floor(p / f)`` (the same for every statement), else None."""
    factors: set = set()

    def piece(_set, aff):
        divs = aff.dim(isl.dim_type.div)
        factors.add(aff.get_div(0).get_denominator_val().to_python() if divs == 1 else None)
    strip.foreach_pw_aff(lambda pa: pa.foreach_piece(piece))
    return factors.pop() if len(factors) == 1 and None not in factors else None


def _split_at(schedule: isl.Schedule, lp: Loop) -> tuple[isl.Schedule, tuple[int, ...]]:
    """Make loop ``lp`` the first member of its band; returns the band's path."""
    node = node_at(schedule, lp.path)
    if lp.member == 0:
        return schedule, lp.path
    node = node.band_split(lp.member).child(0)
    return node.get_schedule(), path_of(node)


def _isolate(schedule: isl.Schedule, lp: Loop, count: int = 1) -> tuple[isl.Schedule, tuple[int, ...]]:
    """Make loops ``lp .. lp + count - 1`` a band of their own; returns its path."""
    schedule, path = _split_at(schedule, lp)
    node = node_at(schedule, path)
    if node.band_n_member() > count:
        node = node.band_split(count)
    return node.get_schedule(), path


def merged(scop, schedule: isl.Schedule, stmt: str, depths: list[int], what: str) -> tuple[isl.Schedule, Loop]:
    """Loops ``(stmt, d)`` for ``d`` in ``depths`` made members of one band: bands
    nested directly one in the other (nothing between them) are merged. Returns the
    schedule and the loop ``(stmt, min(depths))``."""
    lo, hi = min(depths), max(depths)
    first = loop(scop, schedule, stmt, lo, what)
    last = loop(scop, schedule, stmt, hi, what)
    if first.path == last.path:
        return schedule, first
    loops = statement_loops(scop, schedule, stmt, what)[lo:hi + 1]
    paths = []
    for lp in loops:
        if not paths or paths[-1] != lp.path:
            paths.append(lp.path)
    for outer, inner in zip(paths, paths[1:]):
        if inner != outer + (0,):
            between = node_at(schedule, outer).child(0)
            kind = between.get_type()
            detail = f"mark '{between.mark_get_id().get_name()}'" if kind == _t.mark else "a branch"
            raise TransformError(f"{what}: loops {lo}..{hi} of {stmt} are in different bands separated "
                                 f"by {detail}: they cannot be reordered as one band")
    node = node_at(schedule, paths[0])
    members: list[isl.UnionPwAff] = []
    for _ in paths:
        members += _members(node)
        node = node.delete()
    node = node.insert_partial_schedule(_mupa(members))
    schedule = node.get_schedule()
    return schedule, loop(scop, schedule, stmt, lo, what)


def _check_int(value, what: str, name: str, minimum: int | None = None,
               maximum: int = MAX_SIZE) -> int:
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        value = value.tolist()      # an np.int64 (a size computed in a notebook): its int
    if isinstance(value, bool) or not isinstance(value, int):
        raise TransformError(f"{what}: {name} must be an int, got {value!r}")
    if minimum is not None and value < minimum:
        raise TransformError(f"{what}: {name} must be >= {minimum}, got {value}")
    if abs(value) > maximum:
        raise TransformError(f"{what}: {name} must be at most {maximum}, got {value}")
    return value


# -- reordering ----------------------------------------------------------------------

def permute(scop, schedule: isl.Schedule, stmt: str, order: list[int], what: str | None = None) -> isl.Schedule:
    """Reorder loops: ``order`` is a permutation of consecutive depths ``d0 .. d0+n-1``
    of ``stmt``; the loop at new depth ``d0 + k`` is the old loop ``order[k]``. The
    loops must be in one band (directly nested bands are merged first)."""
    what = what or f"permute({stmt!r}, {list(order)})"
    order = [_check_int(d, what, "each depth") for d in order]
    if not order:
        raise TransformError(f"{what}: give the loop depths to reorder")
    lo = min(order)
    if sorted(order) != list(range(lo, lo + len(order))):
        raise TransformError(f"{what}: the order must be a permutation of consecutive loop depths")
    schedule, lp = merged(scop, schedule, stmt, order, what)
    node = node_at(schedule, lp.path)
    members = _members(node)
    start = lp.member
    new = list(members)
    for k, depth in enumerate(order):
        new[start + k] = members[start + depth - lo]
    above = node.parent() if node.has_parent() else None
    moved = order.index(lo)         # where the band's first permuted loop goes
    if start > 0 or moved == 0 or above is None or above.get_type() != _t.mark:
        return _replace_band(node, [new]).get_schedule()
    # a mark above the band is on its first loop: it follows that loop, above the
    # members from its new place on (the band split there)
    mark = above.mark_get_id()
    top = _replace_band(node, [new[:moved], new[moved:]]).parent().delete()
    return top.child(0).insert_mark(mark).get_schedule()


def interchange(scop, schedule: isl.Schedule, stmt: str, d1: int, d2: int) -> isl.Schedule:
    """Swap loops ``d1`` and ``d2`` of ``stmt`` (and the loops between keep their places)."""
    what = f"interchange({stmt!r}, {d1!r}, {d2!r})"
    d1, d2 = _check_int(d1, what, "d1"), _check_int(d2, what, "d2")
    loop(scop, schedule, stmt, d1, what)      # both exist (before a list of the loops between)
    if d1 == d2:
        return schedule
    loop(scop, schedule, stmt, d2, what)
    lo, hi = min(d1, d2), max(d1, d2)
    order = list(range(lo, hi + 1))
    order[0], order[-1] = hi, lo
    return permute(scop, schedule, stmt, order, what)


def skew(scop, schedule: isl.Schedule, stmt: str, depth: int, by_depth: int, factor: int) -> isl.Schedule:
    """Loop ``depth`` becomes ``loop(depth) + factor * loop(by_depth)``. ``by_depth``
    may be an outer loop (any band above) or another member of the same band."""
    what = f"skew({stmt!r}, {depth!r}, {by_depth!r}, {factor!r})"
    depth, by_depth = _check_int(depth, what, "depth"), _check_int(by_depth, what, "by_depth")
    factor = _check_int(factor, what, "factor")
    if depth == by_depth:
        raise TransformError(f"{what}: a loop cannot be skewed by itself")
    if by_depth > depth:
        schedule, _ = merged(scop, schedule, stmt, [depth, by_depth], what)
    target = loop(scop, schedule, stmt, depth, what)
    by = loop(scop, schedule, stmt, by_depth, what)
    node = node_at(schedule, target.path)
    by_upa = node_at(schedule, by.path).band_get_partial_schedule().get_at(by.member)
    by_upa = by_upa.intersect_domain(node.get_universe_domain())
    members = _members(node)
    members[target.member] = members[target.member].add(by_upa.scale_val(val(factor)))
    return _replace_band(node, [members]).get_schedule()


def shift(scop, schedule: isl.Schedule, stmt: str, depth: int, amount: int) -> isl.Schedule:
    """Only ``stmt``'s instances move: its value of loop ``depth`` becomes
    ``loop(depth) + amount`` (retiming, e.g. to make a fusion legal)."""
    what = f"shift({stmt!r}, {depth!r}, {amount!r})"
    amount = _check_int(amount, what, "amount")
    lp = loop(scop, schedule, stmt, depth, what)
    node = node_at(schedule, lp.path)
    members = _members(node)
    stmt_set = isl.UnionSet.from_set(scop.statement(stmt).domain).universe()
    upa = members[lp.member]
    pieces = []
    upa.intersect_domain(stmt_set).foreach_pw_aff(pieces.append)
    moved = isl.UnionPwAff.empty(upa.get_space())
    for pa in pieces:
        moved = moved.union_add(isl.UnionPwAff.from_pw_aff(pa.add_constant_val(val(amount))))
    members[lp.member] = upa.subtract_domain(stmt_set).union_add(moved)
    return _replace_band(node, [members]).get_schedule()


def reverse(scop, schedule: isl.Schedule, stmt: str, depth: int) -> isl.Schedule:
    """Loop ``depth`` runs backwards: its member becomes ``-loop(depth)``."""
    what = f"reverse({stmt!r}, {depth!r})"
    lp = loop(scop, schedule, stmt, depth, what)
    node = node_at(schedule, lp.path)
    members = _members(node)
    members[lp.member] = members[lp.member].neg()
    return _replace_band(node, [members]).get_schedule()


# -- structure -----------------------------------------------------------------------

def split_band(scop, schedule: isl.Schedule, stmt: str, depth: int) -> isl.Schedule:
    """Loop ``depth`` starts a band of its own (isl's ``band_split``); the order of
    execution is unchanged. A no-op when it already starts its band."""
    lp = loop(scop, schedule, stmt, depth, f"split_band({stmt!r}, {depth!r})")
    return _split_at(schedule, lp)[0]


def branch_below(schedule: isl.Schedule, path: tuple[int, ...]) -> isl.ScheduleNode | None:
    """The first sequence or set node below the band at ``path`` along single children."""
    node = node_at(schedule, path)
    while node.n_children() == 1:
        node = node.child(0)
    if node.get_type() in (_t.sequence, _t.set):
        return node
    return None


def _statements_of(uset: isl.UnionSet) -> list[str]:
    names: list[str] = []
    uset.foreach_set(lambda s: names.append(s.get_tuple_name()))
    return names


def distribute(scop, schedule: isl.Schedule, stmt: str, depth: int) -> isl.Schedule:
    """Loop distribution (fission): the loop ``(stmt, depth)`` and the loops inside it
    are split in up to three copies, one for the statements ordered before ``stmt`` at
    the first sequence below the loop, one for ``stmt``'s branch, one for those after.
    Below a loop with no sequence under it (statements whose instances share dates:
    Pluto's jacobi-2d band), "before" and "after" are in program order."""
    what = f"distribute({stmt!r}, {depth!r})"
    lp = loop(scop, schedule, stmt, depth, what)
    schedule, path = _split_at(schedule, lp)
    branch = branch_below(schedule, path)
    if branch is None:
        # one filter per statement of the loop, in program order
        present = set(_statements_of(node_at(schedule, path).get_domain()))
        filters = [isl.UnionSet.from_set(s.domain).universe() for s in scop.statements
                   if s.name in present]
    else:
        filters = [branch.child(k).filter_get_filter() for k in range(branch.n_children())]
    stmt_set = isl.UnionSet.from_set(scop.statement(stmt).domain).universe()
    mine = [k for k, f in enumerate(filters) if not f.intersect(stmt_set).is_empty()]
    if len(mine) != 1:
        raise TransformError(f"{what}: {stmt} is not in exactly one branch below the loop")
    k = mine[0]
    groups = [filters[:k], [filters[k]], filters[k + 1:]]
    ctx = schedule.get_ctx()
    uset_list = isl.UnionSetList.alloc(ctx, 3)
    count = 0
    for group in groups:
        if group:
            union = group[0]
            for f in group[1:]:
                union = union.union(f)
            uset_list = uset_list.add(union)
            count += 1
    if count < 2:
        raise TransformError(f"{what}: loop {depth} of {stmt} encloses no other statement: nothing to distribute")
    node = node_at(schedule, path)
    while node.has_parent() and node.parent().get_type() == _t.mark:   # marks of the loop go along
        node = node.parent()
    if branch is not None and branch.get_type() == _t.set:
        return node.insert_set(uset_list).get_schedule()
    return node.insert_sequence(uset_list).get_schedule()


def fuse(scop, schedule: isl.Schedule, stmts: list[str], depth: int) -> isl.Schedule:
    """Loop fusion: the loops at ``depth`` of ``stmts`` (in different branches of one
    sequence, below ``depth`` shared loops) become one loop. The branches between the
    first and the last named are fused as well (the order of branches is kept)."""
    if isinstance(stmts, str):
        stmts = [stmts]
    stmts = list(stmts)
    what = f"fuse({stmts!r}, {depth!r})"
    depth = _check_int(depth, what, "depth", 0)
    if len(stmts) < 2:
        raise TransformError(f"{what}: name at least two statements to fuse")
    loops = {s: statement_loops(scop, schedule, s, what) for s in stmts}
    for s, lps in loops.items():
        if len(lps) <= depth:
            raise TransformError(f"{what}: statement {s} has no loop {depth}")
    # the statements' common position: the lowest common ancestor of their leaves
    paths = [lps[depth].path for lps in loops.values()]
    common: list[int] = []
    for parts in zip(*paths):
        if len(set(parts)) != 1:
            break
        common.append(parts[0])
    if all(p == paths[0] for p in paths) and \
            all(lps[depth].member == loops[stmts[0]][depth].member for lps in loops.values()):
        raise TransformError(f"{what}: loop {depth} is already shared by {', '.join(stmts)}")
    branch = node_at(schedule, tuple(common))
    if branch.get_type() not in (_t.sequence, _t.set):
        raise TransformError(f"{what}: the statements do not share their loops 0..{depth - 1}: "
                             "fuse the outer loops first")
    shared = sum(1 for lp in loops[stmts[0]]
                 if len(lp.path) < len(common) and lp.path == tuple(common[:len(lp.path)]))
    if shared != depth:
        raise TransformError(f"{what}: the statements share {shared} loops above their branches, so "
                             f"the loops that can be fused are at depth {shared}, not {depth}")
    children = sorted({p[len(common)] for p in paths})
    first, last = children[0], children[-1]
    n = branch.n_children()
    # group the branches to fuse (and those before / after) under one filter each
    if first > 0 or last < n - 1:
        filters = [branch.child(k).filter_get_filter() for k in range(n)]
        groups = [filters[:first], filters[first:last + 1], filters[last + 1:]]
        uset_list = isl.UnionSetList.alloc(schedule.get_ctx(), 3)
        position = 0
        for index, group in enumerate(groups):
            if not group:
                continue
            union = group[0]
            for f in group[1:]:
                union = union.union(f)
            uset_list = uset_list.add(union)
            if index < 1:
                position += 1
        inserted = branch.insert_sequence(uset_list) if branch.get_type() == _t.sequence \
            else branch.insert_set(uset_list)
        branch = inserted.child(position).child(0)
    # take the first loop off every branch and put their union above the branches
    upas: list[isl.UnionPwAff] = []
    for k in range(branch.n_children()):
        node = branch.child(k).child(0)
        if node.get_type() != _t.band:
            kind = "a mark" if node.get_type() == _t.mark else "no loop"
            raise TransformError(f"{what}: branch {k} of the statements to fuse has {kind} where its "
                                 f"loop {depth} should start (fusion takes the first loop of each branch)")
        members = _members(node)
        upas.append(members[0])
        node = _replace_band(node, [members[1:]])
        branch = node.parent().parent()
    union = upas[0]
    for upa in upas[1:]:
        union = union.union_add(upa)
    return branch.insert_partial_schedule(_mupa([union])).get_schedule()


# -- tiling --------------------------------------------------------------------------

def _tile_member(upa: isl.UnionPwAff, size: int) -> isl.UnionPwAff:
    return upa.scale_down_val(val(size)).floor()


def tile(scop, schedule: isl.Schedule, stmt: str, sizes: list[int], depth: int = 0) -> isl.Schedule:
    """Rectangular tiling of loops ``depth .. depth + len(sizes) - 1`` of ``stmt``:
    they become tile loops ``floor(b_k / sizes[k])`` (one band) followed by point
    loops ``b_k`` (the next band, with the members after the tiled ones). Legal when
    the tiled loops are permutable (fully permutable band)."""
    sizes = list(sizes) if not isinstance(sizes, int) else [sizes]
    what = f"tile({stmt!r}, {sizes!r}, depth={depth!r})"
    depth = _check_int(depth, what, "depth", 0)
    if not sizes:
        raise TransformError(f"{what}: give at least one tile size")
    for s in sizes:
        _check_int(s, what, "each tile size", 1)
    n_loops = len(statement_loops(scop, schedule, stmt, what))
    if depth + len(sizes) > n_loops:
        raise TransformError(f"{what}: {len(sizes)} sizes from loop {depth} need loops {depth}.."
                             f"{depth + len(sizes) - 1}, but {stmt} has {n_loops} loops")
    schedule, lp = merged(scop, schedule, stmt, list(range(depth, depth + len(sizes))), what)
    schedule, path = _split_at(schedule, lp)
    node = node_at(schedule, path)
    members = _members(node)
    tiles = [_tile_member(members[m], s) for m, s in enumerate(sizes)]
    return _replace_band(node, [tiles, members]).get_schedule()


def strip_mine(scop, schedule: isl.Schedule, stmt: str, depth: int, size: int) -> isl.Schedule:
    """Loop ``depth`` becomes two: ``floor(b / size)`` then ``b`` (same band); the
    execution order is unchanged."""
    what = f"strip_mine({stmt!r}, {depth!r}, {size!r})"
    size = _check_int(size, what, "size", 1)
    lp = loop(scop, schedule, stmt, depth, what)
    node = node_at(schedule, lp.path)
    members = _members(node)
    m = lp.member
    members = members[:m] + [_tile_member(members[m], size)] + members[m:]
    return _replace_band(node, [members]).get_schedule()


def wavefront(scop, schedule: isl.Schedule, stmt: str, depth: int) -> isl.Schedule:
    """Loops ``depth`` and ``depth + 1`` (one band) become ``b_d + b_{d+1}`` (its own
    band) and ``b_{d+1}``: the inner loop is then free of the dependences the band
    carries with non-negative distances (a wavefront, e.g. over tiles)."""
    what = f"wavefront({stmt!r}, {depth!r})"
    depth = _check_int(depth, what, "depth", 0)
    loops = statement_loops(scop, schedule, stmt, what)
    if depth == len(loops) - 1:      # (the message of the loop below, 'not loop d + 1', named no loop asked for)
        raise TransformError(f"{what}: loop {depth} is the innermost loop of {stmt}; a wavefront skews a loop "
                             f"by the one below it (loops {depth} and {depth + 1})")
    schedule, lp = merged(scop, schedule, stmt, [depth, depth + 1], what)
    schedule, path = _split_at(schedule, lp)
    node = node_at(schedule, path)
    members = _members(node)
    wave = members[0].add(members[1])
    return _replace_band(node, [[wave], members[1:]]).get_schedule()


def _isolate_full_strips(node: isl.ScheduleNode, point: isl.UnionPwAff, factor: int) -> isl.ScheduleNode:
    """Band ``node`` (its last member the strip ``floor(point / factor)``) with isl's
    ``isolate`` option on its full strips: the prefix and band values
    ``isolate[[P] -> [B]]`` at which every point value ``factor * s .. factor * s +
    factor - 1`` has an instance. isl generates them apart from the partial strip, so
    the jammed copies there need no guards (``if (n >= 4 * c4 + 2)`` inside the
    vector loop). An AST option only: any set gives the same execution."""
    domain = node.get_domain()
    prefix = node.get_prefix_schedule_union_map().intersect_domain(domain)
    band = node.band_get_partial_schedule_union_map().intersect_domain(domain)
    points = prefix.flat_range_product(band).flat_range_product(isl.UnionMap.from_union_pw_aff(point))
    reached = points.range()
    if reached.is_empty():
        return node
    reached = reached.as_set()           # one space: the instances share the band's depth
    n = reached.dim(isl.dim_type.set) - 1                       # prefix + band values
    strips = reached.project_out(isl.dim_type.set, n, 1)
    # the points each strip should have: factor * s <= p <= factor * s + factor - 1
    space = reached.get_space()
    strip, p = isl.Aff.var_on_domain(isl.LocalSpace.from_space(space), isl.dim_type.set, n - 1), \
        isl.Aff.var_on_domain(isl.LocalSpace.from_space(space), isl.dim_type.set, n)
    block = isl.Set.universe(space) \
        .add_constraint(isl.Constraint.inequality_from_aff(p - strip * factor)) \
        .add_constraint(isl.Constraint.inequality_from_aff(strip * factor + (factor - 1) - p))
    wanted = strips.insert_dims(isl.dim_type.set, n, 1).intersect(block)
    partial = wanted.subtract(reached).project_out(isl.dim_type.set, n, 1)
    full = strips.subtract(partial).coalesce()
    if full.is_empty():
        return node
    n_prefix = n - node.band_n_member()
    isolated = isl.Map.from_range(full).move_dims(isl.dim_type.in_, 0, isl.dim_type.out, 0, n_prefix)
    return node.band_set_ast_build_options(isl.UnionSet(isolated.wrap().set_tuple_name("isolate")))


def unroll_and_jam(scop, schedule: isl.Schedule, stmt: str, depth: int, factor: int) -> isl.Schedule:
    """Unroll loop ``depth`` by ``factor`` and jam the copies into the innermost body:
    the loop is strip-mined (``floor(b / factor)`` stays in place), its point loop
    ``b`` is moved below the inner loops down to the body (the first sequence, set or
    leaf: a legal move only if that interchange is) and marked for complete unrolling
    by isl's AST generator, so the generated body holds ``factor`` copies of the whole
    body, each copy's statements in their order. A ``Jam`` mark right below the
    strip-mined loop lets the C printer keep the array elements an innermost loop
    reuses in local scalars (scalar replacement, where it proves it legal: see
    emit_c/scalar_replace.py).

    The point loop stops above a sequence, not below it (isl's ``band_sink`` would
    push it into each child): with two updates of one element in the body, ``S0``'s
    copies would all run before ``S1``'s, reversing ``S1(k) -> S0(k + 1)``."""
    what = f"unroll_and_jam({stmt!r}, {depth!r}, {factor!r})"
    factor = _check_int(factor, what, "factor", 1, MAX_JAM)
    lp = loop(scop, schedule, stmt, depth, what)
    node = node_at(schedule, lp.path)
    # (the loop may be the innermost of stmt and not of another statement it runs)
    below = {s.get_tuple_name() for s in sets_of(node.get_domain())}
    if all(len(statement_loops(scop, schedule, name)) == depth + 1 for name in below):
        raise TransformError(f"{what}: loop {depth} is the innermost loop of {stmt}: nothing to jam "
                             "into (use unroll for a plain unroll)")
    members = _members(node)
    m = lp.member
    outer = members[:m] + [_tile_member(members[m], factor)]
    point = _mupa([members[m]])
    node = _replace_band(node, [outer, members[m + 1:]])
    node = _isolate_full_strips(node, members[m], factor).child(0)   # below the strip loop
    steps = 0
    while node.get_type() in (_t.band, _t.mark) and node.n_children() == 1:
        node, steps = node.child(0), steps + 1
    node = node.insert_partial_schedule(point)
    node = node.band_member_set_ast_loop_type(0, isl.ast_loop_type.unroll)
    for _ in range(steps):
        node = node.parent()
    return node.insert_mark(Jam().to_id()).get_schedule()   # above the loops jammed into


def sink(scop, schedule: isl.Schedule, stmt: str, depth: int) -> isl.Schedule:
    """Move loop ``(stmt, depth)`` below every other loop of the statements it
    schedules (isl's ``band_sink``: split off, then pushed down to the leaves), the
    other loops keeping their order; e.g. a stride-1 loop that carries nothing, moved
    under reduction loops that must stay in order. Legal when no dependence is
    reversed (always when the loop carries none: every dependence keeps its value)."""
    what = f"sink({stmt!r}, {depth!r})"
    lp = loop(scop, schedule, stmt, depth, what)
    schedule, path = _isolate(schedule, lp, 1)
    return node_at(schedule, path).band_sink().get_schedule()


def separate(scop, schedule: isl.Schedule, stmt: str, depth: int) -> isl.Schedule:
    """Generate loop ``(stmt, depth)`` with isl's ``separate`` AST option: its full
    iterations (where every statement of the band runs) and its partial ones become
    separate loops, so the full loop has no guards inside and vectorizes. The
    execution order is unchanged (always legal); the code may grow."""
    what = f"separate({stmt!r}, {depth!r})"
    lp = loop(scop, schedule, stmt, depth, what)
    node = node_at(schedule, lp.path)
    return node.band_member_set_ast_loop_type(lp.member, isl.ast_loop_type.separate).get_schedule()


# -- marks ---------------------------------------------------------------------------

def mark(scop, schedule: isl.Schedule, stmt: str, depth: int, value: Mark, what: str) -> isl.Schedule:
    """Put ``value`` (a :mod:`polysched.marks` value) on loop ``(stmt, depth)``: the
    loop is split off to start its band, and the mark goes right above that band (below
    marks already there), except a ``Parallel`` mark, which goes above the loop's
    ``Simd`` mark (``parallel for simd`` is one loop: either order of ``parallel`` and
    ``vectorize`` gives the same tree). An equal mark already on the loop is not
    repeated; a mark of the same type is replaced."""
    lp = loop(scop, schedule, stmt, depth, what)
    schedule, path = _split_at(schedule, lp)
    node = node_at(schedule, path)
    # the marks already on this loop, the nearest to the band first (taken off, put back)
    names: list[str] = []
    while node.has_parent() and node.parent().get_type() == _t.mark:
        names.append(node.parent().mark_get_id().get_name())
        node = node.parent().delete()
    existing = [try_parse_mark(name) for name in names]
    same = [k for k, mark in enumerate(existing) if type(mark) is type(value)]
    if same:
        names[same[0]] = value.text()
    else:
        simd = [k for k, mark in enumerate(existing) if isinstance(mark, Simd)]
        names.insert(simd[-1] + 1 if isinstance(value, Parallel) and simd else 0, value.text())
    for name in names:
        node = node.insert_mark(isl.Id(name))
    return node.get_schedule()


def unmark(scop, schedule: isl.Schedule, stmt: str, depth: int) -> isl.Schedule:
    """Remove every mark directly above the band of loop ``(stmt, depth)`` when the
    loop starts its band (marks apply to a band's first loop)."""
    lp = loop(scop, schedule, stmt, depth, f"unmark({stmt!r}, {depth!r})")
    if lp.member != 0:
        return schedule
    node = node_at(schedule, lp.path)
    while node.has_parent() and node.parent().get_type() == _t.mark:
        node = node.parent().delete()
    return node.get_schedule()


def set_flags(schedule: isl.Schedule, bands) -> isl.Schedule:
    """Band flags (permutable, coincident) from ``bands`` (``Legality.bands``: what
    the dependences say), so a tree never claims what is not true."""
    for info in bands:
        node = node_at(schedule, info.path)
        node = node.band_set_permutable(1 if info.permutable else 0)
        for k, flag in enumerate(info.parallel):
            node = node.band_member_set_coincident(k, 1 if flag else 0)
        schedule = node.get_schedule()
    return schedule
