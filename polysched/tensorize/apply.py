"""Applying a match: the schedule tree that runs full blocks as intrinsic calls.

For gemm ``S1[i, k, j]`` and ``dgemm_4x8_scaled`` (loops k, i, j; i: 4, j: 8) the tree is

    domain
      band  S1: [F_S prefix, 1, floor(i/4), floor(j/8)]  (the prefix: P dims, legality.py)
            others: [F_X prefix, 0|2, 0, 0]
        sequence
          filter S1_full:  mark tensorize(dgemm_4x8_scaled; stmt=S1, l_k=k, ...)
                             band [k, i, j]            (the call's point loops)
          filter S1_rest:  band [k, i, j]              (remainder tiles: plain loops)
          filter T_full:   an earlier Program.tensorize's blocks: [F_T rest] with its
                           mark put back above its point loops
          filter others:   band [F_X rest]

For a band match (an init statement S0 in the intrinsic's calls) S0 shares the outer
band, its instances in the blocks where both statements are full join ``S1_full`` below
the mark (points nested as in legality.py) and the rest join ``S1_rest``.

``S1_full`` is every instance whose whole tile lies in the domain (isl:
``D \\ dom(T ∩ (D × ¬D))`` with ``T`` relating instances of one tile), so a marked
block is always a full call; the others run the statement itself. The outer band is
the one :mod:`.legality` checks; the tree is checked again by the caller (through
``polysched.transform.apply``), and emit_c turns the mark into the call.
"""
from __future__ import annotations

import dataclasses

import islpy as isl

from polysched.errors import TransformError
from polysched.islutil import maps_of, sets_of
from polysched.marks import Tensorize

from .legality import InitMisfit, candidate_schedule, init_blocks_agree, legality
from .problem import Problem, affine_unused


# loop orders Program.tensorize tries, fastest first: (blocked, kc); the last one is
# the order the matcher's legality verdict is about
BLOCKINGS = ((True, 256), (True, None), (False, None))


def mark_for(problem: Problem, loop_map: list[tuple[int, int]], arrays: dict[str, str]) -> Tensorize:
    """``tensorize(NAME; stmt=S1, l_<loop>=<program loop>..., a_<operand>=<array>...)``,
    and for a band match ``init=S0, il_<loop>=<its loop>...`` (its operands too)."""
    intr, prog = problem.intrinsic, problem.pattern
    params = [("stmt", problem.statement.name)]
    params += [(f"l_{intr.loops[l]}", prog.loops[p]) for l, p in loop_map]
    params += [(f"a_{o}", arrays[o]) for o in intr.operands]
    if problem.init is not None:
        params += [("init", problem.init.statement)]
        params += [(f"il_{loop}", p) for loop, p in problem.init.loops]
        params += [(f"a_{o}", a) for o, a in problem.init.arrays if o in intr.init_operands]
    return Tensorize(intr.name, tuple(params))


def _array_map(problem, loop_map) -> dict[str, str]:
    from .sat import sat_matches
    key = tuple((problem.intrinsic.loops[l], problem.pattern.loops[p]) for l, p in loop_map)
    for loops, arrays in sat_matches(problem):      # the main statement's arrays
        if loops == key:
            return dict(arrays)
    raise TransformError(f"{problem.intrinsic.name} does not match {problem.statement.name} "
                         f"with loops {dict(key)}")


def _full_tiles(dom: isl.Set, same_block: isl.Map) -> isl.Set:
    """The instances of a statement (domain ``dom``) in full blocks (``same_block``:
    `_same_block`)."""
    outside = isl.Set.universe(dom.get_space()).subtract(dom)
    partial = same_block.intersect_domain(dom).intersect_range(outside).domain()
    return dom.subtract(partial).coalesce()


