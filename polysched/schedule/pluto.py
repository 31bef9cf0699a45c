"""Pluto-style affine scheduling, hyperplane by hyperplane (Bondhugula et al. 2008).

Input: the statement domains ``[N] -> { S[i, j] : ... }`` and dependence edges (edges.py).
Output: an isl schedule tree whose bands are marked permutable / coincident, with
sequence nodes where the dependence graph is cut (distribution) or statements must be
ordered inside a fused loop (scalar dimension).

The search (``_Scheduler.group``) for a group of statements fused so far:
1. apply the fusion policy up front (``no``: one group per SCC; ``smart``: separate SCCs
   of different loop depth);
2. find hyperplanes one by one, each weakly satisfying every edge still unsatisfied at
   the start of the band and linearly independent per statement: they form one
   permutable band;
3. when no more are found, the band closes: edges are reduced to their part not yet
   strongly satisfied (``φ_T(t) = φ_S(s)`` on every member) and the search recurses;
4. with no hyperplane at all: cut the dependence graph between SCCs (``max``/``smart``:
   the fewest cuts, by greedily fusing consecutive SCCs while a hyperplane exists;
   ``no``: every SCC) and recurse on each part, in topological order; a single SCC gets a
   Feautrier-style hyperplane strongly satisfying as many edges as possible.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import islpy as isl
import networkx as nx

from polysched.islutil import maps_of, sets_of, val

from .edges import Edge, cone_budget, edges_from, same_time_restriction
from .fusion import join_keeps_order, ordered, part_graph, shared_volume
from .ilp import W_BOUND, Hyperplane, HyperplaneProblem, rank, w_bound_for
from .options import DIAMOND_MIN_MEMBERS, Budget, ScheduleError, ScheduleOptions


# Joins the cost policy tries at one level of the tree (each costs a few ILP solves), and
# the most SCCs whose fused band it compares with their own (one what-if band each).
MAX_COST_JOINS = 8
MAX_SHAPE_SCCS = 8


def _worse(fused: tuple[int, int, int], alone: list[tuple[int, int, int]]) -> str | None:
    """What a fused band's shape (`_Scheduler._shape`) loses against its parts' own, or
    None: fewer members (tiling depth) than the best part, no parallel member where a
    part has one (one parallel loop is what the threads need: gemver's update of A
    fused with the product that reads it keeps one of its two, 3.47x against 3.00x
    apart), or fewer stride-1 statements than the parts together."""
    deepest = max(a[0] for a in alone)
    if fused[0] < deepest:
        return f"{_count(fused[0], 'band member')} instead of {deepest}"
    if fused[1] == 0 and any(a[1] for a in alone):
        return "no parallel loop"
    if fused[2] < sum(a[2] for a in alone):
        return f"a stride-1 loop for {_count(fused[2], 'statement')} instead of {sum(a[2] for a in alone)}"
    return None


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


@dataclass
class Band:
    members: list[Hyperplane]
    permutable: bool
    coincident: list[bool]
    child: "Node"


@dataclass
class Sequence:
    parts: list[tuple[list[str], "Node"]]


@dataclass
class Leaf:
    pass


Node = Band | Sequence | Leaf


@dataclass
class _Problem:
    statements: list[str]                   # textual order
    dims: dict[str, int]
    params: list[str]
    options: ScheduleOptions
    spaces: dict[str, isl.Space] = field(default_factory=dict)   # statement -> set space
    stats: dict = field(default_factory=lambda: {"ilp_solves": 0})
    budget: Budget | None = None            # past it: BudgetExceeded
    w_bound: int = W_BOUND                  # bound of the bounding function's constant
    spatial: dict[str, list[int]] = field(default_factory=dict)   # see ilp.spatial_weights
    footprints: dict[str, dict[str, isl.Set]] = field(default_factory=dict)  # fusion.footprints
    strides: dict[str, list[int]] = field(default_factory=dict)   # spatial_weights by array size
    # statement -> (dimension, stride) of its domain's dimensions of a stride other than 1
    # (isl_set_get_stride): ((0, 2),) for 'for (i = 0; i < n; i += 2)'; () when dense
    lattices: dict[str, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    # the dependences a parallel loop must not carry: all but those of the scalars it
    # reduces with a clause (dependence.dependences_without_integer_reductions); None: all
    ordering: isl.UnionMap | None = None
    # statement -> its small inner loops (schedule.small_inner_loops: a FIR's taps), which
    # gcc unrolls whole: no band member of the cost policy's shapes
    small: dict[str, frozenset[int]] = field(default_factory=dict)


class _Scheduler:
    def __init__(self, problem: _Problem):
        self.p = problem
        self.order = {s: k for k, s in enumerate(problem.statements)}
        # answers of `_solve` by question: the fusion what-ifs (`_alone`) ask what the
        # distributed parts then ask again (adi: 73 solves, 13 of them repeats; deriche:
        # 20 of 59). Edges are keyed by identity; the entry holds them, so no key's
        # id() can be reused by a new object while the cache lives.
        self._answers: dict = {}
        self._ordering_cache: dict[tuple[str, str, str], bool] = {}      # see `_orders`

    # -- helpers ------------------------------------------------------------------
    def _full_rank(self, s: str, rows) -> bool:
        return rank(rows[s]) >= self.p.dims[s]

    def _solve(self, stmts, edges, prox, rows, **kw) -> Hyperplane | None:
        key = (tuple(stmts), tuple(map(id, edges)), tuple(map(id, prox)),
               tuple(tuple(map(tuple, rows[s])) for s in stmts), tuple(sorted(kw.items())))
        if key not in self._answers:
            self._answers[key] = (self._solve_anew(stmts, edges, prox, rows, **kw), list(edges), list(prox))
        return self._answers[key][0]

    def _solve_anew(self, stmts, edges, prox, rows, **kw) -> Hyperplane | None:
        self.p.stats["ilp_solves"] += 1
        dims = {s: self.p.dims[s] for s in stmts}
        # a list in statement order, never a set: the order in which constraints enter the
        # model decides between equally good solutions (PYTHONHASHSEED must not)
        need = [s for s in stmts if not self._full_rank(s, rows)]
        if self.p.budget is not None:
            self.p.budget.check(f"after {self.p.stats['ilp_solves'] - 1} ILP solves")
        problem = HyperplaneProblem(dims, len(self.p.params), self.p.options, self.p.budget,
                                    self.p.w_bound, {s: self.p.spatial[s] for s in stmts if s in self.p.spatial})
        return problem.solve(edges, prox, rows, need, **kw)

    def _sccs(self, stmts, edges) -> list[list[str]]:
        """SCCs of the dependence graph, in a topological order (ties: textual order)."""
        g = nx.DiGraph()
        g.add_nodes_from(stmts)
        g.add_edges_from((e.source, e.sink) for e in edges if e.source != e.sink)
        cond = nx.condensation(g)
        members = {n: sorted(cond.nodes[n]["members"], key=self.order.get) for n in cond.nodes}
        topo = nx.lexicographical_topological_sort(cond, key=lambda n: self.order[members[n][0]])
        return [members[n] for n in topo]

    @staticmethod
    def _within(edges, stmts):
        keep = set(stmts)
        return [e for e in edges if e.source in keep and e.sink in keep]

    def _phi(self, s: str, h: Hyperplane) -> isl.Map:
        return isl.Map.from_aff(_aff(self.p.spaces[s], h.coefficients[s], h.shifts[s]))

    def _residual(self, edges: list[Edge], members: list[Hyperplane]) -> list[Edge]:
        """The parts of ``edges`` with zero distance on every member (still unsatisfied)."""
        out = []
        for e in edges:
            rest = e
            for h in members:
                rest = same_time_restriction(rest, self._phi(e.source, h), self._phi(e.sink, h))
                if rest is None:
                    break
            if rest is not None:
                out.append(rest)
        return out

    def _zero_distance(self, edges: list[Edge], h: Hyperplane) -> bool:
        for e in edges:
            rest = same_time_restriction(e, self._phi(e.source, h), self._phi(e.sink, h))
            if rest is None or not isl.Map.from_basic_map(e.relation).is_subset(
                    isl.Map.from_basic_map(rest.relation)):
                return False
        return True

    # -- the search ---------------------------------------------------------------
    def group(self, stmts: list[str], edges: list[Edge], prox: list[Edge], rows, first: bool) -> Node:
        fuse = self.p.options.fuse
        if not edges and all(self._full_rank(s, rows) for s in stmts):
            return Leaf()  # nothing left to order: no scalar dimension needed
        sccs = self._sccs(stmts, edges)
        if len(sccs) > 1:
            if fuse == "no":
                return self._cut([list(c) for c in sccs], edges, prox, rows)
            if fuse in ("smart", "cost"):
                # at every level, not only the outermost: fusing durbin's `y[k] = alpha`
                # into the z loop at a shift left a guard in the vector loop (0.63x)
                parts = self._dimension_cut(sccs)
                if fuse == "cost" and len(parts) > 2:
                    parts = self._join_by_cost(parts, edges, rows)
                if len(parts) > 1:
                    return self._cut(parts, edges, prox, rows)
            elif len(parts := self._dimension_cut(sccs, depth=False)) > 1:     # max
                return self._cut(parts, edges, prox, rows)

        members: list[Hyperplane] = []
        start_rows = rows
        rows = {s: list(r) for s, r in rows.items()}
        while not all(self._full_rank(s, rows) for s in stmts):
            h = self._solve(stmts, edges, prox, rows)
            if h is None:
                break
            members.append(h)
            for s in stmts:
                rows[s].append(h.coefficients[s])
        if members:
            coincident = [self._zero_distance(edges, h) for h in members]
            if self._distribute_short_band(sccs, members, coincident, edges, start_rows):
                return self._cut([list(c) for c in sccs], edges, prox, start_rows)
            if self._fusion_loses(sccs, members, edges, start_rows):
                # the SCCs that share data and lose nothing together stay together (three
                # counts fused with two loops kept sequential: the counts in one loop)
                parts = [list(c) for c in sccs]
                return self._cut(self._join_by_cost(parts, edges, start_rows) if len(parts) > 2 else parts,
                                 edges, prox, start_rows)
            diamond = self.p.options.diamond
            if diamond is None:
                diamond = len(members) >= DIAMOND_MIN_MEMBERS
            if diamond and len(members) >= 2 and not any(coincident) and \
                    all(not start_rows[s] for s in stmts):
                concurrent = self._diamond(stmts, edges, members)
                if concurrent is not None:
                    members[0] = concurrent
                    rows = {s: list(start_rows[s]) + [h.coefficients[s] for h in members] for s in stmts}
                    coincident = [self._zero_distance(edges, h) for h in members]
                    self.p.stats["diamond"] = self.p.stats.get("diamond", 0) + 1
            child = self.group(stmts, self._residual(edges, members), self._residual(prox, members),
                               rows, first=False)
            return Band(members, True, coincident, child)

        if len(sccs) > 1:
            if all(self._full_rank(s, rows) for s in stmts) or fuse == "no":
                parts = [list(c) for c in sccs]
            else:
                parts = self._greedy_fusion(sccs, edges, rows)
            return self._cut(parts, edges, prox, rows)

        h = self._solve(stmts, edges, prox, rows, feautrier=True)
        if h is None:
            hint = "" if self.p.options.negative_coefficients else \
                " (a loop reversal may be needed: try negative coefficients)"
            raise ScheduleError(
                f"no legal affine hyperplane for statements {', '.join(stmts)} within "
                f"coefficient bound {self.p.options.coefficient_bound}{hint}")
        for s in stmts:
            rows[s].append(h.coefficients[s])
        child = self.group(stmts, self._residual(edges, [h]), self._residual(prox, [h]), rows, first=False)
        return Band([h], True, [self._zero_distance(edges, h)], child)

    def _diamond(self, stmts, edges, members) -> Hyperplane | None:
        """The concurrent-start replacement of ``members[0]`` (see `ScheduleOptions.diamond`),
        or None: ``λ·members[0] - members[1]``, valid on ``edges``, and independent of
        the other members for every statement (else the band would lose a dimension)."""
        face = {s: members[0].coefficients[s] for s in stmts}
        partner = {s: members[1].coefficients[s] for s in stmts}
        biggest = max(abs(c) for s in stmts for c in face[s] + partner[s])
        # |λ·face - partner| <= (λ + 1)·biggest, λ at most solve_diamond's max_scale (8)
        options = replace(self.p.options, negative_coefficients=True,
                          coefficient_bound=max(self.p.options.coefficient_bound, 9 * biggest))
        problem = HyperplaneProblem({s: self.p.dims[s] for s in stmts}, len(self.p.params), options,
                                    self.p.budget, self.p.w_bound)
        self.p.stats["ilp_solves"] += 1
        h = problem.solve_diamond(edges, face, partner)
        if h is None:
            return None
        for s in stmts:
            others = [m.coefficients[s] for m in members[1:]]
            if rank([h.coefficients[s]] + others) < rank([members[0].coefficients[s]] + others):
                return None
        return h

    def _distribute_short_band(self, sccs, members, coincident, edges, rows) -> bool:
        """smartfuse: a fused band of one sequential member cannot be tiled nor run in
        parallel. When that is the fault of an SCC that alone has no band of two members
        (a scalar reduction: every pair of its iterations is ordered) while another SCC
        alone has one, distribute the SCCs: a 5-deep nest whose second statement is
        ``s += B[...]`` gave five 1-deep sequential bands for both; distributed, the first
        statement is one 5-deep parallel band. (When every SCC alone has a deep band and
        only fusing them shortens it, as in atax, the fusion is kept.)"""
        if self.p.options.fuse not in ("smart", "cost") or len(sccs) < 2 or len(members) != 1 or coincident[0]:
            return False
        deep = shallow = False
        for scc in sccs:
            if all(self.p.dims[s] - rank(rows[s]) < 2 for s in scc):
                continue  # cannot have two more members anyway
            found = len(self._alone(scc, edges, rows, limit=2))
            deep = deep or found >= 2
            shallow = shallow or found < 2
            if deep and shallow:
                return True
        return False

    def _nest_kind(self, stmts, depth: bool = True) -> tuple:
        """What smartfuse keeps apart: the loop depth, and the strides of the domains
        (also under maxfuse, ``depth=False``). A loop fusing ``for (i = 0; i < 4e11; i +=
        1e11)`` with ``for (i = 7; i < 8; i++)`` steps by 1 (helper-53: 4e11 iterations
        with guards for 5 instances, a hang). Small inner loops do not count (fusion by
        cost: a FIR's ``out[i] = 0`` stays in the loop around its taps, as written)."""
        return (max(self.p.dims[s] - len(self.p.small.get(s, ())) for s in stmts) if depth else 0,
                tuple(sorted({self.p.lattices.get(s, ()) for s in stmts})))

    def _dimension_cut(self, sccs: list[list[str]], depth: bool = True) -> list[list[str]]:
        """Pluto's smartfuse: cut between consecutive SCCs of different loop depth (and,
        ours, of different strides: `_nest_kind`)."""
        parts = [list(sccs[0])]
        kind = self._nest_kind(sccs[0], depth)
        for scc in sccs[1:]:
            k = self._nest_kind(scc, depth)
            if k != kind:
                parts.append(list(scc))
                kind = k
            else:
                parts[-1].extend(scc)
        return parts

    def _join_by_cost(self, parts, edges, rows) -> list[list[str]]:
        """The ``cost`` policy (see fusion.py): join parts of one kind (`_nest_kind`) that are not
        neighbours, the pair sharing the most data first, while the join keeps the parts'
        order legal and the fused band as deep and as parallel as each part's alone."""
        position = {s: k for k, s in enumerate(s for part in parts for s in part)}

        rejected: set[tuple[frozenset, frozenset]] = set()
        shapes: dict[frozenset, tuple[int, int, int]] = {}

        def shape(stmts) -> tuple[int, int, int]:
            key = frozenset(stmts)
            if key not in shapes:
                shapes[key] = self._shape(stmts, self._alone(stmts, edges, rows), edges)
            return shapes[key]

        for _ in range(MAX_COST_JOINS):
            graph = part_graph(parts, edges)
            candidates = []
            for a in range(len(parts)):
                for b in range(a + 1, len(parts)):
                    key = (frozenset(parts[a]), frozenset(parts[b]))
                    if key in rejected or self._nest_kind(parts[a]) != self._nest_kind(parts[b]) or \
                            not join_keeps_order(graph, a, b):
                        continue
                    gain = shared_volume(parts[a], parts[b], self.p.footprints)
                    if gain:
                        candidates.append((-gain, a, b))
            if not candidates:
                break
            loss, a, b = min(candidates)
            if _worse(shape(parts[a] + parts[b]), [shape(parts[a]), shape(parts[b])]):
                rejected.add((frozenset(parts[a]), frozenset(parts[b])))
                continue
            apart = ", not its neighbour" if b > a + 1 else ""
            self._decided(f"{_names(parts[a])} fused with {_names(parts[b])}{apart}: "
                          f"they share data (nominal {-loss:,} elements)")
            joined = parts[a] + parts[b]
            parts = [joined if k == a else part for k, part in enumerate(parts) if k != b]
        return ordered(parts, edges, position)

    def _fusion_loses(self, sccs, members, edges, rows) -> bool:
        """The ``cost`` policy: whether the band ``members`` that fuses ``sccs`` (a part
        smartfuse kept together) is worse than the SCCs' own bands (`_worse`); then they
        are distributed. atax, bicg: fused, the reductions into ``y[j]`` / ``s[j]`` leave
        no parallel loop (distributed: one each, 0.93x -> 1.93x and 1.09x -> 1.83x at 2
        threads); mvt: fused, one of the two products walks ``A`` by columns."""
        if self.p.options.fuse != "cost" or not 1 < len(sccs) <= MAX_SHAPE_SCCS:
            return False
        stmts = [s for scc in sccs for s in scc]
        loss = _worse(self._shape(stmts, members, edges),
                      [self._shape(scc, self._alone(scc, edges, rows), edges) for scc in sccs])
        if loss:
            self._decided(f"{' | '.join(_names(scc) for scc in sccs)} distributed: fused, their band "
                          f"would have {loss}")
        return bool(loss)

    def _decided(self, text: str) -> None:
        """Record a fusion decision (``stats["fusion"]``: the optimize summary prints them)."""
        self.p.stats.setdefault("fusion", []).append(text)

    def _shape(self, stmts, members, edges) -> tuple[int, int, int]:
        """What a band of ``members`` over ``stmts`` offers: (members, parallel members,
        statements that one member walks with stride 1). The last is the most statements
        any single member steps along their fastest-varying subscripts (the iterators of
        largest ``strides`` weight, where a matrix outweighs vectors): fused statements
        share their innermost loop, so that member is the one loop that can be
        stride-1 for all of them."""
        inner = self._within(edges, stmts)
        # an integer count fused with a floating-point sum (kept in order) was one loop,
        # not parallel; apart, the count is parallel with a reduction clause
        ordering = [e for e in inner if self._orders(e)]
        parallel = sum(self._zero_distance(ordering, h) for h in members)

        def stride_one(s, h) -> bool:
            weights = self.p.strides.get(s) or [0]
            if max(weights) == 0:
                return True       # no preference (scalars, diagonals)
            return any(c and w == max(weights) for c, w in zip(h.coefficients[s], weights))

        spatial = max((sum(stride_one(s, h) for s in stmts) for h in members), default=0)
        loops = [h for h in members if any(c and d not in self.p.small.get(s, ()) for s in stmts
                                           for d, c in enumerate(h.coefficients[s]))]
        return len(loops), parallel, spatial

    def _orders(self, edge: Edge) -> bool:
        """Whether a parallel loop must keep some instance pairs of ``edge`` in order: not
        when only dependences of reduction scalars join them (``_Problem.ordering``)."""
        if self.p.ordering is None:
            return True
        key = (edge.source, edge.sink, str(edge.relation))
        if key not in self._ordering_cache:
            relation = isl.Map.from_basic_map(edge.relation)
            ordering = self.p.ordering.extract_map(relation.get_space().align_params(
                self.p.ordering.get_space())).align_params(relation.get_space())
            self._ordering_cache[key] = not relation.intersect(ordering).is_empty()
        return self._ordering_cache[key]

    def _alone(self, stmts, edges, rows, limit: int | None = None) -> list[Hyperplane]:
        """The members (at most ``limit``) of the outermost band ``stmts`` would get if
        they were scheduled on their own, under ``rows``: a what-if for the fusion
        decisions, not part of the tree."""
        inner = self._within(edges, stmts)
        local = {s: list(rows[s]) for s in stmts}
        members: list[Hyperplane] = []
        while (limit is None or len(members) < limit) and \
                not all(self._full_rank(s, local) for s in stmts):
            h = self._solve(stmts, inner, [], local)
            if h is None:
                break
            members.append(h)
            for s in stmts:
                local[s].append(h.coefficients[s])
        return members

    def _greedy_fusion(self, sccs, edges, rows) -> list[list[str]]:
        """Fuse consecutive SCCs (topological order) while a common hyperplane exists."""
        parts = [list(sccs[0])]
        for scc in sccs[1:]:
            candidate = parts[-1] + list(scc)
            if self._solve(candidate, self._within(edges, candidate), [], rows,
                           feasibility_only=True) is not None:
                parts[-1] = candidate
            else:
                parts.append(list(scc))
        if len(parts) == 1:  # cannot happen (the whole group had no hyperplane); be safe
            parts = [list(c) for c in sccs]
        return parts

    def _cut(self, parts, edges, prox, rows) -> Node:
        """Distribute: ``parts`` in order; edges between parts are satisfied by the order."""
        out = []
        for part in parts:
            part = sorted(part, key=self.order.get)
            out.append((part, self.group(part, self._within(edges, part), self._within(prox, part),
                                         rows, first=False)))
        return Sequence(out)


def _names(stmts) -> str:
    return ", ".join(stmts)


# -- isl schedule tree ----------------------------------------------------------------
def _aff(space: isl.Space, coefficients: list[int], shift: int) -> isl.Aff:
    """``S[i] -> coefficients·i + shift`` on the statement's set space (built with the isl
    API: no text, so nothing depends on the number of parameters or on names)."""
    aff = isl.Aff.zero_on_domain(isl.LocalSpace.from_space(space))
    for k, c in enumerate(coefficients):
        if c:
            aff = aff.set_coefficient_val(isl.dim_type.in_, k, val(c))
    return aff.set_constant_val(val(shift))


def _statement_spaces(domain: isl.UnionSet, params: list[str]) -> dict[str, isl.Space]:
    """Each statement's set space, its dimensions named as in the domain (``S[t, i]``: the
    band schedules then print ``S[t, i] -> [(2t + i)]``) where those names are usable,
    else ``i0, i1, ...`` (unnamed, repeated or equal to a parameter: the printed tree
    must read back as the same tree)."""
    out = {}
    for st in sets_of(domain):
        space = st.get_space()
        n = space.dim(isl.dim_type.set)
        names = [space.get_dim_name(isl.dim_type.set, k) for k in range(n)]
        if not (all(x and x.isidentifier() and x not in params for x in names)
                and len(set(names)) == len(names)):
            for k in range(n):
                space = space.set_dim_name(isl.dim_type.set, k, f"i{k}")
        out[st.get_tuple_name()] = space
    return out


def _band_mupa(band: Band, stmts: list[str], spaces: dict[str, isl.Space]) -> isl.MultiUnionPwAff:
    """The band's partial schedule: one member per hyperplane, one piece per statement."""
    mupa = None
    for h in band.members:
        upa = None
        for s in stmts:
            piece = isl.UnionPwAff.from_pw_aff(isl.PwAff.from_aff(_aff(spaces[s], h.coefficients[s], h.shifts[s])))
            upa = piece if upa is None else upa.union_add(piece)
        member = isl.MultiUnionPwAff.from_union_pw_aff(upa)
        mupa = member if mupa is None else mupa.flat_range_product(member)
    return mupa


def to_isl(node: Node, stmts: list[str], domain: isl.UnionSet, spaces: dict[str, isl.Space]) -> isl.Schedule:
    """The isl schedule tree of ``node`` over ``domain`` (restricted to ``stmts``)."""
    keep = set(stmts)
    sub = isl.UnionSet.empty(domain.get_space())
    for s in sets_of(domain):
        if s.get_tuple_name() in keep:
            sub = sub.union(isl.UnionSet.from_set(s))
    if isinstance(node, Leaf):
        return isl.Schedule.from_domain(sub)
    if isinstance(node, Sequence):
        result = None
        for part, child in node.parts:
            sched = to_isl(child, part, domain, spaces)
            result = sched if result is None else result.sequence(sched)
        return result
    child = to_isl(node.child, stmts, domain, spaces)
    sched = child.insert_partial_schedule(_band_mupa(node, stmts, spaces))
    band = sched.get_root().child(0)
    band = band.band_set_permutable(1 if node.permutable else 0)
    for k, flag in enumerate(node.coincident):
        band = band.band_member_set_coincident(k, 1 if flag else 0)
    return band.get_schedule()


def needs_reversal(validity: isl.UnionMap, context: isl.Set) -> str | None:
    """A statement that has no schedule with non-negative coefficients, or None when
    this test does not find one. ``S`` has none when a self-dependence ``S[s] -> S[t]``
    of ``validity`` (under ``context``) has a distance ``d = t - s != 0`` with no positive
    entry (a loop counting down): every row ``c·i`` with ``c >= 0`` has ``c·d <= 0`` at
    that pair, so no row can carry it and, linearly independent rows never all being
    zero on ``d``, no full-rank schedule of ``S`` keeps it in order. The Pluto search
    without negative coefficients then fails, after solving every group before ``S``
    (adi: 0.56 s, deriche: 0.36 s); `_pluto` goes straight to the retry instead."""
    for dep in maps_of(validity.intersect_params(context)):
        name = dep.get_tuple_name(isl.dim_type.in_)
        if name != dep.get_tuple_name(isl.dim_type.out) or \
                dep.dim(isl.dim_type.in_) != dep.dim(isl.dim_type.out):
            continue
        deltas = dep.deltas()
        n = deltas.dim(isl.dim_type.set)
        if n == 0:
            continue
        space = isl.LocalSpace.from_space(deltas.get_space())
        total = isl.Constraint.alloc_inequality(space).set_constant_val(isl.Val(-1))  # -1 - sum(d) >= 0
        for k in range(n):
            deltas = deltas.upper_bound_val(isl.dim_type.set, k, isl.Val(0))
            total = total.set_coefficient_val(isl.dim_type.set, k, isl.Val(-1))
        if not deltas.add_constraint(total).is_empty():
            return name
    return None


def pluto_schedule(domain: isl.UnionSet, context: isl.Set, validity: isl.UnionMap,
                   proximity: isl.UnionMap | None, options: ScheduleOptions,
                   statement_order: list[str] | None = None,
                   stats: dict | None = None, conflicts=None,
                   budget: Budget | None = None,
                   spatial: dict[str, list[int]] | None = None,
                   footprints: dict[str, dict[str, isl.Set]] | None = None,
                   strides: dict[str, list[int]] | None = None,
                   edge_cache: dict | None = None,
                   ordering: isl.UnionMap | None = None,
                   small: dict[str, frozenset[int]] | None = None) -> isl.Schedule:
    """Schedule ``domain`` (``[N] -> { S[i, j] : ... }``) so that every pair of
    ``validity`` (``{ S[s] -> T[t] }``) runs in order; ``proximity`` (input dependences)
    only guides locality. ``conflicts``: per statement pair, the same-element relations of
    each reference pair (``edges.access_conflicts``), to split dependences into exact
    pieces. ``spatial``: per statement, the weight of each iterator in the
    fastest-varying subscripts (``ilp.spatial_weights``; the spatial-locality level).
    ``footprints``: per statement, the elements of each array it touches
    (``fusion.footprints``), and ``strides``, ``spatial`` with references weighted by
    their arrays' nominal sizes, and ``ordering``, the dependences a parallel loop must not
    carry (``{ S[s] -> T[t] }``, all but those of scalars it may reduce; None: all), and
    ``small``, each statement's small inner loops (not counted as band members): for
    the ``cost`` fusion policy. ``edge_cache``: a dict
    that keeps the dependence edges for another call on the same input (the retry with
    negative coefficients; a 7-statement fuzzed nest spent 2.2 s splitting them again).
    Returns the isl schedule tree (see module doc). Raises `BudgetExceeded` past
    ``budget`` (default: ``options.budget`` seconds from now)."""
    if budget is None:
        budget = Budget(options.budget)
    sets = sets_of(domain)
    dims = {s.get_tuple_name(): s.dim(isl.dim_type.set) for s in sets}
    stmts = [s for s in (statement_order or []) if s in dims]
    stmts += sorted(s for s in dims if s not in stmts)
    params = [context.get_dim_name(isl.dim_type.param, k) for k in range(context.dim(isl.dim_type.param))]
    domain = domain.align_params(context.get_space())
    edge_cache = {} if edge_cache is None else edge_cache
    if options.rar not in edge_cache:
        edges = edges_from(validity.intersect_domain(domain).intersect_range(domain), context,
                           "validity", conflicts)
        prox = []
        if proximity is not None and options.rar:
            # Proximity edges that are not validity ones (input dependences) only guide locality.
            extra = proximity.subtract(validity)
            prox = edges_from(extra.intersect_domain(domain).intersect_range(domain), context,
                              "proximity", conflicts)
        edge_cache[options.rar] = (edges, prox)
    edges, prox = edge_cache[options.rar]
    spaces = _statement_spaces(domain, params)
    lattices = {st.get_tuple_name(): tuple((k, stride) for k in range(st.dim(isl.dim_type.set))
                                           if (stride := st.get_stride(k).to_python()) != 1)
                for st in sets_of(domain)}
    problem = _Problem(stmts, dims, params, options, spaces, budget=budget,
                       w_bound=w_bound_for(edges + prox, options), spatial=spatial or {},
                       footprints=footprints or {}, strides=strides or {}, lattices=lattices,
                       ordering=ordering, small=small or {})
    scheduler = _Scheduler(problem)
    with cone_budget(budget):
        tree = scheduler.group(stmts, edges, prox, {s: [] for s in stmts}, first=True)
    if stats is not None:
        stats.update(problem.stats)
    return to_isl(tree, stmts, domain, problem.spaces)
