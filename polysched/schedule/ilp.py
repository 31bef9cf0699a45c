"""One scheduling hyperplane as an integer program solved with OR-Tools CP-SAT.

Unknowns, per statement S with d iterators: ``c_S = (c_S,0 .. c_S,d-1)`` and a shift
``c_S,0`` (the constant term); the hyperplane is ``φ_S(i) = c_S·i + shift_S``.
Global unknowns: the bounding function ``u·params + w``.

Constraints (each linearised through the edge's Farkas cone, see edges.py):
- validity, every edge e = S->T:   φ_T(t) - φ_S(s) >= 0 on e;
- bounding, every edge:            u·N + w - (φ_T(t) - φ_S(s)) >= 0 on e;
- proximity (input) edges:         u'·N + w' ± (φ_T(t) - φ_S(s)) >= 0 (locality only);
- linear independence, per statement not yet of full rank: for a basis ``B`` of the
  orthogonal complement of the rows found so far, ``B·c_S != 0`` (exact, with one pair
  of indicator literals per basis vector: ``b·c_S >= 1`` or ``b·c_S <= -1``). It also rules
  out the trivial all-zero solution.
- Feautrier mode: indicator ``x_e => φ_T(t) - φ_S(s) >= 1 on e``, at least one ``x_e``.

Objective: lexicographic, solved as a sequence of CP-SAT solves, each fixing the optimum
of the previous level:
  [Feautrier: max satisfied edges] > (sum u, w) > max number of edges with zero
  distance (outer parallelism) > (sum u', w') > (sum |c| + shifts, prefer outer iterators).
Tuples in parentheses are one solve each, with weights that are exact because every
term is bounded (see ``_combine``): no overflow, no mis-ranking.
"""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from math import lcm

import islpy as isl
from .cp_sat import cp_model

from .edges import Edge
from .options import Budget, BudgetExceeded, ScheduleOptions

# Bounds of the bounding function: large enough never to be the reason for infeasibility
# on the suite (distances are at most a few parameters plus a constant). Without
# parameters (literal bounds) the constant is the whole extent (s += A[i] over 100000
# iterations needs w = 99999): `w_bound_for` raises it from the constants of the edges.
U_BOUND = 64
W_BOUND = 10**4
W_BOUND_MAX = 10**12


def w_bound_for(edges, options: ScheduleOptions) -> int:
    """A bound of ``w`` admitting every hyperplane of the search space: the distance of a
    hyperplane on an edge is at most (sum of |coefficients|) x (largest constant of the
    edge's constraints) plus the shifts, per dimension."""
    biggest, dims = 0, 1
    for e in edges:
        for con in e.relation.get_constraints():
            biggest = max(biggest, abs(int(con.get_constant_val().to_python())))
        dims = max(dims, e.n_source, e.n_sink)
    need = 2 * options.coefficient_bound * dims * biggest + 2 * options.shift_bound
    return min(max(W_BOUND, need), W_BOUND_MAX)
# Bounds of the auxiliary parameter functions of the compact Farkas form (edges.Reduction):
# a lower bound of one component's part of a form, e.g. -(4 * N) for 4*i, 0 <= i < N.
AUX_CONSTANT = 10**9
AUX_PARAMETER = 10**6


@contextmanager
def sigint_preserved():
    """Keep the process's SIGINT handler across a CP-SAT solve. OR-Tools installs its own
    C-level handler (``catch_sigint_signal``) and leaves it there: Ctrl-C then killed the
    process instead of raising KeyboardInterrupt, and Python's ``signal.getsignal`` does
    not even notice (it reports its cached handler). Re-installing the saved handler with
    ``signal.signal`` restores it at the C level too. Only the main thread may do so."""
    main = threading.current_thread() is threading.main_thread()
    saved = signal.getsignal(signal.SIGINT) if main else None
    try:
        yield
    finally:
        if saved is not None:
            signal.signal(signal.SIGINT, saved)


@dataclass
class Hyperplane:
    """``φ_S(i) = coefficients·i + shift`` for each statement of the group."""

    coefficients: dict[str, list[int]]
    shifts: dict[str, int]


