"""Is a structural match applicable and legal? Both questions are asked of isl.

Applicable: the mapped loops form a box inside the statement's domain (their bounds do
not depend on each other), so a block is a full intrinsic call::

    D ⊆ proj_unmapped(D) × Π_p proj_p(D)    must be an equality

Legal: the schedule that executes the match is checked against the exact dependences
with :func:`polysched.dependence.check`. Let P be the time dimension of the outermost
mapped loop in the original flat schedule ``F``. Statements are distributed at P (a new
time dimension g: 0 before S in the text, 1 for S, 2 after), and S's loops from P on
become the tile loops (mapped loops of fixed extent E as ``floor(p/E)``, unmapped ones
unchanged, mapped loops of free extent dropped) followed by the point loops in the
intrinsic's own loop order::

    S[i, k, j] -> [1, floor(i/4), floor(j/8), k, i, j]     (gemm S1, dgemm_4x8: k, i, j)
    X[...]     -> [F_X[0..P-1], g(X), F_X[P..]]

i.e. "the mapped loops are tiled to the intrinsic's shape and sunk innermost in a
permutable band", the condition for replacing the point loops by one call.

A band match (``problem.init``, gemm's ``C[i][j] *= beta`` as S0) puts its init
statement in group 1 too, with the same tile loops (written with its own loops) and its
points nested as in the intrinsic (``S0[i, j] -> [.., i, j, 0, 0]`` before
``S1[i, k, j] -> [.., i, j, 1, k]``), in the main statement's place in a sequence. It is
legal when that schedule respects the dependences and, block by block, the init writes
exactly the elements the main statement writes, each once (:func:`init_blocks_agree`).
"""
from __future__ import annotations

import islpy as isl

from polysched.dependence import check
from polysched.islutil import maps_of, val

from .problem import Problem, output_write


def _lift(dom: isl.Set, keep: list[int]) -> isl.Set:
    """``dom`` projected onto the dimensions ``keep`` and lifted back (others free)."""
    n = dom.dim(isl.dim_type.set)
    result = dom
    for d in reversed(range(n)):
        if d not in keep:
            result = result.project_out(isl.dim_type.set, d, 1)
    # re-insert the projected dimensions at their positions
    for d in range(n):
        if d not in keep:
            result = result.insert_dims(isl.dim_type.set, d, 1)
    return result.reset_space(dom.get_space())


def rectangular(problem: Problem, mapped: list[int], dom: isl.Set | None = None) -> bool:
    """Do the mapped loops (positions in the statement) form a box, for every value of
    the other loops? (see the module doc) ``dom``: another statement's domain (a band
    match's init statement)."""
    dom = problem.statement.domain if dom is None else dom
    n = dom.dim(isl.dim_type.set)
    box = _lift(dom, [d for d in range(n) if d not in mapped])
    for p in mapped:
        box = box.intersect(_lift(dom, [p]))
    return box.is_subset(dom)


def _loop_positions(fmap: isl.Map) -> dict[int, int]:
    """Statement dimension -> output position of the flat schedule where it is the loop."""
    pma = isl.PwMultiAff.from_map(fmap)
    n_in = fmap.dim(isl.dim_type.in_)
    out = {}
    for k in range(fmap.dim(isl.dim_type.out)):
        pieces = pma.get_pw_aff(k).get_pieces()
        if len(pieces) != 1:
            continue
        aff = pieces[0][1]
        coefs = [aff.get_coefficient_val(isl.dim_type.in_, d).to_python() for d in range(n_in)]
        if sorted(coefs) == [0] * (n_in - 1) + [1]:
            out.setdefault(coefs.index(1), k)
    return out


def _prefix(fmap: isl.Map, count: int) -> isl.Map:
    n = fmap.dim(isl.dim_type.out)
    return fmap.project_out(isl.dim_type.out, count, n - count)


def _suffix(fmap: isl.Map, count: int) -> isl.Map:
    return fmap.project_out(isl.dim_type.out, 0, count)


