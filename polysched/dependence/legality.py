"""Legality of a schedule with respect to the memory-based dependences.

A schedule (an ``isl.Schedule`` tree or a map ``{ S[i, j] -> [t0, t1, ...] }``) is legal
when, for every validity dependence ``S[i] -> T[j]`` (raw ∪ war ∪ waw), the time of
the sink is lexicographically strictly later than the time of the source. When it
is not, ``check`` names the violated dependence and gives a concrete witness: one
source instance, one sink instance, parameter values, and both schedule times.

Per band of a tree it also reports which members are parallel (zero difference on
every validity dependence not satisfied by outer dimensions, earlier members of the
band included) and whether the band is permutable (every member's difference >= 0
on every validity dependence not satisfied by outer bands): ``loops.band_flags``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import islpy as isl

from polysched.errors import MarkError, PolyschedError
from polysched.islutil import isl_message, isl_operation_cap, maps_of, sets_of, val
from polysched.marks import LOOP_CLAIMS, Parallel, Simd, parse_mark

from .analysis import VALIDITY_KINDS, Dependences
from .flatten import flatten, flatten_map
from .loops import mupa_rows, node_band_flags, prefix_rows, rows, same_value
from .scalars import (LIVE_AFTER, SELECTIONS, ScopAccesses, clause_candidate, inexact_integer_update,
                      last_write_reason, private_reason, reduced_cell, reduction_of, used_after_scop)


class ScheduleError(PolyschedError, ValueError):
    """A schedule that cannot be checked: unparsable, or not covering the SCoP."""


@dataclass
class Witness:
    """One violated instance pair: ``source``/``sink`` as ``(statement, (i, j, ...))``,
    the parameter values used, and both instances' times under the checked schedule."""

    parameters: dict[str, int]
    source: tuple[str, tuple[int, ...]]
    sink: tuple[str, tuple[int, ...]]
    source_time: tuple[int, ...]
    sink_time: tuple[int, ...]
    # False for a race (a mark's loop): the two instances conflict in either order
    ordered: bool = True
    # True for two children of a set node: their times are one order isl may choose
    in_set: bool = False

    def __str__(self) -> str:
        params = ", ".join(f"{k}={v}" for k, v in self.parameters.items())
        src = f"{self.source[0]}[{', '.join(map(str, self.source[1]))}]"
        dst = f"{self.sink[0]}[{', '.join(map(str, self.sink[1]))}]"
        when = f" with {params}" if params else ""
        if not self.ordered:
            return (f"{src} at time {list(self.source_time)} and {dst} at time {list(self.sink_time)} "
                    f"touch the same element, one writing{',' if when else ''}{when}")
        if self.in_set:
            # (helper-54: "S0[0] at time [0] must run before S1[0] at time [1]" read as kept)
            return (f"{src} must run before {dst}{when}, but a set node holds them in different children, "
                    "which isl may run in either order (use a sequence)")
        return (f"{src} at time {list(self.source_time)} must run before "
                f"{dst} at time {list(self.sink_time)}{when}")

    def to_json(self) -> dict:
        return {"parameters": self.parameters,
                "source": {"statement": self.source[0], "instance": list(self.source[1]),
                           "time": list(self.source_time)},
                "sink": {"statement": self.sink[0], "instance": list(self.sink[1]),
                         "time": list(self.sink_time)}}


@dataclass
class Violation:
    """Dependence ``relation`` (kind ``kind``, ``{ S[i] -> T[j] }``) is not respected
    on ``violated`` (the instance pairs whose sink does not run strictly later)."""

    kind: str
    source: str
    sink: str
    relation: isl.Map | None
    violated: isl.Map | None
    witness: Witness | None
    message: str = ""   # for kind "mark": what the mark claims that is not true

    def __str__(self) -> str:
        if self.kind == "mark":
            return self.message + (f": {self.witness}" if self.witness else "")
        return f"{self.kind} dependence {self.source} -> {self.sink} violated: {self.witness}"

    def to_json(self) -> dict:
        return {"kind": self.kind, "source": self.source, "sink": self.sink,
                "relation": str(self.relation), "violated": str(self.violated),
                "witness": self.witness.to_json() if self.witness else None, "message": self.message}