def spatial_weights(statements, extent: int = 1) -> dict[str, list[int]]:
    """Per statement ``S[i0, ..., in]``, for each iterator: the number of its array
    references (reads and writes) whose last subscript, the one that varies fastest in
    memory, depends on it with the smallest step of that subscript and none of whose
    other subscripts do (``A[i][j]``: 1 for j, 0 for i; ``A[i][i + j]``: 0 for both;
    ``C[192i + j]``: 1 for j, 0 for i). A loop over such an iterator walks memory
    with stride 1 when innermost. With ``extent`` > 1, a reference of an n-dimensional
    array counts ``extent ** n`` instead of 1 (its nominal size: a matrix outweighs the
    vectors, as in the fusion decisions)."""
    out = {}
    for stmt in statements:
        n = len(stmt.iterators)
        weights = [0] * n
        for access in stmt.accesses:
            rel = access.relation
            rank = rel.dim(isl.dim_type.out)
            if rank == 0 or rel.dim(isl.dim_type.in_) != n:
                continue
            if not rel.is_single_valued():
                continue
            pma = rel.as_pw_multi_aff()
            subscripts = [pma.get_pw_aff(d).get_pieces() for d in range(rank)]
            if any(len(pieces) != 1 for pieces in subscripts):
                continue
            used = [[not pieces[0][1].get_coefficient_val(isl.dim_type.in_, k).is_zero()
                     for k in range(n)] for pieces in subscripts]
            # in the last subscript, only the iterators of the smallest step: a flat
            # buffer's C[192i + j] is walked with stride 1 by j, not by i (a step may be
            # rational: floor((l + 3) / 4) has the coefficient 1/4)
            last = [abs(Fraction(subscripts[-1][0][1].get_coefficient_val(isl.dim_type.in_, k).to_str()))
                    for k in range(n)]
            step = min((c for c in last if c), default=0)
            for k in range(n):
                if used[-1][k] and last[k] == step and not any(row[k] for row in used[:-1]):
                    weights[k] += extent ** rank
        out[stmt.name] = weights
    return out


def _reduced_row_echelon(rows: list[list[int]]) -> tuple[list[list[Fraction]], list[int]]:
    """Exact reduced row echelon form (rows, pivot columns) over the rationals."""
    m = [[Fraction(x) for x in r] for r in rows]
    pivots: list[int] = []
    r = 0
    ncols = len(m[0]) if m else 0
    for col in range(ncols):
        pivot = next((i for i in range(r, len(m)) if m[i][col] != 0), None)
        if pivot is None:
            continue
        m[r], m[pivot] = m[pivot], m[r]
        lead = m[r][col]
        m[r] = [x / lead for x in m[r]]
        for i in range(len(m)):
            if i != r and m[i][col] != 0:
                f = m[i][col]
                m[i] = [a - f * b for a, b in zip(m[i], m[r])]
        pivots.append(col)
        r += 1
        if r == len(m):
            break
    return m[:r], pivots


def orthogonal_complement(rows: list[list[int]], dim: int) -> list[list[int]]:
    """Integer basis of ``{ x : r·x = 0 for every row r }`` (identity when no rows)."""
    if not rows:
        return [[int(i == j) for j in range(dim)] for i in range(dim)]
    echelon, pivots = _reduced_row_echelon(rows)
    basis = []
    for free in (c for c in range(dim) if c not in pivots):
        vec = [Fraction(0)] * dim
        vec[free] = Fraction(1)
        for row, pc in zip(echelon, pivots):
            vec[pc] = -row[free]
        scale = lcm(*[f.denominator for f in vec])
        basis.append([int(f * scale) for f in vec])
    return basis


def rank(rows: list[list[int]]) -> int:
    return len(_reduced_row_echelon(rows)[1]) if rows else 0


class _Terms:
    """A sparse linear expression over CP-SAT variables (dict var-index -> coefficient)."""

    __slots__ = ("coef", "const")

    def __init__(self):
        self.coef: dict = {}
        self.const = 0

    @classmethod
    def of(cls, var) -> "_Terms":
        t = cls()
        t.coef[var] = 1
        return t

    def copy(self) -> "_Terms":
        t = _Terms()
        t.coef = dict(self.coef)
        t.const = self.const
        return t

    def add(self, var, value: int) -> None:
        if value:
            c = self.coef.get(var, 0) + value
            if c:
                self.coef[var] = c
            else:
                del self.coef[var]

    def add_scaled(self, other: "_Terms", factor: int) -> None:
        if factor:
            for var, c in other.coef.items():
                self.add(var, c * factor)
            self.const += other.const * factor

    def expr(self):
        items = [(v, c) for v, c in self.coef.items() if c]
        if not items:
            return self.const
        return cp_model.LinearExpr.weighted_sum([v for v, _ in items], [c for _, c in items]) + self.const