def _same_block(problem: Problem, loop_map, stmt=None) -> isl.Map:
    """``{ S[x] -> S[y] }``: the instances one call computes together (same block in
    the intrinsic's loops of fixed extent, equal in the others). ``stmt``: the
    statement (default the problem's; a band match's init statement has
    ``problem.init.loops`` for its loop map)."""
    stmt = stmt or problem.statement
    dom = stmt.domain
    n = dom.dim(isl.dim_type.set)
    if stmt is not problem.statement:
        loop_map = [(problem.intrinsic.loops.index(l), stmt.iterators.index(p)) for l, p in problem.init.loops]
    fixed = {p: problem.intrinsic.extents[l] for l, p in loop_map if problem.intrinsic.extents[l]}
    name = stmt.name
    xs = [f"x{d}" for d in range(n)]
    ys = [f"y{d}" for d in range(n)]
    cons = [f"floor(x{d}/{fixed[d]}) = floor(y{d}/{fixed[d]})" if d in fixed else f"x{d} = y{d}"
            for d in range(n)]
    params = ", ".join(problem.scop.parameters)
    return isl.Map(f"[{params}] -> {{ {name}[{', '.join(xs)}] -> {name}[{', '.join(ys)}] : "
                   f"{' and '.join(cons) or '1 = 1'} }}").align_params(dom.get_space())


def _mupa(umap: isl.UnionMap) -> isl.MultiUnionPwAff:
    return isl.MultiUnionPwAff.from_union_map(umap)


def _keep(fmap: isl.Map, start: int, stop: int) -> isl.Map:
    n = fmap.dim(isl.dim_type.out)
    return fmap.project_out(isl.dim_type.out, stop, n - stop).project_out(isl.dim_type.out, 0, start)


def _pad(fmap: isl.Map, length: int) -> isl.Map:
    n = fmap.dim(isl.dim_type.out)
    if n >= length:
        return fmap
    zeros = fmap.add_dims(isl.dim_type.out, length - n)
    for d in range(n, length):
        zeros = zeros.fix_val(isl.dim_type.out, d, isl.Val(0))
    return zeros


