"""Dependence edges of the scheduling graph and their Farkas cones.

An edge is one basic map of a dependence relation between two statements,

    [N] -> { S[s0, s1] -> T[t0, t1] : ... }        (source instance -> sink instance)

together with the *Farkas cone* of its polyhedron: the set of all affine forms
``c_cst + c_par·N + c_src·s + c_snk·t`` that are non-negative on the edge. isl computes it
(`BasicSet.coefficients`, on the wrapped set ``{ [S[s] -> T[t]] }``) as a rational cone in
the space ``{ [[c_cst, c_N] -> [S[c_s0, c_s1] -> T[c_t0, c_t1]]] }``; we keep its
constraints as integer rows over the dimensions ``[cst, params..., src..., snk...]``.
A schedule difference ``φ_T(t) - φ_S(s) >= 0`` on the whole edge is then the linear
condition "the coefficient vector of that difference lies in the cone": that is the affine
form of Farkas' lemma with the multipliers already eliminated.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from math import gcd

import islpy as isl

from polysched.islutil import maps_of, sets_of, val

from .options import Budget, BudgetExceeded


@dataclass
class ConeRow:
    """``constant + sum(coefficients[j] * dim_j) >= 0`` (or ``== 0`` when ``equality``)."""

    equality: bool
    constant: int
    coefficients: list[int]


_REDUCTIONS: dict[str, "Reduction"] = {}


@dataclass
class Edge:
    """One convex piece ``{ S[s] -> T[t] : ... }`` of a dependence, ``kind`` being
    ``"validity"`` (must be respected) or ``"proximity"`` (input/RAR: locality only)."""

    source: str
    sink: str
    relation: isl.BasicMap
    kind: str = "validity"
    _cone: list[ConeRow] | None = field(default=None, repr=False)

    @property
    def n_params(self) -> int:
        return self.relation.dim(isl.dim_type.param)

    @property
    def n_source(self) -> int:
        return self.relation.dim(isl.dim_type.in_)

    @property
    def n_sink(self) -> int:
        return self.relation.dim(isl.dim_type.out)

    _reduction: "Reduction | None" = field(default=None, repr=False)

    @property
    def reduction(self) -> "Reduction":
        """The compact Farkas form of the edge (equalities eliminated, components), computed
        once: what the ILP linearises against (see `Reduction`)."""
        if self._reduction is None:
            same = self.source == self.sink
            key = ("differences " if same else "") + str(self.relation)
            red = _REDUCTIONS.get(key)
            if red is None:
                red = Reduction(difference_relation(self.relation) if same else self.relation)
                if len(_REDUCTIONS) >= 1 << 14:
                    _REDUCTIONS.clear()
                _REDUCTIONS[key] = red
            self._reduction = red
        return self._reduction

    @property
    def cone(self) -> list[ConeRow]:
        """Constraints of the Farkas cone, computed once (it is the expensive part)."""
        if self._cone is None:
            self._cone = farkas_cone(self.relation)
        return self._cone

    def __str__(self) -> str:
        return f"{self.source}->{self.sink}"


def _val_to_int(val: isl.Val) -> int:
    return int(val.to_python())


def farkas_cone(relation: isl.BasicMap) -> list[ConeRow]:
    """Rows of the cone of affine forms non-negative on ``relation`` (see module doc).

    Existentially quantified variables are dropped first: that over-approximates the
    polyhedron, so the forms we accept stay non-negative on the exact relation.
    """
    # Redundant constraints make the dual computation explode (a 4-d stencil dependence
    # intersected again with its domain: 9 s -> 0.05 s once they are removed).
    bset = relation.remove_divs().remove_redundancies().wrap()
    cone = bset.coefficients()
    if cone.dim(isl.dim_type.div):  # never seen in practice; stay sound
        cone = cone.remove_divs()
    n = cone.dim(isl.dim_type.set)
    rows = []
    for con in cone.get_constraints():
        coefficients = [_val_to_int(con.get_coefficient_val(isl.dim_type.set, k)) for k in range(n)]
        rows.append(ConeRow(con.is_equality(), _val_to_int(con.get_constant_val()), coefficients))
    return rows


def difference_relation(relation: isl.BasicMap) -> isl.BasicMap:
    """``{ S[0, ..., 0] -> S[d] : d = t - s for some S[s] -> S[t] in relation }`` for a
    dependence of a statement on itself (or ``relation`` when isl gives up).

    The forms a schedule puts on such an edge, ``c·(t - s) + g(N)``, depend on ``t - s``
    only, so they are non-negative on the edge exactly when they are on its difference
    set (the rational projection; the divisions of isl's exact projection are eliminated
    rationally, a superset of the integer differences, so what is accepted stays legal).
    The difference set has half the variables, and its Farkas cone can be computed where
    the edge's is out of reach: a fuzzed 4-deep guarded self-dependence (8 variables, 20
    constraints) took isl 110 s, its differences (4 variables) 0.04 s."""
    try:
        # the edge's parameter values, which the eliminated divisions may have widened
        params = _guarded(lambda: relation.wrap().params().remove_divs())
        differences = _guarded(lambda: relation.deltas().remove_divs().intersect_params(params)
                               .remove_redundancies())
    except ConeTooLarge:
        return relation
    origin = isl.BasicSet.universe(differences.get_space())
    local = isl.LocalSpace.from_space(differences.get_space())
    for k in range(differences.dim(isl.dim_type.set)):
        origin = origin.add_constraint(
            isl.Constraint.alloc_equality(local).set_coefficient_val(isl.dim_type.set, k, 1))
    return isl.BasicMap.from_domain_and_range(origin, differences)


MAX_REFERENCE_PAIRS = 256  # past it a dependence is not split per reference pair


class AccessConflicts:
    """For a statement pair (S, T), ``get((S, T))`` gives the relations ``{ S[s] -> T[t] }``
    of instance pairs touching the same element through one pair of distinct references
    to the same array; None when there are more than MAX_REFERENCE_PAIRS such pairs
    (then the dependence is used whole: sound, only the rational relaxation is looser).

    Computed on demand, for the dependent pairs only, inside the scheduler's budget:
    a statement with 5000 reads made 25 million pairs up front (12 GB).
    ``statements``: objects with ``name`` and ``accesses`` (``array``, ``relation``), as
    in polysched.scop.model.
    """

    def __init__(self, statements):
        self._references = {s.name: self._distinct(s.accesses) for s in statements}
        self._cache: dict[tuple[str, str], list[isl.Map] | None] = {}

    @staticmethod
    def _distinct(accesses) -> list:
        seen, out = set(), []
        for a in accesses:
            key = (a.array, str(a.relation))
            if key not in seen:
                seen.add(key)
                out.append(a)
        return out

    def get(self, pair: tuple[str, str]) -> list[isl.Map] | None:
        if pair not in self._cache:
            sources, sinks = (self._references.get(name, []) for name in pair)
            matched = [(a, b) for a in sources for b in sinks if a.array == b.array]
            self._cache[pair] = None if len(matched) > MAX_REFERENCE_PAIRS else \
                [a.relation.apply_range(b.relation.reverse()) for a, b in matched]
        return self._cache[pair]


def access_conflicts(statements) -> AccessConflicts:
    """The per-reference-pair conflict relations of ``statements`` (see `AccessConflicts`)."""
    return AccessConflicts(statements)


def edges_from(relation: isl.UnionMap, context: isl.Set, kind: str = "validity",
               conflicts: AccessConflicts | None = None) -> list[Edge]:
    """Split ``[N] -> { S[s] -> T[t] : ... }`` into convex, non-empty edges (params
    restricted to ``context``, which also fixes the parameter order).

    With ``conflicts`` (see `access_conflicts`), each dependence is first split per pair
    of references. Why: a coalesced union such as ``{ x -> x + e_k : k = 0..3 }`` is one
    basic map whose *rational* relaxation contains points like ``d = (-1/2, 1/2, 1/2, 1/2)``
    that no integer pair reaches, and Farkas' lemma works on the rational polyhedron: it
    would reject the hyperplane ``i0`` although every actual distance is ``>= 0``. One
    reference pair gives one exact equality-defined piece. The pieces cover the relation
    (every dependent pair touches a common element through some reference pair).
    """
    relation = relation.align_params(context.get_space()).intersect_params(context).coalesce()
    edges = []
    for m in maps_of(relation):
        src = m.get_tuple_name(isl.dim_type.in_)
        snk = m.get_tuple_name(isl.dim_type.out)
        pieces = [m]
        references = conflicts.get((src, snk)) if conflicts is not None else None
        if references:
            pieces = []
            for pair in references:
                pair = pair.align_params(m.get_space())
                piece = m.intersect(pair).coalesce()
                if not piece.is_empty():
                    pieces.append(piece)
        seen = set()
        for piece in pieces:
            for bm in piece.get_basic_maps():
                if bm.is_empty():
                    continue
                bm = bm.remove_redundancies()
                key = str(bm)  # isl's text of a basic map without redundancies: canonical enough
                if key in seen:
                    continue
                seen.add(key)
                edges.append(Edge(src, snk, bm, kind))
    return edges


def same_time_restriction(edge: Edge, phi_source: isl.Map, phi_sink: isl.Map) -> Edge | None:
    """The part of ``edge`` where ``φ_S(s) = φ_T(t)`` (not strongly satisfied by this
    hyperplane), or None when that part is empty. ``phi_*``: ``{ S[s] -> [v] }``."""
    equal_time = phi_source.apply_range(phi_sink.reverse())
    rest = isl.Map.from_basic_map(edge.relation).intersect(equal_time)
    pieces = [bm for bm in rest.coalesce().get_basic_maps() if not bm.is_empty()]
    if not pieces:
        return None
    if len(pieces) == 1 and rest.is_equal(isl.Map.from_basic_map(edge.relation)):
        return edge  # nothing satisfied: keep the cached cone
    # An affine equality keeps a basic map convex, so one piece is expected; a union
    # would only come from divs and is handled by keeping the convex hull (sound: superset).
    return Edge(edge.source, edge.sink, pieces[0] if len(pieces) == 1 else rest.convex_hull(), edge.kind)




# -- the compact Farkas formulation -------------------------------------------------------
#
# The cone of a whole edge polyhedron has one row per generator (vertex, ray) of the
# polyhedron, which grows exponentially with the number of dimensions: a lexicographic
# dependence of a 10-deep nest (``s += 1``) is a product of ~20 independent intervals,
# ~2^20 vertices. Pluto never builds it: its Farkas multipliers are eliminated on the
# dependence polyhedron after its equalities have been used. We do the same, and more:
#
# 1. equalities with a unit coefficient eliminate a variable (``t_k = s_k + d_k``); the
#    form's coefficients are rewritten accordingly (a fixed integer matrix), so that a
#    uniform self-dependence leaves no variable at all: φ(t) - φ(s) = c·d;
# 2. the remaining variables split into independent components (no constraint links
#    two of them); the Farkas multipliers of the polyhedron split along the components,
#    so "f >= 0 on P" is exactly "f_i + a_i >= 0 on P_i for each component i, and
#    (the rest of f) - sum a_i >= 0 on the parameters", with one auxiliary affine
#    function of the parameters a_i per component (2-3 integer unknowns each);
# 3. components whose coefficients are zero in the form at hand vanish (their
#    non-emptiness only restricts the parameters: that is the parameter projection);
#    small groups of components are merged into one cone (no auxiliary unknowns).
#
# Every cone is then of a polyhedron of a few dimensions. Steps 1-2 are exact over the
# rationals (as is Farkas' lemma itself); integrality of the auxiliary unknowns can
# only remove solutions, never admit an illegal one.

MERGE_VARIABLES = 4      # components with at most this many variables in all: one cone
MERGE_VERTICES = 32      # ... or whose product has at most about this many vertices
ISL_CONE_OPERATIONS = 20_000_000   # isl operations allowed per cone (never hang)


class ConeTooLarge(BudgetExceeded):
    """isl ran out of its operation budget computing a Farkas cone."""


# The budget of the schedule being computed: building one ILP can need hundreds of cones
# (a 7-deep fuzzed nest: minutes), each capped by ISL_CONE_OPERATIONS but not all of them
# together, so the budget is checked before each new cone.
_BUDGET: ContextVar[Budget | None] = ContextVar("polysched_schedule_budget", default=None)


@contextmanager
def cone_budget(budget: Budget | None):
    """Within the block, computing a new Farkas cone first checks ``budget``."""
    token = _BUDGET.set(budget)
    try:
        yield
    finally:
        _BUDGET.reset(token)


def _gcd_normalize(vec: list[int], equality: bool) -> list[int]:
    """Divide by the gcd of the non-constant coefficients (an inequality's constant is
    rounded down: integer tightening, which keeps every integer point)."""
    g = 0
    for x in vec[1:]:
        g = gcd(g, x)
    if g <= 1:
        return vec
    if equality:
        if vec[0] % g:
            return vec  # no integer point; leave it to isl
        return [x // g for x in vec]
    return [vec[0] // g] + [x // g for x in vec[1:]]


class Reduction:
    """An edge polyhedron ``{ (N, s, t) }`` in compact form (see the comment above).

    Layout of a form's coefficient vector (as for `ConeRow`): ``[cst, params..., vars...]``
    with the original variables ``source dims, sink dims``. ``transform[j]`` (``{original
    index: coefficient}``) gives the reduced coefficient ``j`` (reduced layout ``[cst,
    params..., alive variables...]``) of any form from its original coefficients.
    """

    def __init__(self, relation: isl.BasicMap):
        bm = _guarded(lambda: relation.remove_divs().remove_redundancies())
        self.n_params = np_ = bm.dim(isl.dim_type.param)
        n_in, n_out = bm.dim(isl.dim_type.in_), bm.dim(isl.dim_type.out)
        nx = n_in + n_out
        size = 1 + np_ + nx
        eqs, ineqs = [], []
        for con in bm.get_constraints():
            vec = [_val_to_int(con.get_constant_val())]
            vec += [_val_to_int(con.get_coefficient_val(isl.dim_type.param, p)) for p in range(np_)]
            vec += [_val_to_int(con.get_coefficient_val(isl.dim_type.in_, k)) for k in range(n_in)]
            vec += [_val_to_int(con.get_coefficient_val(isl.dim_type.out, k)) for k in range(n_out)]
            (eqs if con.is_equality() else ineqs).append(vec)
        transform: list[dict[int, int] | None] = [{j: 1} for j in range(size)]
        alive = list(range(1 + np_, size))
        # 1. eliminate variables through unit equalities; sink variables first, so that
        #    a uniform dependence keeps its source iterators
        while True:
            pick = None
            for e in eqs:
                for k in reversed(alive):
                    if abs(e[k]) == 1:
                        pick = (e, k)
                        break
                if pick:
                    break
            if pick is None:
                break
            e, k = pick
            eqs = [x for x in eqs if x is not e]
            ek = e[k]

            def substitute(g):
                f = g[k] * ek
                return [a - f * b for a, b in zip(g, e)] if f else g
            eqs = [substitute(g) for g in eqs]
            ineqs = [substitute(g) for g in ineqs]
            tk = transform[k]
            for idx, coef in enumerate(e):
                if coef and idx != k:
                    row = dict(transform[idx])
                    for orig, v in tk.items():
                        row[orig] = row.get(orig, 0) - ek * coef * v
                    transform[idx] = {o: v for o, v in row.items() if v}
            transform[k] = None
            alive.remove(k)
        keep = list(range(1 + np_)) + alive
        self.transform = [transform[i] for i in keep]
        self.n_vars = len(alive)
        # reduced constraints, deduplicated, as (equality, vector over the reduced layout)
        seen = set()
        self.constraints: list[tuple[bool, list[int]]] = []
        for equality, group in ((True, eqs), (False, ineqs)):
            for g in group:
                vec = _gcd_normalize([g[i] for i in keep], equality)
                if not any(vec[1:]):
                    continue  # a constant constraint (true on a non-empty edge)
                key = (equality, tuple(vec))
                if key not in seen:
                    seen.add(key)
                    self.constraints.append((equality, vec))
        # 2. independent components of the variables
        parent = list(range(self.n_vars))

        def find(a):
            while parent[a] != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            return a
        for _, vec in self.constraints:
            vs = [j for j in range(self.n_vars) if vec[1 + np_ + j]]
            for a in vs[1:]:
                ra, rb = find(vs[0]), find(a)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
        groups: dict[int, list[int]] = {}
        for j in range(self.n_vars):
            groups.setdefault(find(j), []).append(j)
        self.components = [groups[r] for r in sorted(groups)]
        self._component_of = {j: c for c, comp in enumerate(self.components) for j in comp}
        self._params = None
        self._cones: dict[tuple[int, ...], list[ConeRow]] = {}
        self._compiled: dict = {}

    # -- the polyhedra and their cones ---------------------------------------------------
    def _system(self, variables, extra=()) -> tuple:
        """The canonical constraint system of the components holding ``variables``
        (renumbered ``0..len-1``) plus ``extra`` parameter constraints: a cache key."""
        np_ = self.n_params
        head = 1 + np_
        vs = list(variables)
        where = set(vs)
        rows = set()
        for eq, vec in self.constraints:
            if any(vec[head + j] for j in where):
                rows.add((eq, tuple(vec[:head]) + tuple(vec[head + j] for j in vs)))
        for eq, vec in extra:
            rows.add((eq, tuple(vec) + (0,) * len(vs)))
        return (np_, len(vs), tuple(sorted(rows)))

    @property
    def params(self) -> list[tuple[bool, tuple[int, ...]]]:
        """Constraints (over ``[cst, params...]``) of the parameter values for which the
        edge is non-empty (the rational projection, divs dropped: a superset)."""
        if self._params is None:
            np_ = self.n_params
            cons = {(eq, tuple(vec)) for eq, vec in self.constraints if not any(vec[1 + np_:])}
            for comp in self.components:
                cons.update(_projection(self._system(comp)))
            self._params = sorted(cons)
        return self._params

    def cone(self, variables: tuple[int, ...]) -> list[ConeRow]:
        """Farkas cone (rows over ``[cst, params..., variables...]``) of the polyhedron of
        the components holding ``variables`` (all their variables), intersected with the
        parameter projection."""
        if variables not in self._cones:
            budget = _BUDGET.get()
            if budget is not None:
                budget.check("building Farkas cones")
            self._cones[variables] = _system_cone(self._system(variables, self.params))
        return self._cones[variables]

    # -- forms ---------------------------------------------------------------------------
    def plan(self, nonzero_variables: set[int]) -> tuple[list[tuple[int, ...]], bool]:
        """Groups of reduced variables to linearise together for a form whose reduced
        variable coefficients are non-zero exactly on ``nonzero_variables``, and whether
        auxiliary parameter functions are needed (more than one group)."""
        comps = sorted({self._component_of[j] for j in nonzero_variables})
        if not comps:
            return [()], False
        total = sum(len(self.components[c]) for c in comps)
        # the merged cone has about one row per vertex of the product of the components:
        # the product of their constraint counts
        vertices = 1
        for c in comps:
            vertices *= max(1, len(self._system(self.components[c])[2]))
        if len(comps) == 1 or total <= MERGE_VARIABLES or vertices <= MERGE_VERTICES:
            merged = tuple(sorted(j for c in comps for j in self.components[c]))
            return [merged], False
        return [tuple(self.components[c]) for c in comps], True

    def compiled(self, n_source: int, same_statement: bool) -> tuple[list[tuple], int]:
        """The linear conditions on a schedule-difference form ``f`` (``[cst, params...,
        source dims..., sink dims...]``, with source coefficient ``-sign·c_S`` and sink
        coefficient ``sign·c_T``) for ``f >= 0`` on the edge, composed with the
        elimination: rows ``(equality, constant, ((original index, coefficient), ...),
        (((group, i), coefficient), ...))``; the second part is on the auxiliary unknowns
        ``a[group][i]`` (``i`` over ``[cst, params...]``), of which there are ``n_groups``
        groups. ``same_statement``: source and sink coefficients are the same unknowns
        (their contributions may cancel, as for a uniform self-dependence)."""
        key = (n_source, same_statement)
        if key in self._compiled:
            return self._compiled[key]
        np_ = self.n_params
        head = 1 + np_
        nonzero = set()
        for j in range(self.n_vars):
            row = self.transform[head + j]
            if same_statement:
                per = {}
                for orig, v in row.items():
                    k = orig - head
                    if k >= n_source:
                        per[k - n_source] = per.get(k - n_source, 0) + v
                    else:
                        per[k] = per.get(k, 0) - v
                if any(per.values()):
                    nonzero.add(j)
            elif row:
                nonzero.add(j)
        groups, aux = self.plan(nonzero)

        def compose(rows, slots):
            """rows over ``slots`` (each: a reduced index, or ("aux", g, i))."""
            out = []
            for r in rows:
                form: dict[int, int] = {}
                extra: dict[tuple[int, int], int] = {}
                for a, slot in zip(r.coefficients, slots):
                    if not a:
                        continue
                    if isinstance(slot, tuple):
                        for g, i in slot[1]:
                            extra[(g, i)] = extra.get((g, i), 0) + a * slot[2]
                        if slot[0] is None:
                            continue
                        slot = slot[0]
                    for orig, v in self.transform[slot].items():
                        form[orig] = form.get(orig, 0) + a * v
                item = (r.equality, r.constant,
                        tuple(sorted((o, v) for o, v in form.items() if v)),
                        tuple(sorted((gi, v) for gi, v in extra.items() if v)))
                if item not in out:
                    out.append(item)
            return out

        rows: list[tuple] = []
        if not aux:
            (group,) = groups
            rows = compose(self.cone(group), list(range(head)) + [head + j for j in group])
            result = (rows, 0)
        else:
            for g, group in enumerate(groups):
                slots = [(None, [(g, i)], 1) for i in range(head)] + [head + j for j in group]
                rows += compose(self.cone(group), slots)
            slots = [(i, [(g, i) for g in range(len(groups))], -1) for i in range(head)]
            rows += compose(self.cone(()), slots)
            result = (rows, len(groups))
        self._compiled[key] = result
        return result


def _system_set(system) -> isl.BasicSet:
    np_, nvars, rows = system
    space = isl.Space.set_alloc(isl.DEFAULT_CONTEXT, np_, nvars)
    bset = isl.BasicSet.universe(space)
    ls = isl.LocalSpace.from_space(space)
    for equality, vec in rows:
        con = isl.Constraint.alloc_equality(ls) if equality else isl.Constraint.alloc_inequality(ls)
        con = con.set_constant_val(val(vec[0]))
        for p in range(np_):
            if vec[1 + p]:
                con = con.set_coefficient_val(isl.dim_type.param, p, val(vec[1 + p]))
        for k in range(nvars):
            if vec[1 + np_ + k]:
                con = con.set_coefficient_val(isl.dim_type.set, k, val(vec[1 + np_ + k]))
        bset = bset.add_constraint(con)
    return bset


def _param_row(equality: bool, vec) -> tuple[bool, tuple[int, ...]] | None:
    """A parameter constraint, normalised; None when it is trivially true."""
    vec = _gcd_normalize(list(vec), equality)
    if not any(vec[1:]):
        return None
    return (equality, tuple(vec))


@lru_cache(maxsize=1 << 14)
def _projection(system) -> tuple:
    """Parameter constraints of the (rational) projection of ``system`` on its parameters;
    by Fourier-Motzkin for one variable, else by isl (divs dropped: a superset)."""
    np_, nvars, rows = system
    head = 1 + np_
    out = set()
    if nvars == 1:
        eqs = [vec for eq, vec in rows if eq and vec[head]]
        lower = [vec for eq, vec in rows if not eq and vec[head] > 0]
        upper = [vec for eq, vec in rows if not eq and vec[head] < 0]
        for eq, vec in rows:
            if not vec[head]:
                out.add(_param_row(eq, vec[:head]))
        if eqs:
            e = eqs[0]
            a = e[head]
            sa = 1 if a > 0 else -1
            for eq, vec in rows:
                if vec is e or not vec[head]:
                    continue
                b = vec[head]
                out.add(_param_row(eq, [-sa * b * x + abs(a) * y for x, y in zip(e[:head], vec[:head])]))
        else:
            for lo in lower:
                for up in upper:
                    out.add(_param_row(False, [lo[head] * y - up[head] * x
                                               for x, y in zip(lo[:head], up[:head])]))
        out.discard(None)
        return tuple(sorted(out))
    bset = _system_set(system)
    proj = _guarded(lambda: bset.params().remove_divs().remove_redundancies())
    for con in proj.get_constraints():
        vec = [_val_to_int(con.get_constant_val())]
        vec += [_val_to_int(con.get_coefficient_val(isl.dim_type.param, p)) for p in range(np_)]
        out.add(_param_row(con.is_equality(), vec))
    out.discard(None)
    return tuple(sorted(out))


@lru_cache(maxsize=1 << 14)
def _system_cone(system) -> tuple[ConeRow, ...]:
    return tuple(_cone_rows(_system_set(system).remove_redundancies()))


def _guarded(fn):
    """Run an isl computation under an operation budget (raises `ConeTooLarge`)."""
    ctx = isl.DEFAULT_CONTEXT
    previous = ctx.get_max_operations()
    ctx.reset_operations()
    ctx.set_max_operations(ISL_CONE_OPERATIONS)
    try:
        return fn()
    except isl.Error as exc:
        if "operations" in str(exc):
            raise ConeTooLarge(str(exc)) from None
        raise
    finally:
        ctx.reset_operations()
        ctx.set_max_operations(previous)


def _cone_rows(bset: isl.BasicSet) -> list[ConeRow]:
    cone = _guarded(bset.coefficients)
    if cone.dim(isl.dim_type.div):
        cone = cone.remove_divs()
    n = cone.dim(isl.dim_type.set)
    rows = []
    for con in cone.get_constraints():
        coefficients = [_val_to_int(con.get_coefficient_val(isl.dim_type.set, k)) for k in range(n)]
        rows.append(ConeRow(con.is_equality(), _val_to_int(con.get_constant_val()), coefficients))
    return rows
