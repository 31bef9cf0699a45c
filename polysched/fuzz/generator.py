"""Random self-contained C programs with ``#pragma scop`` regions, for differential
fuzzing of polysched.

A program is a small Python structure (:class:`Program`: parameters, arrays, scalars,
regions made of :class:`Loop`, :class:`Guard` and :class:`Stmt` nodes over
:class:`Aff` expressions) that :func:`render` turns into one C file with ``main()``.
``generate(seed, index)`` is a pure function of its two arguments (a seeded
``random.Random``), so a ``(seed, index)`` pair names a program for good.

No undefined behaviour in the original, for the parameter values it is called with:

- :func:`simulate` executes the loop structure in Python (iterator values only) and
  records the range of every subscript; :func:`layout` then shifts every array
  dimension uniformly (the same constant added to every subscript of that dimension,
  which changes no dependence) and sizes the arrays so that every access is in
  bounds. Pointer parameters called aliased (``kernel(A + 2, A + 3)``) are laid out
  over one allocation.
- Unsigned programs (``unsigned``/``size_t`` sizes and iterators) are checked to
  evaluate every bound, guard side and loop exit value to a non-negative number, so
  modular C arithmetic computes what the mathematical model computes; subscripts are
  non-negative by construction of the layout.
- ``int`` data is kept bounded (every read is taken ``% 1009``, every assignment too),
  so nothing overflows; ``double`` data may grow, which is defined behaviour.
- The number of statement instances and array elements is capped, so programs run in
  milliseconds and print a few thousand lines at most.

The structure is what the shrinker (:mod:`polysched.fuzz.shrink`) edits: nodes can be
deleted, loops unwrapped, bounds replaced by constants, and every edited program is
re-laid-out by :func:`render`, so it stays free of undefined behaviour.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, Iterator

# Bumped whenever generate() changes which program a (seed, index) pair names.
GENERATOR_VERSION = 2
UNSIGNED_TYPES = ("unsigned", "size_t")
INDEX_TYPES = ("int", "long", "unsigned", "size_t")
INT_MOD = 1009
BIG_VALUE = 3_000_000_000           # a 'long' loop offset that does not fit in an int
MAX_INSTANCES = 40_000              # statement instances per program
MAX_ARRAY_ELEMENTS = 4_096
MAX_TOTAL_ELEMENTS = 12_000
PAD = 1                              # spare elements on each side of every array dimension
ITERATORS = ("i", "j", "k", "l", "p", "q", "r")
DOUBLE_COEFFS = ("0.5", "0.25", "0.75", "1.5", "-0.5", "0.125")
DOUBLE_CONSTS = ("1.0", "0.5", "-0.25", "2.0")
INT_COEFFS = (1, 2, 3, -1)
# Extent of a loop (literal part) for a nest of the given depth.
EXTENT_BY_DEPTH = {1: 14, 2: 8, 3: 5, 4: 4, 5: 3, 6: 2, 7: 2}


class InvalidProgram(Exception):
    """The structure would have undefined behaviour, or is too big (the generator
    retries; the shrinker skips the candidate)."""


# --------------------------------------------------------------------------- structure

@dataclass(frozen=True)
class Aff:
    """``const + sum(coeff * name)`` over iterators and parameters."""

    terms: tuple[tuple[str, int], ...] = ()
    const: int = 0

    @staticmethod
    def of(terms: dict[str, int] | None = None, const: int = 0) -> "Aff":
        return Aff(tuple((n, c) for n, c in (terms or {}).items() if c), const)

    def names(self) -> set[str]:
        return {n for n, _ in self.terms}

    def coeff(self, name: str) -> int:
        return sum(c for n, c in self.terms if n == name)

    def eval(self, env: dict[str, int]) -> int:
        return self.const + sum(c * env[n] for n, c in self.terms)

    def plus(self, const: int) -> "Aff":
        return Aff(self.terms, self.const + const)

    def substitute(self, name: str, value: "Aff") -> "Aff":
        """``name`` replaced by the expression ``value``."""
        k = self.coeff(name)
        if not k:
            return self
        merged: dict[str, int] = {}
        for n, c in self.terms:
            if n != name:
                merged[n] = merged.get(n, 0) + c
        for n, c in value.terms:
            merged[n] = merged.get(n, 0) + k * c
        return Aff.of(merged, self.const + k * value.const)

    def without(self, name: str) -> "Aff":
        return Aff(tuple((n, c) for n, c in self.terms if n != name), self.const)

    def render(self, fmt: Callable[[str], str] = str) -> str:
        text = ""
        for name, c in self.terms:
            atom = fmt(name)
            mag = abs(c)
            piece = atom if mag == 1 else f"{mag} * {atom}"
            if not text:
                text = piece if c > 0 else f"-{piece}"
            else:
                text += f" + {piece}" if c > 0 else f" - {piece}"
        if not text:
            return str(self.const) if self.const >= 0 else f"({self.const})"
        if self.const > 0:
            text += f" + {self.const}"
        elif self.const < 0:
            text += f" - {-self.const}"
        return text


@dataclass
class Bound:
    """One affine part, or the max (lower bound) / min (upper bound) of several,
    written with the ``MIN``/``MAX`` macros (``style="macro"``) or as ternaries.
    With ``div > 1`` every part is divided by it, C-style (``(n - 1) / 2``: truncation
    toward zero, so negative values round up)."""

    parts: list[Aff]
    style: str = "macro"
    div: int = 1


@dataclass
class Loop:
    """``for (v = lower; v <= upper; v += step)`` (or ``v = upper; v >= lower; v -=
    step`` when ``down``); bounds are inclusive in the structure and written with
    ``<``/``>`` when ``strict``. With ``shift`` (a parameter name), the C iterator is
    ``shift +`` the structural one: bounds get ``shift +``, uses get ``(v - shift)``."""

    var: str
    lower: Bound
    upper: Bound
    body: list
    step: int = 1
    down: bool = False
    strict: bool = False
    shift: str | None = None


@dataclass
class Cond:
    """``lhs op rhs`` for op in ``>=``, ``<=``, ``==``, or ``lhs % mod == rhs`` (op
    ``"%"``)."""

    lhs: Aff
    op: str
    rhs: Aff
    mod: int = 0


@dataclass
class Guard:
    conds: list[Cond]
    body: list


@dataclass
class Ref:
    """An array element (``subs`` one per dimension) or a scalar (``subs == []``)."""

    name: str
    subs: list[Aff] = field(default_factory=list)


@dataclass
class Stmt:
    """``target op rhs``: ``rhs`` combines ``reads`` with coefficients (indices into
    the tables of the statement's data type), optionally ``iter_var % 5``, and a
    constant. ``op`` is ``"="`` or ``"+="``. With ``product`` (double data, two
    reads): ``target += read0 * read1``, a matrix-product update the default pipeline
    may run as a micro-kernel call."""

    target: Ref
    reads: list[Ref]
    coeffs: list[int]
    op: str = "="
    iter_var: str | None = None
    const: int = 0
    product: bool = False


@dataclass
class Param:
    """A size: ``kind`` ``"arg"`` (an ``int``/... parameter of the kernel) or
    ``"define"`` (a ``#define``)."""

    name: str
    kind: str
    value: int


@dataclass
class Array:
    """Storage: a global array of ``main``'s file (extents chosen by :func:`layout`)."""

    name: str
    dtype: str
    rank: int


@dataclass
class View:
    """A kernel parameter that points into the storage ``storage`` (rank-1 views at
    element offset ``delta``; rank >= 2 views are the whole array)."""

    name: str
    storage: str
    delta: int = 0


@dataclass
class Scalar:
    name: str
    dtype: str
    init: str


@dataclass
class Program:
    seed: int
    index: int
    param_type: str
    iter_type: str
    params: list[Param]
    arrays: list[Array]
    views: list[View]
    scalars: list[Scalar]
    regions: list[list]
    glue: bool = False
    print_iters: bool = False

    # -- lookups --------------------------------------------------------------------
    def array(self, name: str) -> Array | None:
        return next((a for a in self.arrays if a.name == name), None)

    def view(self, name: str) -> View | None:
        return next((v for v in self.views if v.name == name), None)

    def scalar(self, name: str) -> Scalar | None:
        return next((s for s in self.scalars if s.name == name), None)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def storage_of(self, name: str) -> Array | None:
        """The storage behind an access name (a global array or a view)."""
        view = self.view(name)
        return self.array(view.storage) if view else self.array(name)

    def dtype_of(self, name: str) -> str:
        scalar = self.scalar(name)
        if scalar is not None:
            return scalar.dtype
        return self.storage_of(name).dtype

    def unsigned(self) -> bool:
        return self.param_type in UNSIGNED_TYPES or self.iter_type in UNSIGNED_TYPES

    def name(self) -> str:
        return f"s{self.seed}-p{self.index}"


def walk(nodes: list, loops: tuple = ()) -> Iterator[tuple[object, tuple]]:
    """Every node in textual order with its enclosing loops."""
    for node in nodes:
        yield node, loops
        if isinstance(node, Loop):
            yield from walk(node.body, loops + (node,))
        elif isinstance(node, Guard):
            yield from walk(node.body, loops)


def all_nodes(program: Program) -> Iterator[tuple[object, tuple]]:
    for region in program.regions:
        yield from walk(region)


def statements(program: Program) -> list[Stmt]:
    return [n for n, _ in all_nodes(program) if isinstance(n, Stmt)]


def refs_of(stmt: Stmt) -> list[Ref]:
    return [stmt.target, *stmt.reads]


def affs_of(program: Program) -> Iterator[Aff]:
    """Every affine expression of the program (bounds, guards, subscripts)."""
    for node, _ in all_nodes(program):
        if isinstance(node, Loop):
            yield from node.lower.parts
            yield from node.upper.parts
        elif isinstance(node, Guard):
            for cond in node.conds:
                yield cond.lhs
                yield cond.rhs
        elif isinstance(node, Stmt):
            for ref in refs_of(node):
                yield from ref.subs


def used_params(program: Program) -> list[Param]:
    names: set[str] = set()
    for aff in affs_of(program):
        names |= aff.names()
    for node, _ in all_nodes(program):
        if isinstance(node, Loop) and node.shift:
            names.add(node.shift)
    return [p for p in program.params if p.name in names]


def max_depth(nodes: list) -> int:
    best = 0
    for node in nodes:
        if isinstance(node, Loop):
            best = max(best, 1 + max_depth(node.body))
        elif isinstance(node, Guard):
            best = max(best, max_depth(node.body))
    return best


# --------------------------------------------------------------------------- simulation

@dataclass
class Simulation:
    instances: int
    # access name -> per dimension [min, max] of the structural subscript values
    ranges: dict[str, list[list[int]]]
    accessed: set[str]
    written: set[str]


def simulate(program: Program) -> Simulation:
    """Run the loop structure at the program's parameter values; raise
    :class:`InvalidProgram` for undefined behaviour or a program too big."""
    env = {p.name: p.value for p in program.params}
    unsigned = program.unsigned()
    ranges: dict[str, list[list[int]]] = {}
    accessed: set[str] = set()
    written: set[str] = set()
    count = 0
    limit = 2 ** 31 - 1

    def check(value: int, what: str) -> int:
        if unsigned and not 0 <= value <= limit:
            raise InvalidProgram(f"{what} is {value} in an unsigned program")
        if not -limit <= value <= limit:
            raise InvalidProgram(f"{what} is {value}: out of int range")
        return value

    def bound(b: Bound, lower: bool, down: bool, strict: bool) -> int:
        values = []
        for part in b.parts:
            v = check(part.eval(env), "a loop bound")
            if b.div > 1:
                v = c_div(v, b.div)
            if strict and unsigned and lower and down:
                check(v - 1, "a loop bound")   # written 'v > lower - 1'
            values.append(v)
        return max(values) if lower else min(values)

    def cond_holds(c: Cond) -> bool:
        lhs = check(c.lhs.eval(env), "a guard")
        rhs = check(c.rhs.eval(env), "a guard")
        if c.op == ">=":
            return lhs >= rhs
        if c.op == "<=":
            return lhs <= rhs
        if c.op == "==":
            return lhs == rhs
        if c.op == "%":
            return c_mod(lhs, c.mod) == rhs
        raise InvalidProgram(f"unknown guard operator {c.op}")

    def run(nodes: list) -> None:
        nonlocal count
        for node in nodes:
            if isinstance(node, Loop):
                lo = bound(node.lower, True, node.down, node.strict)
                hi = bound(node.upper, False, node.down, node.strict)
                if node.down:
                    v = hi
                    while v >= lo:
                        env[node.var] = v
                        run(node.body)
                        v -= node.step
                else:
                    v = lo
                    while v <= hi:
                        env[node.var] = v
                        run(node.body)
                        v += node.step
                env[node.var] = check(v, f"the exit value of loop '{node.var}'")
            elif isinstance(node, Guard):
                if all(cond_holds(c) for c in node.conds):
                    run(node.body)
            else:
                count += 1
                if count > MAX_INSTANCES:
                    raise InvalidProgram("too many statement instances")
                for k, ref in enumerate(refs_of(node)):
                    accessed.add(ref.name)
                    if k == 0:
                        written.add(ref.name)
                    if not ref.subs:
                        continue
                    dims = ranges.get(ref.name)
                    if dims is None:
                        dims = ranges[ref.name] = [[None, None] for _ in ref.subs]
                    for d, sub in enumerate(ref.subs):
                        value = sub.eval(env)
                        lo_hi = dims[d]
                        if lo_hi[0] is None or value < lo_hi[0]:
                            lo_hi[0] = value
                        if lo_hi[1] is None or value > lo_hi[1]:
                            lo_hi[1] = value

    for region in program.regions:
        run(region)
    return Simulation(count, ranges, accessed, written)


def c_div(a: int, b: int) -> int:
    """C's ``a / b`` (truncation toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def c_mod(a: int, b: int) -> int:
    """C's ``a % b`` (truncating division)."""
    q = abs(a) // abs(b)
    q = q if (a >= 0) == (b > 0) else -q
    return a - b * q


# --------------------------------------------------------------------------- layout

@dataclass
class Layout:
    extents: dict[str, list[int]]          # storage -> extents
    shifts: dict[str, list[int]]           # storage -> per-dimension subscript shift
    view_shift: dict[str, int]             # rank-1 view -> subscript shift
    view_offset: dict[str, int]            # rank-1 view -> element offset of the pointer
    storages: list[Array]                  # the storages in use
    views: list[View]                      # the views in use
    written: set[str]                      # storages written


def layout(program: Program, sim: Simulation) -> Layout:
    lows: dict[str, list[int]] = {}
    highs: dict[str, list[int]] = {}

    def note(storage: str, d: int, lo: int, hi: int) -> None:
        array = program.array(storage)
        lows.setdefault(storage, [0] * array.rank)
        highs.setdefault(storage, [0] * array.rank)
        if (storage, d) not in seen:
            seen.add((storage, d))
            lows[storage][d], highs[storage][d] = lo, hi
        else:
            lows[storage][d] = min(lows[storage][d], lo)
            highs[storage][d] = max(highs[storage][d], hi)

    seen: set[tuple[str, int]] = set()
    used_views = []
    # Every name referenced, executed or not (a statement that never runs still has
    # to compile: its array is declared, its subscripts are never evaluated).
    referenced = {r.name for s in statements(program) for r in refs_of(s)}
    for name in sorted(referenced):
        if program.scalar(name):
            continue
        view = program.view(name)
        array = program.storage_of(name)
        if array is None:
            raise InvalidProgram(f"unknown array {name}")
        if view:
            used_views.append(view)
        dims = sim.ranges.get(name) or [[0, 0] for _ in range(array.rank)]
        if len(dims) != array.rank:
            raise InvalidProgram(f"{name} accessed with {len(dims)} subscripts")
        delta = view.delta if view and array.rank == 1 else 0
        for d, (lo, hi) in enumerate(dims):
            if d == 0:
                note(array.name, d, lo + delta, hi + delta)
                if view and array.rank == 1:
                    note(array.name, d, delta, delta)
            else:
                note(array.name, d, lo, hi)
    extents, shifts = {}, {}
    total = 0
    for storage in lows:
        shifts[storage] = [PAD - lo for lo in lows[storage]]
        extents[storage] = [hi + shift + 1 + PAD for hi, shift in zip(highs[storage], shifts[storage])]
        size = 1
        for e in extents[storage]:
            size *= e
        if size > MAX_ARRAY_ELEMENTS:
            raise InvalidProgram(f"array {storage} would have {size} elements")
        total += size
    if total > MAX_TOTAL_ELEMENTS:
        raise InvalidProgram(f"{total} array elements")
    view_shift, view_offset = {}, {}
    for view in used_views:
        array = program.array(view.storage)
        if array.rank != 1:
            continue
        dims = sim.ranges.get(view.name)
        raw_min = dims[0][0] if dims else 0
        c = max(0, -raw_min)
        view_shift[view.name] = c
        view_offset[view.name] = view.delta + shifts[array.name][0] - c
        if not 0 <= view_offset[view.name] <= extents[array.name][0]:
            raise InvalidProgram(f"view {view.name} points outside its array")
    storages = [a for a in program.arrays if a.name in lows]
    # Print every array a statement writes, executed or not.
    written = {program.storage_of(s.target.name).name for s in statements(program)
               if not program.scalar(s.target.name)}
    return Layout(extents, shifts, view_shift, view_offset, storages,
                  [v for v in program.views if v in used_views], written)


# --------------------------------------------------------------------------- rendering

def c_type(index_type: str) -> str:
    return index_type


def _literal(value: int, ctype: str) -> str:
    if ctype == "long":
        return f"{value}L" if value >= 0 else f"({value}L)"
    if ctype == "unsigned":
        return f"{value}u"
    if ctype == "size_t":
        return f"(size_t){value}"
    return str(value) if value >= 0 else f"({value})"


class _Renderer:
    def __init__(self, program: Program, sim: Simulation, lay: Layout):
        self.p = program
        self.sim = sim
        self.lay = lay
        self.shift_of: dict[str, str] = {}
        self.lines: list[str] = []

    # -- expressions ----------------------------------------------------------------
    def atom(self, name: str) -> str:
        shift = self.shift_of.get(name)
        return f"({name} - {shift})" if shift else name

    def aff(self, a: Aff) -> str:
        return a.render(self.atom)

    def bound(self, b: Bound, lower: bool, adjust: int = 0) -> str:
        if b.div > 1:
            parts = [f"({self.aff(part)}) / {b.div}" + (f" + {adjust}" if adjust > 0 else
                                                        f" - {-adjust}" if adjust < 0 else "")
                     for part in b.parts]
        else:
            parts = [self.aff(part.plus(adjust)) for part in b.parts]
        text = parts[0]
        for part in parts[1:]:
            if b.style == "macro":
                text = f"{'MAX' if lower else 'MIN'}({text}, {part})"
            else:
                cmp = ">" if lower else "<"
                text = f"(({text}) {cmp} ({part}) ? ({text}) : ({part}))"
        return text

    def ref(self, r: Ref) -> str:
        if not r.subs:
            return r.name
        view = self.p.view(r.name)
        array = self.p.storage_of(r.name)
        subs = []
        for d, sub in enumerate(r.subs):
            if view is not None and array.rank == 1:
                shift = self.lay.view_shift[r.name]
            else:
                shift = self.lay.shifts[array.name][d]
            subs.append(self.aff(sub.plus(shift)))
        return r.name + "".join(f"[{s}]" for s in subs)

    def cond(self, c: Cond) -> str:
        if c.op == "%":
            return f"({self.aff(c.lhs)}) % {c.mod} == {self.aff(c.rhs)}"
        return f"{self.aff(c.lhs)} {c.op} {self.aff(c.rhs)}"

    def stmt(self, s: Stmt) -> str:
        dtype = self.p.dtype_of(s.target.name)
        target = self.ref(s.target)
        if s.product and dtype == "double" and len(s.reads) == 2:
            return f"{target} += {self.ref(s.reads[0])} * {self.ref(s.reads[1])};"
        if dtype == "double":
            terms = [f"{DOUBLE_COEFFS[c % len(DOUBLE_COEFFS)]} * {self.ref(r)}"
                     for r, c in zip(s.reads, s.coeffs)]
            if s.iter_var:
                terms.append(f"0.125 * (double)({self.atom(s.iter_var)} % 5)")
            text = " + ".join(terms)
            const = DOUBLE_CONSTS[s.const % len(DOUBLE_CONSTS)]
            if not text:
                text = const
            else:
                text += f" - {const[1:]}" if const.startswith("-") else f" + {const}"
            return f"{target} {s.op} {text};"
        text = ""
        for r, c in zip(s.reads, s.coeffs):
            k = INT_COEFFS[c % len(INT_COEFFS)]
            read = f"({self.ref(r)} % {INT_MOD})"
            term = read if abs(k) == 1 else f"{abs(k)} * {read}"
            if not text:
                text = term if k > 0 else f"-{term}"
            else:
                text += f" + {term}" if k > 0 else f" - {term}"
        if s.iter_var:
            term = f"(int)({self.atom(s.iter_var)} % 5)"
            text = f"{text} + {term}" if text else term
        const = str(s.const % 7 + 1)
        text = f"{text} + {const}" if text else const
        return f"{target} {s.op} ({text}) % {INT_MOD};"

    # -- statements -------------------------------------------------------------------
    def emit(self, text: str, depth: int) -> None:
        self.lines.append("  " * depth + text)

    def nodes(self, nodes: list, depth: int) -> None:
        for node in nodes:
            if isinstance(node, Loop):
                self.loop(node, depth)
            elif isinstance(node, Guard):
                self.emit(f"if ({' && '.join(self.cond(c) for c in node.conds)}) {{", depth)
                self.nodes(node.body, depth + 1)
                self.emit("}", depth)
            else:
                self.emit(self.stmt(node), depth)

    def loop(self, loop: Loop, depth: int) -> None:
        v = loop.var
        prefix = f"{loop.shift} + " if loop.shift else ""
        if loop.down:
            init = prefix + self.bound(loop.upper, False)
            if loop.strict:
                test = f"{v} > {prefix}{self.bound(loop.lower, True, -1)}"
            else:
                test = f"{v} >= {prefix}{self.bound(loop.lower, True)}"
            step = f"{v}--" if loop.step == 1 else f"{v} -= {loop.step}"
        else:
            init = prefix + self.bound(loop.lower, True)
            if loop.strict:
                test = f"{v} < {prefix}{self.bound(loop.upper, False, 1)}"
            else:
                test = f"{v} <= {prefix}{self.bound(loop.upper, False)}"
            step = f"{v}++" if loop.step == 1 else f"{v} += {loop.step}"
        self.emit(f"for ({v} = {init}; {test}; {step}) {{", depth)
        saved = self.shift_of.get(v)
        if loop.shift:
            self.shift_of[v] = loop.shift
        else:
            self.shift_of.pop(v, None)
        self.nodes(loop.body, depth + 1)
        if saved:
            self.shift_of[v] = saved
        else:
            self.shift_of.pop(v, None)
        self.emit("}", depth)

    # -- the file ---------------------------------------------------------------------
    def text(self) -> str:
        p, lay = self.p, self.lay
        params = used_params(p)
        referenced = {r.name for s in statements(p) for r in refs_of(s)}
        used_scalars = [s for s in p.scalars if s.name in referenced]
        iterators = sorted({n.var for n, _ in all_nodes(p) if isinstance(n, Loop)},
                           key=lambda v: (ITERATORS.index(v) if v in ITERATORS else 99, v))
        out = [f"/* polysched fuzz (generator v{GENERATOR_VERSION}): seed {p.seed}, program {p.index} */",
               "#include <stdio.h>", "#include <stddef.h>", "",
               "#define MIN(x, y) ((x) < (y) ? (x) : (y))",
               "#define MAX(x, y) ((x) > (y) ? (x) : (y))"]
        for par in params:
            if par.kind == "define":
                value = f"{par.value}L" if abs(par.value) > 2 ** 31 - 1 else str(par.value)
                out.append(f"#define {par.name} {value if par.value >= 0 else '(' + value + ')'}")
        out.append("")
        for array in lay.storages:
            out.append(f"{array.dtype} {array.name}" + "".join(f"[{e}]" for e in lay.extents[array.name]) + ";")
        out.append("")
        args = [f"{p.param_type} {par.name}" for par in params if par.kind == "arg"]
        for view in lay.views:
            array = p.array(view.storage)
            if array.rank == 1:
                args.append(f"{array.dtype} *{view.name}")
            else:
                args.append(f"{array.dtype} {view.name}" + "".join(f"[{e}]" for e in lay.extents[array.name]))
        out.append(f"static void kernel({', '.join(args) or 'void'})")
        out.append("{")
        if iterators:
            out.append(f"  {p.iter_type} {', '.join(iterators)};")
        for s in used_scalars:
            out.append(f"  {s.dtype} {s.name} = {s.init};")
        if iterators:
            init = 7 if p.iter_type in UNSIGNED_TYPES else -7
            out.append("  " + " ".join(f"{v} = {init};" for v in iterators))
        for k, region in enumerate(p.regions):
            if k and p.glue and used_scalars:
                s = used_scalars[0]
                if s.dtype == "double":
                    out.append(f"  {s.name} = {s.name} * 0.5 + 1.0;")
                else:
                    out.append(f"  {s.name} = ({s.name} + 1) % {INT_MOD};")
            out.append("#pragma scop")
            self.lines = []
            self.nodes(region, 1)
            out.extend(self.lines)
            out.append("#pragma endscop")
        for s in used_scalars:
            fmt = "%.17g" if s.dtype == "double" else "%d"
            out.append(f'  printf("{s.name} {fmt}\\n", {s.name});')
        if p.print_iters:
            for v in iterators:
                if p.iter_type in UNSIGNED_TYPES:
                    out.append(f'  printf("{v} %lu\\n", (unsigned long){v});')
                else:
                    out.append(f'  printf("{v} %ld\\n", (long){v});')
        out.append("}")
        out.append("")
        out += self.main(params)
        return "\n".join(out) + "\n"

    def main(self, params: list[Param]) -> list[str]:
        p, lay = self.p, self.lay
        rank = max((a.rank for a in lay.storages), default=0)
        out = ["int main(void)", "{"]
        counters = [f"a{d}" for d in range(rank)]
        if counters:
            out.append(f"  long {', '.join(counters)};")
        for n, array in enumerate(lay.storages):
            ext = lay.extents[array.name]
            loops = "".join(f"for (a{d} = 0; a{d} < {e}; a{d}++) " for d, e in enumerate(ext))
            sub = "".join(f"[a{d}]" for d in range(array.rank))
            mix = " + ".join(f"a{d} * {(7, 3, 5)[d]}" for d in range(array.rank))
            if array.dtype == "double":
                value = f"(double)(({mix} + {n + 1}) % 13) * 0.125 - 0.75"
            else:
                value = f"(int)(({mix} + {n + 2}) % 17) - 8"
            out.append(f"  {loops}{array.name}{sub} = {value};")
        call = [_literal(par.value, p.param_type) for par in params if par.kind == "arg"]
        for view in lay.views:
            array = p.array(view.storage)
            if array.rank == 1:
                offset = lay.view_offset[view.name]
                call.append(f"{array.name} + {offset}" if offset else array.name)
            else:
                call.append(array.name)
        out.append(f"  kernel({', '.join(call)});")
        for array in lay.storages:
            if array.name not in lay.written:
                continue
            ext = lay.extents[array.name]
            loops = "".join(f"for (a{d} = 0; a{d} < {e}; a{d}++) " for d, e in enumerate(ext))
            sub = "".join(f"[a{d}]" for d in range(array.rank))
            fmt = "%.17g" if array.dtype == "double" else "%d"
            idx = "".join(" %ld" for _ in range(array.rank))
            args = ", ".join(f"a{d}" for d in range(array.rank))
            out.append(f'  {loops}printf("{array.name}{idx} {fmt}\\n", {args}, {array.name}{sub});')
        out += ["  return 0;", "}"]
        return out


def render(program: Program) -> str:
    """The C file of ``program``; raises :class:`InvalidProgram`."""
    if not statements(program):
        raise InvalidProgram("no statement")
    for region in program.regions:
        if not any(isinstance(n, Stmt) for n, _ in walk(region)):
            raise InvalidProgram("a region without statements")
    _check_scopes(program)
    sim = simulate(program)
    lay = layout(program, sim)
    return _Renderer(program, sim, lay).text()


def _check_scopes(program: Program) -> None:
    """Iterators used only inside their loops; names known; types consistent."""
    params = {p.name for p in program.params}
    for region in program.regions:
        for node, loops in walk(region):
            visible = {loop.var for loop in loops} | params
            affs: list[Aff] = []
            if isinstance(node, Loop):
                affs = [*node.lower.parts, *node.upper.parts]
                if node.var in {loop.var for loop in loops}:
                    raise InvalidProgram(f"loop '{node.var}' shadows an outer loop")
                if node.shift and (program.iter_type != "long" or node.shift not in params):
                    raise InvalidProgram("a shifted loop needs a 'long' iterator")
            elif isinstance(node, Guard):
                affs = [a for c in node.conds for a in (c.lhs, c.rhs)]
            elif isinstance(node, Stmt):
                affs = [a for r in refs_of(node) for a in r.subs]
                if node.iter_var and node.iter_var not in {loop.var for loop in loops}:
                    raise InvalidProgram("iterator used outside its loop")
                target_type = program.dtype_of(node.target.name)
                for ref in node.reads:
                    if target_type == "int" and program.dtype_of(ref.name) != "int":
                        raise InvalidProgram("an int statement reads double data")
                for ref in refs_of(node):
                    if program.scalar(ref.name) is None:
                        storage = program.storage_of(ref.name)
                        if storage is None or storage.rank != len(ref.subs):
                            raise InvalidProgram(f"bad reference to {ref.name}")
            for aff in affs:
                unknown = aff.names() - visible
                if unknown:
                    raise InvalidProgram(f"unknown names {sorted(unknown)}")
                for name in aff.names():
                    par = program.param(name)
                    if par is not None and abs(par.value) > 2 ** 20:
                        raise InvalidProgram("a big parameter used outside a loop shift")


# --------------------------------------------------------------------------- features

FEATURES = (
    "depth1", "depth2", "depth3", "depth4", "depth5", "depth6", "depth7",
    "literal_bounds", "param_arg", "param_define", "no_params", "triangular", "skewed",
    "minmax_macro", "minmax_ternary", "guard", "mod_guard", "downward", "strided",
    "multi_stmt", "imperfect", "reduction", "int_data", "double_data", "param_zero",
    "param_negative", "unsigned", "size_t", "long", "big_offset", "live_out_iterators",
    "aliased", "multi_region", "iterator_in_data", "div_bound", "product",
)


def features(program: Program) -> set[str]:
    """Which of :data:`FEATURES` the program exercises."""
    found: set[str] = set()
    depth = max((max_depth(r) for r in program.regions), default=0)
    if depth:
        found.add(f"depth{min(depth, 7)}")
    params = used_params(program)
    names = {p.name for p in params}
    if not params:
        found.add("no_params")
    for par in params:
        found.add("param_arg" if par.kind == "arg" else "param_define")
        if par.value == 0:
            found.add("param_zero")
        if par.value < 0:
            found.add("param_negative")
    for t in (program.param_type, program.iter_type):
        if t in ("unsigned", "size_t", "long"):
            found.add(t)
    for node, loops in all_nodes(program):
        if isinstance(node, Loop):
            outer = {loop.var for loop in loops}
            parts = node.lower.parts + node.upper.parts
            if all(not part.names() for part in parts):
                found.add("literal_bounds")
            lower_it = set().union(*(p.names() for p in node.lower.parts)) & outer
            upper_it = set().union(*(p.names() for p in node.upper.parts)) & outer
            if lower_it or upper_it:
                found.add("triangular")
            if lower_it & upper_it or any(abs(p.coeff(v)) > 1 for p in parts for v in outer):
                found.add("skewed")
            for b in (node.lower, node.upper):
                if b.div > 1:
                    found.add("div_bound")
                if len(b.parts) > 1:
                    found.add("minmax_macro" if b.style == "macro" else "minmax_ternary")
            if node.down:
                found.add("downward")
            if node.step > 1:
                found.add("strided")
            if node.shift:
                found.add("big_offset")
            kinds = {type(n) for n in node.body}
            if Stmt in kinds and (Loop in kinds or Guard in kinds):
                found.add("imperfect")
        elif isinstance(node, Guard):
            found.add("guard")
            if any(c.op == "%" for c in node.conds):
                found.add("mod_guard")
        elif isinstance(node, Stmt):
            if program.scalar(node.target.name) and node.op == "+=":
                found.add("reduction")
            if node.iter_var:
                found.add("iterator_in_data")
            if node.product and len(node.reads) == 2:
                found.add("product")
            for ref in refs_of(node):
                found.add("int_data" if program.dtype_of(ref.name) == "int" else "double_data")
    for region in program.regions:
        if sum(isinstance(n, Stmt) for n, _ in walk(region)) > 1:
            found.add("multi_stmt")
    if len(program.regions) > 1:
        found.add("multi_region")
    if program.print_iters and any(isinstance(n, Loop) for n, _ in all_nodes(program)):
        found.add("live_out_iterators")
    used = {r.name for s in statements(program) for r in refs_of(s)}
    storages: dict[str, set[str]] = {}
    for name in used:
        if program.scalar(name) is None:
            storages.setdefault(program.storage_of(name).name, set()).add(name)
    if any(len(v) > 1 for v in storages.values()):
        found.add("aliased")
    del names
    return found


# --------------------------------------------------------------------------- generation

PRODUCT_CHANCE = 0.3     # of a statement inside three or more loops, when 2-d double data exists

class _Generator:
    def __init__(self, rng: random.Random, seed: int, index: int):
        self.rng = rng
        self.seed = seed
        self.index = index
        self.statements_made = 0      # numbers product()'s own random streams

    def pick(self, weighted: dict):
        items = list(weighted)
        return self.rng.choices(items, weights=[weighted[i] for i in items])[0]

    # -- the program ----------------------------------------------------------------
    def program(self) -> Program:
        rng = self.rng
        self.param_type = self.pick({"int": 50, "long": 20, "unsigned": 15, "size_t": 15})
        self.iter_type = self.param_type
        if self.param_type == "long" and rng.random() < 0.3:
            self.iter_type = "int"
        self.unsigned = self.param_type in UNSIGNED_TYPES
        self.depth = self.pick({1: 10, 2: 22, 3: 24, 4: 16, 5: 11, 6: 9, 7: 8})
        self.params: list[Param] = []
        n_params = self.pick({0: 30, 1: 30, 2: 28, 3: 12})
        arg_names, define_names = ["n", "m", "w"], ["N", "M", "W"]
        for k in range(n_params):
            kind = "arg" if rng.random() < 0.6 else "define"
            name = (arg_names if kind == "arg" else define_names)[k]
            if self.unsigned:
                value = self.pick({0: 3, 1: 2, 2: 3, 3: 3, 4: 3, 5: 2, 7: 2, 10: 1})
            else:
                value = self.pick({-3: 1, -1: 2, 0: 3, 1: 2, 2: 3, 3: 3, 4: 3, 5: 2, 7: 2, 10: 1})
            if self.depth >= 5 and value > 3:
                value = rng.choice([1, 2, 3])
            self.params.append(Param(name, kind, value))
        self.big = None
        if self.iter_type == "long" and rng.random() < 0.4:
            self.big = Param("big" if rng.random() < 0.5 else "BIG", "arg", BIG_VALUE)
            if self.big.name == "BIG":
                self.big.kind = "define"
            self.params.append(self.big)
        # Data.
        int_only = rng.random() < 0.15
        self.arrays = []
        for k in range(self.pick({1: 20, 2: 40, 3: 30, 4: 10})):
            rank = self.pick({1: 40, 2: 45, 3: 15})
            if self.depth == 1:
                rank = min(rank, 2)
            dtype = "int" if int_only or rng.random() < 0.25 else "double"
            self.arrays.append(Array("ABCD"[k], dtype, rank))
        self.views: list[View] = []
        self.names: list[str] = []       # access names of arrays
        if rng.random() < 0.5:
            for k, array in enumerate(self.arrays):
                view = View("xyzu"[k], array.name)
                self.views.append(view)
                self.names.append(view.name)
            if rng.random() < 0.4:
                # Aliasing: a second pointer into the same storage, or the global itself.
                array = rng.choice(self.arrays)
                if rng.random() < 0.75:
                    delta = rng.choice([0, 1, -1, 2, 3]) if array.rank == 1 else 0
                    view = View("v", array.name, delta)
                    self.views.append(view)
                    self.names.append(view.name)
                else:
                    self.names.append(array.name)
        else:
            self.names = [a.name for a in self.arrays]
        self.scalars = []
        for k in range(self.pick({0: 40, 1: 45, 2: 15})):
            dtype = "int" if int_only or rng.random() < 0.3 else "double"
            self.scalars.append(Scalar(f"s{k}", dtype, "0.5" if dtype == "double" else "3"))
        n_regions = self.pick({1: 75, 2: 20, 3: 5})
        regions = [self.region(self.depth)]
        for _ in range(n_regions - 1):
            regions.append(self.region(rng.randint(1, self.depth)))
        return Program(self.seed, self.index, self.param_type, self.iter_type, self.params,
                       self.arrays, self.views, self.scalars, regions,
                       glue=rng.random() < 0.5, print_iters=rng.random() < 0.2)

    def region(self, depth: int) -> list:
        nodes = []
        if self.rng.random() < 0.1:
            nodes.append(self.stmt([]))
        nodes.append(self.loop(0, [], depth))
        if self.rng.random() < 0.25:
            nodes.append(self.loop(0, [], self.rng.randint(1, depth)))
        return nodes

    def loop(self, level: int, outer: list[Loop], remaining: int) -> Loop:
        rng = self.rng
        lower, upper = self.bounds(outer, EXTENT_BY_DEPTH[min(7, level + remaining)])
        loop = Loop(ITERATORS[level], lower, upper, [],
                    step=self.pick({1: 85, 2: 10, 3: 5}),
                    down=rng.random() < 0.15, strict=rng.random() < 0.5)
        if self.big is not None and rng.random() < 0.5:
            loop.shift = self.big.name
        inner = outer + [loop]
        if remaining > 1:
            if rng.random() < 0.25:
                loop.body.append(self.maybe_guard(self.stmt(inner), inner))
            child = self.loop(level + 1, inner, remaining - 1)
            loop.body.append(self.maybe_guard(child, inner, 0.1))
            if rng.random() < 0.25:
                loop.body.append(self.maybe_guard(self.stmt(inner), inner))
            if remaining > 2 and rng.random() < 0.1:
                loop.body.append(self.loop(level + 1, inner, rng.randint(1, remaining - 1)))
        else:
            for _ in range(self.pick({1: 50, 2: 35, 3: 15})):
                loop.body.append(self.maybe_guard(self.stmt(inner), inner))
        return loop

    def maybe_guard(self, node, loops: list[Loop], p: float = 0.15):
        if not loops or self.rng.random() >= p:
            return node
        return Guard(self.conds(loops), [node])

    # -- affine pieces ----------------------------------------------------------------
    def small_params(self) -> list[Param]:
        return [p for p in self.params if p is not self.big]

    def bounds(self, outer: list[Loop], extent: int) -> tuple[Bound, Bound]:
        lower, upper = self._bounds(outer, extent)
        if self.rng.random() < 0.08:
            # C division in a bound: '(n - 1) / 2', '(i + 3) / 2' (truncation toward zero)
            bound = upper if self.rng.random() < 0.7 else lower
            if len(bound.parts) == 1 and bound.parts[0].names():
                bound.div = self.rng.choice([2, 2, 3])
                if bound is upper:
                    bound.parts[0] = bound.parts[0].plus(self.rng.choice([0, 1, 3]))
        return lower, upper

    def _bounds(self, outer: list[Loop], extent: int) -> tuple[Bound, Bound]:
        rng = self.rng
        params = self.small_params()
        kinds = {"literal": 40, "param_upper": 15 if params else 0, "param_lower": 8 if params else 0,
                 "triangular": 15 if outer else 0, "skewed": 8 if outer else 0, "minmax": 14}
        kind = self.pick(kinds)
        c0 = rng.choice([0, 0, 1, 2])
        e = rng.randint(0, extent)
        if kind == "literal":
            return Bound([Aff.of({}, c0)]), Bound([Aff.of({}, c0 + e)])
        if kind == "param_upper":
            p = rng.choice(params)
            return Bound([Aff.of({}, c0)]), Bound([Aff.of({p.name: 1}, rng.choice([-1, 0, 0, 1, 2]))])
        if kind == "param_lower":
            p = rng.choice(params)
            c = rng.choice([0, 0, 1, 2])
            return Bound([Aff.of({p.name: 1}, c)]), Bound([Aff.of({p.name: 1}, c + e)])
        v = rng.choice(outer).var if outer else ""
        if kind == "triangular":
            if rng.random() < 0.5:
                return Bound([Aff.of({v: 1}, rng.choice([0, 1]))]), Bound([Aff.of({}, c0 + extent)])
            return Bound([Aff.of({}, c0)]), Bound([Aff.of({v: 1}, rng.choice([-1, 0, 1]))])
        if kind == "skewed":
            coeff = self.pick({1: 6, 2: 2, -1: 1})
            c = rng.choice([0, 1, 2, 4])
            return Bound([Aff.of({v: coeff}, c)]), Bound([Aff.of({v: coeff}, c + e)])
        # min / max
        style = "macro" if rng.random() < 0.5 else "ternary"
        options = [Aff.of({}, c0 + e)]
        if params:
            options.append(Aff.of({rng.choice(params).name: 1}, rng.choice([0, 1])))
        if outer:
            options.append(Aff.of({rng.choice(outer).var: 1}, rng.choice([0, 1, 2])))
        upper_parts = rng.sample(options, min(len(options), self.pick({2: 80, 3: 20})))
        if len(upper_parts) == 1:
            upper_parts.append(Aff.of({}, c0 + rng.randint(0, extent)))
        lower = Bound([Aff.of({}, c0)])
        if rng.random() < 0.5:
            lower_options = [Aff.of({}, c0)]
            if outer:
                lower_options.append(Aff.of({rng.choice(outer).var: 1}, rng.choice([-2, -1, 0])))
            if params:
                lower_options.append(Aff.of({rng.choice(params).name: 1}, rng.choice([-2, 0])))
            if len(lower_options) > 1:
                lower = Bound(rng.sample(lower_options, 2), style)
        return lower, Bound(upper_parts, style)

    def conds(self, loops: list[Loop]) -> list[Cond]:
        rng = self.rng
        conds = []
        for _ in range(self.pick({1: 80, 2: 20})):
            vs = rng.sample([l.var for l in loops], min(len(loops), rng.choice([1, 1, 2])))
            lhs = Aff.of({v: rng.choice([1, 1, -1]) if k else 1 for k, v in enumerate(vs)})
            params = self.small_params()
            kind = self.pick({"cmp": 70, "mod": 20, "eq": 10})
            if kind == "mod":
                if self.unsigned:
                    lhs = Aff.of({vs[0]: 1}, rng.choice([0, 1]))
                conds.append(Cond(lhs, "%", Aff.of({}, rng.choice([0, 0, 1])), rng.choice([2, 3])))
            elif kind == "eq":
                conds.append(Cond(lhs, "==", Aff.of({}, rng.choice([0, 1, 2, 3]))))
            else:
                rhs = Aff.of({}, rng.choice([0, 1, 2, 3, 4]))
                if params and rng.random() < 0.4:
                    rhs = Aff.of({rng.choice(params).name: 1}, rng.choice([-1, 0, 1]))
                if self.unsigned:
                    # keep both sides non-negative: 'i + c >= j' rather than 'i - j >= c'
                    lhs = Aff.of({vs[0]: 1}, rng.choice([0, 1]))
                    if len(vs) > 1:
                        rhs = Aff.of({vs[1]: 1}, rng.choice([0, 1, 2]))
                conds.append(Cond(lhs, rng.choice([">=", "<="]), rhs))
        return conds

    def subscript(self, loops: list[Loop], used: set[str]) -> Aff:
        rng = self.rng
        if not loops:
            return Aff.of({}, rng.randint(0, 3))
        free = [l.var for l in loops if l.var not in used] or [l.var for l in loops]
        # favour inner iterators
        v = free[-1] if rng.random() < 0.5 else rng.choice(free)
        used.add(v)
        kind = self.pick({"plain": 60, "sum": 14, "param": 10, "const": 8, "scaled": 8})
        c = rng.randint(-2, 2)
        if kind == "sum" and len(loops) > 1:
            w = rng.choice([l.var for l in loops if l.var != v])
            return Aff.of({v: 1, w: rng.choice([1, -1])}, c)
        if kind == "param" and self.small_params():
            p = rng.choice(self.small_params())
            return Aff.of({v: 1, p.name: rng.choice([1, -1])}, c)
        if kind == "const":
            return Aff.of({}, rng.randint(0, 3))
        if kind == "scaled":
            return Aff.of({v: rng.choice([2, -1])}, c)
        return Aff.of({v: 1}, c)

    def ref(self, name: str, loops: list[Loop]) -> Ref:
        if self.scalars and any(s.name == name for s in self.scalars):
            return Ref(name)
        used: set[str] = set()
        return Ref(name, [self.subscript(loops, used) for _ in range(self._rank(name))])

    def dtype(self, name: str) -> str:
        for s in self.scalars:
            if s.name == name:
                return s.dtype
        return next(a for a in self.arrays if a.name == self._storage(name)).dtype

    def stmt(self, loops: list[Loop]) -> Stmt:
        product = self.product(loops)
        if product is not None:
            return product
        rng = self.rng
        if self.scalars and (rng.random() < 0.25 or not loops):
            target = Ref(rng.choice(self.scalars).name)
            op = "+=" if rng.random() < 0.8 else "="
        else:
            target = self.ref(rng.choice(self.names), loops)
            op = "+=" if rng.random() < 0.3 else "="
        dtype = self.dtype(target.name)
        sources = [n for n in self.names + [s.name for s in self.scalars]
                   if (dtype == "double" or self.dtype(n) == "int")
                   and not (n == target.name and not target.subs and op == "+=")]
        reads = []
        for _ in range(self.pick({0: 10, 1: 35, 2: 35, 3: 20})):
            if not sources:
                break
            name = rng.choice(sources)
            if rng.random() < 0.2 and target.subs:
                name = target.name      # read the array it writes (a carried dependence)
            reads.append(self.ref(name, loops))
        coeffs = [rng.randrange(12) for _ in reads]
        iter_var = rng.choice(loops).var if loops and rng.random() < 0.2 else None
        return Stmt(target, reads, coeffs, op, iter_var, rng.randrange(8))


    def product(self, loops: list[Loop]) -> Stmt | None:
        """Now and then, inside at least three loops: ``X[i][j] += Y[i][k] * Z[k][j]``
        over three of them (any order, small offsets) and 2-d double arrays (maybe one
        and the same, maybe aliased views). The choice has its own random stream, so the
        programs of a seed that draw no product are those drawn before products existed."""
        self.statements_made += 1
        if len(loops) < 3:
            return None
        choice = random.Random(f"polysched-fuzz-product:{self.seed}:{self.index}:{self.statements_made}")
        names = [n for n in self.names if self.dtype(n) == "double" and self._rank(n) == 2]
        if not names or choice.random() >= PRODUCT_CHANCE:
            return None
        # mostly the three innermost loops, and inputs stored apart from the output: the
        # shapes a micro-kernel can take (the others test that none is called)
        chosen = loops[-3:] if choice.random() < 0.6 else choice.sample(loops, 3)
        i, j, k = (loop.var for loop in choice.sample(chosen, 3))

        def sub(var: str) -> Aff:
            return Aff.of({var: 1}, choice.choice([0, 0, 0, 1, -1]))
        output = choice.choice(names)
        apart = [n for n in names if self._storage(n) != self._storage(output)]
        inputs = apart if apart and choice.random() < 0.75 else names
        target = Ref(output, [sub(i), sub(j)])
        left = Ref(choice.choice(inputs), [sub(i), sub(k)])
        right = Ref(choice.choice(inputs), [sub(k), sub(j)])
        return Stmt(target, [left, right], [0, 0], "+=", product=True)

    def _storage(self, name: str) -> str:
        return name if name in "ABCD" else next(v for v in self.views if v.name == name).storage

    def _rank(self, name: str) -> int:
        return next(a for a in self.arrays if a.name == self._storage(name)).rank


def generate(seed: int, index: int) -> Program:
    """Program number ``index`` of the batch ``seed`` (always the same one)."""
    rng = random.Random(f"polysched-fuzz:{seed}:{index}")
    last = None
    for _ in range(200):
        program = _Generator(rng, seed, index).program()
        try:
            render(program)
            # Mostly programs that do something (empty ones, e.g. all loops empty for
            # a negative size, are kept now and then: they test the guards).
            if simulate(program).instances == 0 and rng.random() < 0.8:
                continue
            return program
        except InvalidProgram as err:
            last = err
    raise RuntimeError(f"no valid program for seed {seed}, index {index}: {last}")