def tensorized_tree(problem: Problem, loop_map: list[tuple[int, int]],
                    current: isl.Schedule | None = None, arrays: dict[str, str] | None = None,
                    blocked: bool = False, kc: int | None = None) -> isl.Schedule:
    """The tree of the module doc for the match ``loop_map`` ((intrinsic loop, program
    loop) pairs in intrinsic order); ``current``: the schedule to start from (default:
    the SCoP's original one); ``arrays``: operand -> array (default: the match's, found
    again); ``blocked``/``kc``: the tile loop order of
    :func:`.legality.candidate_schedule`. Raises :class:`TransformError` when ``current`` no longer
    has the statement's loops as plain time dimensions."""
    scop = problem.scop
    prior = _prior_marks(current) if current is not None else []
    covered = {dict(m.params).get(key) for m, _ in prior for key in ("stmt", "init")}
    asked = {problem.statement.name} | ({problem.init.statement} if problem.init is not None else set())
    if covered & asked:     # (before the loops are looked at: they are an earlier call's blocks)
        raise TransformError(f"tensorize: {' or '.join(sorted(covered & asked))} is already tensorized")
    flat = (current.get_map() if current is not None else scop.schedule_map).intersect_domain(scop.domain)
    try:
        candidate, cut = candidate_schedule(problem, loop_map, flat, blocked, kc, with_cut=True)
    except KeyError:
        raise TransformError(f"tensorize: the loops of {problem.statement.name} are no longer plain loops of the "
                             "schedule, one iterator each in its order (apply tensorize before tiling, skewing or "
                             "reversing them)") from None
    except InitMisfit as err:
        raise TransformError(f"tensorize: {err}") from None
    maps: dict[str, isl.Map] = {}
    candidate.foreach_map(lambda m: maps.__setitem__(m.get_tuple_name(isl.dim_type.in_), m))
    name = problem.statement.name
    group = [name] + ([problem.init.statement] if problem.init is not None else [])
    # a band match's points have one more dimension (after the init's loops): 0 for the
    # init statement, 1 for the main one
    n_points = len(loop_map) + (problem.init is not None)
    head = cut + 1                       # shared time dimensions and the group dimension
    mine = maps[name]
    length = mine.dim(isl.dim_type.out)
    outer = length - n_points            # ... and S's tile loops
    total = max(m.dim(isl.dim_type.out) for m in maps.values())
    band1, rest = None, None
    for stmt, m in maps.items():
        if stmt in group:
            part = _keep(m, 0, outer)
        else:
            # the group dimension already orders them against S: zeros in S's tile
            # dimensions, and their own time below (an earlier call's mark too)
            m = _pad(m, max(total, head + 1))
            part = _pad(_keep(m, 0, head), outer)
            tail = isl.UnionMap.from_map(_keep(m, head, m.dim(isl.dim_type.out)))
            rest = tail if rest is None else rest.union(tail)
        part = isl.UnionMap.from_map(part)
        band1 = part if band1 is None else band1.union(part)
    points = None
    full, partial = None, None
    for stmt in group:
        statement = scop.statement(stmt)
        part = isl.UnionMap.from_map(_keep(maps[stmt], outer, length))
        points = part if points is None else points.union(part)
        same_block = _same_block(problem, loop_map, statement)
        whole = _full_tiles(statement.domain, same_block)
        # one call computes a whole block: an earlier tiling or strip-mining whose loops
        # split a block (tiles of 4 columns for a kernel of 8) would run it once per piece
        prefix = _keep(maps[stmt], 0, outer)
        together = same_block.intersect_domain(whole).intersect_range(whole)
        if not together.apply_range(prefix).is_subset(prefix):
            raise TransformError(f"tensorize: the loops around {stmt}'s points split the {problem.intrinsic.name} "
                                 f"blocks (tile or strip-mine by multiples of its shape, or tensorize first)")
        full = isl.UnionSet.from_set(whole) if full is None else full.union(isl.UnionSet.from_set(whole))
    if problem.init is not None:
        why = init_blocks_agree(problem, candidate)
        if why:
            raise TransformError(f"tensorize: {why}")
        full = _whole_blocks(full, maps, group, outer)
    group_domain = None
    for stmt in group:
        part = isl.UnionSet.from_set(scop.statement(stmt).domain)
        group_domain = part if group_domain is None else group_domain.union(part)
    partial = group_domain.subtract(full)
    domain = scop.domain
    others = domain.subtract(group_domain)

    schedule = isl.Schedule.from_domain(domain)
    node = schedule.get_root().child(0).insert_partial_schedule(_mupa(band1)).child(0)
    filters, kinds = [], []
    for part, kind in ((full, "full"), (partial, "partial")):
        if not part.is_empty():
            filters.append(part)
            kinds.append(kind)
    for prior_mark, prior_full in prior:
        filters.append(prior_full)
        kinds.append(prior_mark)
        others = others.subtract(prior_full)
    if not others.is_empty():
        filters.append(others)
        kinds.append("others")
    flist = isl.UnionSetList.alloc(domain.get_ctx(), len(filters))
    for f in filters:
        flist = flist.add(f)
    node = node.insert_sequence(flist)
    mark = mark_for(problem, loop_map, arrays or _array_map(problem, loop_map))
    for k, kind in enumerate(kinds):
        child = node.child(k).child(0)
        if kind in ("full", "partial"):
            child = child.insert_partial_schedule(_mupa(points.intersect_domain(filters[k])))
            if kind == "full":
                child = child.insert_mark(mark.to_id())
        elif isinstance(kind, Tensorize):
            child = _prior_subtree(scop, child, kind, rest, filters[k])
        elif rest is not None:
            child = child.insert_partial_schedule(_mupa(rest.intersect_domain(filters[k])))
        node = child.ancestor(child.get_tree_depth() - node.get_tree_depth())
    return node.get_schedule()


def _whole_blocks(full: isl.UnionSet, maps: dict[str, isl.Map], group: list[str], outer: int) -> isl.UnionSet:
    """The instances of ``full`` (each statement's instances in its full blocks) in the
    blocks (first ``outer`` time dimensions) where every statement of ``group`` is full:
    a call initialises and accumulates a block together, or the block runs as plain
    statements."""
    ids, blocks = None, {}
    for stmt in group:
        block = _keep(maps[stmt], 0, outer)
        mine = [s for s in sets_of(full) if s.get_tuple_name() == stmt]
        blocks[stmt] = block.intersect_domain(mine[0]) if mine else block.subtract(block)
        here = blocks[stmt].range()
        ids = here if ids is None else ids.intersect(here)
    out = None
    for stmt in group:
        part = isl.UnionSet.from_set(blocks[stmt].intersect_range(ids).domain())
        out = part if out is None else out.union(part)
    return out