@dataclass
class BandInfo:
    """One band node at tree ``path`` (child positions from the root).

    ``parallel[k]``: member k carries no dependence; ``permutable``: the members can
    be freely interchanged (rectangular tiling is legal). ``claimed_*`` are the flags
    stored in the tree, which ``mismatches`` compares against the analysis.
    """

    path: tuple[int, ...]
    partial_schedule: str
    n_member: int
    parallel: list[bool]
    permutable: bool
    claimed_permutable: bool = False
    claimed_coincident: list[bool] = field(default_factory=list)

    @property
    def mismatches(self) -> list[str]:
        """Flags the tree claims but the dependences refute (never the other way)."""
        errs = []
        if self.claimed_permutable and not self.permutable:
            errs.append(f"band {list(self.path)} is marked permutable but is not")
        for k, (claimed, actual) in enumerate(zip(self.claimed_coincident, self.parallel)):
            if claimed and not actual:
                errs.append(f"band {list(self.path)} member {k} is marked coincident "
                            f"but carries a dependence")
        return errs

    def to_json(self) -> dict:
        return {"path": list(self.path), "partial_schedule": self.partial_schedule,
                "n_member": self.n_member, "parallel": self.parallel,
                "permutable": self.permutable, "claimed_permutable": self.claimed_permutable,
                "claimed_coincident": self.claimed_coincident, "mismatches": self.mismatches}


@dataclass
class Legality:
    """``bands`` is computed when first read: the band flags are a report (``polysched
    check``, `set_flags`), not part of the verdict, and on a fuzzed nest with large
    offsets they took 15 s of a run whose schedule was the original one."""
    legal: bool
    violations: list[Violation]
    _band_source: tuple = field(repr=False)        # (tree, validity) for _band_infos
    schedule_map: isl.UnionMap
    _bands: list[BandInfo] | None = field(default=None, repr=False)

    @property
    def bands(self) -> list[BandInfo]:
        if self._bands is None:
            self._bands = _band_infos(*self._band_source)
        return self._bands

    def __bool__(self) -> bool:
        return self.legal

    def __repr__(self) -> str:
        from polysched.display import legality_summary
        return legality_summary(self)

    def _repr_html_(self) -> str:
        from polysched.display import legality_html
        return legality_html(self)

    def __str__(self) -> str:
        if self.legal:
            return "legal"
        return "illegal: " + "; ".join(str(v) for v in self.violations)

    def to_json(self) -> dict:
        return {"legal": self.legal, "violations": [v.to_json() for v in self.violations],
                "bands": [b.to_json() for b in self.bands],
                "schedule_map": str(self.schedule_map)}


def violated_dependences(schedule: isl.Schedule, validity: isl.UnionMap) -> isl.UnionMap:
    """The pairs ``{ S[s] -> T[t] }`` of ``validity`` that ``schedule`` (a tree) does not
    run in order (``sched(s) lex< sched(t)`` fails); empty when the schedule is legal.
    The quick yes/no used inside the scheduler and the tiler; :func:`check` explains."""
    smap = schedule.get_map().intersect_domain(schedule.get_domain())
    before = smap.lex_lt_union_map(smap)
    return validity.intersect_domain(schedule.get_domain()).subtract(before)


def is_legal(schedule: isl.Schedule, validity: isl.UnionMap) -> bool:
    """``schedule`` runs every pair of ``validity`` in order (no violated dependence).

    Decided in date space: each dependence becomes the pair of its dates, and all of
    them must be lexicographically increasing, one subset test per space. This is far
    cheaper than `violated_dependences`, which orders every pair of instances
    (``lex_lt_union_map``): deriche's tiling ran 6 such checks, 0.8 s of its 1 s."""
    domain = schedule.get_domain()
    if not validity.domain().is_subset(domain) or not validity.range().is_subset(domain):
        return violated_dependences(schedule, validity).is_empty()
    dates = schedule.get_map().intersect_domain(domain)
    ordered = validity.apply_domain(dates).apply_range(dates)
    for pairs in maps_of(ordered):
        space = pairs.get_space()
        if space.dim(isl.dim_type.in_) != space.dim(isl.dim_type.out):
            return violated_dependences(schedule, validity).is_empty()
        if not pairs.is_subset(isl.Map.lex_lt(space.domain())):
            return False
    return True


# isl operations the original order relation may take (runs_in_original_order): every
# suite kernel needs far less; past it the answer is "no" (the schedule counts as new)
ORDER_OPERATIONS = 2_000_000