def _tail(scop, stmt_name: str, iterators: list[str], exprs: list[str], like: isl.Map) -> isl.Map:
    text = (f"[{', '.join(scop.parameters)}] -> {{ {stmt_name}[{', '.join(iterators)}] -> "
            f"[{', '.join(exprs)}] }}")
    return isl.Map(text).align_params(like.get_space()).intersect_domain(like.domain())


def candidate_schedule(problem: Problem, loop_map: list[tuple[int, int]],
                       flat: isl.UnionMap | None = None, blocked: bool = False,
                       kc: int | None = None, with_cut: bool = False):
    """The schedule executing the match ``loop_map`` (intrinsic loop, program loop) pairs
    in intrinsic loop order (see the module doc), from the flat schedule ``flat``
    (default: the original one). KeyError when a mapped loop is not a plain time
    dimension of ``flat``.

    ``blocked`` (for speed, as BLAS orders its loops): the tile loops, in the slots of
    the mapped loops, go free-extent loops first (tiled by ``kc`` when given, so an
    operand panel stays in cache) then the fixed ones in reverse intrinsic order (gemm:
    ``[floor(k/256), floor(j/8), floor(i/4)]``: a panel of B serves every block of
    rows). An intrinsic that packs its operands (``packing:``) blocks for the caches
    itself: blocked, only the loop of its output's rows is tiled, into equal blocks of
    at most ``kc`` (gemm, 1000 rows: ``floor(i/250)``, four calls of 250 x NJ x NK, the
    parallel loop), the others go to the call whole. The matcher's verdict uses the
    canonical order; ``Program.tensorize`` tries the blocked ones first and keeps the
    first legal one. ``with_cut``: return
    ``(map, P)``."""
    scop, stmt = problem.scop, problem.statement
    if flat is None:
        flat = scop.schedule_map.intersect_domain(scop.domain)
    maps: dict[str, isl.Map] = {}
    flat.foreach_map(lambda m: maps.__setitem__(m.get_tuple_name(isl.dim_type.in_), m))
    fs = maps[stmt.name]
    positions = _loop_positions(fs)
    mapped = {p: l for l, p in loop_map}
    iters = problem.pattern.loops
    # P: the outermost mapped loop in time (an interchange may have moved the loops); the
    # loops from P on are rebuilt in their time order, so each must be a plain dimension
    if any(d not in positions for d in range(min(mapped), len(iters))):
        raise KeyError(min(mapped))
    cut = min(positions[d] for d in mapped)
    inner = sorted((d for d in positions if positions[d] >= cut), key=positions.get)
    extents = problem.intrinsic.extents
    slots = [d for d in inner if d in mapped]
    # the tile loops as (statement dimension, divisor or None for the loop itself)
    if blocked and problem.intrinsic.packing:
        # a packed kernel blocks its operands for the caches itself: only the rows of
        # its output are split, into equal blocks of at most kc rows (parallel work)
        rows = _output_row_loop(problem.intrinsic)
        tiles = [(d, _balanced(kc, problem.extents[d])) for d in slots
                 if kc and mapped[d] == rows and extents[mapped[d]] is None]
        fixed = sorted((d for d in slots if extents[mapped[d]] is not None), key=lambda d: -mapped[d])
        tiles += [(d, extents[mapped[d]]) for d in fixed]
    elif blocked:
        tiles = [(d, kc) for d in slots if extents[mapped[d]] is None and kc]
        fixed = sorted((d for d in slots if extents[mapped[d]] is not None), key=lambda d: -mapped[d])
        tiles += [(d, extents[mapped[d]]) for d in fixed]
    else:
        tiles = [(d, extents[mapped[d]]) for d in slots if extents[mapped[d]] is not None]
    tile = []
    for d in inner:
        if d not in mapped:
            tile.append((d, None))
        elif tiles and (not (blocked and problem.intrinsic.packing) or tiles[0][0] == d):
            tile.append(tiles.pop(0))
    points = [iters[p] for _, p in loop_map]
    mains = [_tiled(iters, d, div) for d, div in tile]
    order = [s.name for s in scop.statements]
    mine = order.index(stmt.name)
    init = _init_tail(problem, maps, cut, tile, mapped, loop_map) if problem.init is not None else None
    result = None
    for name, fmap in maps.items():
        if name == stmt.name:
            if init is not None:    # the init's loops first, then 1 (the init has 0 there)
                shared = len(problem.intrinsic.init.loops)
                points = points[:shared] + ["1"] + points[shared:]
            tail = _tail(scop, name, iters, ["1"] + mains + points, fmap)
            new = _prefix(fmap, cut).flat_range_product(tail)
        elif init is not None and name == problem.init.statement:
            new = init
        else:
            group = "0" if order.index(name) < mine else "2"
            n_in = fmap.dim(isl.dim_type.in_)
            names = [f"x{d}" for d in range(n_in)]
            mark = _tail(scop, name, names, [group], fmap)
            new = _prefix(fmap, cut).flat_range_product(mark).flat_range_product(_suffix(fmap, cut))
        um = isl.UnionMap.from_map(new)
        result = um if result is None else result.union(um)
    return (result, cut) if with_cut else result