def _prior_marks(schedule: isl.Schedule) -> list[tuple[Tensorize, isl.UnionSet]]:
    """The tensorize marks already in ``schedule`` with the filter above each (the full
    blocks of an earlier ``Program.tensorize``)."""
    from polysched.marks import try_parse_mark

    found = []

    def visit(node):
        if node.get_type() == isl.schedule_node_type.mark:
            mark = try_parse_mark(node.mark_get_id())
            if isinstance(mark, Tensorize) and "stmt" in dict(mark.params):
                parent = node.parent()
                while parent.get_type() == isl.schedule_node_type.band and parent.has_parent():
                    parent = parent.parent()          # the tile loops of its blocks
                if parent.get_type() != isl.schedule_node_type.filter:
                    raise TransformError(f"tensorize: cannot keep the earlier mark '{mark.text()}'")
                found.append((mark, parent.filter_get_filter()))
        for k in range(node.n_children()):
            visit(node.child(k))
    visit(schedule.get_root())
    return found


def _prior_subtree(scop, node, mark: Tensorize, rest, blocks):
    """Below ``node`` (a filter's child): the earlier tensorized statement's remaining
    time dimensions, with its mark put back right above its point loops."""
    params = dict(mark.params)
    stmt = scop.statement(str(params["stmt"]))
    mapped = [stmt.iterators.index(str(v)) for k, v in params.items() if k.startswith("l_")]
    where = None if rest is None else rest.intersect_domain(blocks)
    maps = {} if where is None else {m.get_tuple_name(isl.dim_type.in_): m for m in maps_of(where)}
    group = {stmt.name} | ({str(params["init"])} if "init" in params else set())
    if set(maps) != group:
        raise TransformError(f"tensorize: cannot keep the earlier mark '{mark.text()}'")
    if "init" in params:    # the init's loops, the dimension ordering init and main, the others
        shared = sum(1 for k in params if k.startswith("il_"))
        positions = _point_positions(maps[stmt.name], mapped[:shared])
        inner = mapped[shared:]
        if positions is not None and inner and _point_positions(maps[stmt.name], inner) != positions + shared + 1:
            positions = None
    else:
        positions = _point_positions(maps[stmt.name], mapped)
    if positions is None:
        raise TransformError(f"tensorize: cannot keep the earlier mark '{mark.text()}' "
                             "(its point loops moved)")
    node = node.insert_partial_schedule(_mupa(where))
    if positions > 0:
        node = node.band_split(positions).child(0)
    return node.insert_mark(mark.to_id())


def _point_positions(fmap: isl.Map, mapped: list[int]) -> int | None:
    """The first of the consecutive output dimensions that are the loops ``mapped``, in
    that order, or None."""
    from .legality import _loop_positions
    positions = _loop_positions(fmap)
    where = [positions.get(p) for p in mapped]
    if None in where or where != list(range(where[0], where[0] + len(where))):
        return None
    return where[0]