def runs_in_original_order(scop, schedule: isl.Schedule) -> bool:
    """Does ``schedule`` run every pair of instances in the order of ``scop.schedule``
    and carry no mark (no parallel, vector, unrolled or tensorized loop)? Then it asks
    for nothing the code as written does not already do. The original order is the
    relation ``{ S[s] -> T[t] : orig(s) lex< orig(t) }``, a validity relation the new
    schedule must respect (`is_legal`): respected, the new schedule is that total order."""
    if _has_mark(schedule.get_root()):
        return False
    domain = scop.domain.intersect_params(scop.context)
    try:
        with isl_operation_cap(domain.get_ctx(), ORDER_OPERATIONS):
            original = scop.schedule_map.intersect_domain(domain)
            return is_legal(schedule.intersect_domain(domain), original.lex_lt_union_map(original))
    except isl.Error:
        return False


def _has_mark(node: isl.ScheduleNode) -> bool:
    if node.get_type() == isl.schedule_node_type.mark:
        return True
    return any(_has_mark(node.child(k)) for k in range(node.n_children()))


def parse_schedule(text: str, ctx: isl.Context | None = None) -> isl.Schedule | isl.UnionMap:
    """An isl schedule tree (YAML block notation, ``{ domain: ... }``) or a schedule
    map (``[N] -> { S[i, j] -> [j, i] }``) from its isl text."""
    ctx = ctx or isl.DEFAULT_CONTEXT
    text = text.strip()
    trailing = _after_outer_braces(text)
    if trailing:
        # (helper-93: isl reads up to the object's end and ignores the rest: "{ ... }
        # garbage here" was checked as legal)
        raise ScheduleError(f"unexpected text after the schedule's closing brace: {trailing[:40]!r}")
    if "domain" in text:
        try:
            return isl.Schedule.read_from_str(ctx, text)
        except isl.Error:
            pass
    try:
        return isl.UnionMap.read_from_str(ctx, text)
    except isl.Error:
        pass
    raise ScheduleError(f"cannot parse {text!r} as an isl schedule tree or schedule map")


def _after_outer_braces(text: str) -> str:
    """What follows the ``}`` that closes the first ``{`` of ``text`` (quoted strings
    skipped), stripped; "" when nothing does, or when the braces never close (isl's
    parser says what is wrong then) or there are none (a tree in YAML block style)."""
    depth, quoted = 0, False
    for k, char in enumerate(text):
        if char == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[k + 1:].strip()
    return ""


def _to_tree(domain: isl.UnionSet, schedule_map: dict[str, isl.Map]) -> isl.Schedule:
    """A one-band schedule tree equivalent to a (padded) schedule map."""
    umap = None
    for m in schedule_map.values():
        um = isl.UnionMap.from_map(m)
        umap = um if umap is None else umap.union(um)
    sched = isl.Schedule.from_domain(domain)
    n_dims = next(iter(schedule_map.values())).dim(isl.dim_type.out) if schedule_map else 0
    if umap is not None and not umap.is_empty() and n_dims > 0:
        sched = sched.insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(umap))
    return sched


def _plain(obj):
    """``obj`` with the user pointers of its identifiers dropped.

    Why: a parameter built with ``isl.Id("N")`` in islpy carries a user pointer, so
    it is a different parameter from the ``N`` of a parsed string such as
    ``"[N] -> { S[i] -> [i] }"``; comparing the two would silently treat them as
    unrelated. Everything ``check`` compares goes through this first."""
    return obj.reset_user()


def _normalize(scop, schedule) -> tuple[dict[str, isl.Map], isl.Schedule | None]:
    """Per statement padded time maps and, for trees, the tree."""
    domain = _plain(scop.domain)
    context = _plain(scop.context)
    if isinstance(schedule, str):
        schedule = parse_schedule(schedule, domain.get_ctx())
    tree = None
    if isinstance(schedule, isl.Schedule):
        schedule = _plain(schedule)
        tree = schedule
        check_statements(scop, schedule.get_domain())
        unsupported = unsupported_nodes(schedule)
        if unsupported:
            # (helper-61: check called a tree legal whose guard dropped instances)
            raise ScheduleError(f"the tree has {' and '.join(unsupported)} nodes, which polysched does not take "
                                "(bands, sequences, sets, filters and marks only)")
        try:
            check_tree_instances(schedule, domain, context)
            maps = flatten(schedule).maps
        except ValueError as err:
            raise ScheduleError(str(err)) from None
        except isl.Error as err:        # extension nodes (helper-61: a raw islpy error)
            raise ScheduleError(f"isl cannot use this schedule ({isl_message(err)})") from None
    elif isinstance(schedule, (isl.UnionMap, isl.Map)):
        umap = isl.UnionMap.from_map(schedule) if isinstance(schedule, isl.Map) else schedule
        # (a parameter the region lacks is any value: the verdict holds for all of them)
        check_statements(scop, umap.domain())
        maps = flatten_map(_plain(umap).intersect_domain(domain))
    else:
        raise TypeError(f"expected isl.Schedule or isl.UnionMap, got {type(schedule).__name__}")
    for stmt in scop.statements:
        m = maps.get(stmt.name)
        dom = _plain(stmt.domain).intersect_params(context)
        if dom.is_empty():
            continue
        covered = m.domain() if m is not None else None
        if covered is None or not dom.is_subset(covered):
            missing = dom if covered is None else dom.subtract(covered)
            raise ScheduleError(f"the schedule does not give a time to {missing}")
        # (a tree: check_tree_instances)
        if tree is None and not m.intersect_domain(dom).is_single_valued():
            raise ScheduleError(f"the schedule gives several times to some instance of {stmt.name}")
    maps = {name: m.intersect_params(context) for name, m in maps.items()}
    if tree is None:
        tree = _to_tree(domain, maps)
    return maps, tree