def _output_row_loop(intrinsic) -> int | None:
    """The intrinsic loop indexing the first dimension of its output (C[i][j]: i)."""
    pattern = intrinsic.pattern
    out = pattern.refs[pattern.tree[1][1]]
    if not out.rows:
        return None
    loops = [l for l, c in enumerate(out.rows[0]) if c]
    return loops[0] if len(loops) == 1 else None


def _balanced(limit: int, extent: int | None) -> int:
    """The block size of at most ``limit`` that splits ``extent`` (when known) into equal
    blocks: 1000 rows, limit 256 -> 250 (4 blocks)."""
    if not extent or extent <= limit:
        return limit
    count = -(-extent // limit)
    return -(-extent // count)


def _tiled(names: list[str], d: int, divisor: int | None) -> str:
    """Tile loop text: loop ``d`` itself, or its blocks of ``divisor``."""
    return names[d] if divisor is None else f"floor(({names[d]})/{divisor})"


class InitMisfit(ValueError):
    """The init statement of a band match cannot run in the blocks of a candidate
    schedule (the message says why)."""


def _init_tail(problem: Problem, maps: dict[str, isl.Map], cut: int, tile, mapped: dict[int, int],
               loop_map) -> isl.Map:
    """The init statement's schedule in the candidate: its own first ``cut`` time
    dimensions, group 1, the main statement's tile loops written with its loops, then
    its points (the intrinsic's outermost loops, see ``Intrinsic.init``) and 0 where the
    main statement has 1 then its other loops: each element is initialised right before
    its products, as in the intrinsic's nest, so that isl prints both statements in one
    loop nest below the mark (statements one after the other would be separate
    components, and isl would print the mark once for each). InitMisfit when it cannot follow: its mapped loops
    start at another depth, a loop between them is not a plain loop or not mapped, or
    a tile loop is one it lacks (a loop it lacks must run whole in each call)."""
    scop, intrinsic = problem.scop, problem.intrinsic
    init = problem.init_statement()
    own = {loop: init.iterators.index(p) for loop, p in problem.init.loops}
    fmap = maps[init.name]
    positions = _loop_positions(fmap)
    dims = set(own.values())
    if any(d not in positions for d in range(min(dims), len(init.iterators))) or \
            min(positions[d] for d in dims) != cut:
        raise InitMisfit(f"the loops of {init.name} do not start at the depth of {problem.statement.name}'s")
    if any(positions[d] >= cut and d not in dims for d in positions):
        raise InitMisfit(f"{init.name} has a loop among the mapped ones that the intrinsic lacks")
    texts = []
    for d, divisor in tile:
        loop = intrinsic.loops[mapped[d]] if d in mapped else None
        if loop not in own:
            raise InitMisfit(f"{init.name} has no loop for the tile loop of {problem.pattern.loops[d]}")
        texts.append(_tiled(init.iterators, own[loop], divisor))
    points = [init.iterators[own[loop]] for loop in intrinsic.init.loops]
    points += ["0"] * (len(loop_map) + 1 - len(points))
    tail = _tail(scop, init.name, list(init.iterators), ["1"] + texts + points, fmap)
    return _constants_of(_prefix(fmap, cut), _prefix(maps[problem.statement.name], cut)).flat_range_product(tail)


def _constants_of(prefix: isl.Map, model: isl.Map) -> isl.Map:
    """``prefix`` with each dimension that is a constant in both maps set to ``model``'s
    constant: the init statement joins the main statement's place in a sequence (a
    separate nest before it: [0, ...] becomes [1, ...])."""
    for k in range(prefix.dim(isl.dim_type.out)):
        mine, theirs = _constant(prefix, k), _constant(model, k)
        if mine is not None and theirs is not None and mine != theirs:
            prefix = prefix.project_out(isl.dim_type.out, k, 1).insert_dims(isl.dim_type.out, k, 1)
            prefix = prefix.fix_val(isl.dim_type.out, k, val(theirs))
    return prefix


def _constant(fmap: isl.Map, k: int) -> int | None:
    """The value of output dimension ``k`` of ``fmap`` when it is one constant."""
    n = fmap.dim(isl.dim_type.out)
    values = fmap.project_out(isl.dim_type.out, k + 1, n - k - 1).project_out(isl.dim_type.out, 0, k).range()
    value = values.plain_get_val_if_fixed(isl.dim_type.set, 0)
    return int(value.to_python()) if value.is_int() else None


def init_blocks_agree(problem: Problem, candidate: isl.UnionMap) -> str:
    """'' when, in every block of ``candidate`` (equal time dimensions before the
    points) where the main statement runs, the init statement writes exactly the
    elements the main statement writes, each once; else why not."""
    maps = {m.get_tuple_name(isl.dim_type.in_): m for m in maps_of(candidate)}
    main, init = problem.statement, problem.init_statement()
    outer = maps[main.name].dim(isl.dim_type.out) - len(problem.intrinsic.loops) - 1
    output = dict(problem.init.arrays)[problem.intrinsic.output]
    blocks, writes, written = {}, {}, {}
    for stmt in (main, init):
        writes[stmt.name] = output_write(stmt, output)     # one each: init_bindings checked it
        blocks[stmt.name] = _prefix(maps[stmt.name], outer)
        written[stmt.name] = blocks[stmt.name].reverse().apply_range(writes[stmt.name])
    accumulated = written[main.name]
    initialised = written[init.name].intersect_domain(accumulated.domain())
    if not initialised.is_equal(accumulated):
        return (f"{init.name} does not initialise exactly the elements of {output} that each call "
                f"of {problem.intrinsic.name} accumulates into")
    if not blocks[init.name].range_product(writes[init.name]).is_injective():
        return f"{init.name} writes an element of {output} twice in one block"
    return ""




def legality(problem: Problem, loop_map: list[tuple[int, int]], deps) -> tuple[bool, str]:
    """(legal, reason): reason names the first violated dependence with a witness."""
    mapped = [p for _, p in loop_map]
    if not rectangular(problem, mapped):
        names = ", ".join(problem.pattern.loops[p] for p in mapped)
        return False, f"the mapped loops ({names}) do not form a box in {problem.statement.domain}"
    if problem.init is not None:
        init = problem.init_statement()
        dims = [init.iterators.index(p) for _l, p in problem.init.loops]
        if not rectangular(problem, dims, init.domain):
            return False, f"the mapped loops of {init.name} do not form a box in {init.domain}"
    try:
        schedule = candidate_schedule(problem, loop_map)
    except KeyError:
        # a loop between the mapped ones is not a plain time dimension of the original
        # schedule (it shares its depth with another statement's sequence)
        return False, "the mapped loops are not plain loops of the original schedule"
    except InitMisfit as err:
        return False, str(err)
    if problem.init is not None:
        why = init_blocks_agree(problem, schedule)
        if why:
            return False, why
    result = check(problem.scop, deps, schedule)
    if result.legal:
        return True, ""
    violation = result.violations[0]
    why = ""
    if violation.source == violation.sink == problem.statement.name:
        lhs = problem.pattern.refs[problem.pattern.tree[1][1]].array
        why = f" (it would reorder the updates of {lhs})"
    return False, f"moving the mapped loops innermost violates: {violation}{why}"