def alignment(problem: Problem, loop_map, arrays: dict[str, str]) -> dict[str, tuple[int, tuple[int, ...]]]:
    """For each intrinsic operand, the program reference it matches and the program
    dimension of each of its dimensions: ``{"A": (ref index, (dP0, dP1))}`` (``()`` for
    an ``affine:`` operand)."""
    import itertools

    intr, prog = problem.intrinsic.pattern, problem.pattern
    loop_of = dict(loop_map)
    mapped = set(loop_of.values())
    stride1 = problem.intrinsic.stride1

    def ref_dims(uref, vref):
        rank_i, rank_p = len(uref.rows), len(vref.rows)
        if uref.array in problem.intrinsic.affine:
            # read through one stride per loop (st(X, l)): no dimension alignment
            unused = affine_unused(uref, vref)
            ok = unused is not None and not any((l, p) in unused for l, p in loop_of.items())
            return () if ok else None
        for dims in itertools.permutations(range(rank_p), rank_i):
            if any(di in stride1.get(uref.array, ()) and dims[di] != rank_p - 1 for di in range(rank_i)):
                continue
            if any(uref.rows[di][l] != vref.rows[dims[di]][p] for di in range(rank_i) for l, p in loop_of.items()):
                continue
            if any(vref.rows[dp][p] for dp in range(rank_p) if dp not in dims for p in mapped):
                continue
            return dims
        return None

    def walk(u, v, out):
        if u[0] == "ref" or v[0] == "ref":
            if u[0] != v[0]:
                return None
            uref, vref = intr.refs[u[1]], prog.refs[v[1]]
            dims = ref_dims(uref, vref) if arrays[uref.array] == vref.array else None
            return None if dims is None else {**out, uref.array: (v[1], dims)}
        if u[0] == "const" or v[0] == "const":
            return out if u == v else None
        if u[:1] != v[:1] or len(u) != len(v):
            return None
        start = 2 if u[0] in ("cast", "call") else 1
        if start == 2 and u[1] != v[1]:
            return None
        orders = [list(v[start:])]
        if u[0] in ("+", "*") and len(u) == 3:
            orders.append([v[2], v[1]])
        for order in orders:
            result = out
            for a, b in zip(u[start:], order):
                result = walk(a, b, result)
                if result is None:
                    break
            if result is not None:
                return result
        return None

    found = walk(intr.tree, prog.tree, {})
    if found is None:
        raise TransformError(f"{problem.intrinsic.name} does not match {problem.statement.name} as given")
    return found


def resolve(scop, stmt_name: str, intrinsic, match=None, deps=None):
    """(problem, loop_map) for ``Program.tensorize``: ``intrinsic`` an :class:`Intrinsic`
    or a name (:func:`.intrinsic.lookup`); ``match`` None (the best legal match), an int
    (index in :func:`.match.match_statement`'s order: legal first, by gain), a
    :class:`.match.Match`, or ``{intrinsic loop: program loop}``."""
    from polysched.dependence import analyze

    from .intrinsic import Intrinsic, IntrinsicError, lookup
    from .match import Match, match_statement, structural_matches, undecided
    from .problem import make_problem

    try:
        stmt = scop.statement(stmt_name)
    except KeyError:
        raise TransformError(f"tensorize: no statement {stmt_name!r} "
                             f"(statements: {', '.join(s.name for s in scop.statements)})") from None
    if not isinstance(intrinsic, Intrinsic):
        try:
            intrinsic = lookup(str(intrinsic))
        except IntrinsicError as err:
            raise TransformError(f"tensorize: {err}") from None
    problem = make_problem(scop, stmt, intrinsic)
    if match is not None and not isinstance(match, int):
        # a given mapping: the legality of that match only, not of every match (the
        # default pipeline hands over the match it chose: conv2d-nhwc 0.43 s of 0.7 s);
        # for a band match given by its loops, the first init statement that is legal
        loops = match.loops if isinstance(match, Match) else dict(match)
        first = None
        for structural, candidate in structural_matches(problem):
            chosen, loop_map = undecided(candidate, structural)
            if chosen.loops != loops or (isinstance(match, Match) and match.init not in (None, chosen.init)):
                continue
            chosen.legal, chosen.reason = legality(candidate, loop_map, deps if deps is not None
                                                   else analyze(scop))
            if chosen.legal:
                return candidate, loop_map, chosen
            first = first or chosen
        if first is not None:
            # (helper-49: the call was emitted anyway, over blocks the loops do not
            # cover: a triangular syrk got wrong results, and check() could not see it)
            raise TransformError(f"tensorize: the match {loops} of {intrinsic.name} in {stmt_name} is illegal: "
                                 f"{first.reason}")
        raise TransformError(f"tensorize: {intrinsic.name} has no match in {stmt_name} with loops {loops}")
    [report] = match_statement(scop, stmt, [intrinsic], deps)
    if not report.matches:
        why = report.unmatchable or report.why_none       # (helper-92: the command said why, this did not)
        raise TransformError(f"tensorize: {intrinsic.name} does not match {stmt_name}" + (f" ({why})" if why else ""))
    if match is None:
        chosen = report.matches[0]
        if not chosen.legal:
            raise TransformError(f"tensorize: no legal match of {intrinsic.name} in {stmt_name}: "
                                 f"{chosen.reason}")
    else:
        if not 0 <= match < len(report.matches):
            raise TransformError(f"tensorize: match {match} out of range "
                                 f"({len(report.matches)} matches)")
        chosen = report.matches[match]
        if not chosen.legal:
            raise TransformError(f"tensorize: match {match} of {intrinsic.name} in {stmt_name} is illegal: "
                                 f"{chosen.reason}")
    loop_map = [(intrinsic.loops.index(a), problem.pattern.loops.index(b)) for a, b in chosen.loops.items()]
    return dataclasses.replace(problem, init=chosen.init), loop_map, chosen