def unsupported_nodes(tree: isl.Schedule) -> list[str]:
    """The kinds of node of ``tree`` that polysched does not take (context, guard,
    extension, expansion: a guard or context drops instances the verdict counted,
    isl's AST generator fails on spaces that differ)."""
    kinds = {isl.schedule_node_type.context: "context", isl.schedule_node_type.guard: "guard",
             isl.schedule_node_type.extension: "extension", isl.schedule_node_type.expansion: "expansion"}
    found: set[str] = set()

    def visit(node: isl.ScheduleNode) -> bool:
        if node.get_type() in kinds:
            found.add(kinds[node.get_type()])
        return True
    tree.get_root().foreach_descendant_top_down(visit)
    return sorted(found)


def check_statements(scop, domain: isl.UnionSet) -> None:
    """Refuse a schedule over a statement the region does not have (a map's extra
    statement would be dropped without a word: most likely a typo or another program's)."""
    known = [s.name for s in scop.statements]
    unknown = sorted({s.get_tuple_name() or "an unnamed tuple" for s in sets_of(domain)} - set(known))
    if unknown:
        raise ScheduleError(f"the schedule names {', '.join(unknown)}, which the region does not have "
                            f"(its statements: {', '.join(known)})")
    depth = {s.name: s.domain.dim(isl.dim_type.set) for s in scop.statements}
    for instances in sets_of(domain):
        name = instances.get_tuple_name()
        if instances.dim(isl.dim_type.set) != depth[name]:
            raise ScheduleError(f"the schedule's {name} has {instances.dim(isl.dim_type.set)} dimension(s); "
                                f"the region's {name} has {depth[name]} (its loops)")


def _parameter_names(obj) -> list[str]:
    space = obj.get_space()
    return [space.get_dim_name(isl.dim_type.param, k) for k in range(space.dim(isl.dim_type.param))]


def check_parameters(scop, schedule: isl.UnionMap, involved_only: bool = False) -> None:
    """Refuse a schedule naming a parameter the region does not have: isl's code
    generator would stop on it ("band node is not allowed to introduce new parameters").
    ``involved_only``: only one its expressions or constraints use (`check`'s verdict
    holds for every value of another, but ``[N] -> { S0[i] -> [N - i] }`` where the
    region's size is ``n`` is most likely a typo)."""
    known = set(_parameter_names(scop.domain)) | set(_parameter_names(scop.context))
    unknown = [name for name in _parameter_names(schedule) if name not in known]
    if involved_only:
        unknown = [name for name in unknown if any(
            m.involves_dims(isl.dim_type.param, m.find_dim_by_name(isl.dim_type.param, name), 1)
            for m in maps_of(schedule))]
    if unknown:
        have = ", ".join(sorted(known)) or "none"
        raise ScheduleError(f"the schedule uses parameter {', '.join(unknown)}, which the region "
                            f"does not have (its parameters: {have})")


def check_tree_instances(tree: isl.Schedule, domain: isl.UnionSet, context: isl.Set) -> None:
    """A ``ScheduleError`` unless ``tree`` runs only instances of ``domain`` (the code
    would run the others), each once: two filters of a sequence or set sharing an
    instance run it twice. (Checked on the tree: ``Map.is_single_valued`` on the
    flattened tree ran for minutes on domains cut by ``%`` guards.)"""
    tree, domain, context = _plain(tree), _plain(domain), _plain(context)
    extra = tree.get_domain().intersect_params(context).subtract(domain)
    if not extra.is_empty():
        raise ScheduleError(f"the schedule's domain has instances the region does not run: {extra.coalesce()}")
    shared = _shared_filter(tree.get_root(), context)
    if shared is not None:
        raise ScheduleError(f"the schedule gives several times to some instance of {shared}")