# Largest objective magnitude we let one solve have (well inside int64 and exact in a
# double, which CP-SAT uses for objective bounds).
SAFE_OBJECTIVE = 2**52


# CP-SAT deterministic seconds for each tie-break level. Fuzz seed 3, program 2385
# (3 statements, strided domains): proving the zero-distance level optimal took 60 s,
# the solution found in the first second was kept; suite kernels need under 0.01 each.
TIE_BREAK_WORK = 0.1


def _combine(terms):
    """Objective levels equivalent to minimising ``terms`` (``(expr, max)`` pairs with
    ``0 <= expr <= max``) lexicographically. Consecutive terms are merged into one weighted
    sum while the weights stay below SAFE_OBJECTIVE: with ``expr_k`` in ``[0, max_k]``,
    weight ``prod(max_j + 1 for later j)`` ranks exactly like the tuple. Otherwise a new
    level (a separate solve) starts."""
    levels = []
    expr, span = None, 1
    for term, bound in reversed(terms):
        if isinstance(term, int):
            continue
        if expr is not None and span * (bound + 1) <= SAFE_OBJECTIVE:
            expr = expr + span * term
            span *= bound + 1
        else:
            if expr is not None:
                levels.append(expr)
            expr, span = term, bound + 1
    if expr is not None:
        levels.append(expr)
    return list(reversed(levels))


def _template(edge: Edge, sign: int, constant: int, has_w: bool, has_u: bool):
    """The rows of ``constant + w + u·N + sign·(φ_T(t) - φ_S(s)) >= 0`` on ``edge`` as
    ``(equality, constant, local indices, coefficients)`` over the local unknowns
    ``c_S..., [c_T..., shift_T, shift_S,] w, u..., aux...`` (the bracket only when S != T;
    aux: ``1 + params`` per group of the compiled form), the number of aux groups, and
    whether a row without unknowns fails (rows without unknowns are left out).
    Cached on the edge's reduction: building the model is then a lookup per row."""
    red = edge.reduction
    ns, nt, np_ = edge.n_source, edge.n_sink, edge.n_params
    same = edge.source == edge.sink
    key = ("template", ns, same, sign, constant, has_w, has_u)
    cached = red._compiled.get(key)
    if cached is not None:
        return cached
    rows, n_groups = red.compiled(ns, same)
    snk0 = 0 if same else ns
    base = ns if same else ns + nt + 2
    shift_snk, shift_src = ns + nt, ns + nt + 1
    w_at, u_at = base, base + 1
    aux_at = base + 1 + np_
    out = []
    infeasible = False
    for equality, const, form, extra in rows:
        acc: dict[int, int] = {}
        k = const

        def add(j, v):
            acc[j] = acc.get(j, 0) + v
        for orig, a in form:
            if orig == 0:
                k += a * constant
                if has_w:
                    add(w_at, a)
                if not same:
                    add(shift_snk, sign * a)
                    add(shift_src, -sign * a)
            elif orig <= np_:
                if has_u:
                    add(u_at + orig - 1, a)
            elif orig <= np_ + ns:
                add(orig - 1 - np_, -sign * a)
            else:
                add(snk0 + orig - 1 - np_ - ns, sign * a)
        for (g, i), a in extra:
            add(aux_at + g * (1 + np_) + i, a)
        idxs = tuple(j for j in sorted(acc) if acc[j])
        if idxs:
            out.append((equality, k, idxs, tuple(acc[j] for j in idxs)))
        elif not (k == 0 if equality else k >= 0):
            infeasible = True
    result = (out, n_groups, infeasible)
    red._compiled[key] = result
    return result