def parallel_variants(tree: isl.Schedule, problem: Problem, loop_map, current: isl.Schedule | None = None):
    """``tree`` with ``Parallel`` marks on members of its outer band, the caller keeping
    the first variant the dependences allow. First, one mark on the outermost member
    along which each tensorized statement varies: this statement's, and those of the
    statements a ``Parallel`` mark covered in ``current`` (an earlier
    ``Program.tensorize(..., parallel=True)``: the tree is rebuilt, and its marks with
    it); then a single mark, outermost member first (shared outer loops such as a batch
    loop, then the block loops: one fork per outer iteration at most)."""
    from polysched.marks import Parallel

    band = tree.get_root().child(0)
    if band.get_type() != isl.schedule_node_type.band:
        return
    name = problem.statement.name
    mine = [pos for pos in range(band.band_n_member()) if _varies(band, pos, name)]
    others = _parallel_statements(current) - {name} if current is not None else set()
    firsts = {next((pos for pos in range(band.band_n_member()) if _varies(band, pos, stmt)), None)
              for stmt in others}
    positions = sorted({p for p in firsts if p is not None} | set(mine[:1]))
    if others and positions:
        yield _marked(band, positions, Parallel().to_id())
    for pos in mine:      # a member constant for this statement (another one's block loop) forks nothing
        yield _marked(band, [pos], Parallel().to_id())


def _marked(band: isl.ScheduleNode, positions: list[int], mark: isl.Id) -> isl.Schedule:
    """The schedule of ``band`` split so that each member in ``positions`` (increasing)
    starts a band, with ``mark`` above each."""
    node, start = band, 0
    for pos in positions:
        if pos > start:
            node = node.band_split(pos - start).child(0)
        node = node.insert_mark(mark).child(0)
        start = pos
    return node.get_schedule()


def _parallel_statements(schedule: isl.Schedule) -> set[str]:
    """Names of the statements with instances below a ``Parallel`` mark of ``schedule``."""
    from polysched.marks import Parallel, try_parse_mark
    found: set[str] = set()

    def visit(node):
        if node.get_type() == isl.schedule_node_type.mark and \
                isinstance(try_parse_mark(node.mark_get_id()), Parallel):
            found.update(s.get_tuple_name() for s in sets_of(node.get_domain()) if not s.is_empty())
        for k in range(node.n_children()):
            visit(node.child(k))
    visit(schedule.get_root())
    return found


def _varies(band: isl.ScheduleNode, pos: int, stmt: str) -> bool:
    """Does member ``pos`` of ``band`` take more than one value over ``stmt``'s instances?
    (2mm after its first product was tensorized: the shared band's first member is S1's
    block loop, and a constant for S3.)"""
    values = isl.UnionMap.from_union_pw_aff(band.band_get_partial_schedule().get_at(pos))
    return any(not m.range().is_singleton() for m in maps_of(values.intersect_domain(band.get_domain()))
               if m.get_tuple_name(isl.dim_type.in_) == stmt)