def _shared_filter(node: isl.ScheduleNode, context: isl.Set) -> str | None:
    """The name of a statement two children of a sequence or set node below ``node``
    both run (for some instance), else None."""
    kinds = (isl.schedule_node_type.sequence, isl.schedule_node_type.set)
    if node.get_type() in kinds:
        seen = None
        for k in range(node.n_children()):
            child = node.child(k)
            if child.get_type() != isl.schedule_node_type.filter:
                continue
            instances = child.child(0).get_domain().intersect_params(context)    # those that pass
            if seen is not None:
                common = seen.intersect(instances)
                if not common.is_empty():
                    return common.get_set_list().get_at(0).get_tuple_name()
                seen = seen.union(instances)
            else:
                seen = instances
    for k in range(node.n_children()):
        found = _shared_filter(node.child(k), context)
        if found is not None:
            return found
    return None


def _small_parameters(violated: isl.Map, context: isl.Set) -> isl.Map:
    """``violated`` with every parameter fixed to a value making it non-empty, trying
    small non-negative values first (the smallest box [0, B]^n that works, then
    [-B, B]^n), lexicographically smallest within it."""
    n = violated.dim(isl.dim_type.param)
    if n == 0:
        return violated
    params = violated.params().intersect_params(context) if context.dim(isl.dim_type.param) else violated.params()
    as_set = params.move_dims(isl.dim_type.set, 0, isl.dim_type.param, 0, n)
    chosen = None
    for bound in (2, 4, 8, 16, 64, 256, 4096, 1 << 20):
        for low in (0, -bound):
            box = as_set
            for k in range(n):
                box = box.lower_bound_val(isl.dim_type.set, k, val(low))
                box = box.upper_bound_val(isl.dim_type.set, k, val(bound))
            if not box.is_empty():
                chosen = _lexmin_or_any(box)
                break
        if chosen is not None:
            break
    if chosen is None:
        chosen = as_set.sample()
    point = isl.Set.from_basic_set(chosen) if isinstance(chosen, isl.BasicSet) else chosen
    for k, value in enumerate(_point_coordinates(point)):
        violated = violated.fix_val(isl.dim_type.param, k, val(value))
    return violated


def _lexmin_or_any(s: isl.Set) -> isl.Set:
    """The lexicographically smallest point of ``s`` (non-empty), or some point of it
    where isl's lexmin gives up (it can on sets with integer divisions: "affine
    expression involves some of the domain dimensions", seen after unroll_and_jam on
    floyd-warshall)."""
    try:
        smallest = s.lexmin()
        if not smallest.is_empty():
            return smallest
    except isl.Error:
        pass
    # isl's lexmin has also answered "false" for a non-empty set whose divisions came
    # from fixing parameters (an illegal tile of seidel-2d); the same set read back from
    # its text gives the right answer, and sample_point is the last resort.
    try:
        smallest = isl.Set(str(s)).lexmin()
        if not smallest.is_empty() and smallest.is_subset(s):
            return smallest
    except isl.Error:
        pass
    return isl.Set.from_point(s.sample_point())


def _point_coordinates(s: isl.Set) -> tuple[int, ...]:
    pt = s.sample_point()
    return tuple(pt.get_coordinate_val(isl.dim_type.set, k).to_python()
                 for k in range(s.dim(isl.dim_type.set)))


def _witness(violated: isl.Map, maps: dict[str, isl.Map], context: isl.Set) -> Witness:
    fixed = _small_parameters(violated, context)
    pair = _lexmin_or_any(fixed.wrap())
    coords = _point_coordinates(pair)
    n_in = violated.dim(isl.dim_type.in_)
    src_name = violated.get_tuple_name(isl.dim_type.in_)
    dst_name = violated.get_tuple_name(isl.dim_type.out)
    params = {}
    for k in range(fixed.dim(isl.dim_type.param)):
        value = fixed.plain_get_val_if_fixed(isl.dim_type.param, k)
        params[fixed.get_dim_name(isl.dim_type.param, k)] = value.to_python()
    src, dst = coords[:n_in], coords[n_in:]

    def time(name: str, instance: tuple[int, ...]) -> tuple[int, ...]:
        m = maps[name]
        for k, v in enumerate(params.values()):
            m = m.fix_val(isl.dim_type.param, m.find_dim_by_name(isl.dim_type.param,
                                                                  list(params)[k]), val(v))
        for k, v in enumerate(instance):
            m = m.fix_val(isl.dim_type.in_, k, val(v))
        return _point_coordinates(m.range())

    return Witness(params, (src_name, src), (dst_name, dst), time(src_name, src), time(dst_name, dst))