class HyperplaneProblem:
    """Builds and solves the CP-SAT model for one hyperplane of a group of statements.

    ``dims``: statement name -> number of iterators; ``n_params``: parameter count (the
    order of the edges' parameter dimensions).
    """

    def __init__(self, dims: dict[str, int], n_params: int, options: ScheduleOptions,
                 budget: Budget | None = None, w_bound: int = W_BOUND,
                 spatial: dict[str, list[int]] | None = None):
        self.w_bound = w_bound
        self.spatial = spatial or {}
        self.dims = dims
        self.n_params = n_params
        self.options = options
        self.budget = budget  # past it: BudgetExceeded

    # -- model construction -------------------------------------------------------
    def _new_model(self):
        opt = self.options
        m = cp_model.CpModel()
        lo = -opt.coefficient_bound if opt.negative_coefficients else 0
        self.model = m
        self.seen = set()
        self.n_rows = 0
        self.n_aux = 0
        self.c = {s: [m.new_int_var(lo, opt.coefficient_bound, f"c_{s}_{k}") for k in range(d)]
                  for s, d in self.dims.items()}
        self.shift = {s: m.new_int_var(0, opt.shift_bound, f"c0_{s}") for s in self.dims}
        self.u = [m.new_int_var(0, U_BOUND, f"u{p}") for p in range(self.n_params)]
        self.w = m.new_int_var(0, self.w_bound, "w")
        self.u_rar = [m.new_int_var(0, U_BOUND, f"ur{p}") for p in range(self.n_params)]
        self.w_rar = m.new_int_var(0, self.w_bound, "wr")
        if opt.negative_coefficients:
            self.abs_c = {}
            for s, cs in self.c.items():
                self.abs_c[s] = []
                for k, var in enumerate(cs):
                    a = m.new_int_var(0, opt.coefficient_bound, f"abs_c_{s}_{k}")
                    m.add_abs_equality(a, var)
                    self.abs_c[s].append(a)
        else:
            self.abs_c = self.c

    def _cone_constraints(self, edge: Edge, sign: int, constant: int = 0, w=None, u=None,
                          enforce=None) -> None:
        """Require ``constant + w + u·N + sign·(φ_T(t) - φ_S(s)) >= 0`` on the whole edge,
        linearised through the edge's compact Farkas form (`edges.Reduction.compiled`),
        through a template cached on the edge's reduction (`_template`)."""
        np_ = edge.n_params
        src, snk = edge.source, edge.sink
        same = src == snk
        rows, n_groups, infeasible = _template(edge, sign, constant, w is not None, u is not None)
        # the unknowns of the template's local indices (see _template)
        local = list(self.c[src])
        if not same:
            local += self.c[snk]
            local += [self.shift[snk], self.shift[src]]
        local.append(w)
        local += u if u is not None else [None] * np_
        for _ in range(n_groups):
            local.append(self._aux(AUX_CONSTANT))
            local += [self._aux(AUX_PARAMETER) for _ in range(np_)]
        index = [None if v is None else v.index for v in local]
        model = self.model
        enforced = None if enforce is None else enforce.index
        if infeasible:  # a row without unknowns that does not hold
            if enforce is None:
                model.add_bool_or([])
            else:
                model.add(enforce == 0)
        seen = self.seen
        for equality, k, idxs, coefs in rows:
            # "this exact constraint was already added" (variable indices in the model;
            # the template lists a row's unknowns in one order, so equal rows of edges
            # between the same statements give equal keys)
            key = (equality, k, enforced, coefs, tuple([index[j] for j in idxs]))
            if key in seen:
                continue
            seen.add(key)
            self.n_rows += 1
            if self.n_rows > self.options.max_constraints:
                raise BudgetExceeded(f"more than {self.options.max_constraints} constraint rows in one ILP")
            # (add_linear_constraint: about half the cost of model.add(expr >= 0), which
            # builds a bounded expression first; deriche adds 17,000 rows)
            ct = model.add_linear_constraint(cp_model.LinearExpr.weighted_sum([local[j] for j in idxs], coefs),
                                             -k, -k if equality else cp_model.INT_MAX)
            if enforce is not None:
                ct.only_enforce_if(enforce)

    def _aux(self, bound: int):
        self.n_aux += 1
        return self.model.new_int_var(-bound, bound, f"aux{self.n_aux}")

    def _independence(self, statement: str, rows: list[list[int]]) -> None:
        m = self.model
        literals = []
        for k, vec in enumerate(orthogonal_complement(rows, self.dims[statement])):
            t = _Terms()
            for coef, var in zip(vec, self.c[statement]):
                t.add(var, coef)
            expr = t.expr()
            pos = m.new_bool_var(f"ind_{statement}_{k}_pos")
            m.add(expr >= 1).only_enforce_if(pos)
            literals.append(pos)
            if self.options.negative_coefficients or any(x < 0 for x in vec):
                neg = m.new_bool_var(f"ind_{statement}_{k}_neg")
                m.add(expr <= -1).only_enforce_if(neg)
                literals.append(neg)
        m.add_bool_or(literals)

    # -- solving ------------------------------------------------------------------
    def solve(self, edges: list[Edge], proximity: list[Edge], rows: dict[str, list[list[int]]],
              independent, feautrier: bool = False,
              feasibility_only: bool = False) -> Hyperplane | None:
        """The lexicographically best hyperplane, or None when none exists.

        ``edges``: validity edges (weakly satisfied, and bounded); ``proximity``: input
        edges (bounded both ways, as a tie-break); ``rows``: hyperplanes found so far per
        statement (iterator coefficients); ``independent``: statements whose new row must be
        linearly independent of ``rows``. ``feautrier``: maximise strongly satisfied edges
        (at least one) instead of demanding independence.
        """
        self._new_model()
        m = self.model
        zero_distance = []
        carried = []
        for e in edges:
            self._cone_constraints(e, +1)
            if feasibility_only:
                continue
            self._cone_constraints(e, -1, w=self.w, u=self.u)
            z = m.new_bool_var(f"zero_{len(zero_distance)}")
            self._cone_constraints(e, -1, enforce=z)
            zero_distance.append(z)
            if feautrier:
                x = m.new_bool_var(f"carry_{len(carried)}")
                self._cone_constraints(e, +1, constant=-1, enforce=x)
                carried.append(x)
        if feautrier:
            if not carried:
                return None
            m.add_bool_or(carried)
        else:
            for s in self.dims:  # statement order (``independent`` may be a set)
                if s in independent:
                    self._independence(s, rows[s])
        if not feasibility_only and self.options.rar:
            for e in proximity:
                self._cone_constraints(e, -1, w=self.w_rar, u=self.u_rar)
                self._cone_constraints(e, +1, w=self.w_rar, u=self.u_rar)

        levels = []
        if not feasibility_only:
            if feautrier:
                levels.append(-sum(carried))
            if edges:
                levels += self._bound_level(self.u, self.w)
            levels += self._spatial_level()
            if zero_distance:
                levels.append(-sum(zero_distance))
            if self.options.rar and proximity:
                levels += self._bound_level(self.u_rar, self.w_rar)
            levels += self._size_level()
        return self._lexicographic(levels)

    def solve_diamond(self, edges: list[Edge], face: dict[str, list[int]],
                      partner: dict[str, list[int]], max_scale: int = 8) -> Hyperplane | None:
        """A hyperplane valid on every edge (weakly satisfied) whose iterator part is
        ``λ·face_S - partner_S`` for one integer ``λ >= 1`` and every statement S, with
        the smallest ``λ``, then the smallest shifts; None when there is none. Its sum with
        ``partner`` is ``λ·face``: tiles of the two start concurrently along the face
        (the time ``t = 0`` plane for ``face = t``): diamond tiling (Bandishti, Pananilath,
        Bondhugula, SC 2012). jacobi-1d: face ``t``, partner ``2t + i``, answer
        ``t - i`` (``λ = 3``). Coefficients may be negative here whatever the options."""
        self._new_model()
        m = self.model
        scale = m.new_int_var(1, max_scale, "lambda")
        for stmt, cs in self.c.items():
            for k, var in enumerate(cs):
                m.add(var == scale * face[stmt][k] - partner[stmt][k])
        for e in edges:
            self._cone_constraints(e, +1)
        return self._lexicographic([scale, sum(self.shift.values())])

    def _bound_level(self, u, w) -> list:
        """The bounding function ``u·N + w``, ranked as ``(sum(u), w)``: the parametric
        growth first (summed over parameters, so that the answer does not depend on the
        order in which parameters are declared), then the constant."""
        return _combine([(sum(u) if u else 0, U_BOUND * len(u)), (w, self.w_bound)])

    def _spatial_level(self) -> list:
        """Spatial locality: the iterators of fastest-varying subscripts, weighted by
        how many references they index that way, left out of this hyperplane where the
        bounding function allows (``spatial_weights``)."""
        terms = [(weight, a) for s, weights in self.spatial.items() if s in self.dims
                 for weight, a in zip(weights, self.abs_c[s]) if weight]
        if not terms:
            return []
        bound = sum(weight for weight, _ in terms) * self.options.coefficient_bound
        return _combine([(sum(weight * a for weight, a in terms), bound)])

    def _size_level(self) -> list:
        """Small coefficients first (sum of |c| and shifts), then prefer outer iterators
        (weight k+1 for iterator k, so gemm keeps i, j, k)."""
        bound = self.options.coefficient_bound
        size = sum(a for s in self.dims for a in self.abs_c[s]) + sum(self.shift.values())
        size_max = sum(bound * d + self.options.shift_bound for d in self.dims.values())
        order = sum((k + 1) * a for s in self.dims for k, a in enumerate(self.abs_c[s]))
        order_max = sum((k + 1) * bound for s in self.dims for k in range(self.dims[s]))
        if not self.options.negative_coefficients:
            return _combine([(size, size_max), (order, order_max)])
        # with negative coefficients allowed, i and -i tie: prefer the original direction
        # (the model's symmetry would otherwise pick either); the last criterion
        negative = sum(a - c for s in self.dims for a, c in zip(self.abs_c[s], self.c[s]))
        negative_max = 2 * bound * sum(self.dims.values())
        return _combine([(size, size_max), (order, order_max), (negative, negative_max)])

    def _lexicographic(self, levels) -> Hyperplane | None:
        """Minimise ``levels`` one after the other, each optimum (or, past the time
        limits, the best value found) fixed before the next. The levels after the
        first are tie-breaks and get at most ``TIE_BREAK_WORK`` of CP-SAT's
        deterministic time each: a solution of the first level is already at hand."""
        m = self.model
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1  # deterministic, and the machine is shared
        # Tiny models solved many times: presolve costs more than it saves here
        # (measured: jacobi-2d 0.65 s -> 0.30 s). The LP relaxation of the linear rows
        # (level 1) stays: without it the Farkas auxiliaries' wide domains leave CP-SAT
        # searching by propagation alone (a fuzzed 4-deep nest: no solution in 10 s, and
        # 0.35 s with it; the suite's schedules and times are unchanged).
        solver.parameters.cp_model_presolve = False
        solver.parameters.linearization_level = 1
        limit = self.options.time_limit
        solver.parameters.catch_sigint_signal = False  # Ctrl-C stays Python's (see sigint_preserved)
        solution = None    # the last level's: feasible for every level after it too
        for index, level in enumerate(levels or [0]):
            if solution is not None and self.budget is not None and \
                    (self.budget.cpu_left() <= 0 or self.budget.wall_left() <= 0):
                break      # keep the solution at hand; the next solve stops the search
            m.clear_objective()
            if not isinstance(level, int):
                m.minimize(level)
            # CP-SAT's deterministic time (a work count, about seconds): the same model
            # stops at the same point whatever the machine's load
            work = TIE_BREAK_WORK if index > 0 else float("inf")
            if self.budget is not None:
                self.budget.check()
                limit = min(limit, self.budget.wall_left())
                work = min(work, max(self.budget.cpu_left(), 1e-3))
            if work != float("inf"):
                solver.parameters.max_deterministic_time = work
            solver.parameters.max_time_in_seconds = limit
            with sigint_preserved():
                status = solver.solve(m)
            if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                if solution is not None:
                    break      # a tie-break out of time: the previous level's solution
                if status == cp_model.UNKNOWN:
                    # out of time before any solution: "no hyperplane" would be a lie
                    raise BudgetExceeded("an ILP solve ran out of time before any solution")
                return None
            solution = Hyperplane({s: [solver.value(v) for v in cs] for s, cs in self.c.items()},
                                  {s: solver.value(v) for s, v in self.shift.items()})
            if isinstance(level, int):
                continue
            best = int(round(solver.objective_value))
            # OPTIMAL: fix the level's optimum. FEASIBLE (time limit): keep at least as good.
            m.add(level == best) if status == cp_model.OPTIMAL else m.add(level <= best)
            m.clear_hints()
            for var in self._all_vars():
                m.add_hint(var, solver.value(var))
        return solution

    def _all_vars(self):
        for cs in self.c.values():
            yield from cs
        yield from self.shift.values()