def _band_infos(tree: isl.Schedule, validity: isl.UnionMap) -> list[BandInfo]:
    bands: list[BandInfo] = []

    def visit(node: isl.ScheduleNode, path: tuple[int, ...]) -> None:
        if node.get_type() == isl.schedule_node_type.band and node.band_n_member() > 0:
            bands.append(_analyze_band(node, path, validity))
        for k in range(node.n_children()):
            visit(node.child(k), path + (k,))

    visit(tree.get_root(), ())
    return bands


def _analyze_band(node: isl.ScheduleNode, path: tuple[int, ...],
                  validity: isl.UnionMap) -> BandInfo:
    n = node.band_n_member()
    domain = node.get_domain()
    # only dependences both of whose ends reach this band and that the outer bands
    # leave unordered (equal prefix) count: the others are satisfied above
    parallel, permutable = node_band_flags(validity, node)
    shown = node.band_get_partial_schedule()
    try:   # drop the domain constraints from the printed form
        shown = shown.gist(isl.UnionSet.universe(domain)).gist(domain)
    except isl.Error:
        pass
    return BandInfo(path=path, partial_schedule=str(shown),
                    n_member=n, parallel=parallel, permutable=permutable,
                    claimed_permutable=bool(node.band_get_permutable()),
                    claimed_coincident=[bool(node.band_member_get_coincident(k)) for k in range(n)])


def _set_node_violations(tree: isl.Schedule, deps: Dependences, maps: dict[str, isl.Map],
                         context: isl.Set) -> list[Violation]:
    """Dependences between different children of a ``set`` node that the outer bands
    leave unordered: isl may generate the children in any order, so these count as
    violated even though the flattened map happens to order the children."""
    found: list[Violation] = []

    def visit(node: isl.ScheduleNode) -> None:
        if node.get_type() == isl.schedule_node_type.set:
            same_time = same_value(node.get_prefix_schedule_union_map())
            filters = [node.child(k).filter_get_filter() for k in range(node.n_children())]
            for kind in VALIDITY_KINDS:
                for rec in deps.pairs(kind):
                    relation = _plain(rec.relation)
                    for a, fa in enumerate(filters):
                        for b, fb in enumerate(filters):
                            if a == b:
                                continue
                            bad = isl.UnionMap.from_map(relation).intersect_domain(fa) \
                                .intersect_range(fb).intersect(same_time)
                            if bad.is_empty():
                                continue
                            violated = maps_of(bad)[0].coalesce()
                            witness = _witness(violated, maps, context)
                            if witness is not None:
                                witness.in_set = True
                            found.append(Violation(kind, rec.source, rec.sink, rec.relation, violated, witness))
        for k in range(node.n_children()):
            visit(node.child(k))

    visit(tree.get_root())
    return found


def _clause_scalars(mark) -> set[str]:
    """The scalars a ``Parallel`` mark declares private or reductions (their
    dependences are the clauses' business, not a race)."""
    return mark.scalars if isinstance(mark, Parallel) else set()


def _clause_violations(scop, band: isl.ScheduleNode, mark, cache: dict) -> list[str]:
    """What is false in a ``Parallel`` mark's declared clauses on the loop of ``band``:
    a ``private`` scalar whose value flows between iterations, in from before the loop or
    out after it; a ``reduction`` scalar whose updates are not all ``x = x op e`` with
    that operator (one read and one write of it per statement, nothing else touching
    it). A declared floating-point reduction is the user's request to reassociate, so
    it is not an error. (The same rules decide the clauses the tiling pass derives.)
    ``cache`` keeps the SCoP's per-array dependences across the marks of one check."""
    if not isinstance(mark, Parallel) or not mark.scalars:
        return []
    domain = band.get_domain()
    member = mupa_rows(band.band_get_partial_schedule(), [0])
    iteration = rows(prefix_rows(band), member.intersect_domain(domain))
    same_iteration = same_value(iteration)
    if "accesses" not in cache:
        cache["accesses"] = ScopAccesses(scop)
    accesses = cache["accesses"]
    found = []
    for name in mark.private:
        reason = _not_a_clause_scalar(scop, name, "private") or \
            private_reason(scop, accesses, name, domain, same_iteration, live_after=True)
        if reason is None and used_after_scop(scop, name):
            reason = LIVE_AFTER
            if last_write_reason(scop, accesses, name, domain, iteration) is None:
                reason += f": lastprivate={name} keeps its last value"
        if reason is not None:
            found.append(f"'{name}' cannot be private ({reason})")
    for name in mark.lastprivate:
        reason = _not_a_clause_scalar(scop, name, "lastprivate") or (
            None if scop.arrays[name].is_scalar else "an array: only scalars can be lastprivate") or \
            private_reason(scop, accesses, name, domain, same_iteration, live_after=True) or \
            last_write_reason(scop, accesses, name, domain, iteration)
        if reason is not None:
            found.append(f"'{name}' cannot be lastprivate ({reason})")
    for op, name in mark.reductions:
        reason = _not_a_clause_scalar(scop, name, "a reduction")
        if reason is not None:
            found.append(f"'{name}' cannot be a reduction ({reason})")
            continue
        actual = reduction_of(scop, accesses, name, domain, reassociate=(name,))
        if actual in SELECTIONS and reduced_cell(scop, name):
            found.append(f"'{name}' cannot be a '{actual}' reduction (memory reduced in a copy: + * | & ^ only)")
            continue
        if actual != op:
            found.append(f"'{name}' is not a '{op}' reduction in this loop"
                         + (f" (its updates are '{actual}')" if actual else ""))
            continue
        inexact = inexact_integer_update(scop, name, domain)
        if inexact is not None:
            found.append(f"'{name}' cannot be a reduction ({inexact})")
    return found


def _not_a_clause_scalar(scop, name: str, role: str) -> str | None:
    """Why ``name`` cannot be named in an OpenMP data-sharing clause, or None: only a
    plain scalar variable of the SCoP can (a private array or pointer is a copy that
    no iteration filled; a member is not a variable)."""
    array = scop.arrays.get(name)
    if array is None:
        return "not a variable of the SCoP"
    if role != "private" and reduced_cell(scop, name):
        return None         # reduced in a local copy (emit_c)
    if not array.is_scalar and not (role == "private" and clause_candidate(array)):
        return (f"an array or pointer: OpenMP would give each thread an uninitialised copy; only scalars "
                f"{'and arrays declared inside the region ' if role == 'private' else ''}can be {role}")
    if array.text:
        return f"'{array.text}' is a struct member, which cannot be {role}"
    return None


def _mark_violations(scop, tree: isl.Schedule, maps: dict[str, isl.Map],
                     context: isl.Set) -> list[Violation]:
    """Marks that claim what is not true: a ``Parallel``/``Simd``/``Ivdep`` mark (see
    :mod:`polysched.marks`) whose loop (the first member of the band right below it)
    has two instances in different iterations, with equal outer schedule, that touch
    the same array element with at least one write (a race, whatever the order); a
    loop mark not directly above a band; a mark outside the vocabulary. Scalars a
    ``Parallel`` mark declares ``private`` or ``reductions`` are the clauses' business
    and are not counted as races; the declaration itself is checked (`_clause_violations`)."""
    found: list[Violation] = []
    clause_cache: dict = {}
    writes = _plain(scop.writes.union(scop.may_writes))
    accesses = writes.union(_plain(scop.reads))

    def problem(kind: str, message: str, conflict: isl.UnionMap | None = None):
        maps_found = [m for m in maps_of(conflict.intersect_params(context))
                      if not m.is_empty()] if conflict is not None else []
        if maps_found:
            violated = maps_found[0].coalesce()
            witness = _witness(violated, maps, context)
            witness.ordered = False         # (a race: no order between the two)
            found.append(Violation(kind, violated.get_tuple_name(isl.dim_type.in_),
                                   violated.get_tuple_name(isl.dim_type.out), violated, violated,
                                   witness, message))
        else:
            found.append(Violation(kind, "", "", None, None, None, message))

    def visit(node: isl.ScheduleNode, in_simd: bool = False, simd_here: bool = False) -> None:
        # in_simd: below a loop marked 'simd'; simd_here: a mark stacked on the same loop
        # as this one is 'simd' ('parallel for simd': one loop, not a parallel one inside)
        if node.get_type() == isl.schedule_node_type.mark:
            name = node.mark_get_id().get_name().strip()
            try:
                mark = parse_mark(name)
            except MarkError as err:
                problem("mark", str(err))
                mark = None
            if isinstance(mark, Parallel) and in_simd:
                # OpenMP allows no parallel region in a simd loop: gcc refuses the code
                problem("mark", f"mark '{name}' is inside a loop marked 'simd'")
            simd_here = simd_here or isinstance(mark, Simd)
            child = node.child(0)
            while child.get_type() == isl.schedule_node_type.mark:  # marks on one loop stack up
                child = child.child(0)
            if isinstance(mark, LOOP_CLAIMS):
                if child.get_type() != isl.schedule_node_type.band or child.band_n_member() == 0:
                    problem("mark", f"mark '{name}' is not directly above a band: it names no loop")
                else:
                    # a clause naming no variable first (helper-54: 'zz' came after the race
                    # it left, as "(and 1 more violation)")
                    for message in _clause_violations(scop, child, mark, clause_cache):
                        problem("mark", f"mark '{name}': {message}")
                    conflict = _carried_conflicts(child, writes, accesses, _clause_scalars(mark))
                    # only where the code runs: under the context (the emitted guard)
                    if not conflict.intersect_params(context).is_empty():
                        problem("mark", f"mark '{name}' is on a loop that carries a dependence", conflict)
            if node.child(0).get_type() == isl.schedule_node_type.mark:
                visit(node.child(0), in_simd, simd_here)
            else:
                visit(node.child(0), in_simd or simd_here)
            return
        for k in range(node.n_children()):
            visit(node.child(k), in_simd)

    visit(tree.get_root())
    return found


def mark_violations(scop, schedule: isl.Schedule) -> list[Violation]:
    """The marks of tree ``schedule`` that claim what is not true (`check`'s kind
    ``"mark"`` violations, without checking the order: code generation validates
    that against its AST)."""
    maps, tree = _normalize(scop, schedule)
    return _mark_violations(scop, tree, maps, _plain(scop.context))


def _carried_conflicts(band: isl.ScheduleNode, writes: isl.UnionMap, accesses: isl.UnionMap,
                       excluded: set[str]) -> isl.UnionMap:
    """``{ S[i] -> T[j] }``: instance pairs below ``band`` with equal outer schedule and
    different values of its first member that touch one element, one of them writing."""
    domain = band.get_domain()
    member_map = mupa_rows(band.band_get_partial_schedule(), [0]).intersect_domain(domain)

    def keep(umap: isl.UnionMap) -> isl.UnionMap:
        kept = isl.UnionMap.empty(umap.get_space())
        for m in maps_of(umap):
            if m.get_tuple_name(isl.dim_type.out) not in excluded:
                kept = kept.union(isl.UnionMap.from_map(m))
        return kept.intersect_domain(domain)

    w, a = keep(writes), keep(accesses)
    conflicts = w.apply_range(a.reverse()).union(a.apply_range(w.reverse()))
    same_outer = same_value(prefix_rows(band))
    other_iteration = isl.UnionMap.from_domain_and_range(domain, domain).subtract(same_value(member_map))
    return conflicts.intersect(same_outer).intersect(other_iteration)


def check(scop, deps: Dependences, schedule) -> Legality:
    """Is ``schedule`` legal for ``scop``? ``schedule``: ``isl.Schedule``, a schedule
    map ``isl.UnionMap`` ``{ S[i, j] -> [t0, ...] }`` (statements may have different
    numbers of output dimensions: shorter ones are padded with zeros), or isl text of
    either. Raises ``ScheduleError`` if the schedule misses instances."""
    maps, tree = _normalize(scop, schedule)
    violations = []
    for kind in VALIDITY_KINDS:
        for rec in deps.pairs(kind):
            src_time, dst_time = maps[rec.source], maps[rec.sink]
            not_after = src_time.lex_ge_map(dst_time)
            relation = _plain(rec.relation)
            violated = relation.intersect(not_after)
            if violated.is_empty():
                continue
            violated = violated.coalesce()
            violations.append(Violation(kind, rec.source, rec.sink, rec.relation, violated,
                                        _witness(violated, maps, _plain(scop.context))))
    if isinstance(schedule, isl.Schedule) or isinstance(schedule, str):
        violations += _set_node_violations(tree, deps, maps, _plain(scop.context))
        violations += _mark_violations(scop, tree, maps, _plain(scop.context))
    umap = None
    for m in maps.values():
        um = isl.UnionMap.from_map(m)
        umap = um if umap is None else umap.union(um)
    return Legality(not violations, violations, (tree, _plain(deps.validity)), umap)
