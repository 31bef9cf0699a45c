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
- Integer C constructs beyond affine sums (generator v3, about a quarter of the
  programs): casts (``(unsigned char)``, ``(short)``, ``(int)`` of a ``long``/``size_t``
  sum, ``(unsigned)``) that truncate for some values, unsigned arithmetic that wraps
  (``n - 3u``), shifts by constants, ``sizeof``, loops tested with ``!=`` and loops near
  ``INT_MAX``/``UINT_MAX`` or ``2**40`` (a literal offset). These are extra terms of an
  :class:`Aff` (:class:`X` trees) and :class:`Loop` fields. Every expression that has
  one, and every loop's control (start, test, step), is evaluated by :class:`CEval`,
  which models C exactly (LP64: integer promotions, usual arithmetic conversions,
  unsigned arithmetic modulo ``2**w``, truncating casts as gcc does them, division and
  ``%`` toward zero, arithmetic right shifts); signed overflow, a left shift of a
  negative value and division by zero are refused, and so is a loop that would not end
  within ``MAX_ITERATIONS`` (a ``!=`` loop started past its end, a bound that wrapped
  to ``4e9``). The text is printed from the same expression trees that are evaluated.
- C constructs of generator v4 (each drawn in about 8 % of the programs, from a stream
  of its own; ``generate(seed, index, v4={...})`` forces a set of them), added to the
  program v3 would have written:

  * ``linearised``: one-dimensional pointer parameters (``double *f``) indexed as rows:
    ``f[i * n + j]``, ``f[(i * m + j) * n + k]``, column-major ``f[i + j * n]``, the macro
    ``IDX(i, j)`` (``((i) * n + (j))``), next to plain ``f[k]``, with sizes ``n, m``
    kernel parameters of type ``int``, ``long`` or ``size_t`` (:attr:`Param.ctype`).
    Inner subscripts may leave the row (``j + 1`` with ``j < n``, ``j < m``), and linearised
    reads are put into statements of the v3 nests, whose bounds know nothing of rows.
    Such views are ``raw``: their subscripts are written as generated and the pointer is
    placed so that every element (including a negative one) lies in the allocation.
  * ``deref``: ``*sum += ...``, ``*(dst + i) = *(src + i - 1) ...`` (:attr:`Ref.style`):
    pointers that ``main`` may pass overlapping (``sum`` inside an array the loop reads,
    ``dst`` one element after ``src``). The simulation records the intermediate pointer
    ``src + i`` of ``*(src + i - 1)`` too, so it also lies in the allocation.
  * ``remainder``: ``for (i = lo; i + 4 <= hi; i += 4)`` (or down, ``i - 4 >= lo``, or
    ``i <= hi - 4``, ``i < hi - 3``) with a body unrolled by hand, followed in the same
    block by ``for (; i < hi; i++)`` (:attr:`Loop.head`, :attr:`Loop.cont`: a loop
    without initialisation continues from the iterator's current value).
  * ``enum``: ``enum { N = 8, M = N + 2, K };`` at file scope and ``enum { STEP = 3 };``
    in the kernel (parameters of kind ``"enum"``/``"enum_local"``), used in loop bounds
    (literal bounds rewritten, same value), steps (``i += STEP``), subscripts
    (``A[(i + K) % M]``, ``A[i + N - 8]``) and statement values (:attr:`Stmt.enum_term`).
- C constructs of generator v5 (likewise about 8 % each, stream "polysched-fuzz-v5";
  ``generate(seed, index, v5={...})``), added to the program v4 would have written:

  * ``cond``: ``if`` statements whose condition reads the data or is not affine, in
    loop bodies (:class:`DataIf`, one statement of polysched's model, its writes
    may-writes): clamps ``if (A[i][j] < 0.0) A[i][j] = 0.0; else if (A[i][j] > 1.5) {
    A[i][j] = 1.5; cnt++; }``, running extrema into scalars declared before the region
    and printed after (``if (A[i] > best) { best = A[i]; arg = i; }``), counters
    (``cnt++``, ``H[j]++``), conditional swaps through a scalar ``t``, and any others;
    conditions that read int or double data (:class:`Test`), mix affine and data terms
    (``i > 2 && A[i] > 0.5``) or are not affine (``i * j > n``, ``(i & 3) == j``,
    ``i % n == 0`` with ``n`` a kernel argument > 0: evaluated by :class:`CEval` in
    every instance); branches of assignments (:class:`Assign`, :class:`Stmt`),
    ``++``/``--``, nested ``if``s, ``else if`` and braces. The simulation records every
    subscript of the condition and of both branches in every instance, so all of them
    are in bounds whatever the data.
  * ``aos``: arrays of structs (:class:`Struct`, defined at file scope, one level of
    members, never unions, never used whole): ``p[i].x``, ``p[i].vel[k]`` (a member
    array, its extent chosen by the layout), ``a[i][j].re`` (2-d), ``q[i * n + j].y``
    (a raw pointer seen as rows, as v4's); the arrays global, local to ``main``
    (:attr:`Array.local`) or passed as pointers (``struct pt *pa``, ``struct cplx
    pa[13][10]``), two pointers into one array now and then (``kernel(..., R, R + 1)``:
    the run-time overlap check); members read in v3's statements too.

- C constructs of generator v6, only when asked for (``generate(seed, index, v6=True)``,
  ``polysched fuzz --generator 6``: each drawn with the chance :data:`V6_CHANCE`, one at
  least; ``v6={...}`` forces a set), added to the program v5 would have written, which
  stays what it is without them: scalars private to an iteration of a loop, the loops
  scalar expansion (:mod:`polysched.transform.expand`) targets, in nests of their own
  over arrays of their own:

  * ``scan``: ``for (j) { s = init; for (i) { Y[i][j] = a * X[i][j] + b * s; s =
    Y[i][j]; } }`` (a recurrence down each column: ``s_x[j]`` on the stack), running
    sums (``s += X[i][j]; Y[i][j] = s;``), two scalars, the inner loop backward;
  * ``dot``: ``for (i) for (j) { s = 0.0; for (k) s += A[i][k] * B[k][j]; C[i][j] = s; }``
    (the copy removed, ``C[i][j]`` accumulates: then maybe a micro-kernel call),
    transposed operands, a second accumulator;
  * ``gemm``: the same with ``C[i][j] = beta * C[i][j] + alpha * s;`` (``s_x[i][j]`` on the
    heap);
  * ``refused``: one of those the expansion must leave as it is (:data:`V6_REFUSALS`):
    no initial value (the value flows to the next iteration), live after the region
    (printed), the copy under an ``if``, a ``float`` destination, the destination read
    in the loop, the scalar behind a macro (``#define ACC acc``), an extent with a
    division (``j <= (n - 1) / 2``);

  with flat buffers through ``double *`` parameters and linearised subscripts
  (``a[i * nk + k]``, ``x[IDX(i, j)]``: v4's raw views), the scalar declared in the loop
  body (``double s = 0.0;``: :attr:`Scalar.scope` "block", :attr:`Stmt.decl`), constant
  lower bounds other than 0, int data, and sizes of 0, 1 or less. The scalars private to
  an iteration are declared with a value (or in their block) and never printed but when
  that is the point; the simulation refuses a read of a block's scalar before its
  declaration ran in that iteration, :func:`_check_blocks` a use outside its block.
  Statements are :class:`Stmt` of a few more forms (:attr:`Stmt.form`: a plain copy ``s
  = Y[i][j];``, a literal, no constant term), so the shrinker edits them as any other.

- C constructs of generator v7, only when asked for (``generate(seed, index, v7=True)``,
  ``polysched fuzz --generator 7``, which asks for v6's too: each drawn with the chance
  :data:`V7_CHANCE`, from the stream "polysched-fuzz-v7:seed:index", one at least;
  ``v7={...}`` forces a set), added to the program v6 would have written, which stays
  what it is without them: arrays declared inside the region (:class:`Local`, a node of a
  loop body or of the region's top level, the region then written as a block ``{ ...
  }``; their :class:`Array` has ``region`` set: never laid out, never printed, subscripts
  written as they are), in nests of their own over arrays of their own:

  * ``row``: ``for (i) { double tmp[K]; for (j) tmp[j] = f(X[i][j]); for (j) Y[i][j] =
    a * tmp[j] + b * tmp[K - j - 1]; }`` with ``K`` a ``#define`` or a kernel argument
    (a variable length array), ``tmp[2][K]`` now and then, ``int`` and ``float`` elements;
  * ``acc``: a matrix product blocked by hand, ``for (i) for (j = 0; j + 4 <= nj; j += 4)
    { double acc[4] = {0.0}; for (k) { acc[0] += A[i][k] * B[k][j]; ... acc[3] += ...;
    } for (jj) C[i][j + jj] = acc[jj]; }``, the list ``{1.0, 2.0}`` (the rest zero), no
    initialiser (a loop sets it), int data, an ``int hist[2][3] = {0};`` counting
    ``hist[k % 2][k % 3] += 1;`` read back into the results;
  * ``table``: a stencil multiplying a constant table into its sum, ``const double w[3]
    = {0.25, 0.5, 0.25};`` or ``const int coef[] = {1, -2, 1};`` (in a loop body or at
    the region's top), read at a loop iterator (``w[k] * X[i + k][j]``) or at constants
    (``w[0] * X[i][j] + w[1] * X[i + 1][j]``: :attr:`Stmt.form` "prod");
  * ``carry``: an array declared in an outer block (an outer loop's body or the
    region's top) whose values cross the iterations of the loops inside it, so it is
    no loop's private copy: a column carried down the rows (``carry[j] = a * carry[j] +
    b * X[i][j]``), a sliding window (``win[0] = win[1]; win[1] = win[2]; win[2] =
    X[i][j];``), a prefix (``pre[j] = pre[j - 1] + X[i][j]``).

  No element of a region array is read before it is set in the same life of the array
  (:func:`simulate` tracks the elements set since the declaration last ran, all of them
  for one with an initialiser, and refuses a read of another, or a subscript outside
  the declared extents); :func:`_check_blocks` refuses a use outside the block that
  declares it, a declaration under an ``if``, twice, with a size that names an iterator,
  an initialiser for a variable length array, a list for several dimensions other than
  ``{0}``, and a write to a ``const`` table.

- Generator v8, only when asked for (``generate(..., v8=True)``, ``polysched fuzz
  --generator 8``): v7's programs, written with declarations at the top of their regions
  (:func:`v8_layout`): the kernel's scalars with their values at the top of the first
  region, and v7's arrays of a region's top without the block around the region. The
  front end moves them before ``#pragma scop`` (scop/hoist.py).

- Generator v9, only when asked for (``generate(..., v9=True)``, ``polysched fuzz
  --generator 9``, which asks for v8's program): that program, unchanged, plus one or two
  nests of temporaries (:data:`V9_FEATURES`), drawn from the stream
  "polysched-fuzz-v9:seed:index" (:func:`_with_v9`), the scalars forward substitution
  (:mod:`polysched.transform.substitute`) targets: a nest of 1 to 3 loops (v3's bounds,
  steps, guards around inner loops) over arrays of its own whose innermost body defines 1
  to 3 temporaries (``double``, ``float``, ``int``; declared there, ``double t = e;``, or
  the kernel's, ``t = e;``) from array elements at small offsets, earlier temporaries and
  literals, read 0 to 2 times by later statements of the body that write arrays::

      double t = 0.5 * G[i - 1][j] + 0.25 * G[i + 1][j] + 1.0;
      float u = 0.75 * t + 1.5 * G[i][j];
      H[i][j] = 0.5 * t + 0.25 * u + 2.0;

  and now and then what must keep a temporary where it is: a write between a
  definition and its use to an element the definition reads, a temporary printed after
  the regions (scope "live"), a second assignment, a compound update ``t += e``, a use
  under an ``if``. An ``int`` temporary reads ``int`` data (``% 1009`` as usual), or
  converts a ``double`` sum of elements of an array nothing writes (its values those
  ``main`` sets, in [-0.75, 0.75]: :attr:`Stmt.form` "real", checked by
  :func:`_check_types`), so no conversion leaves the ``int`` range.

The structure is what the shrinker (:mod:`polysched.fuzz.shrink`) edits: nodes can be
deleted, loops unwrapped, bounds replaced by constants, and every edited program is
re-laid-out by :func:`render`, so it stays free of undefined behaviour. (A v5
:class:`DataIf` is deleted or kept whole; its expressions follow the edits of
parameters and loops through :func:`map_affs`.)
"""
from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from typing import Callable, Iterator

# Bumped whenever generate() changes which program a (seed, index) pair names.
GENERATOR_VERSION = 5
UNSIGNED_TYPES = ("unsigned", "size_t")
INDEX_TYPES = ("int", "long", "unsigned", "size_t")
INT_MOD = 1009
BIG_VALUE = 3_000_000_000           # a 'long' loop offset that does not fit in an int
MAX_INSTANCES = 40_000              # statement instances per program
MAX_ARRAY_ELEMENTS = 4_096
MAX_TOTAL_ELEMENTS = 12_000
PAD = 1                              # spare elements on each side of every array dimension
RAW_PAD = 6                          # ... of a storage a raw (v4) pointer reaches: generously
ITERATORS = ("i", "j", "k", "l", "p", "q", "r")
DOUBLE_COEFFS = ("0.5", "0.25", "0.75", "1.5", "-0.5", "0.125")
DOUBLE_CONSTS = ("1.0", "0.5", "-0.25", "2.0")
INT_COEFFS = (1, 2, 3, -1)
MAX_ITERATIONS = 400_000           # loop iterations per program (bodies run or not)
EXTRA_CHANCE = 0.27                 # programs with the integer constructs of generator v3
# The constructs of generator v4, each drawn with this chance (independently, from the
# stream "polysched-fuzz-v4:seed:index"): programs that draw none are those of v3.
V4_CHANCE = {"linearised": 0.08, "deref": 0.08, "remainder": 0.08, "enum": 0.08}
V4_KINDS = tuple(V4_CHANCE)
# The constructs of generator v5 likewise (stream "polysched-fuzz-v5:seed:index"):
# programs that draw none are those of v4.
V5_CHANCE = {"cond": 0.08, "aos": 0.08}
V5_KINDS = tuple(V5_CHANCE)
# The constructs of generator v6 (scalars private to a loop iteration), only when asked
# for (generate(..., v6=True)): each with this chance, from the stream
# "polysched-fuzz-v6:seed:index", and one of them when none is drawn.
V6_CHANCE = {"scan": 0.4, "dot": 0.35, "gemm": 0.3, "refused": 0.3}
V6_KINDS = tuple(V6_CHANCE)
V6_REFUSALS = ("no_init", "live", "guarded_copy", "float", "dest_read", "macro", "div_extent")
# The constructs of generator v7 (arrays declared in the region), only when asked for
# (generate(..., v7=True)): each with this chance, from the stream
# "polysched-fuzz-v7:seed:index", and one of them when none is drawn.
V7_CHANCE = {"row": 0.4, "acc": 0.35, "table": 0.35, "carry": 0.35}
V7_KINDS = tuple(V7_CHANCE)
# Generator v9 (temporaries of a loop body, forward substitution's targets), only when
# asked for: one nest in every program, a second with this chance.
V9_SECOND = 0.35
MAX_LOCAL_ELEMENTS = 512            # elements of an array declared in the region
# Extent of a loop (literal part) for a nest of the given depth.
EXTENT_BY_DEPTH = {1: 14, 2: 8, 3: 5, 4: 4, 5: 3, 6: 2, 7: 2}


class InvalidProgram(Exception):
    """The structure would have undefined behaviour, or is too big (the generator
    retries; the shrinker skips the candidate). ``loop``: the loop at fault, when one
    is (a ``!=`` loop that does not reach its end, an offset loop that overflows: the
    generator tries again without that feature)."""

    def __init__(self, message: str = "", loop: "Loop | None" = None):
        super().__init__(message)
        self.loop = loop


# --------------------------------------------------------------------------- structure

@dataclass(frozen=True)
class Aff:
    """``const + sum(coeff * name) + sum(coeff * X)`` over iterators and parameters;
    the ``ext`` terms are C expressions (:class:`X`: casts, unsigned arithmetic,
    shifts, ``sizeof`` ...) written between the affine terms and the constant."""

    terms: tuple[tuple[str, int], ...] = ()
    const: int = 0
    ext: tuple[tuple[int, "X"], ...] = ()

    @staticmethod
    def of(terms: dict[str, int] | None = None, const: int = 0) -> "Aff":
        return Aff(tuple((n, c) for n, c in (terms or {}).items() if c), const)

    def names(self) -> set[str]:
        names = {n for n, _ in self.terms}
        for _, x in self.ext:
            names |= x_names(x)
        return names

    def coeff(self, name: str) -> int:
        return sum(c for n, c in self.terms if n == name)

    def eval(self, env: dict[str, int]) -> int:
        """The mathematical value (only for an expression without ``ext`` terms: those
        are evaluated as C does by :class:`CEval`)."""
        if self.ext:
            raise ValueError("an expression with C terms is evaluated by CEval")
        return self.const + sum(c * env[n] for n, c in self.terms)

    def plus(self, const: int) -> "Aff":
        return Aff(self.terms, self.const + const, self.ext)

    def substitute(self, name: str, value: "Aff") -> "Aff":
        """``name`` replaced by the expression ``value``."""
        ext = tuple((c, x_map(x, lambda a: a.substitute(name, value))) for c, x in self.ext)
        k = self.coeff(name)
        if not k:
            return Aff(self.terms, self.const, ext)
        merged: dict[str, int] = {}
        for n, c in self.terms:
            if n != name:
                merged[n] = merged.get(n, 0) + c
        for n, c in value.terms:
            merged[n] = merged.get(n, 0) + k * c
        ext += tuple((k * c, x) for c, x in value.ext)
        return Aff(Aff.of(merged).terms, self.const + k * value.const, ext)

    def without(self, name: str) -> "Aff":
        return Aff(tuple((n, c) for n, c in self.terms if n != name), self.const, self.ext)

    def render(self, fmt: Callable[[str], str] = str) -> str:
        return x_text(aff_ast(self, lambda n: X("name", name=fmt(n))))


# --------------------------------------------------------------------------- C expressions

# LP64 (x86-64, aarch64 Linux): width in bits and signedness.
CTYPES = {"int": (32, True), "unsigned": (32, False), "long": (64, True), "size_t": (64, False),
          "short": (16, True), "unsigned short": (16, False), "unsigned char": (8, False)}
SIZEOF = {"char": 1, "short": 2, "int": 4, "long": 8, "double": 8, "size_t": 8}
_PREC = {"?:": 3, "||": 4, "&&": 5, "&": 8, "==": 9, "!=": 9, "<": 10, "<=": 10, ">": 10, ">=": 10,
         "<<": 11, ">>": 11, "+": 12, "-": 12, "*": 13, "/": 13, "%": 13, "neg": 14, "cast": 14}
_COMPARE = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
            ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


@dataclass(frozen=True)
class X:
    """A C expression node. ``op``: ``"lit"`` (``value`` of type ``ctype``), ``"name"``,
    ``"aff"`` (an :class:`Aff` in ``args[0]``: the structural form, expanded by
    :func:`x_expand`), ``"sizeof"`` (of ``name``, ``value`` bytes), ``"neg"``,
    ``"cast"`` (to ``ctype``), ``"paren"``, ``"?:"``, ``"MIN"``/``"MAX"`` (the macros),
    ``"IDX"`` (the macro ``IDX(a, b)``: ``((a) * name + (b))``, ``name`` the row size),
    or a binary operator (``+ - * / % << >> < <= > >= == != &&``; v5: ``&`` and, in
    conditions that are printed, not evaluated, ``||``). Printed with the parentheses
    precedence needs (:func:`x_text`), so the text parses as the tree."""

    op: str
    args: tuple = ()
    ctype: str = ""
    value: int = 0
    name: str = ""


def lit(value: int, ctype: str = "int") -> X:
    """An integer literal of ``ctype`` (or the type C gives a literal that does not fit
    it: ``long`` for a big decimal, a signed type for a negative value)."""
    if value < 0 and not CTYPES[ctype][1]:
        ctype = "int" if CTYPES[ctype][0] <= 32 else "long"
    if not _fits(value, ctype):
        ctype = {"int": "long", "unsigned": "size_t"}.get(ctype, ctype)
    if not _fits(value, ctype):
        raise InvalidProgram(f"literal {value} fits no type")
    return X("lit", ctype=ctype, value=value)


def _fits(value: int, ctype: str) -> bool:
    width, signed = CTYPES[ctype]
    return -(1 << (width - 1)) <= value < (1 << (width - 1)) if signed else 0 <= value < (1 << width)


def _lit_text(value: int, ctype: str) -> str:
    suffix = {"int": "", "long": "L", "unsigned": "u", "size_t": "UL"}[ctype]
    return f"{value}{suffix}" if value >= 0 else f"({value}{suffix})"


def x_names(x: X) -> set[str]:
    if x.op == "aff":
        return x.args[0].names()
    if x.op == "name":
        return {x.name}
    names: set[str] = {x.name} if x.op == "IDX" else set()
    for a in x.args:
        names |= x_names(a)
    return names


def x_map(x: X, fn: Callable[[Aff], Aff]) -> X:
    """``x`` with ``fn`` applied to every :class:`Aff` leaf."""
    if x.op == "aff":
        return X("aff", (fn(x.args[0]),))
    if not x.args:
        return x
    return X(x.op, tuple(x_map(a, fn) for a in x.args), x.ctype, x.value, x.name)


def x_nodes(x: X) -> Iterator[X]:
    """Every node of ``x``, including those of the expressions in its Aff leaves."""
    yield x
    if x.op == "aff":
        for _, e in x.args[0].ext:
            yield from x_nodes(e)
    for a in x.args:
        if isinstance(a, X):
            yield from x_nodes(a)


def x_expand(x: X, atom: Callable[[str], X]) -> X:
    """The printable tree: Aff leaves written out (in parentheses when compound)."""
    if x.op == "aff":
        a = x.args[0]
        tree = aff_ast(a, atom)
        return tree if len(a.terms) + len(a.ext) + bool(a.const) <= 1 else X("paren", (tree,))
    if not x.args:
        return x
    return X(x.op, tuple(x_expand(a, atom) for a in x.args), x.ctype, x.value, x.name)


def aff_ast(a: Aff, atom: Callable[[str], X]) -> X:
    """``a`` as a tree: affine terms, then C terms, then the constant, left to right
    (the text :meth:`Aff.render` has always printed)."""
    acc = None
    pieces = [(c, atom(n)) for n, c in a.terms] + [(c, x_expand(x, atom)) for c, x in a.ext]
    for c, base in pieces:
        mag = abs(c)
        if acc is None:
            if c > 0:
                acc = base if mag == 1 else X("*", (lit(mag), base))
            else:
                acc = X("neg", (base,)) if mag == 1 else X("*", (X("neg", (lit(mag),)), base))
        else:
            piece = base if mag == 1 else X("*", (lit(mag), base))
            acc = X("+" if c > 0 else "-", (acc, piece))
    if acc is None:
        return lit(a.const)
    if a.const > 0:
        acc = X("+", (acc, lit(a.const)))
    elif a.const < 0:
        acc = X("-", (acc, lit(-a.const)))
    return acc


def _prec(x: X) -> int:
    """Precedence of the printed node (16: a primary expression, which a negative
    literal is too: it is printed in parentheses)."""
    return _PREC.get(x.op, 16)


def x_text(x: X) -> str:
    op = x.op
    if op == "lit":
        return _lit_text(x.value, x.ctype)
    if op == "name":
        return x.name
    if op == "sizeof":
        return f"sizeof({x.name})"
    if op == "paren":
        return f"({x_text(x.args[0])})"
    if op in ("MIN", "MAX"):
        return f"{op}({x_text(x.args[0])}, {x_text(x.args[1])})"
    if op == "IDX":       # the macro parenthesises its arguments itself
        return "IDX(" + ", ".join(x_text(a.args[0] if a.op == "paren" else a) for a in x.args) + ")"
    if op == "neg":
        inner = x.args[0]
        text = x_text(inner)
        return f"-({text})" if _prec(inner) < 14 or text.startswith("-") else f"-{text}"
    if op == "cast":
        inner = x.args[0]
        text = x_text(inner)
        bare = inner.op in ("paren", "sizeof") or (inner.op == "lit" and inner.value < 0)
        return f"({x.ctype}){text}" if bare else f"({x.ctype})({text})"
    if op == "?:":
        c, a, b = (x_text(e) if _prec(e) > 3 else f"({x_text(e)})" for e in x.args)
        return f"{c} ? {a} : {b}"
    left, right = x.args
    p = _PREC[op]
    lt, rt = x_text(left), x_text(right)
    # parentheses where precedence needs them, around a sum under a shift or a '&'
    # (gcc -Wall), around a shift under anything and around '&&' under '||'
    shift = op in ("<<", ">>", "&")
    if _prec(left) < p or (shift and _prec(left) < 14) or left.op in ("<<", ">>") \
            or (op == "||" and left.op == "&&"):
        lt = f"({lt})"
    if _prec(right) <= p or (shift and _prec(right) < 14) or right.op in ("<<", ">>") \
            or (op == "||" and right.op == "&&"):
        rt = f"({rt})"
    return f"{lt} {op} {rt}"


def _promote(t: str) -> str:
    return "int" if CTYPES[t][0] < 32 else t


def common_type(a: str, b: str) -> str:
    """The usual arithmetic conversions (LP64)."""
    a, b = _promote(a), _promote(b)
    if a == b:
        return a
    (wa, sa), (wb, sb) = CTYPES[a], CTYPES[b]
    if sa == sb:
        return a if wa >= wb else b
    u, s = (b, a) if sa else (a, b)
    return u if CTYPES[u][0] >= CTYPES[s][0] else s


def convert(value: int, ctype: str) -> int:
    """``value`` converted to ``ctype``: modulo ``2**w`` (for a signed type, what gcc
    does with a value that does not fit: implementation-defined, not undefined)."""
    width, signed = CTYPES[ctype]
    r = value & ((1 << width) - 1)
    if signed and r >> (width - 1):
        r -= 1 << width
    return r


class CEval:
    """Evaluates :class:`X` trees as C does; ``types`` gives the C type of each name.
    Raises :class:`InvalidProgram` on undefined behaviour. ``events`` collects
    ``"truncation"`` (a cast changed a value) and ``"wraparound"`` (unsigned
    arithmetic or a conversion to an unsigned type wrapped) while ``record`` is set."""

    def __init__(self, types: dict[str, str]):
        self.types = types
        self.events: set[str] = set()
        self.record = False

    def type_of(self, x: X) -> str:
        op = x.op
        if op == "lit":
            return x.ctype
        if op == "name":
            return self.types[x.name]
        if op == "sizeof":
            return "size_t"
        if op == "cast":
            return x.ctype
        if op == "paren":
            return self.type_of(x.args[0])
        if op == "neg":
            return _promote(self.type_of(x.args[0]))
        if op in ("MIN", "MAX"):
            return common_type(self.type_of(x.args[0]), self.type_of(x.args[1]))
        if op == "?:":
            return common_type(self.type_of(x.args[1]), self.type_of(x.args[2]))
        if op in _COMPARE or op == "&&":
            return "int"
        if op in ("<<", ">>"):
            return _promote(self.type_of(x.args[0]))
        if op == "aff":
            raise ValueError("expand the tree first (x_expand)")
        if op == "IDX":
            return self.type_of(idx_tree(x))
        return common_type(self.type_of(x.args[0]), self.type_of(x.args[1]))

    def implicit(self, value: int, to_type: str) -> int:
        """An implicit conversion (usual arithmetic conversions, assignment)."""
        r = convert(value, to_type)
        if r != value and self.record:
            self.events.add("wraparound")
        return r

    def result(self, value: int, ctype: str, what: str) -> int:
        """An arithmetic result: wrapped for unsigned types, else it must fit."""
        if CTYPES[ctype][1]:
            if not _fits(value, ctype):
                raise InvalidProgram(f"signed overflow in {what}: {value} does not fit in {ctype}")
            return value
        r = convert(value, ctype)
        if r != value and self.record:
            self.events.add("wraparound")
        return r

    def __call__(self, x: X, env: dict[str, int]) -> tuple[int, str]:
        op = x.op
        if op == "name":
            return env[x.name], self.types[x.name]
        if op == "lit":
            return x.value, x.ctype
        if op == "paren":
            return self(x.args[0], env)
        if op in ("+", "-", "*", "/", "%"):
            a, ta = self(x.args[0], env)
            b, tb = self(x.args[1], env)
            t = common_type(ta, tb)
            a, b = self.implicit(a, t), self.implicit(b, t)
            if op == "+":
                r = a + b
            elif op == "-":
                r = a - b
            elif op == "*":
                r = a * b
            else:
                if b == 0:
                    raise InvalidProgram("division by zero")
                r = c_div(a, b) if op == "/" else c_mod(a, b)
            return self.result(r, t, f"'{x_text(x)}'"), t
        if op == "sizeof":
            return x.value, "size_t"
        if op == "IDX":
            return self(idx_tree(x), env)
        if op == "cast":
            v, t = self(x.args[0], env)
            r = convert(v, x.ctype)
            if r != v and self.record:
                self.events.add("truncation")
            return r, x.ctype
        if op == "neg":
            v, t = self(x.args[0], env)
            t = _promote(t)
            v = self.implicit(v, t)
            return self.result(-v, t, f"'{x_text(x)}'"), t
        if op in _COMPARE:
            a, ta = self(x.args[0], env)
            b, tb = self(x.args[1], env)
            t = common_type(ta, tb)
            return int(_COMPARE[op](self.implicit(a, t), self.implicit(b, t))), "int"
        if op in ("<<", ">>"):
            a, ta = self(x.args[0], env)
            b, tb = self(x.args[1], env)
            ta = _promote(ta)
            a = convert(a, ta)
            width, signed = CTYPES[ta]
            if not 0 <= b < width:
                raise InvalidProgram(f"shift by {b} in '{x_text(x)}'")
            if op == ">>":
                return a >> b, ta              # gcc: arithmetic shift of a negative value
            if signed and a < 0:
                raise InvalidProgram(f"left shift of the negative value {a} in '{x_text(x)}'")
            return self.result(a << b, ta, f"'{x_text(x)}'"), ta
        if op in ("MIN", "MAX"):
            a, ta = self(x.args[0], env)
            b, tb = self(x.args[1], env)
            t = common_type(ta, tb)
            a, b = self.implicit(a, t), self.implicit(b, t)
            return (a if (a < b if op == "MIN" else a > b) else b), t
        if op == "&":           # v5: '(i & 3) == 0' (two's complement, as gcc does)
            a, ta = self(x.args[0], env)
            b, tb = self(x.args[1], env)
            t = common_type(ta, tb)
            return convert(self.implicit(a, t) & self.implicit(b, t), t), t
        if op == "?:":
            c, _ = self(x.args[0], env)
            t = self.type_of(x)
            v, tv = self(x.args[1] if c else x.args[2], env)
            return self.implicit(v, t), t
        if op == "&&":
            a, _ = self(x.args[0], env)
            if not a:
                return 0, "int"
            b, _ = self(x.args[1], env)
            return int(bool(b)), "int"
        raise ValueError(f"cannot evaluate {op!r} (expand the tree first)")


def idx_tree(x: X) -> X:
    """What the macro ``IDX(a, b)`` expands to: ``(a) * name + (b)``."""
    a, b = x.args
    return X("+", (X("*", (X("paren", (a,)), X("name", name=x.name))), X("paren", (b,))))


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
    ``shift +`` the structural one: bounds get ``shift +``, uses get ``(v - shift)``;
    ``offset`` does the same with a literal (``for (i = 2147483600; i < 2147483647;
    i++)`` and ``A[i - 2147483600]``). With ``ne`` (step 1) the test is ``v != end``
    with the end exclusive: ``v != upper + 1`` (``v != lower - 1`` when ``down``).

    Generator v4: with ``head`` the test is ``v + head <= upper`` (``v - head >= lower``
    when ``down``; ``<``/``>`` with ``strict``), the form of a loop unrolled by hand;
    with ``cont`` the loop has no initialisation (``for (; v < upper + 1; v++)``): it
    continues from the iterator's current value, a remainder loop (its ``lower`` bound,
    ``upper`` when ``down``, is not written); ``step_name`` is an enumeration constant
    written for the step when it stands for ``step``."""

    var: str
    lower: Bound
    upper: Bound
    body: list
    step: int = 1
    down: bool = False
    strict: bool = False
    shift: str | None = None
    ne: bool = False
    offset: int = 0
    head: int = 0
    cont: bool = False
    step_name: str = ""


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
    """An array element (``subs`` one per dimension) or a scalar (``subs == []``).
    ``style="deref"`` (a rank-1 pointer, a subscript of at most one term and a
    constant): written ``*(x + i - 1)``, ``*x`` for the subscript 0."""

    name: str
    subs: list[Aff] = field(default_factory=list)
    style: str = ""     # v6 also: "macro", a scalar written through its macro (Scalar.macro)
    # v5: a member of an array of structs, ``name[s0][s1].member[s2]``: ``subs`` are the
    # array's subscripts, then those of the member (an array member)
    member: str = ""


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
    enum_term: tuple[str, int] | None = None   # (enumeration constant, its value): one more term
    # generator v6: ``form`` "copy" (``target = reads[0];``: scalar expansion maps a copy
    # into its destination only when the right side is the scalar alone), "lit"
    # (``target = value;``, an accumulator's initial value; also a copy whose read the
    # shrinker deleted) or "noconst" (the terms without the constant: ``C[i][j] = 0.5 *
    # C[i][j] + 1.5 * s;``, the gemm the tensorizer knows); ``decl``: written as the
    # declaration of a scalar of the loop body (``double s = 0.0;``, scope "block").
    # generator v7: "lit" also with ``+=`` (``hist[k % 2][k % 3] += 1;``), and "prod":
    # products of the reads taken two by two (``w[0] * X[i][j] + w[1] * X[i + 1][j]``; an
    # int statement takes each factor ``% 1009``)
    # generator v9: "real", an int target of a double expression (``int t = 0.5 *
    # W[i][j] + 1.0;``: converted), reading only arrays nothing writes (:func:`_check_types`)
    form: str = ""
    value: str = ""
    decl: bool = False


@dataclass
class Test:
    """Generator v5: the condition of a :class:`DataIf` (or a part of it): ``op`` (a
    comparison, ``&&``, ``||``, or ``+ - %`` of data) over ``args``, each a
    :class:`Test`, a :class:`Ref` (data read), an :class:`Aff` (an integer expression of
    iterators and parameters; C terms make it non-affine: ``i * j``, ``i & 3``, ``i % n``)
    or a ``str`` (a literal of the data's type)."""

    op: str
    args: list


@dataclass
class Assign:
    """Generator v5: ``target op value;`` in a branch of a :class:`DataIf`: ``op`` is
    ``=``, ``+=`` or ``-=`` (``value`` a :class:`Ref`, an :class:`Aff` or a literal
    ``str``), or ``++``/``--`` (``target++;``), ``pre++``/``pre--`` (``++target;``)."""

    target: Ref
    op: str
    value: object = None


@dataclass
class DataIf:
    """Generator v5: ``if (test) then else other`` whose condition reads the data or is
    not affine, inside a loop body: one statement of polysched's model (its writes are
    may-writes). ``then`` and ``other`` hold :class:`Assign`, :class:`Stmt` (without
    ``iter_var``) and nested :class:`DataIf` nodes; ``other`` is ``None`` (no ``else``)
    or a list, ``[DataIf]`` written ``else if``. ``braces``: branches in braces even
    when they are one statement (a branch holding an ``if`` always is); ``kind``: what
    the generator made (``clamp``, ``extremum``, ``count``, ``swap``, ``general``).

    Every :class:`Ref` object appears once in the tree; the simulation and the layout
    take every subscript of both branches and of the condition, whatever the data, so
    all of them are in bounds. Like a :class:`Stmt`, it has ``target`` (its first
    write) and ``reads`` (every other reference), which the shrinker edits in place."""

    test: Test
    then: list
    other: list | None = None
    braces: bool = True
    kind: str = ""

    def ifs(self) -> Iterator["DataIf"]:
        """This ``if`` and every ``if`` inside it."""
        yield self
        for item in self.then + (self.other or []):
            if isinstance(item, DataIf):
                yield from item.ifs()

    def items(self) -> Iterator[object]:
        """Every assignment (:class:`Assign`, :class:`Stmt`) of the branches, nested ones too."""
        for node in self.ifs():
            for item in node.then + (node.other or []):
                if not isinstance(item, DataIf):
                    yield item

    def tests(self) -> Iterator[Test]:
        """Every :class:`Test` node of the conditions."""
        def walk_test(t: Test) -> Iterator[Test]:
            yield t
            for a in t.args:
                if isinstance(a, Test):
                    yield from walk_test(a)
        for node in self.ifs():
            yield from walk_test(node.test)

    def refs(self) -> list[Ref]:
        """Every reference: the conditions' reads, then the branches' (in text order)."""
        out: list[Ref] = []

        def test_refs(t: Test) -> None:
            for a in t.args:
                if isinstance(a, Test):
                    test_refs(a)
                elif isinstance(a, Ref):
                    out.append(a)

        def visit(node: "DataIf") -> None:
            test_refs(node.test)
            for item in node.then + (node.other or []):
                if isinstance(item, DataIf):
                    visit(item)
                elif isinstance(item, Assign):
                    out.append(item.target)
                    if isinstance(item.value, Ref):
                        out.append(item.value)
                else:
                    out.extend([item.target, *item.reads])
        visit(self)
        return out

    def targets(self) -> list[Ref]:
        return [item.target for item in self.items()]

    def affs(self) -> list[Aff]:
        """The integer expressions of the conditions and of the assigned values (not
        the subscripts)."""
        found = [a for t in self.tests() for a in t.args if isinstance(a, Aff)]
        return found + [item.value for item in self.items() if isinstance(item, Assign)
                        and isinstance(item.value, Aff)]

    def map_affs(self, fn: Callable[[Aff], Aff]) -> None:
        for ref in self.refs():
            ref.subs = [fn(a) for a in ref.subs]
        for t in self.tests():
            t.args = [fn(a) if isinstance(a, Aff) else a for a in t.args]
        for item in self.items():
            if isinstance(item, Assign) and isinstance(item.value, Aff):
                item.value = fn(item.value)

    @property
    def target(self) -> Ref:
        return self.targets()[0]

    @property
    def reads(self) -> list[Ref]:
        first = self.target
        return [r for r in self.refs() if r is not first]


@dataclass
class Param:
    """A size: ``kind`` ``"arg"`` (an ``int``/... parameter of the kernel) or
    ``"define"`` (a ``#define``); generator v4: an ``"arg"`` of its own type ``ctype``
    (else the program's ``param_type``), or an enumeration constant (``"enum"`` at file
    scope, ``"enum_local"`` in the kernel) defined by ``init``: ``("lit",)``,
    ``("ref", other, d)`` (``other + d``) or ``("next", previous)`` (no initialiser)."""

    name: str
    kind: str
    value: int
    ctype: str = ""
    init: tuple = ()


@dataclass
class Array:
    """Storage: a global array of ``main``'s file (extents chosen by :func:`layout`).
    Generator v5: ``dtype`` ``"struct tag"`` (an array of structs, :class:`Struct`), and
    ``local``: declared in ``main`` (the kernel reaches it through its pointers only)."""

    name: str
    dtype: str
    rank: int
    local: bool = False
    # v7: declared inside a region by a :class:`Local` node (its extents are the
    # declaration's); ``v7``: the features of the construct it belongs to
    region: bool = False
    v7: tuple[str, ...] = ()


@dataclass
class Local:
    """Generator v7: ``double tmp[K];`` in a loop body or at the top of a region: the
    declaration of the array ``name`` (an :class:`Array` with ``region`` set, which
    gives the type and rank). ``dims``: the extents (literals, ``#define``s, kernel
    arguments: a variable length array); ``init``: the initialiser's elements
    (``("0.0",)`` is ``{0.0}``; None: none); ``const``: a table only read; ``unsized``:
    written ``w[] = {...}`` (its extent the list's length, ``dims`` empty)."""

    name: str
    dims: list[Aff]
    init: tuple[str, ...] | None = None
    const: bool = False
    unsized: bool = False


@dataclass
class Struct:
    """Generator v5: ``struct tag { double x; double vel[4]; int key; };`` at file
    scope: ``members`` are (name, dtype, rank); the extents of a member array are
    chosen by :func:`layout` (from its subscripts in every array of the type)."""

    tag: str
    members: list[tuple[str, str, int]]

    def member(self, name: str) -> tuple[str, str, int] | None:
        return next((m for m in self.members if m[0] == name), None)


@dataclass
class View:
    """A kernel parameter that points into the storage ``storage`` (rank-1 views at
    element offset ``delta``; rank >= 2 views are the whole array)."""

    name: str
    storage: str
    delta: int = 0
    raw: bool = False        # v4: subscripts written as generated (the pointer placed instead)


@dataclass
class Scalar:
    """A scalar of the kernel. ``scope`` "" (v3's): declared with ``init`` at the top of
    the kernel, printed after the regions, written between them (``glue``). Generator
    v6's scalars private to a loop iteration: "kernel" (declared with ``init`` at the
    top, never mentioned outside the regions: dead after them, as expansion needs),
    "live" (likewise, but printed after the regions: a refusal) and "block" (declared by
    a statement of a loop body, :attr:`Stmt.decl`; not at the top). ``v6``: the features
    of the construct it belongs to (see :func:`v6_features`); ``macro``: the name of a
    macro standing for it (``#define ACC acc``), used by references of style "macro"."""

    name: str
    dtype: str
    init: str
    scope: str = ""
    v6: tuple[str, ...] = ()
    macro: str = ""
    # generator v9: the features of the nest of temporaries it belongs to (V9_FEATURES)
    v9: tuple[str, ...] = ()


@dataclass
class Table:
    """A global array only ``sizeof`` looks at (``short tbl[12];``)."""

    name: str
    dtype: str
    dims: tuple[int, ...]


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
    tables: list[Table] = field(default_factory=list)
    structs: list[Struct] = field(default_factory=list)     # v5
    version: int = GENERATOR_VERSION    # the generator that wrote it (6: generate(..., v6=...); 7: v7; 8, 9)
    # generator v8: the kernel's scalars declared at the top of its first region, and
    # the region arrays of a region's top declared there without a block around it
    v8: bool = False

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

    def struct_of(self, array: Array | None) -> Struct | None:
        """The struct an array of structs holds (None: not one)."""
        if array is None or not array.dtype.startswith("struct "):
            return None
        return next((s for s in self.structs if s.tag == array.dtype[7:]), None)

    def ref_dtype(self, ref: Ref) -> str:
        """The data type of a reference (a member's own type for a struct member)."""
        if ref.member:
            return self.struct_of(self.storage_of(ref.name)).member(ref.member)[1]
        return self.dtype_of(ref.name)

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


def statements(program: Program) -> list:
    """The statements of the model: :class:`Stmt` and (v5) :class:`DataIf` nodes."""
    return [n for n, _ in all_nodes(program) if isinstance(n, (Stmt, DataIf))]


def refs_of(stmt) -> list[Ref]:
    if isinstance(stmt, DataIf):
        return stmt.refs()
    return [stmt.target, *stmt.reads]


def written_refs(stmt) -> list[Ref]:
    return stmt.targets() if isinstance(stmt, DataIf) else [stmt.target]


def ref_key(ref: Ref) -> str:
    """What the simulation records a reference's subscripts under (``p.x`` for a member)."""
    return f"{ref.name}.{ref.member}" if ref.member else ref.name


def map_affs(nodes: list, fn: Callable[[Aff], Aff]) -> None:
    """Replace, in place, every affine expression of ``nodes`` (loop bounds, guard
    sides, subscripts) by ``fn`` of it."""
    for node, _ in walk(nodes):
        if isinstance(node, Loop):
            node.lower.parts = [fn(a) for a in node.lower.parts]
            node.upper.parts = [fn(a) for a in node.upper.parts]
        elif isinstance(node, Guard):
            for cond in node.conds:
                cond.lhs, cond.rhs = fn(cond.lhs), fn(cond.rhs)
        elif isinstance(node, Stmt):
            for ref in refs_of(node):
                ref.subs = [fn(a) for a in ref.subs]
        elif isinstance(node, DataIf):
            node.map_affs(fn)
        elif isinstance(node, Local):
            node.dims = [fn(a) for a in node.dims]


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
        elif isinstance(node, DataIf):
            yield from node.affs()
            for ref in node.refs():
                yield from ref.subs
        elif isinstance(node, Local):
            yield from node.dims


def used_params(program: Program) -> list[Param]:
    names: set[str] = set()
    for aff in affs_of(program):
        names |= aff.names()
    for node, _ in all_nodes(program):
        if isinstance(node, Loop):
            if node.shift:
                names.add(node.shift)
            if step_name(program, node):
                names.add(node.step_name)
        elif isinstance(node, Stmt) and node.enum_term and program.param(node.enum_term[0]):
            names.add(node.enum_term[0])
    return [p for p in program.params if p.name in names]


def step_name(program: Program, loop: Loop) -> str:
    """The enumeration constant written for the loop's step ("" when the step is a
    literal: none, or it no longer stands for the step, e.g. after the shrinker's edits)."""
    par = program.param(loop.step_name) if loop.step_name else None
    return loop.step_name if par is not None and par.value == loop.step else ""


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
    # access name (v5: "name.member" for a struct member, its dimensions then the
    # member's) -> per dimension [min, max] of the structural subscript values
    ranges: dict[str, list[list[int]]]
    accessed: set[str]
    written: set[str]
    # "truncation" / "wraparound" where the C constructs of generator v3 did so
    events: set[str] = field(default_factory=set)
    # iterator -> its C value after the regions (what print_iters prints)
    final: dict[str, int] = field(default_factory=dict)


# -- the trees both simulate() and the renderer use (so the text is what is evaluated)

def shifted_atom(shifts: dict[str, X]) -> Callable[[str], X]:
    """How a name is used: ``i``, or ``(i - big)`` / ``(i - 2147483600)`` inside a
    shifted loop."""
    def atom(name: str) -> X:
        s = shifts.get(name)
        return X("name", name=name) if s is None else X("paren", (X("-", (X("name", name=name), s)),))
    return atom


def loop_shift(loop: Loop, iter_type: str) -> X | None:
    if loop.shift:
        return X("name", name=loop.shift)
    if loop.offset:
        return lit(loop.offset, iter_type)
    return None


def bound_ast(b: Bound, lower: bool, atom: Callable[[str], X], adjust: int = 0) -> X:
    parts = []
    for part in b.parts:
        if b.div > 1:
            tree = X("/", (X("paren", (aff_ast(part, atom),)), lit(b.div)))
            if adjust:
                tree = X("+" if adjust > 0 else "-", (tree, lit(abs(adjust))))
        else:
            tree = aff_ast(part.plus(adjust), atom)
        parts.append(tree)
    acc = parts[0]
    for part in parts[1:]:
        if b.style == "macro":
            acc = X("MAX" if lower else "MIN", (acc, part))
        else:
            a, p = X("paren", (acc,)), X("paren", (part,))
            acc = X("paren", (X("?:", (X(">" if lower else "<", (a, p)), a, p)),))
    return acc


def _prepend(first: X, tree: X) -> X:
    """``first + tree`` written without parentheses (``big + n - 1``)."""
    if tree.op in ("+", "-") and len(tree.args) == 2:
        return X(tree.op, (_prepend(first, tree.args[0]), tree.args[1]))
    return X("+", (first, tree))


def loop_header(loop: Loop, atom: Callable[[str], X], iter_type: str) -> tuple[X, str, X]:
    """``for (v = init; v op end; ...)``: (init, op, end)."""
    pre = loop_shift(loop, iter_type)

    def side(b: Bound, lower: bool, adjust: int = 0) -> X:
        if loop.offset and len(b.parts) == 1 and b.div == 1 and not b.parts[0].names() \
                and not b.parts[0].ext:
            return lit(loop.offset + b.parts[0].const + adjust, iter_type)
        tree = bound_ast(b, lower, atom, adjust)
        return tree if pre is None else _prepend(pre, tree)

    if loop.down:
        init = side(loop.upper, False)
        if loop.ne:
            return init, "!=", side(loop.lower, True, -1)
        if loop.strict:
            return init, ">", side(loop.lower, True, -1)
        return init, ">=", side(loop.lower, True)
    init = side(loop.lower, True)
    if loop.ne:
        return init, "!=", side(loop.upper, False, 1)
    if loop.strict:
        return init, "<", side(loop.upper, False, 1)
    return init, "<=", side(loop.upper, False)


def loop_test(loop: Loop, op: str, end: X, iter_type: str) -> X:
    """The loop's test: ``v op end``, or ``v + head op end`` (``v - head``: down)."""
    lhs = X("name", name=loop.var)
    if loop.head:
        lhs = X("-" if loop.down else "+", (lhs, lit(loop.head)))
    return X(op, (lhs, end))


def cond_ast(c: Cond, atom: Callable[[str], X]) -> X:
    if c.op == "%":
        return X("==", (X("%", (X("paren", (aff_ast(c.lhs, atom),)), lit(c.mod))), aff_ast(c.rhs, atom)))
    return X(c.op, (aff_ast(c.lhs, atom), aff_ast(c.rhs, atom)))


def program_types(program: Program) -> dict[str, str]:
    """The C type of every name: a kernel argument has the parameter type, a
    ``#define`` the type of its literal (``int``, or ``long`` when written ``...L``)."""
    types = {p.name: (p.ctype or program.param_type) if p.kind == "arg"
             else "int" if _fits(p.value, "int") else "long" for p in program.params}
    for node, _ in all_nodes(program):
        if isinstance(node, Loop):
            types[node.var] = program.iter_type
    return types


def simulate(program: Program) -> Simulation:
    """Run the loop structure at the program's parameter values; raise
    :class:`InvalidProgram` for undefined behaviour or a program too big.

    Affine expressions are evaluated over the integers (``env``: structural values),
    where the generator keeps them exact (checks below); the loops' control and every
    expression with C terms are evaluated as C does (``cenv``: the C values)."""
    env = {p.name: p.value for p in program.params}
    cenv = dict(env)
    it = program.iter_type
    ceval = CEval(program_types(program))
    unsigned = program.unsigned()
    ranges: dict[str, list[list[int]]] = {}
    accessed: set[str] = set()
    written: set[str] = set()
    count = 0
    iterations = 0
    limit = 2 ** 31 - 1
    compiled: dict[int, tuple] = {}
    start = 7 if it in UNSIGNED_TYPES else -7          # the renderer's initial values
    raw_views = {v.name: v.raw for v in program.views}
    # v6: the scalars declared in loop bodies ('double s = 0.0;'), and those whose
    # declaration ran in the current iteration of their body: a read of one that is
    # not would read an uninitialised value
    block = {sc.name for sc in program.scalars if sc.scope == "block"}
    initialised: set[str] = set()
    # v7: the arrays declared in the regions: their extents when their declaration last
    # ran, and the elements set since (None: all, an initialiser set them)
    regional = {a.name for a in program.arrays if a.region}
    local_dims: dict[str, tuple[int, ...]] = {}
    local_set: dict[str, set | None] = {}

    def check(value: int, what: str) -> int:
        if unsigned and not 0 <= value <= limit:
            raise InvalidProgram(f"{what} is {value} in an unsigned program")
        if not -limit <= value <= limit:
            raise InvalidProgram(f"{what} is {value}: out of int range")
        return value

    def legacy_bound(b: Bound, lower: bool, down: bool, strict: bool) -> None:
        # affine parts stay in range (and >= 0 in unsigned programs), as before v3
        for part in b.parts:
            if part.ext:
                continue
            v = check(part.eval(env), "a loop bound")
            if b.div > 1:
                v = c_div(v, b.div)
            if strict and unsigned and lower and down:
                check(v - 1, "a loop bound")   # written 'v > lower - 1'

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

    def atom_for(loops: tuple) -> Callable[[str], X]:
        shifts: dict[str, X] = {}
        for loop in loops:
            s = loop_shift(loop, it)
            if s is None:
                shifts.pop(loop.var, None)
            else:
                shifts[loop.var] = s
        return shifted_atom(shifts)

    def compile_node(node, loops: tuple) -> tuple:
        atom = atom_for(loops)
        if isinstance(node, Loop):
            init, op, end = loop_header(node, atom, it)
            extra = bool(node.ne or node.offset or any(p.ext for p in node.lower.parts + node.upper.parts))
            off = node.offset or (program.param(node.shift).value if node.shift else 0)
            return init, op, end, extra, off, loop_test(node, op, end, it).args[0]
        if isinstance(node, Guard):
            return tuple((c, cond_ast(c, atom) if c.lhs.ext or c.rhs.ext else None) for c in node.conds)
        out = []
        for ref in refs_of(node):
            # a raw view's subscript is written as it is: where C computes it in an
            # unsigned type, a negative value would be a huge one (not so '*(x + i - 1)':
            # pointer arithmetic, term by term)
            raw = raw_views.get(ref.name, False) and ref.style != "deref" and \
                any(ceval.types.get(n) in UNSIGNED_TYPES for sub in ref.subs for n in sub.names())
            out.append((ref, tuple((sub, aff_ast(sub, atom) if sub.ext else None) for sub in ref.subs), raw))
        if isinstance(node, DataIf):
            # v5: the integer expressions of the conditions (and values) are evaluated
            # in every instance (short-circuits aside): none may overflow or divide by 0
            return tuple(out), tuple(aff_ast(a, atom) for a in node.affs())
        return tuple(out)

    def trips(v: int, op: str, end: int, t: str, step: int) -> int | None:
        """How many times at most the test holds before the iterator wraps (None:
        never false: '!=' started past its end)."""
        if op == "!=":
            d = (end - v) if step > 0 else (v - end)
            if not CTYPES[t][1]:
                d %= 1 << CTYPES[t][0]
            return d if d >= 0 else None
        if not _COMPARE[op](v, end):
            return 0
        return abs(end - v) // abs(step) + 1

    def run_loop(node: Loop, loops: tuple) -> None:
        nonlocal iterations
        c = compiled.get(id(node))
        if c is None:
            c = compiled[id(node)] = compile_node(node, loops)
        init, op, end, extra, off, lhs = c
        legacy_bound(node.lower, True, node.down, node.strict)
        legacy_bound(node.upper, False, node.down, node.strict)
        ceval.record = extra
        var = node.var
        if node.cont:           # a remainder loop: from where the iterator is
            v = cenv.get(var, start)
        else:
            v0, _ = ceval(init, cenv)
            v = convert(v0, it)
            if v != v0 and extra:
                ceval.events.add("truncation" if CTYPES[it][1] else "wraparound")
        e, te = ceval(end, cenv)
        tl = ceval.type_of(X("name", name=var)) if not node.head else common_type(it, "int")
        t = common_type(tl, te)
        e = ceval.implicit(e, t)
        step = -node.step if node.down else node.step

        def tested(v: int) -> int:
            """The left side of the test ('v', or 'v + head' as C computes it)."""
            if not node.head:
                return v
            cenv[var] = v
            return ceval(lhs, cenv)[0]

        def estimate(v: int) -> None:
            n = trips(ceval.implicit(tested(v), t), op, e, t, step)
            if n is None or n > MAX_ITERATIONS:
                raise InvalidProgram(f"loop '{var}' would not end soon (from {v}, '{op}' {e})", loop=node)
        estimate(v)
        compare = _COMPARE[op]
        signed = CTYPES[it][1]
        inner = loops + (node,)
        while True:
            ceval.record = extra
            if not compare(ceval.implicit(tested(v), t), e):
                break
            iterations += 1
            if iterations > MAX_ITERATIONS:
                raise InvalidProgram("too many loop iterations", loop=node)
            cenv[var] = v
            env[var] = v - off
            run(node.body, inner)
            if block:           # their lifetime ends with the iteration
                initialised.difference_update(n.target.name for n in node.body
                                              if isinstance(n, Stmt) and n.decl)
            nv = v + step
            if signed:
                if not _fits(nv, it):
                    raise InvalidProgram(f"signed overflow: loop '{var}' steps from {v} past the {it} range",
                                         loop=node)
                v = nv
            else:
                v = convert(nv, it)
                if v != nv:
                    if extra:
                        ceval.events.add("wraparound")
                    estimate(v)
        cenv[var] = v
        env[var] = v - off
        if not node.ne:
            check(v - off, f"the exit value of loop '{var}'")

    def declare(node: Local) -> None:
        """v7: a declaration runs: a new array (of the extents it has now)."""
        dims = tuple(check(a.eval(env), "an extent") for a in node.dims) if not node.unsized \
            else (len(node.init or ()),)
        if any(d < 1 for d in dims):
            raise InvalidProgram(f"'{node.name}' declared with the extents {list(dims)}")
        local_dims[node.name] = dims
        local_set[node.name] = None if node.init is not None else set()

    def local_value(sub: Aff, tree: X | None) -> int:
        if tree is None:
            return sub.eval(env)
        ceval.record = True
        value, t = ceval(tree, cenv)
        width, signed = CTYPES[_promote(t)]
        if not signed and value >> (width - 1):
            value -= 1 << width
        return value

    def check_locals(node, found: list) -> None:
        """v7: every element of an array of the region inside its extents, and set
        before it is read (the target of an assignment is only written)."""
        write_only = isinstance(node, Stmt) and node.op == "=" and not node.product
        for k, ref, idx in found:
            dims = local_dims.get(ref.name)
            if dims is None:
                raise InvalidProgram(f"'{ref.name}' used before its declaration ran")
            if len(idx) != len(dims) or not all(0 <= v < d for v, d in zip(idx, dims)):
                raise InvalidProgram(f"{ref.name}{list(idx)} outside its extents {list(dims)}")
            done = local_set[ref.name]
            if not (k == 0 and write_only) and done is not None and idx not in done:
                raise InvalidProgram(f"{ref.name}{list(idx)} read before it is set")
        for k, ref, idx in found:
            done = local_set[ref.name]
            if k == 0 and done is not None:
                done.add(idx)

    def run(nodes: list, loops: tuple) -> None:
        nonlocal count
        for node in nodes:
            if isinstance(node, Loop):
                run_loop(node, loops)
                continue
            if isinstance(node, Local):
                declare(node)
                continue
            c = compiled.get(id(node))
            if c is None:
                c = compiled[id(node)] = compile_node(node, loops)
            if isinstance(node, Guard):
                holds = True
                for cond, tree in c:
                    if tree is None:
                        holds = cond_holds(cond)
                    else:
                        ceval.record = True
                        holds = bool(ceval(tree, cenv)[0])
                    if not holds:
                        break
                if holds:
                    run(node.body, loops)
                continue
            count += 1
            if count > MAX_INSTANCES:
                raise InvalidProgram("too many statement instances")
            if block:
                refs = refs_of(node)
                if isinstance(node, Stmt) and node.op == "=" and not node.product:
                    refs = node.reads       # the target is only written
                for ref in refs:
                    if ref.name in block and ref.name not in initialised:
                        raise InvalidProgram(f"'{ref.name}' read before it is set")
                if isinstance(node, Stmt) and node.decl:
                    initialised.add(node.target.name)
            data_if = isinstance(node, DataIf)
            if data_if:
                c, trees = c
                for tree in trees:
                    ceval.record = False
                    ceval(tree, cenv)
                written.update(r.name for r in node.targets())
            found = []
            for k, (ref, subs, raw) in enumerate(c):
                accessed.add(ref.name)
                if k == 0 and not data_if:
                    written.add(ref.name)
                if not subs:
                    continue
                if regional and ref.name in regional:
                    found.append((k, ref, tuple(local_value(sub, tree) for sub, tree in subs)))
                    continue
                key = ref_key(ref)
                dims = ranges.get(key)
                if dims is None:
                    dims = ranges[key] = [[None, None] for _ in subs]
                for d, (sub, tree) in enumerate(subs):
                    if tree is None:
                        value = sub.eval(env)
                    else:
                        # C's value; an unsigned one as the nearest negative number when
                        # it wrapped (the layout's shift brings it back: sums are exact
                        # modulo 2**w)
                        ceval.record = True
                        value, t = ceval(tree, cenv)
                        width, signed = CTYPES[_promote(t)]
                        if not signed and value >> (width - 1):
                            if raw_views.get(ref.name) and ref.style != "deref":
                                # written as it is: p[huge] is out of bounds
                                raise InvalidProgram(f"unsigned subscript of {ref.name} wrapped")
                            value -= 1 << width
                    if raw and value < 0:
                        raise InvalidProgram(f"negative unsigned subscript of {ref.name}")
                    lo_hi = dims[d]
                    if lo_hi[0] is None or value < lo_hi[0]:
                        lo_hi[0] = value
                    if lo_hi[1] is None or value > lo_hi[1]:
                        lo_hi[1] = value
                    if ref.style == "deref" and sub.const:
                        # '*(x + i - 1)': the pointer 'x + i' is formed too
                        value -= sub.const
                        lo_hi[0] = min(lo_hi[0], value)
                        lo_hi[1] = max(lo_hi[1], value)
            if found:
                check_locals(node, found)

    for region in program.regions:
        run(region, ())
    final = {v: cenv.get(v, start) for v, t in ceval.types.items() if program.param(v) is None}
    return Simulation(count, ranges, accessed, written, ceval.events, final)


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
    # v5: (struct tag, member) -> extents / per-dimension subscript shift of a member array
    member_extents: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    member_shifts: dict[tuple[str, str], list[int]] = field(default_factory=dict)


def _struct_ranges(program: Program, sim: Simulation) -> tuple[dict, dict]:
    """v5: the simulation's ranges with those of struct members merged: per access
    name, the array's dimensions over all its members; per (struct tag, member), the
    member's own dimensions over every array of the type."""
    ranges = dict(sim.ranges)
    members: dict[tuple[str, str], list[list[int]]] = {}

    def merge(into: dict, key, dims: list) -> None:
        old = into.get(key)
        if old is None:
            into[key] = [list(d) for d in dims]
        else:
            for o, d in zip(old, dims):
                o[0], o[1] = min(o[0], d[0]), max(o[1], d[1])
    for key, dims in sim.ranges.items():
        if "." not in key:
            continue
        del ranges[key]
        name, member = key.split(".", 1)
        array = program.storage_of(name)
        merge(ranges, name, dims[:array.rank])
        if len(dims) > array.rank:
            merge(members, (array.dtype[7:], member), dims[array.rank:])
    return ranges, members


def layout(program: Program, sim: Simulation) -> Layout:
    lows: dict[str, list[int]] = {}
    highs: dict[str, list[int]] = {}
    ranges, member_ranges = _struct_ranges(program, sim) if program.structs else (sim.ranges, {})

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
        if program.view(name) is None and program.array(name) is not None and program.array(name).region:
            continue            # v7: declared in the region, with its own extents
        view = program.view(name)
        array = program.storage_of(name)
        if array is None:
            raise InvalidProgram(f"unknown array {name}")
        if view:
            used_views.append(view)
        dims = ranges.get(name) or [[0, 0] for _ in range(array.rank)]
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
    member_extents, member_shifts = {}, {}
    for struct in program.structs:
        for member, _, rank in struct.members:
            dims = member_ranges.get((struct.tag, member)) or [[0, 0] for _ in range(rank)]
            member_shifts[struct.tag, member] = [PAD - lo for lo, _ in dims]
            member_extents[struct.tag, member] = [hi - lo + 1 + 2 * PAD for lo, hi in dims]
    total = 0
    raw = {v.storage for v in used_views if v.raw}
    for storage in lows:
        pad = RAW_PAD if storage in raw else PAD
        shifts[storage] = [pad - lo for lo in lows[storage]]
        extents[storage] = [hi + shift + 1 + pad for hi, shift in zip(highs[storage], shifts[storage])]
        size = 1
        for e in extents[storage]:
            size *= e
        struct = program.struct_of(program.array(storage))
        if struct is not None:      # v5: every member of every element
            cells = 0
            for member, _, _ in struct.members:
                cell = 1
                for e in member_extents[struct.tag, member]:
                    cell *= e
                cells += cell
            size *= cells
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
        dims = ranges.get(view.name)
        raw_min = dims[0][0] if dims else 0
        c = 0 if view.raw else max(0, -raw_min)
        view_shift[view.name] = c
        view_offset[view.name] = view.delta + shifts[array.name][0] - c
        if not 0 <= view_offset[view.name] <= extents[array.name][0]:
            raise InvalidProgram(f"view {view.name} points outside its array")
    storages = [a for a in program.arrays if a.name in lows]
    # Print every array a statement writes, executed or not.
    written = {program.storage_of(t.name).name for s in statements(program) for t in written_refs(s)
               if not program.scalar(t.name) and not program.storage_of(t.name).region}
    return Layout(extents, shifts, view_shift, view_offset, storages,
                  [v for v in program.views if v in used_views], written, member_extents, member_shifts)


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
        self.shift_of: dict[str, X] = {}
        self.lines: list[str] = []

    # -- expressions ----------------------------------------------------------------
    def atom_x(self, name: str) -> X:
        return shifted_atom(self.shift_of)(name)

    def atom(self, name: str) -> str:
        return x_text(self.atom_x(name))

    def aff(self, a: Aff) -> str:
        return x_text(aff_ast(a, self.atom_x))

    def ref(self, r: Ref) -> str:
        if not r.subs:
            scalar = self.p.scalar(r.name) if r.style == "macro" else None
            return scalar.macro if scalar is not None and scalar.macro else r.name
        view = self.p.view(r.name)
        array = self.p.storage_of(r.name)
        subs = []
        for d, sub in enumerate(r.subs):
            if array.region:            # v7: declared in the region: as it is
                shift = 0
            elif d >= array.rank:       # v5: a member array's subscript
                shift = self.lay.member_shifts[array.dtype[7:], r.member][d - array.rank]
            elif view is not None and array.rank == 1:
                shift = self.lay.view_shift[r.name]
            else:
                shift = self.lay.shifts[array.name][d]
            subs.append(self.aff(sub.plus(shift)))
        if r.style == "deref" and len(subs) == 1:
            return deref_text(r.name, subs[0])
        if r.member:
            return (r.name + "".join(f"[{s}]" for s in subs[:array.rank]) + f".{r.member}"
                    + "".join(f"[{s}]" for s in subs[array.rank:]))
        return r.name + "".join(f"[{s}]" for s in subs)

    def cond(self, c: Cond) -> str:
        return x_text(cond_ast(c, self.atom_x))

    def stmt(self, s: Stmt) -> str:
        dtype = self.p.ref_dtype(s.target)
        target = self.ref(s.target)
        if s.decl:          # v6: 'double s = 0.0;' in a loop body
            target = f"{dtype} {target}"
        if s.form == "copy" and s.reads:
            return f"{target} = {self.ref(s.reads[0])};"
        if s.form in ("copy", "lit"):
            default = "0.0" if dtype in ("double", "float") else "0"
            return f"{target} {s.op} {s.value or default};"
        if s.form == "prod":        # v7: 'w[0] * X[i][j] + w[1] * X[i + 1][j]'
            return self.products(s, target, dtype)
        if s.product and dtype == "double" and len(s.reads) == 2:
            return f"{target} += {self.ref(s.reads[0])} * {self.ref(s.reads[1])};"
        if dtype in ("double", "float") or s.form == "real":
            terms = [f"{DOUBLE_COEFFS[c % len(DOUBLE_COEFFS)]} * {self.ref(r)}"
                     for r, c in zip(s.reads, s.coeffs)]
            if s.iter_var:
                terms.append(f"0.125 * (double)({self.atom(s.iter_var)} % 5)")
            if s.enum_term:
                terms.append(f"0.125 * {self.enum_value(s.enum_term)}")
            text = " + ".join(terms)
            const = DOUBLE_CONSTS[s.const % len(DOUBLE_CONSTS)]
            if s.form == "noconst" and text:
                return f"{target} {s.op} {text};"
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
        if s.enum_term:
            term = self.enum_value(s.enum_term)
            text = f"{text} + {term}" if text else term
        if s.form == "noconst" and text:
            return f"{target} {s.op} ({text}) % {INT_MOD};"
        const = str(s.const % 7 + 1)
        text = f"{text} + {const}" if text else const
        return f"{target} {s.op} ({text}) % {INT_MOD};"

    def products(self, s: Stmt, target: str, dtype: str) -> str:
        """v7: ``target op r0 * r1 + r2 * r3 ...`` (an odd read last with a coefficient);
        int data: ``(r0 % 1009) * (r1 % 1009) ...`` and the sum ``% 1009``."""
        reads = [self.ref(r) for r in s.reads]
        real = dtype in ("double", "float")
        if not real:
            reads = [f"({r} % {INT_MOD})" for r in reads]
        terms = [f"{reads[k]} * {reads[k + 1]}" for k in range(0, len(reads) - 1, 2)]
        if len(reads) % 2:
            c = s.coeffs[-1] if len(s.coeffs) == len(reads) else 0
            k = DOUBLE_COEFFS[c % len(DOUBLE_COEFFS)] if real else INT_COEFFS[c % len(INT_COEFFS)]
            terms.append(f"{k} * {reads[-1]}")
        if real:
            return f"{target} {s.op} {' + '.join(terms) or DOUBLE_CONSTS[s.const % len(DOUBLE_CONSTS)]};"
        return f"{target} {s.op} ({' + '.join(terms) or str(s.const % 7 + 1)}) % {INT_MOD};"

    def local(self, node: Local) -> str:
        """v7: ``double tmp[K];``, ``const int coef[] = {1, -2, 1};``, ``int hist[2][3] = {0};``."""
        array = self.p.array(node.name)
        dims = "[]" if node.unsized else "".join(f"[{self.aff(d)}]" for d in node.dims)
        text = ("const " if node.const else "") + f"{array.dtype} {node.name}{dims}"
        if node.init is not None:
            text += " = {" + ", ".join(node.init) + "}"
        return text + ";"

    def enum_value(self, term: tuple[str, int]) -> str:
        """An enumeration constant, or its value once the shrinker inlined it."""
        name, value = term
        return name if self.p.param(name) is not None else str(value)

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
            elif isinstance(node, DataIf):
                self.data_if(node, depth)
            elif isinstance(node, Local):
                self.emit(self.local(node), depth)
            else:
                self.emit(self.stmt(node), depth)

    # -- generator v5: an if on the data ------------------------------------------------
    def test_x(self, t) -> X:
        """A condition as an expression tree (data reads and literals as primaries), so
        that :func:`x_text` writes the parentheses it needs."""
        if isinstance(t, Test):
            return X(t.op, tuple(self.test_x(a) for a in t.args))
        if isinstance(t, Ref):
            return X("name", name=self.ref(t))
        if isinstance(t, Aff):
            return aff_ast(t, self.atom_x)
        return X("name", name=str(t))

    def assign(self, a: Assign) -> str:
        target = self.ref(a.target)
        if a.op in ("++", "--"):
            return f"{target}{a.op};"
        if a.op in ("pre++", "pre--"):
            return f"{a.op[3:]}{target};"
        value = a.value
        if isinstance(value, Ref):
            text = self.ref(value)
        elif isinstance(value, Aff):
            text = self.aff(value)
        else:
            text = str(value)
        return f"{target} {a.op} {text};"

    def item(self, item, depth: int) -> None:
        if isinstance(item, DataIf):
            self.data_if(item, depth)
        elif isinstance(item, Assign):
            self.emit(self.assign(item), depth)
        else:
            self.emit(self.stmt(item), depth)

    def branch(self, head: str, items: list, braces: bool, depth: int) -> None:
        """``head { items }`` (``} else ...`` joined to the brace before it), or ``head``
        and its one statement on the next line."""
        braces = braces or len(items) != 1 or isinstance(items[0], DataIf)
        joined = head.startswith("else") and self.lines and self.lines[-1] == "  " * depth + "}"
        if joined:
            self.lines[-1] += f" {head}" + (" {" if braces else "")
        else:
            self.emit(head + (" {" if braces else ""), depth)
        for item in items:
            self.item(item, depth + 1)
        if braces:
            self.emit("}", depth)

    def data_if(self, node: DataIf, depth: int) -> None:
        then = node.then
        if node.other is None and not node.braces and len(then) == 1 and not isinstance(then[0], DataIf):
            # 'if (A[i] > best) best = A[i];' on one line
            line = self.assign(then[0]) if isinstance(then[0], Assign) else self.stmt(then[0])
            self.emit(f"if ({x_text(self.test_x(node.test))}) {line}", depth)
            return
        self.branch(f"if ({x_text(self.test_x(node.test))})", then, node.braces, depth)
        other = node.other
        while other:
            nxt = other[0]
            if len(other) == 1 and isinstance(nxt, DataIf):
                self.branch(f"else if ({x_text(self.test_x(nxt.test))})", nxt.then, nxt.braces, depth)
                other = nxt.other
            else:
                self.branch("else", other, node.braces, depth)
                other = None

    def loop(self, loop: Loop, depth: int) -> None:
        v = loop.var
        init, op, end = loop_header(loop, self.atom_x, self.p.iter_type)
        test = x_text(loop_test(loop, op, end, self.p.iter_type))
        amount = step_name(self.p, loop) or str(loop.step)
        if loop.down:
            step = f"{v}--" if amount == "1" else f"{v} -= {amount}"
        else:
            step = f"{v}++" if amount == "1" else f"{v} += {amount}"
        start = "" if loop.cont else f"{v} = {x_text(init)}"
        self.emit(f"for ({start}; {test}; {step}) {{", depth)
        saved = self.shift_of.get(v)
        shift = loop_shift(loop, self.p.iter_type)
        if shift is not None:
            self.shift_of[v] = shift
        else:
            self.shift_of.pop(v, None)
        self.nodes(loop.body, depth + 1)
        if saved is not None:
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
        # v6: scalars of a loop body are declared there; those private to an iteration
        # are not printed, nor written between the regions (they would be live)
        declared = [s for s in used_scalars if s.scope != "block"]
        printed = [s for s in used_scalars if s.scope in ("", "live")]
        glued = [s for s in used_scalars if not s.scope]
        iterators = sorted({n.var for n, _ in all_nodes(p) if isinstance(n, Loop)},
                           key=lambda v: (ITERATORS.index(v) if v in ITERATORS else 99, v))
        out = [f"/* polysched fuzz (generator v{p.version}): seed {p.seed}, program {p.index} */",
               "#include <stdio.h>", "#include <stddef.h>", "",
               "#define MIN(x, y) ((x) < (y) ? (x) : (y))",
               "#define MAX(x, y) ((x) > (y) ? (x) : (y))"]
        for par in params:
            if par.kind == "define":
                value = f"{par.value}L" if abs(par.value) > 2 ** 31 - 1 else str(par.value)
                out.append(f"#define {par.name} {value if par.value >= 0 else '(' + value + ')'}")
        sizes = sorted({x.name for x in x_terms(p) if x.op == "IDX"})
        for k, size in enumerate(sizes):
            out.append(f"#define IDX{k or ''}(i, j) ((i) * {size} + (j))")
        macros = {r.name for s in statements(p) for r in refs_of(s) if r.style == "macro"}
        for s in used_scalars:
            if s.name in macros and s.macro:
                out.append(f"#define {s.macro} {s.name}")
        enums = enum_text(p, params, "enum")
        if enums:
            out.append(enums)
        out.append("")
        for struct in self.structs():
            fields = " ".join(f"{dtype} {member}" + "".join(f"[{e}]" for e in lay.member_extents[struct.tag, member])
                              + ";" for member, dtype, _ in struct.members)
            out.append(f"struct {struct.tag} {{ {fields} }};")
        for array in lay.storages:
            if array.local:
                continue
            out.append(f"{array.dtype} {array.name}" + "".join(f"[{e}]" for e in lay.extents[array.name]) + ";")
        for table in used_tables(p):
            out.append(f"{table.dtype} {table.name}" + "".join(f"[{e}]" for e in table.dims) + ";")
        out.append("")
        args = [f"{par.ctype or p.param_type} {par.name}" for par in params if par.kind == "arg"]
        for view in lay.views:
            array = p.array(view.storage)
            if array.rank == 1:
                args.append(f"{array.dtype} *{view.name}")
            else:
                args.append(f"{array.dtype} {view.name}" + "".join(f"[{e}]" for e in lay.extents[array.name]))
        out.append(f"static void kernel({', '.join(args) or 'void'})")
        out.append("{")
        enums = enum_text(p, params, "enum_local")
        if enums:
            out.append("  " + enums)
        top_scalars, braceless = v8_layout(p)
        if iterators:
            out.append(f"  {p.iter_type} {', '.join(iterators)};")
        for s in declared:
            if s not in top_scalars:
                out.append(f"  {s.dtype} {s.name} = {s.init};")
        if iterators:
            init = 7 if p.iter_type in UNSIGNED_TYPES else -7
            out.append("  " + " ".join(f"{v} = {init};" for v in iterators))
        for k, region in enumerate(p.regions):
            if k and p.glue and glued:
                s = glued[0]
                if s.dtype == "double":
                    out.append(f"  {s.name} = {s.name} * 0.5 + 1.0;")
                else:
                    out.append(f"  {s.name} = ({s.name} + 1) % {INT_MOD};")
            out.append("#pragma scop")
            self.lines = []
            if k == 0:
                for s in top_scalars:           # v8
                    self.emit(f"{s.dtype} {s.name} = {s.init};", 1)
            if any(isinstance(n, Local) for n in region) and k not in braceless:
                # v7: an array declared at the region's top: the region is a block
                self.emit("{", 1)
                self.nodes(region, 2)
                self.emit("}", 1)
            else:
                self.nodes(region, 1)
            out.extend(self.lines)
            out.append("#pragma endscop")
        for s in printed:
            fmt = "%.17g" if s.dtype in ("double", "float") else "%d"
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

    def structs(self) -> list[Struct]:
        """v5: the structs the arrays in use hold."""
        tags = {a.dtype[7:] for a in self.lay.storages if self.p.struct_of(a) is not None}
        return [s for s in self.p.structs if s.tag in tags]

    def members(self, array: Array) -> list[tuple[str, str, list[int]]]:
        """v5: (member, dtype, member extents) of an array of structs."""
        struct = self.p.struct_of(array)
        return [(m, dtype, self.lay.member_extents[struct.tag, m]) for m, dtype, _ in struct.members]

    def main(self, params: list[Param]) -> list[str]:
        p, lay = self.p, self.lay
        rank = max((a.rank for a in lay.storages), default=0)
        for array in lay.storages:
            if p.struct_of(array) is not None:
                rank = max([rank] + [array.rank + len(ext) for _, _, ext in self.members(array)])
        out = ["int main(void)", "{"]
        counters = [f"a{d}" for d in range(rank)]
        if counters:
            out.append(f"  long {', '.join(counters)};")
        for array in lay.storages:
            if array.local:
                out.append(f"  {array.dtype} {array.name}" + "".join(f"[{e}]" for e in lay.extents[array.name]) + ";")
        for n, array in enumerate(lay.storages):
            if p.struct_of(array) is not None:
                out += self.struct_lines(array, n, False)
                continue
            ext = lay.extents[array.name]
            loops = "".join(f"for (a{d} = 0; a{d} < {e}; a{d}++) " for d, e in enumerate(ext))
            sub = "".join(f"[a{d}]" for d in range(array.rank))
            mix = " + ".join(f"a{d} * {(7, 3, 5)[d]}" for d in range(array.rank))
            if array.dtype in ("double", "float"):       # (float: v6's destinations)
                value = f"(double)(({mix} + {n + 1}) % 13) * 0.125 - 0.75"
            else:
                value = f"(int)(({mix} + {n + 2}) % 17) - 8"
            out.append(f"  {loops}{array.name}{sub} = {value};")
        call = [_literal(par.value, par.ctype or p.param_type) for par in params if par.kind == "arg"]
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
            if p.struct_of(array) is not None:
                out += self.struct_lines(array, 0, True)
                continue
            ext = lay.extents[array.name]
            loops = "".join(f"for (a{d} = 0; a{d} < {e}; a{d}++) " for d, e in enumerate(ext))
            sub = "".join(f"[a{d}]" for d in range(array.rank))
            fmt = "%.17g" if array.dtype in ("double", "float") else "%d"
            idx = "".join(" %ld" for _ in range(array.rank))
            args = ", ".join(f"a{d}" for d in range(array.rank))
            out.append(f'  {loops}printf("{array.name}{idx} {fmt}\\n", {args}, {array.name}{sub});')
        out += ["  return 0;", "}"]
        return out

    def struct_lines(self, array: Array, n: int, printing: bool) -> list[str]:
        """v5: every member of every element of an array of structs set (``n``: the
        array's number) or printed."""
        out = []
        for k, (member, dtype, mext) in enumerate(self.members(array)):
            ext = self.lay.extents[array.name] + mext
            loops = "".join(f"for (a{d} = 0; a{d} < {e}; a{d}++) " for d, e in enumerate(ext))
            element = array.name + "".join(f"[a{d}]" for d in range(array.rank)) + f".{member}" \
                + "".join(f"[a{d}]" for d in range(array.rank, len(ext)))
            if printing:
                fmt = "%.17g" if dtype == "double" else "%d"
                idx = "".join(" %ld" for _ in ext)
                args = ", ".join(f"a{d}" for d in range(len(ext)))
                out.append(f'  {loops}printf("{array.name}.{member}{idx} {fmt}\\n", {args}, {element});')
                continue
            mix = " + ".join(f"a{d} * {(7, 3, 5, 11)[d]}" for d in range(len(ext)))
            if dtype == "double":
                value = f"(double)(({mix} + {n + k + 1}) % 13) * 0.125 - 0.75"
            else:
                value = f"(int)(({mix} + {n + k + 2}) % 17) - 8"
            out.append(f"  {loops}{element} = {value};")
        return out


def deref_text(name: str, sub: str) -> str:
    """``*(name + sub)`` from the subscript's text (one term at most, then a constant):
    ``*x``, ``*(x + 3)``, ``*(x - 2)``, ``*(x + i - 1)``, ``*(x - i + 2)``."""
    if sub == "0":
        return f"*{name}"
    if sub.startswith("(-") and sub.endswith(")") and sub[2:-1].isdigit():
        return f"*({name} - {sub[2:-1]})"
    if sub.startswith("-"):
        return f"*({name} - {sub[1:]})"
    return f"*({name} + {sub})"


def enum_text(program: Program, used: list[Param], kind: str) -> str:
    """``enum { N = 8, M = N + 2, K };``: every enumeration constant of ``kind`` the
    program still has, when one of them is used (a member whose definition names one
    the shrinker inlined is written with its value)."""
    if not any(par.kind == kind for par in used):
        return ""
    members: list[str] = []
    written: list[str] = []
    for par in program.params:
        if par.kind != kind:
            continue
        init = par.init or ("lit",)
        if init[0] == "ref" and init[1] in written:
            text = f"{par.name} = {init[1]} + {init[2]}" if init[2] >= 0 else f"{par.name} = {init[1]} - {-init[2]}"
        elif init[0] == "next" and written and written[-1] == init[1]:
            text = par.name
        else:
            text = f"{par.name} = {par.value}"
        members.append(text)
        written.append(par.name)
    return f"enum {{ {', '.join(members)} }};"


def x_terms(program: Program) -> Iterator[X]:
    """Every node of the C terms of the program's expressions."""
    for aff in affs_of(program):
        for _, x in aff.ext:
            yield from x_nodes(x)


def used_tables(program: Program) -> list[Table]:
    operands = {x.name.split("[")[0] for x in x_terms(program) if x.op == "sizeof"}
    return [t for t in program.tables if t.name in operands]


def render(program: Program) -> str:
    """The C file of ``program``; raises :class:`InvalidProgram`."""
    if not statements(program):
        raise InvalidProgram("no statement")
    for region in program.regions:
        if not any(isinstance(n, (Stmt, DataIf)) for n, _ in walk(region)):
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
                if node.offset and (node.shift or not _fits(node.offset, program.iter_type)):
                    raise InvalidProgram("a loop offset that does not fit the iterator (or with a shift)")
                if node.ne and node.step != 1:
                    raise InvalidProgram("a '!=' loop steps by 1")
                if (node.cont or node.head) and (node.shift or node.offset or node.ne):
                    raise InvalidProgram("a remainder loop or a loop tested 'i + 4 <= n' is plain")
            elif isinstance(node, Guard):
                affs = [a for c in node.conds for a in (c.lhs, c.rhs)]
            elif isinstance(node, Stmt):
                affs = [a for r in refs_of(node) for a in r.subs]
                if node.iter_var and node.iter_var not in {loop.var for loop in loops}:
                    raise InvalidProgram("iterator used outside its loop")
                _check_types(program, node)
                for ref in refs_of(node):
                    _check_ref(program, ref)
            elif isinstance(node, Local):
                _check_local(program, node)
            elif isinstance(node, DataIf):
                if not loops:
                    raise InvalidProgram("an if on the data outside the loops")
                affs = node.affs() + [a for r in node.refs() for a in r.subs]
                for item in node.items():
                    if isinstance(item, Stmt):
                        if item.iter_var:
                            raise InvalidProgram("a statement in an if on the data uses its iterator")
                        _check_types(program, item)
                    elif program.ref_dtype(item.target) == "int" and isinstance(item.value, Ref) \
                            and program.ref_dtype(item.value) != "int":
                        raise InvalidProgram("an int assignment reads double data")
                for ref in node.refs():
                    _check_ref(program, ref)
                    if program.scalar(ref.name) is None and program.storage_of(ref.name).region:
                        raise InvalidProgram(f"an array of the region ({ref.name}) in an if on the data")
            for aff in affs:
                unknown = aff.names() - visible
                if unknown:
                    raise InvalidProgram(f"unknown names {sorted(unknown)}")
                for name in aff.names():
                    par = program.param(name)
                    if par is not None and abs(par.value) > 2 ** 20:
                        raise InvalidProgram("a big parameter used outside a loop shift")
        _check_blocks(program, region, set(), False, top=True)
    declared = [n.name for n, _ in all_nodes(program) if isinstance(n, Local)]
    if len(declared) != len(set(declared)):
        raise InvalidProgram("an array of the region declared twice")
    tables = {n.name for n, _ in all_nodes(program) if isinstance(n, Local) and n.const}
    if tables and any(t.name in tables for st in statements(program) for t in written_refs(st)):
        raise InvalidProgram("a table of constants written")


def _check_local(program: Program, node: Local) -> None:
    """v7: a declaration the front end takes (and C: no initialiser for a variable
    length array, no more elements than the extent, no extent below 1)."""
    array = program.array(node.name)
    if array is None or not array.region or program.view(node.name) is not None:
        raise InvalidProgram(f"'{node.name}' is not an array of the region")
    params = {p.name: p for p in program.params}
    if node.unsized:
        if node.dims or not node.init or array.rank != 1:
            raise InvalidProgram(f"'{node.name}[]' needs a list and one dimension")
        return
    if len(node.dims) != array.rank:
        raise InvalidProgram(f"'{node.name}' declared with {len(node.dims)} extents")
    size = 1
    for dim in node.dims:
        if dim.ext or not dim.names() <= set(params):
            raise InvalidProgram(f"the extent of '{node.name}' depends on a loop iterator")
        value = dim.eval({n: p.value for n, p in params.items()})
        if value < 1:
            raise InvalidProgram(f"the extent of '{node.name}' is {value}")
        size *= value
    if size > MAX_LOCAL_ELEMENTS:
        raise InvalidProgram(f"'{node.name}' would have {size} elements")
    vla = any(params[n].kind == "arg" for d in node.dims for n in d.names())
    if node.init is not None:
        if vla:
            raise InvalidProgram(f"a variable length array '{node.name}' with an initialiser")
        if not node.init or (array.rank > 1 and node.init not in (("0",), ("0.0",))):
            raise InvalidProgram(f"'{node.name}': several dimensions take the list {{0}} only")
        if len(node.init) > node.dims[0].eval({n: p.value for n, p in params.items()}):
            raise InvalidProgram(f"'{node.name}': more elements than its extent")
    elif node.const:
        raise InvalidProgram(f"a table '{node.name}' without values")


def _check_blocks(program: Program, nodes: list, visible: set[str], in_loop: bool,
                  top: bool = False) -> None:
    """v6: a scalar of scope "block" is declared by a statement directly in a loop body
    (never under an ``if``, never twice in one block, never shadowing one declared around
    it) and used only after it in that body (C's scope; its value is then set: see
    :func:`simulate`). Other statements of v6 forms are checked here too. v7: an array of
    the region likewise, declared by a :class:`Local` in a loop body or at the region's
    ``top``; a ``const`` one is never written."""
    visible = set(visible)
    for node in nodes:
        if isinstance(node, Loop):
            _check_blocks(program, node.body, visible, True)
            continue
        if isinstance(node, Guard):
            _check_blocks(program, node.body, visible, False)
            continue
        if isinstance(node, Local):
            if not (in_loop or top) or node.name in visible:
                raise InvalidProgram(f"'{node.name}' declared outside a loop body, or twice")
            visible.add(node.name)
            continue
        refs = refs_of(node)
        declared = None
        if isinstance(node, Stmt):
            scalar = program.scalar(node.target.name)
            if node.decl:
                if scalar is None or scalar.scope != "block" or node.op != "=" or node.product \
                        or node.target.style:
                    raise InvalidProgram("only a scalar of a loop body is declared there")
                if not in_loop or scalar.name in visible:
                    raise InvalidProgram(f"'{scalar.name}' declared outside a loop body, or twice")
                declared = scalar.name
                refs = node.reads
            if node.form and node.form not in ("copy", "lit", "noconst", "prod", "real"):
                raise InvalidProgram(f"unknown statement form {node.form}")
            if (node.form == "copy" and node.op != "=") or (node.form == "lit" and node.op not in ("=", "+=")):
                raise InvalidProgram("a copy is an assignment")
        for ref in refs:
            scalar = program.scalar(ref.name)
            if scalar is not None and scalar.scope == "block" and ref.name not in visible:
                raise InvalidProgram(f"'{ref.name}' used outside the block that declares it")
        for ref in refs_of(node):
            array = program.array(ref.name)
            if array is not None and array.region and program.scalar(ref.name) is None \
                    and program.view(ref.name) is None:
                if ref.name not in visible:
                    raise InvalidProgram(f"'{ref.name}' used outside the block that declares it")
                if ref.style or ref.member:
                    raise InvalidProgram(f"'{ref.name}' is a plain array")
        if declared:
            visible.add(declared)


def _check_types(program: Program, stmt: Stmt) -> None:
    if stmt.form == "real":
        # v9: 'int t = 0.5 * W[i][j] + 1.0;' converts in range: W's values are main's
        if program.ref_dtype(stmt.target) != "int" or stmt.product:
            raise InvalidProgram("a converted sum has an int target")
        written = {getattr(program.storage_of(r.name), "name", r.name) for st in statements(program)
                   for r in written_refs(st) if program.scalar(r.name) is None}
        for ref in stmt.reads:
            storage = program.storage_of(ref.name) if program.scalar(ref.name) is None else None
            if storage is None or storage.region or ref.member or storage.dtype not in ("double", "float") \
                    or storage.name in written:
                raise InvalidProgram("a converted sum reads an array something writes (or not a plain real one)")
        return
    if program.ref_dtype(stmt.target) == "int":
        for ref in stmt.reads:
            if program.ref_dtype(ref) != "int":
                raise InvalidProgram("an int statement reads double data")


def _check_ref(program: Program, ref: Ref) -> None:
    if program.scalar(ref.name) is None:
        storage = program.storage_of(ref.name)
        if storage is None:
            raise InvalidProgram(f"bad reference to {ref.name}")
        rank = storage.rank
        struct = program.struct_of(storage)
        if struct is not None or ref.member:      # v5: a member of an array of structs
            member = struct.member(ref.member) if struct is not None and ref.member else None
            if member is None:
                raise InvalidProgram(f"bad member reference to {ref.name}")
            rank += member[2]
        if rank != len(ref.subs):
            raise InvalidProgram(f"bad reference to {ref.name}")
        if storage.local and program.view(ref.name) is None:
            raise InvalidProgram(f"{ref.name} is local to main")
    elif ref.member:
        raise InvalidProgram(f"member of the scalar {ref.name}")
    if ref.style == "deref" and (program.view(ref.name) is None or len(ref.subs) != 1
                                 or len(ref.subs[0].terms) > 1 or ref.subs[0].ext):
        raise InvalidProgram(f"'*' of {ref.name}: a pointer, one term and a constant")
    if ref.style == "macro" and (program.scalar(ref.name) is None or not program.scalar(ref.name).macro):
        raise InvalidProgram(f"a macro for {ref.name}: only a scalar that has one")


# --------------------------------------------------------------------------- features

FEATURES = (
    "depth1", "depth2", "depth3", "depth4", "depth5", "depth6", "depth7",
    "literal_bounds", "param_arg", "param_define", "no_params", "triangular", "skewed",
    "minmax_macro", "minmax_ternary", "guard", "mod_guard", "downward", "strided",
    "multi_stmt", "imperfect", "reduction", "int_data", "double_data", "param_zero",
    "param_negative", "unsigned", "size_t", "long", "big_offset", "live_out_iterators",
    "aliased", "multi_region", "iterator_in_data", "div_bound", "product",
) + (
    # generator v3: C integer constructs (EXTRA_FEATURES); the last two are what the
    # original did at run time (a cast changed a value; unsigned arithmetic wrapped)
    "cast_uchar", "cast_short", "cast_int", "cast_unsigned", "unsigned_literal", "shift_op",
    "sizeof", "ne_loop", "near_int_max", "near_2_40", "truncation", "wraparound",
) + (
    # generator v4 (V4_FEATURES): linearised subscripts (row-major, column-major,
    # three sizes, the IDX macro), '*p', remainder loops, enumeration constants
    "linearised", "linear_colmajor", "linear_3d", "linear_macro", "deref", "deref_overlap",
    "remainder", "remainder_down", "enum", "enum_local", "enum_step", "enum_mod",
) + (
    # generator v5 (V5_FEATURES): ifs on the data (else, else if, nested, a scalar
    # written: running extrema and counters, swaps, '++', conditions that are not
    # affine or mix affine and data terms, int data), arrays of structs (member arrays,
    # 2-d arrays, linearised subscripts, pointer parameters, arrays local to main, two
    # pointers into one array)
    "cond", "cond_else", "cond_elseif", "cond_nested", "cond_scalar", "cond_swap", "cond_count",
    "cond_nonaffine", "cond_mixed", "cond_int",
    "aos", "aos_member_array", "aos_2d", "aos_linear", "aos_param", "aos_local", "aos_overlap",
)
# Generator v6 (opt-in: generate(..., v6=...), 'polysched fuzz --generator 6'): scalars
# private to an iteration of a loop. Not in FEATURES, which are those of the default
# programs (v5's): column scans (a recurrence 'B[i][j] = .. s; s = B[i][j];', running
# sums, two scalars, the inner loop backward), dot products copied into their
# destination (transposed operands, two accumulators), the gemm 'C = beta * C + alpha *
# s' (expanded on the heap), refusals (no initial value, live after the region, the copy
# under an if, a float destination, the destination read in the loop, the scalar behind
# a macro, an extent with a division), and what they may have: flat buffers with
# linearised subscripts, the scalar declared in the loop body, a constant lower bound
# other than 0, int data, a size of 0, 1 or less.
V6_FEATURES = (
    "scan", "scan_running", "scan_second_order", "scan_backward", "dot", "dot_transposed", "dot_several",
    "gemm", "refused", "refused_no_init", "refused_live", "refused_guarded_copy", "refused_float",
    "refused_dest_read", "refused_macro", "refused_div_extent", "private_flat", "private_decl",
    "private_lower", "private_int", "private_small_size",
)
# Generator v7 (opt-in: generate(..., v7=...), 'polysched fuzz --generator 7'): arrays
# declared inside the region. Rows computed into a temporary and read back mirrored (a
# variable length array, two rows, int and float elements), hand-blocked matrix
# products into 'double acc[4] = {0.0};' (a longer list, no initialiser, int data, an
# 'int hist[2][3] = {0};' of counts), stencils weighted by a table of constants (int,
# unsized 'w[]', read at constant indices, declared at the region's top), arrays whose
# values cross the iterations of the loops inside their block (declared at the region's
# top or in an outer loop's body; a sliding window, a prefix), and loops of 0 or 1
# iterations around them.
V7_FEATURES = (
    "row", "row_vla", "row_2d", "row_int", "row_float",
    "acc", "acc_list", "acc_noinit", "acc_int", "acc_hist",
    "table", "table_int", "table_unsized", "table_constant_index", "table_top",
    "carry", "carry_top", "carry_outer", "carry_window", "carry_prefix", "carry_int",
    "region_small_size",
)
EXTRA_FEATURES = FEATURES[FEATURES.index("cast_uchar"):FEATURES.index("linearised")]
V4_FEATURES = FEATURES[FEATURES.index("linearised"):FEATURES.index("cond")]
V5_FEATURES = FEATURES[FEATURES.index("cond"):]
_CAST_FEATURES = {"unsigned char": "cast_uchar", "short": "cast_short", "int": "cast_int",
                  "unsigned": "cast_unsigned"}


def extra_features(program: Program, dynamic: bool = True) -> set[str]:
    """Which of :data:`EXTRA_FEATURES` the program has (``dynamic``: with those seen
    when it runs, by :func:`simulate`)."""
    found: set[str] = set()
    for x in x_terms(program):
        if x.op == "cast" and x.ctype in _CAST_FEATURES:
            found.add(_CAST_FEATURES[x.ctype])
        elif x.op == "lit" and not CTYPES[x.ctype][1]:
            found.add("unsigned_literal")
        elif x.op in ("<<", ">>"):
            found.add("shift_op")
        elif x.op == "sizeof":
            found.add("sizeof")
    for node, _ in all_nodes(program):
        if isinstance(node, Loop):
            if node.ne:
                found.add("ne_loop")
            if node.offset:
                found.add("near_int_max" if CTYPES[program.iter_type][0] == 32 else "near_2_40")
    if found and dynamic:
        try:
            found |= simulate(program).events
        except InvalidProgram:
            pass
    return found


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
                found.add("int_data" if program.ref_dtype(ref) == "int" else "double_data")
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
        # (arrays of structs reached by two names: v5's "aos_overlap")
        if program.scalar(name) is None and program.struct_of(program.storage_of(name)) is None:
            storages.setdefault(program.storage_of(name).name, set()).add(name)
    if any(len(v) > 1 for v in storages.values()):
        found.add("aliased")
    del names
    return found | extra_features(program) | v4_features(program) | v5_features(program) | v6_features(program) \
        | v7_features(program) | v8_features(program) | v9_features(program)


def _linear_kind(x: X, sizes: set[str]) -> str:
    """``"row"`` (``a * n + b``), ``"col"`` (``a + b * n``), ``"3d"`` (a row-major index
    inside a row-major index), ``"macro"`` (``IDX``) or ``""``, for a subscript's C term."""
    def is_size(e: X) -> bool:
        return e.op == "aff" and len(e.args[0].terms) == 1 and not e.args[0].const \
            and e.args[0].terms[0][0] in sizes and e.args[0].terms[0][1] == 1
    if x.op == "IDX":
        return "macro"
    if x.op != "+":
        return ""
    a, b = x.args
    if a.op == "*" and is_size(a.args[1]):
        inner = a.args[0]
        return "3d" if inner.op == "+" and _linear_kind(inner, sizes) else "row"
    if b.op == "*" and is_size(b.args[1]):
        return "col"
    return ""


def v4_features(program: Program) -> set[str]:
    """Which of :data:`V4_FEATURES` the program has."""
    found: set[str] = set()
    used = {p.name for p in used_params(program)}
    enums = {p.name for p in program.params if p.kind in ("enum", "enum_local")} & used
    sizes = {p.name for p in program.params if p.kind == "arg"}
    views = {v.name: v for v in program.views}
    accessed: dict[str, set[str]] = {}
    for stmt in statements(program):
        for ref in refs_of(stmt):
            if ref.member:          # v5's (a linearised member is "aos_linear")
                continue
            if program.scalar(ref.name) is None:
                accessed.setdefault(program.storage_of(ref.name).name, set()).add(ref.name)
            if ref.style == "deref":
                found.add("deref")
            for sub in ref.subs:
                for _, x in sub.ext:
                    kind = _linear_kind(x, sizes) if ref.name in views and views[ref.name].raw else ""
                    if kind:
                        found.add("linearised")
                        found.add({"row": "linearised", "col": "linear_colmajor", "3d": "linear_3d",
                                   "macro": "linear_macro"}[kind])
                    for node in x_nodes(x):
                        if node.op == "%" and x_names(node.args[1]) & enums:
                            found.add("enum_mod")
    for stmt in statements(program):
        for ref in refs_of(stmt):
            if ref.style == "deref" and len(accessed[program.storage_of(ref.name).name]) > 1:
                found.add("deref_overlap")
    for node, _ in all_nodes(program):
        if isinstance(node, Loop):
            if node.cont:
                found.add("remainder")
                if node.down:
                    found.add("remainder_down")
            if step_name(program, node):
                found.add("enum_step")
    for par in program.params:
        if par.name in used and par.kind == "enum":
            found.add("enum")
        elif par.name in used and par.kind == "enum_local":
            found.add("enum_local")
    return found


def v5_features(program: Program) -> set[str]:
    """Which of :data:`V5_FEATURES` the program has."""
    found: set[str] = set()
    names: dict[str, set[str]] = {}         # array of structs -> the names it is reached by
    for stmt in statements(program):
        if isinstance(stmt, DataIf):
            found.add("cond")
            for node in stmt.ifs():
                other = node.other or []
                if len(other) == 1 and isinstance(other[0], DataIf):
                    found.add("cond_elseif")
                elif other:
                    found.add("cond_else")
                if any(isinstance(item, DataIf) for item in node.then) or \
                        (len(other) > 1 and any(isinstance(item, DataIf) for item in other)):
                    found.add("cond_nested")
                if node.kind == "swap":
                    found.add("cond_swap")
            for item in stmt.items():
                if program.scalar(item.target.name) is not None:
                    found.add("cond_scalar")
                if isinstance(item, Assign) and (item.op in ("++", "--", "pre++", "pre--") or (
                        item.op in ("+=", "-=") and program.ref_dtype(item.target) == "int")):
                    found.add("cond_count")
            for t in stmt.tests():
                if any(isinstance(a, Aff) and a.ext for a in t.args):
                    found.add("cond_nonaffine")
                if t.op in ("&&", "||"):
                    leaves = [a for s in t.args if isinstance(s, Test) for a in s.args]
                    if any(isinstance(a, Aff) for a in leaves) and any(isinstance(a, Ref) for a in leaves):
                        found.add("cond_mixed")
                if any(isinstance(a, Ref) and program.ref_dtype(a) == "int" for a in t.args):
                    found.add("cond_int")
        for ref in refs_of(stmt):
            if not ref.member:
                continue
            storage = program.storage_of(ref.name)
            view = program.view(ref.name)
            found.add("aos")
            names.setdefault(storage.name, set()).add(ref.name)
            if len(ref.subs) > storage.rank:
                found.add("aos_member_array")
            if storage.rank > 1:
                found.add("aos_2d")
            if view is not None:
                found.add("aos_param")
                if view.raw and any(sub.ext for sub in ref.subs[:storage.rank]):
                    found.add("aos_linear")
            if storage.local:
                found.add("aos_local")
    if any(len(v) > 1 for v in names.values()):
        found.add("aos_overlap")
    return found


def v6_features(program: Program) -> set[str]:
    """Which of :data:`V6_FEATURES` the program has: the features its v6 constructs were
    built with (:attr:`Scalar.v6`, of the scalars its statements use), and what the text
    shows (a declaration in a loop body, a scalar written through a macro)."""
    found: set[str] = set()
    used = {r.name: r for s in statements(program) for r in refs_of(s)}
    for scalar in program.scalars:
        if scalar.name in used:
            found.update(scalar.v6)
    for stmt in statements(program):
        if isinstance(stmt, Stmt) and stmt.decl:
            found.add("private_decl")
        if any(r.style == "macro" for r in refs_of(stmt)):
            found.add("refused_macro")
    return found & set(V6_FEATURES)


# Generator v8 ('polysched fuzz --generator 8'): v7's programs with the declarations C
# programmers put at the top of a region, which code after it may use (the front end
# moves them before '#pragma scop', scop/hoist.py): the kernel's scalars, declared with
# their values at the top of its first region, and the arrays v7 declares at a region's
# top without the block v7 puts around the region.
V8_FEATURES = ("top_scalar", "top_array")


def v8_layout(program: Program) -> tuple[list[Scalar], set[int]]:
    """Generator v8: the scalars declared at the top of the first region, and the
    regions whose top-level arrays are declared without a block (their names declared
    at no other region's top: they share the kernel's scope)."""
    if not program.v8:
        return [], set()
    referenced = {r.name for st in statements(program) for r in refs_of(st)}
    scalars = [sc for sc in program.scalars if sc.name in referenced and sc.scope != "block"]
    braceless, taken = set(), {sc.name for sc in program.scalars}
    for k, region in enumerate(program.regions):
        names = {n.name for n in region if isinstance(n, Local)}
        if names and not names & taken:
            braceless.add(k)
            taken |= names
    return scalars, braceless


def v8_features(program: Program) -> set[str]:
    """Which of :data:`V8_FEATURES` the program has."""
    scalars, braceless = v8_layout(program)
    return {name for name, present in (("top_scalar", scalars), ("top_array", braceless)) if present}


# Generator v9 ('polysched fuzz --generator 9'): v8's programs with nests whose innermost
# body names partial results in temporaries (declared there or the kernel's, double, float
# or int, one defined from another, an int converted from a double sum), read once,
# twice or never by later statements, and what keeps one where it is (an element its
# value reads written before a use, read after the region, assigned twice, updated with
# '+=', read under an 'if').
V9_FEATURES = (
    "temp", "temp_decl", "temp_kernel", "temp_float", "temp_int", "temp_convert", "temp_chain", "temp_literal",
    "temp_unused", "temp_used_twice", "temp_blocked_write", "temp_live", "temp_reassigned", "temp_compound",
    "temp_guarded_use", "temp_depth3",
)


def v9_features(program: Program) -> set[str]:
    """Which of :data:`V9_FEATURES` the program has: those its nests of temporaries were
    built with (:attr:`Scalar.v9`, of the scalars its statements use)."""
    used = {r.name for st in statements(program) for r in refs_of(st)}
    found: set[str] = set()
    for scalar in program.scalars:
        if scalar.name in used:
            found.update(scalar.v9)
    return found & set(V9_FEATURES)


def v7_features(program: Program) -> set[str]:
    """Which of :data:`V7_FEATURES` the program has: the features its v7 constructs were
    built with (:attr:`Array.v7`, of the arrays of the region its statements use and its
    regions declare)."""
    found: set[str] = set()
    declared = {n.name for n, _ in all_nodes(program) if isinstance(n, Local)}
    used = {r.name for s in statements(program) for r in refs_of(s)}
    for array in program.arrays:
        if array.region and array.name in used and array.name in declared:
            found.update(array.v7)
    return found & set(V7_FEATURES)


# --------------------------------------------------------------------------- generation

PRODUCT_CHANCE = 0.3     # of a statement inside three or more loops, when 2-d double data exists

class _Generator:
    def __init__(self, rng: random.Random, seed: int, index: int, v4=None, v5=None, v6=False, v7=False):
        self.rng = rng
        self.seed = seed
        self.index = index
        self.statements_made = 0      # numbers product()'s own random streams
        # Whether the program has the C constructs of v3 is drawn from its own stream
        # (the same on every retry), and every choice they need is drawn only in such
        # programs: the other programs of a seed are those generator v2 wrote.
        self.extra = random.Random(f"polysched-fuzz-extra:{seed}:{index}").random() < EXTRA_CHANCE
        self.tables: list[Table] = []
        # The constructs of v4 likewise (or the set asked for): they are added to the
        # program v3 writes, with the main stream, so a program that draws none is v3's.
        if v4 is None:
            draw = random.Random(f"polysched-fuzz-v4:{seed}:{index}")
            self.v4 = {kind for kind in V4_KINDS if draw.random() < V4_CHANCE[kind]}
        else:
            self.v4 = set(v4)
        # And those of v5, added to the program v4 writes.
        if v5 is None:
            draw = random.Random(f"polysched-fuzz-v5:{seed}:{index}")
            self.v5 = {kind for kind in V5_KINDS if draw.random() < V5_CHANCE[kind]}
        else:
            self.v5 = set(v5)
        self.v5_members: list[tuple[str, str]] = []     # (access name, member) of arrays of structs
        self.v5_names: list[str] = []                   # arrays v5 added for its ifs
        # And those of v6, only when asked for (True: drawn, at least one; a set: those),
        # added to the program v5 writes, with the main stream: without them the
        # program is v5's, so the programs of v5 stay what they are.
        if v6 is True:
            draw = random.Random(f"polysched-fuzz-v6:{seed}:{index}")
            self.v6 = {kind for kind in V6_KINDS if draw.random() < V6_CHANCE[kind]} or {draw.choice(V6_KINDS)}
        else:
            self.v6 = set(v6 or ())
        # And those of v7 likewise, added to the program v6 writes.
        if v7 is True:
            draw = random.Random(f"polysched-fuzz-v7:{seed}:{index}")
            self.v7 = {kind for kind in V7_KINDS if draw.random() < V7_CHANCE[kind]} or {draw.choice(V7_KINDS)}
        else:
            self.v7 = set(v7 or ())

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
        program = Program(self.seed, self.index, self.param_type, self.iter_type, self.params,
                          self.arrays, self.views, self.scalars, regions,
                          glue=rng.random() < 0.5, print_iters=rng.random() < 0.2, tables=self.tables)
        for kind, add in (("linearised", self.v4_linear), ("deref", self.v4_deref),
                          ("remainder", self.v4_remainder), ("enum", self.v4_enum)):
            if kind in self.v4:
                add(program)
        for kind, add in (("aos", self.v5_aos), ("cond", self.v5_cond)):
            if kind in self.v5:
                add(program)
        for kind in V6_KINDS:
            if kind in self.v6:
                self.v6_construct(program, kind)
        if self.v6:
            program.version = 6
        for kind in V7_KINDS:
            if kind in self.v7:
                self.v7_construct(program, kind)
        if self.v7:
            program.version = 7
        return program

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
        if self.extra:
            self.extra_loop(loop)
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
        if self.extra:
            p *= 1.6
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
        if self.extra and rng.random() < 0.45:
            conds[rng.randrange(len(conds))] = self.x_cond(loops)
        return conds

    def subscript(self, loops: list[Loop], used: set[str], rank: int = 1) -> Aff:
        aff = self._subscript(loops, used)
        if self.extra and loops and self.rng.random() < 0.14:
            aff = self.x_sub(aff, rank)
        return aff

    def _subscript(self, loops: list[Loop], used: set[str]) -> Aff:
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
        rank = self._rank(name)
        return Ref(name, [self.subscript(loops, used, rank) for _ in range(rank)])

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


    # -- the C constructs of generator v3 ---------------------------------------------
    def extra_loop(self, loop: Loop) -> None:
        """``!=`` tests, offsets near a type's limit, C terms in the bounds."""
        rng = self.rng
        if loop.step == 1 and rng.random() < 0.3:
            loop.ne = True
        if not loop.shift and rng.random() < 0.14:
            loop.offset = self.near_limit(loop)
        for bound, upper in ((loop.upper, True), (loop.lower, False)):
            if rng.random() < (0.2 if upper else 0.08):
                k = rng.randrange(len(bound.parts))
                bound.parts[k] = self.x_bound(bound.parts[k], upper)

    def near_limit(self, loop: Loop) -> int:
        """A literal offset for the C iterator: its last test at INT_MAX (UINT_MAX)
        when the upper bound is a literal, a few dozen below it otherwise; around 2**40
        for 64-bit iterators."""
        rng = self.rng
        if CTYPES[self.iter_type][0] == 64:
            return 2 ** 40 + rng.choice([-16, -1, 0, 0, 5, 1000])
        top = 2 ** 31 - 1 if self.iter_type == "int" else 2 ** 32 - 1
        parts = loop.upper.parts
        if len(parts) == 1 and not parts[0].names() and loop.upper.div == 1 and rng.random() < 0.7:
            return top - (parts[0].const + loop.step)
        return top - rng.choice([47, 60, 100, 1000])

    def table(self, dims: tuple[int, ...]) -> Table:
        dtype = self.rng.choice(["short", "int", "double", "char"])
        table = Table(f"tbl{len(self.tables)}", dtype, dims)
        self.tables.append(table)
        return table

    def param_aff(self) -> Aff | None:
        params = self.small_params()
        return Aff.of({self.rng.choice(params).name: 1}) if params else None

    def x_bound(self, part: Aff, upper: bool) -> Aff:
        """``part`` written with a C construct (its value kept, or truncated, wrapped,
        halved ... for some parameter values)."""
        rng = self.rng
        kind = self.pick({"uchar": 3, "short": 2, "int": 3, "unsigned": 2, "wrap": 4 if upper else 2,
                          "shift": 3, "sizeof": 3})
        leaf = X("aff", (part,))
        if kind in ("uchar", "short"):
            # '(unsigned char)(n + 250) - 250': n where it fits, n - 256 (an empty loop)
            # where it does not; with 256 (65536) it never fits
            ctype, top = ("unsigned char", 256) if kind == "uchar" else ("short", 65536)
            k = rng.choice([0, top - 6, top - 3, top - 1, top] if kind == "uchar" else
                           [0, top // 2 - 8, top // 2 - 3, top])
            x = X("cast", (X("aff", (part.plus(k),)),), ctype)
            return Aff(const=0 if k == top else -k, ext=((1, x),))
        elif kind == "int":
            choice = self.pick({"fits_for_some": 3, "fits": 2, "never": 1, "size_t": 1})
            if choice == "fits_for_some":   # '(int)(n + 2147483640L) - 2147483640L'
                k = lit(rng.choice([2147483640, 2147483645]), "long")
                x = X("-", (X("cast", (X("+", (leaf, k)),), "int"), k))
            elif choice == "fits":          # '(int)(n * 1L)'
                x = X("cast", (X("*", (leaf, lit(1, "long"))),), "int")
            elif choice == "never":         # '(int)(n + 4294967296L)': truncated back to n
                x = X("cast", (X(rng.choice("+-"), (leaf, lit(2 ** 32, "long"))),), "int")
            else:                           # through size_t, wrapped twice
                x = X("cast", (X("+", (X("cast", (leaf,), "size_t"), lit(2 ** 32, "size_t"))),), "int")
        elif kind == "unsigned":
            x = X("cast", (leaf,), "unsigned")
        elif kind == "wrap":
            if not part.names() and self.small_params():
                leaf = X("aff", (self.param_aff(),))    # 'n - 3u' rather than '0 - 3u'
            minus = X("-", (leaf, lit(rng.choice([1, 1, 2, 3]), "unsigned")))
            shape = rng.choice(["min", "mod", "plain"]) if upper else "plain"
            if shape == "min":
                x = X("MIN", (minus, lit(rng.randint(2, 8), "unsigned")))
            elif shape == "mod":
                x = X("%", (minus, lit(rng.choice([4, 6, 8, 9]))))
            else:
                x = minus
        elif kind == "shift":
            p = self.param_aff()
            if p is not None and rng.random() < 0.4:
                # 'n + (m >> 2)'
                shifted = X(">>", (X("aff", (p,)), lit(rng.choice([1, 2]))))
                return Aff(part.terms, part.const, part.ext + ((1, shifted),))
            x = X(rng.choice([">>", ">>", "<<"]), (leaf, lit(1)))
        else:
            if not part.names() and not part.ext and part.const >= 0 and rng.random() < 0.7:
                # 'sizeof(tbl) / sizeof(tbl[0])' for a literal bound
                count = part.const + rng.choice([0, 1, 1, 2]) + 1
                if rng.random() < 0.3:
                    table = self.table((rng.randint(1, 3), count))
                    x = X("/", (X("sizeof", name=f"{table.name}[0]", value=count * SIZEOF[table.dtype]),
                                X("sizeof", name=f"{table.name}[0][0]", value=SIZEOF[table.dtype])))
                else:
                    table = self.table((count,))
                    if table.dtype == "char" and rng.random() < 0.5:
                        x = X("sizeof", name=table.name, value=count)
                    else:
                        x = X("/", (X("sizeof", name=table.name, value=count * SIZEOF[table.dtype]),
                                    X("sizeof", name=f"{table.name}[0]", value=SIZEOF[table.dtype])))
                return Aff(const=part.const - count, ext=((1, x),))
            ctype = rng.choice(["int", "short", "double", "char"])
            size = SIZEOF[ctype]
            return Aff(part.terms, part.const - size, part.ext + ((1, X("sizeof", name=ctype, value=size)),))
        return Aff(ext=((1, x),))

    def x_sub(self, sub: Aff, rank: int) -> Aff:
        """A subscript written with a C construct; values truncated or wrapped are
        brought back in range by a ``%`` or by the array's size."""
        rng = self.rng
        kind = self.pick({"uchar": 3, "short": 2, "int": 2, "unsigned": 3, "wrap": 3, "cmod": 2,
                          "shift": 3, "sizeof": 2})
        leaf = X("aff", (sub,))
        if kind == "uchar":
            x = X("cast", (X("aff", (sub.plus(rng.choice([0, 240, 250, 252, 255, 256])),)),), "unsigned char")
            if rank > 1 or rng.random() < 0.4:
                x = X("%", (x, lit(rng.choice([4, 7, 8]))))
        elif kind == "short":
            if rng.random() < 0.5:
                inner = Aff(tuple((n, c * 8192) for n, c in sub.terms), sub.const * 8192, sub.ext) \
                    if not sub.ext else sub
            else:
                inner = sub.plus(32765)
            x = X("%", (X("cast", (X("aff", (inner,)),), "short"), lit(rng.choice([5, 7, 8]))))
        elif kind == "int":
            if rng.random() < 0.5:
                x = X("cast", (X(rng.choice("+-"), (leaf, lit(2 ** 32, "long"))),), "int")
            else:                   # fits unless the subscript is 48 or more
                k = lit(2147483600, "long")
                x = X("-", (X("cast", (X("+", (leaf, k)),), "int"), k))
        elif kind == "unsigned":
            x = X("%", (X("cast", (X("aff", (sub.plus(-rng.randint(0, 3)),)),), "unsigned"),
                        lit(rng.choice([5, 7, 8, 16]))))
        elif kind == "wrap":
            p = self.param_aff()
            k = lit(rng.choice([1, 2, 3, 5]), "unsigned")
            if p is not None:
                x = X("+", (X("-", (X("aff", (p,)), k)), leaf))
            else:
                x = X("-", (leaf, k))
            x = X("%", (x, lit(rng.choice([5, 7, 8]))))
        elif kind == "cmod":
            x = X("%", (X("aff", (sub.plus(-rng.randint(1, 3)),)), lit(rng.choice([3, 4]))))
        elif kind == "shift":
            p = self.param_aff()
            if p is not None and rng.random() < 0.4:
                return Aff(sub.terms, sub.const, sub.ext + ((1, X(">>", (X("aff", (p,)), lit(1)))),))
            x = X(rng.choice(["<<", ">>"]), (leaf, lit(1)))
        else:
            ctype = rng.choice(["int", "short", "char"])
            size = SIZEOF[ctype]
            return Aff(sub.terms, sub.const - size, sub.ext + ((1, X("sizeof", name=ctype, value=size)),))
        return Aff(ext=((1, x),))

    def x_cond(self, loops: list[Loop]) -> Cond:
        """A guard written with a C construct: ``(unsigned)(i - 2) <= 3``, ``i <= n -
        3u``, ``(unsigned char)(i + 250) >= 252``, ``(i >> 1) == 1`` ..."""
        rng = self.rng
        v = rng.choice(loops).var
        p = self.param_aff()
        kind = self.pick({"urange": 3, "wrap": 3 if p else 0, "uchar": 2, "short": 1, "shift": 3,
                          "sizeof": 2, "int": 1})
        var = Aff.of({v: 1})

        def term(x: X) -> Aff:
            return Aff(ext=((1, x),))
        if kind == "urange":
            x = X("cast", (X("aff", (var.plus(-rng.randint(0, 3)),)),), "unsigned")
            return Cond(term(x), "<=", Aff.of({}, rng.randint(1, 5)))
        if kind == "wrap":
            x = X("-", (X("aff", (p,)), lit(rng.choice([1, 2, 3, 4]), "unsigned")))
            return Cond(var, rng.choice(["<=", ">="]), term(x))
        if kind == "uchar":
            x = X("cast", (X("aff", (var.plus(rng.choice([250, 253, 255, 256])),)),), "unsigned char")
            return Cond(term(x), rng.choice(["<=", ">="]), Aff.of({}, rng.choice([3, 252, 254])))
        if kind == "short":
            x = X("cast", (X("aff", (Aff.of({v: 16384}),)),), "short")
            return Cond(term(x), rng.choice([">=", "<="]), Aff.of({}, 0))
        if kind == "shift":
            if rng.random() < 0.5:
                return Cond(term(X(">>", (X("aff", (var,)), lit(1)))), "==", Aff.of({}, rng.randint(0, 3)))
            return Cond(term(X("<<", (X("aff", (var,)), lit(1)))), ">=", p or Aff.of({}, rng.randint(1, 6)))
        if kind == "sizeof":
            size = X("sizeof", name="int", value=4)
            rhs = p.plus(4) if p is not None else Aff.of({}, rng.randint(4, 8))
            return Cond(Aff(var.terms, 0, ((1, size),)), ">=", rhs)
        # wraps (to a negative number) for i >= 3, or always
        x = X("cast", (X("+", (X("aff", (var,)), lit(rng.choice([2147483645, 2 ** 32]), "long"))),), "int")
        return Cond(term(x), "<=", Aff.of({}, rng.randint(1, 5)))

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

    # -- the C constructs of generator v4 ---------------------------------------------
    def _sizes_ctype(self) -> str:
        """The type of a row size: 32-bit unsigned subscripts are refused, so with
        'unsigned' iterators the sizes are 64 bits wide."""
        if self.iter_type == "unsigned":
            return self.rng.choice(["long", "size_t"])
        return self.pick({"int": 5, "long": 2, "size_t": 2})

    def _free_name(self, program: Program, names: tuple[str, ...]) -> str:
        taken = {p.name for p in program.params} | {a.name for a in program.arrays} \
            | {v.name for v in program.views} | {s.name for s in program.scalars}
        return next(n for n in names if n not in taken)

    def v4_linear(self, program: Program) -> None:
        """A nest over rows of a one-dimensional pointer (``f[i * n + j]``, three sizes,
        column-major, ``IDX``), plain ``f[k]`` next to it, and linearised reads in the
        statements of the v3 nests."""
        rng = self.rng
        base = self._sizes_ctype()

        def size(value: int) -> str:
            ctype = base if rng.random() < 0.8 else self._sizes_ctype()
            name = self._free_name(program, ("n", "m", "w", "h", "nr", "nc", "np"))
            program.params.append(Param(name, "arg", value, ctype))
            return name
        shape = self.pick({"row": 25, "col": 25, "3d": 25, "macro": 25})
        cols = size(self.pick({0: 1, 1: 1, 2: 3, 3: 3, 4: 3, 5: 2, 7: 1}))
        rows = size(self.pick({0: 1, 1: 2, 2: 3, 3: 3, 4: 2, 6: 1}))
        planes = size(self.pick({1: 1, 2: 2, 3: 1})) if shape == "3d" else None
        value = {p.name: p.value for p in program.params}
        unsigned = self.unsigned or any(p.ctype in UNSIGNED_TYPES for p in program.params)
        dtype = "double" if rng.random() < 0.7 else "int"
        program.arrays.append(Array("F", dtype, 1))
        program.views.append(View("f", "F", raw=True))
        flats = ["f"]
        r = rng.random()
        if r < 0.3:     # a second pointer into the same rows: one element, one row further ...
            delta = rng.choice([1, 3, value[cols], value[cols] * value[rows]])
            program.views.append(View("g", "F", delta, raw=True))
            flats.append("g")
        elif r < 0.5:
            program.arrays.append(Array("G", dtype, 1))
            program.views.append(View("g", "G", raw=True))
            flats.append("g")
        self.names.extend(flats)

        # dims outermost first: sizes[d] is the extent of dimension d
        sizes = [planes, rows, cols] if shape == "3d" else [rows, cols]
        dims = len(sizes)
        order = list(range(dims))               # order[level] = the dimension that loop walks
        if shape == "col" or (dims == 2 and rng.random() < 0.2):
            order = [1, 0]                      # the fast index outside: a column-major walk
        elif dims == 3 and rng.random() < 0.2:
            order = [0, 2, 1]
        loops: list[Loop] = []
        lows: dict[int, int] = {}
        for level, d in enumerate(order):
            lows[d] = rng.choice([0, 0, 1])
            lower = Bound([Aff.of({}, lows[d])])
            strict = True
            if d == dims - 1:   # the index inside a row
                kind = self.pick({"size": 5, "short": 2, "other": 2, "literal": 1, "past": 1})
            else:
                kind = self.pick({"size": 6, "literal": 1})
            if kind == "size":
                upper = Aff.of({sizes[d]: 1}, -1)               # j < n
            elif kind == "short":
                upper = Aff.of({sizes[d]: 1}, -2)               # j < n - 1
            elif kind == "other":
                upper = Aff.of({rows if sizes[d] != rows else cols: 1}, -1)   # j < m: past the row
            elif kind == "past":
                upper, strict = Aff.of({sizes[d]: 1}), rng.random() < 0.5    # j <= n
            else:
                upper = Aff.of({}, rng.randint(1, 5))
            loops.append(Loop(ITERATORS[level], lower, Bound([upper]), [], strict=strict))
        var = {d: ITERATORS[order.index(d)] for d in range(dims)}

        def index(offsets: dict[int, int] | None = None, flat: str = "f") -> Ref:
            idx = [Aff.of({var[d]: 1}, (offsets or {}).get(d, 0)) for d in range(dims)]
            return Ref(flat, [self.linear(shape, idx, sizes)])

        def offset_ok(d: int, k: int) -> bool:
            return k >= 0 or lows[d] + k >= 0 or not unsigned
        reads = []
        options = [(d, k) for d in range(dims) for k in (-1, 1) if offset_ok(d, k)]
        for _ in range(self.pick({1: 4, 2: 4, 3: 2})):
            what = self.pick({"offset": 6, "plain": 2, "other": 2, "second": 2 if len(flats) > 1 else 0})
            if what == "offset" and options:
                d, k = rng.choice(options)
                reads.append(index({d: k}))
            elif what == "plain":               # f[j]: the same array, not linearised
                reads.append(Ref("f", [Aff.of({var[rng.randrange(dims)]: 1}, rng.choice([0, 0, 1]))]))
            elif what == "second":
                reads.append(index({dims - 1: rng.choice([0, 0, 1])}, "g"))
            else:
                names = [n for n in self.names if n not in flats and (dtype == "double" or self.dtype(n) == "int")]
                if names:
                    reads.append(self.ref(rng.choice(names), loops))
        if dtype == "int":
            reads = [r for r in reads if self.dtype(r.name) == "int"]
        target = index({} if rng.random() < 0.8 else {dims - 1: rng.choice([-1, 1]) if not unsigned else 1})
        body = [Stmt(target, reads, [rng.randrange(12) for _ in reads], "+=" if rng.random() < 0.25 else "=",
                     None, rng.randrange(8))]
        if rng.random() < 0.3:
            body.append(Stmt(index({}, rng.choice(flats)), [index({0: 0})], [rng.randrange(12)], "+=",
                             None, rng.randrange(8)))
        for level in range(dims - 1, -1, -1):
            loops[level].body = body
            body = [loops[level]]
        nest = body
        if rng.random() < 0.4:      # 'for (i = 0; i < n; i++) f[i] = ...' next to it
            plain = Loop(ITERATORS[0], Bound([Aff.of({}, 0)]), Bound([Aff.of({cols: 1}, -1)]), [], strict=True)
            plain.body = [self.stmt_on(Ref("f", [Aff.of({ITERATORS[0]: 1})]), [plain])]
            nest = [plain] + nest if rng.random() < 0.6 else nest + [plain]
        # linearised reads in the v3 statements (rows the v3 bounds know nothing of)
        for region in program.regions:
            for node, outer in walk(region):
                if isinstance(node, Stmt) and len(outer) >= 2 and node.reads and not node.product \
                        and rng.random() < 0.3:
                    if dtype == "double" and self.dtype(node.target.name) == "int":
                        continue
                    a, b = sorted(rng.sample(range(len(outer)), 2))
                    idx = [Aff.of({outer[a].var: 1}), Aff.of({outer[b].var: 1}, rng.choice([0, 0, 1, -1]))]
                    k = rng.randrange(len(node.reads))
                    form = self.pick({"row": 2, "col": 1, "macro": 1})
                    node.reads[k] = Ref(rng.choice(flats), [self.linear(form, idx, [rows, cols])])
        region = rng.choice(program.regions)
        at = rng.randint(0, len(region))
        region[at:at] = nest

    def linear(self, shape: str, idx: list[Aff], sizes: list[str]) -> Aff:
        """The subscript of element ``idx`` (outermost first) of rows of ``sizes``:
        ``a * n + b``, ``b + a * n`` (``"col"``), ``(a * m + b) * n + c`` (``"3d"``),
        ``IDX(a, b)`` (``"macro"``); the innermost constant is the Aff's."""
        def leaf(a: Aff) -> X:
            return X("aff", (a,))
        fast = idx[-1]
        fast_terms = Aff(fast.terms, 0, fast.ext)
        if shape == "macro" and len(idx) == 2:
            return Aff(ext=((1, X("IDX", (leaf(idx[0]), leaf(fast)), name=sizes[-1])),))
        slow = leaf(idx[0])
        for d in range(1, len(idx) - 1):        # (a * m + b): the slower indices
            slow = _plus_aff(X("*", (slow, leaf(Aff.of({sizes[d]: 1})))), idx[d])
        row = X("*", (slow, leaf(Aff.of({sizes[-1]: 1}))))
        if not fast_terms.terms and not fast_terms.ext:
            x = row
        elif shape == "col":
            x = X("+", (leaf(fast_terms), row))
        else:
            x = X("+", (row, leaf(fast_terms)))
        return Aff(const=fast.const, ext=((1, x),))

    def stmt_on(self, target: Ref, loops: list[Loop]) -> Stmt:
        """A statement writing ``target``, reading what the program has (dtypes kept)."""
        rng = self.rng
        dtype = self.dtype(target.name)
        names = [n for n in self.names if dtype == "double" or self.dtype(n) == "int"]
        reads = [self.ref(rng.choice(names), loops) for _ in range(self.pick({1: 5, 2: 4})) if names]
        return Stmt(target, reads, [rng.randrange(12) for _ in reads], "+=" if rng.random() < 0.25 else "=",
                    None, rng.randrange(8))

    def v4_deref(self, program: Program) -> None:
        """``for (i = 1; i < n; i++) *(dst + i) = *(src + i - 1) ...``, ``*sum += ...``
        (pointers main may pass overlapping), and ``*(x + i)`` for ``x[i]`` of v3 views."""
        rng = self.rng
        # v3 views of rank 1 written '*(x + i - 1)' (all their accesses, when they can)
        refs: dict[str, list[Ref]] = {}
        for stmt in statements(program):
            for ref in refs_of(stmt):
                view = program.view(ref.name)
                if view is not None and not view.raw and program.storage_of(ref.name).rank == 1:
                    refs.setdefault(ref.name, []).append(ref)
        for name, found in refs.items():
            if all(len(r.subs[0].terms) <= 1 and not r.subs[0].ext for r in found) and rng.random() < 0.5:
                program.view(name).raw = True
                for r in found:
                    r.style = "deref"
        rank1 = [a for a in program.arrays if a.rank == 1]
        if rank1 and rng.random() < 0.5:
            src_store = rng.choice(rank1)
        else:
            src_store = Array("P", "double" if rng.random() < 0.7 else "int", 1)
            program.arrays.append(src_store)
        dtype = src_store.dtype
        program.views.append(View("src", src_store.name, raw=True))
        r = rng.random()
        others = [a for a in rank1 if a.dtype == dtype and a is not src_store]
        if r < 0.35:        # dst overlaps src: written while it is read
            program.views.append(View("dst", src_store.name, rng.choice([1, 2, -1, 0]), raw=True))
        elif r < 0.55 and others:
            program.views.append(View("dst", rng.choice(others).name, raw=True))
        else:
            program.arrays.append(Array("Q", dtype, 1))
            program.views.append(View("dst", "Q", raw=True))
        v = ITERATORS[0]
        params = [p for p in self.small_params() if p.value >= 0]
        hi = Aff.of({rng.choice(params).name: 1}, rng.choice([0, 0, 1, 2])) if params and rng.random() < 0.6 \
            else Aff.of({}, rng.randint(3, 12))
        loop = Loop(v, Bound([Aff.of({}, rng.choice([1, 1, 0, 2]))]), Bound([hi.plus(-1)]), [], strict=True,
                    down=rng.random() < 0.15)

        def at(name: str, k: int) -> Ref:
            return Ref(name, [Aff.of({v: 1}, k)], "deref")
        reads = [at("src", rng.choice([-1, 0, 1])) for _ in range(self.pick({1: 3, 2: 4, 3: 1}))]
        if rng.random() < 0.3:
            reads.append(Ref("src", [Aff.of({v: 1})]))          # src[i] next to *(src + i)
        if rng.random() < 0.3:
            reads.append(at("dst", -1))
        loop.body.append(Stmt(at("dst", 0), reads, [rng.randrange(12) for _ in reads],
                              "+=" if rng.random() < 0.2 else "=", None, rng.randrange(8)))
        region = rng.choice(program.regions)
        pos = rng.randint(0, len(region))
        region[pos:pos] = [loop]
        if rng.random() < 0.25:
            return
        # *sum: its own cell, or inside an array the program reads (the overlap check)
        try:
            sim = simulate(program)
        except InvalidProgram:
            sim = None
        cells = []
        if sim is not None:
            for name, dims in sim.ranges.items():
                storage = program.storage_of(name)
                if program.scalar(name) is None and storage.rank == 1 and name in sim.accessed:
                    view = program.view(name)
                    delta = view.delta if view is not None else 0
                    cells.append((storage, dims[0][0] + delta, dims[0][1] + delta))
        if cells and rng.random() < 0.6:
            storage, lo, hi_cell = rng.choice(cells)
            program.views.append(View("sum", storage.name, rng.randint(lo, hi_cell), raw=True))
        else:
            storage = Array("S", "double" if rng.random() < 0.7 else "int", 1)
            program.arrays.append(storage)
            program.views.append(View("sum", "S", raw=True))
        places = [(loop.body, [loop])] + [(n.body, list(outer) + [n]) for n, outer in all_nodes(program)
                                          if isinstance(n, Loop) and len(outer) < 3 and n is not loop]
        body, loops = places[0] if rng.random() < 0.5 else rng.choice(places)
        names = [n for n in self.names + ["src"] if storage.dtype == "double" or self.dtype(n) == "int"]
        reads = [self.ref(rng.choice(names), loops) for _ in range(self.pick({1: 3, 2: 2})) if names]
        if any(r.name == "src" for r in reads) and loops[-1] is not loop:
            reads = [r for r in reads if r.name != "src"]
        for r in reads:
            if r.name == "src":
                r.style = "deref" if len(r.subs[0].terms) <= 1 else ""
        target = Ref("sum", [Aff()], "deref")
        op = "+=" if rng.random() < 0.75 else "="
        if op == "=":
            reads.append(Ref("sum", [Aff()], "deref"))     # '*sum = *sum * ... + ...'
        body.append(Stmt(target, reads, [rng.randrange(12) for _ in reads], op, None, rng.randrange(8)))

    def v4_remainder(self, program: Program) -> None:
        """A loop unrolled by hand and its remainder loop, in one block: ``for (i = lo;
        i + 4 <= hi; i += 4) {S(i) .. S(i + 3)} for (; i < hi; i++) S(i)``, stepping down,
        or after ``i <= hi - 4`` / ``i < hi - 3``."""
        rng = self.rng
        spots = [(region, []) for region in program.regions]
        inner = [(n.body, list(outer) + [n]) for n, outer in all_nodes(program)
                 if isinstance(n, Loop) and len(outer) < 2 and not n.cont]
        body, outer = rng.choice(spots) if not inner or rng.random() < 0.5 else rng.choice(inner)
        level = len(outer)
        var = ITERATORS[level]
        u = self.pick({2: 3, 3: 2, 4: 3})
        params = [p for p in self.small_params() if p.value >= 0]
        kind = self.pick({"param": 4 if params else 0, "literal": 4, "outer": 2 if outer else 0})
        if kind == "param":
            hi = Aff.of({rng.choice(params).name: 1}, rng.choice([0, 0, 1, 3]))
        elif kind == "outer":
            hi = Aff.of({rng.choice(outer).var: 1}, rng.choice([2, 3, 5]))
        else:
            hi = Aff.of({}, rng.randint(2, 13))
        lo = Aff.of({}, rng.choice([0, 0, 1, 2]))
        variant = self.pick({"head": 4, "head_lt": 2, "down": 0 if self.unsigned else 5, "step_le": 2,
                             "step_lt": 2})
        tmp = Loop(var, Bound([lo]), Bound([hi]), [])
        if level < 5 and rng.random() < 0.3:
            template = self.loop(level + 1, outer + [tmp], 1)
        else:
            template = self.stmt(outer + [tmp])
        for n, _ in walk([template]):
            if isinstance(n, Stmt) and n.iter_var == var:
                n.iter_var = None       # the copies compute S(i + 1) .. exactly
        down = variant == "down"
        copies = [_shifted_node(template, var, -k if down else k) for k in range(u)]
        main = Loop(var, Bound([lo]), Bound([hi]), copies, step=u)
        if variant == "head":           # i + 4 <= hi
            main.head = u
        elif variant == "head_lt":      # i + 3 < hi
            main.head, main.strict, main.upper = u - 1, True, Bound([hi.plus(-1)])
        elif variant == "down":         # for (i = hi; i - 4 >= lo; i -= 4)
            main.head, main.down = u, True
        else:                           # i <= hi - 4, i < hi - 3
            main.upper, main.strict = Bound([hi.plus(-u)]), variant == "step_lt"
        if down:                        # for (; i > lo; i--)
            rest = Loop(var, Bound([lo.plus(1)]), Bound([hi]), [template], down=True,
                        strict=rng.random() < 0.7, cont=True)
        else:                           # for (; i < hi; i++)
            rest = Loop(var, Bound([lo]), Bound([hi.plus(-1)]), [template], strict=rng.random() < 0.7, cont=True)
        at = rng.randint(0, len(body))
        body[at:at] = [main, rest]

    def v4_enum(self, program: Program) -> None:
        """``enum { N = 8, M = N + 2, K };`` and a local ``enum { STEP = 3 };``, used for
        literal bounds of the same value, steps, subscripts and statement values."""
        rng = self.rng
        loops = [n for n, _ in all_nodes(program) if isinstance(n, Loop)]
        plain = [n for n in loops if not n.offset and not n.shift]
        literals = [part.const for n in plain for b in (n.lower, n.upper) for part in b.parts
                    if not part.names() and not part.ext and part.const >= 2]
        base = rng.choice(literals) if literals and rng.random() < 0.75 else rng.choice([4, 6, 8, 40])
        d = rng.choice([1, 2, 6])
        pool = ("N", "M", "K", "LEN", "ROWS", "COLS", "E1", "E2", "E3")
        members = []
        for value, init in ((base, ("lit",)), (base + d, ("ref", None, d)), (base + d + 1, ("next", None))):
            name = self._free_name(program, pool)
            if init[0] != "lit":
                init = (init[0], members[-1].name) + init[2:]
            members.append(Param(name, "enum", value, init=init))
            program.params.append(members[-1])
        local = Param(self._free_name(program, ("STEP", "STRIDE")), "enum_local", rng.choice([2, 3]), init=("lit",))
        program.params.append(local)

        def nearest(v: int) -> Param:
            return min(members, key=lambda p: abs(p.value - v))
        for n in plain:
            for b in (n.lower, n.upper):
                for k, part in enumerate(b.parts):
                    if part.names() or part.ext:
                        continue
                    e = nearest(part.const)
                    if abs(part.const - e.value) <= 3 and rng.random() < 0.6:
                        b.parts[k] = Aff.of({e.name: 1}, part.const - e.value)
        cont_vars = {n.var for n in loops if n.cont}
        for n in plain:
            if n.ne or n.cont or n.head or n.var in cont_vars:
                continue
            if n.step == local.value and rng.random() < 0.8:
                n.step_name = local.name
            elif n.step == 1 and rng.random() < 0.2:
                n.step, n.step_name = local.value, local.name
        for stmt in statements(program):
            for ref in refs_of(stmt):
                view = program.view(ref.name)
                if ref.style == "deref" or (view is not None and view.raw):
                    continue
                for k, sub in enumerate(ref.subs):
                    if sub.ext:
                        continue
                    r = rng.random()
                    e = rng.choice(members)
                    terms = dict(sub.terms)
                    terms[e.name] = terms.get(e.name, 0) + 1
                    if r < 0.1:         # (i + K) % M
                        mod = rng.choice(members[1:])
                        x = X("%", (X("aff", (Aff.of(terms, sub.const),)), X("aff", (Aff.of({mod.name: 1}),))))
                        ref.subs[k] = Aff(ext=((1, x),))
                    elif r < 0.2:       # i + N - 8
                        ref.subs[k] = Aff.of(terms, sub.const - e.value)
            if not stmt.product and rng.random() < 0.25:
                e = rng.choice(members + [local])
                stmt.enum_term = (e.name, e.value)
        used = {p.name for p in used_params(program)}
        stmts = [s for s in statements(program) if not s.product]
        if not used & {p.name for p in members} and stmts:
            e = rng.choice(members)
            rng.choice(stmts).enum_term = (e.name, e.value)
        if local.name not in used and stmts:
            steppable = [n for n in plain if n.step == 1 and not (n.ne or n.cont or n.head or n.var in cont_vars)]
            if steppable and rng.random() < 0.7:
                n = rng.choice(steppable)
                n.step, n.step_name = local.value, local.name
            else:
                rng.choice(stmts).enum_term = (local.name, local.value)


    # -- the C constructs of generator v5 ---------------------------------------------
    def v5_name(self, program: Program, base: str) -> str:
        """A name no parameter, array, pointer or scalar has: ``base``, ``base1`` ..."""
        return self._free_name(program, (base,) + tuple(f"{base}{k}" for k in range(1, 60)))

    def v5_scalar(self, program: Program, base: str, dtype: str, init: str) -> str:
        name = self.v5_name(program, base)
        program.scalars.append(Scalar(name, dtype, init))
        return name

    def v5_nest(self, program: Program) -> list[Loop]:
        """A new nest of one to three loops (v3's bounds); the loops, outermost first."""
        rng = self.rng
        depth = self.pick({1: 4, 2: 4, 3: 1})
        loops: list[Loop] = []
        for level in range(depth):
            lower, upper = self.bounds(loops, EXTENT_BY_DEPTH[depth])
            loop = Loop(ITERATORS[level], lower, upper, [], step=self.pick({1: 8, 2: 1}),
                        down=not self.unsigned and rng.random() < 0.15, strict=rng.random() < 0.5)
            if loops:
                loops[-1].body.append(loop)
            loops.append(loop)
        return loops

    def v5_insert(self, program: Program, node) -> None:
        """``node`` at the top of a region (not before a remainder loop: it would start
        from where ``node`` leaves the iterator)."""
        region = self.rng.choice(program.regions)
        spots = [k for k in range(len(region) + 1)
                 if k == len(region) or not (isinstance(region[k], Loop) and region[k].cont)]
        region.insert(self.rng.choice(spots), node)

    def v5_dtype(self, program: Program, name: str, member: str) -> str:
        return program.ref_dtype(Ref(name, member=member))

    def v5_pool(self, program: Program) -> list[tuple[str, str]]:
        """(access name, member) of the arrays v5's ifs read and write: v3's (not raw
        pointers: their subscripts are v4's), v5's own, members of arrays of structs."""
        pool = []
        for name in self.names + self.v5_names:
            view = program.view(name)
            if (view is None or not view.raw) and program.storage_of(name) is not None:
                pool.append((name, ""))
        return pool + list(self.v5_members)

    def v5_choose(self, program: Program, arrays_only: bool = False, want_int: bool = False):
        """(name, member) of an array element or (unless ``arrays_only``) a scalar;
        ``want_int``: of int data. None when there is none."""
        rng = self.rng
        options = [(n, m) for n, m in self.v5_pool(program)
                   if not want_int or self.v5_dtype(program, n, m) == "int"]
        scalars = [] if arrays_only else [(s.name, "") for s in program.scalars
                                          if not want_int or s.dtype == "int"]
        if scalars and (not options or rng.random() < 0.15):
            return rng.choice(scalars)
        return rng.choice(options) if options else None

    def v5_ref(self, program: Program, name: str, member: str, loops: list[Loop],
               first: Aff | None = None) -> Ref:
        """A reference over ``loops``: v2's subscripts for the array's dimensions
        (``first`` for the first one, when given), the innermost iterator or a constant
        for a member array's."""
        rng = self.rng
        if program.scalar(name) is not None:
            return Ref(name)
        storage = program.storage_of(name)
        used: set[str] = set()
        if first is not None:
            used |= first.names()
        subs = [first if d == 0 and first is not None else self._subscript(loops, used)
                for d in range(storage.rank)]
        if member:
            for _ in range(program.struct_of(storage).member(member)[2]):
                if loops and rng.random() < 0.7:
                    subs.append(Aff.of({loops[-1].var: 1}, rng.choice([0, 0, 1, -1])))
                else:
                    subs.append(Aff.of({}, rng.randint(0, 3)))
        return Ref(name, subs, member=member)

    def v5_literal(self, dtype: str) -> str:
        if dtype == "double":
            return self.rng.choice(["0.0", "0.5", "-0.25", "0.25", "1.0", "-0.5", "1.5"])
        return str(self.rng.choice([0, 1, 2, 3, 4, -1, -2]))

    def v5_data_test(self, program: Program, loops: list[Loop], ref: Ref | None = None) -> Test:
        """A comparison that reads the data: ``A[i] < 0.5``, ``x[i] > y[i]``,
        ``A[i] + B[i] >= 1.0``, ``x[i] % 3 == 0`` (int data)."""
        rng = self.rng
        if ref is None:
            name, member = self.v5_choose(program)
            ref = self.v5_ref(program, name, member, loops)
        dtype = program.ref_dtype(ref)
        shape = self.pick({"lit": 6, "ref": 3, "sum": 2, "mod": 2 if dtype == "int" else 0})
        cmp = rng.choice(["<", ">", "<=", ">=", "!="] + (["=="] if dtype == "int" else []))
        if shape == "mod":
            m = rng.choice([2, 3, 4])
            return Test(rng.choice(["==", "!="]), [Test("%", [ref, str(m)]), str(rng.randrange(m))])
        other = None
        if shape in ("ref", "sum"):
            name, member = self.v5_choose(program)
            other = self.v5_ref(program, name, member, loops)
            if (other.name, other.member, other.subs) == (ref.name, ref.member, ref.subs):
                shape = "lit"       # 'x[i] > x[i]' (gcc -Wall: a self-comparison)
        if shape == "ref":
            return Test(cmp, [ref, other])
        if shape == "sum":
            both = "int" if dtype == "int" and program.ref_dtype(other) == "int" else "double"
            return Test(cmp, [Test(rng.choice("+-"), [ref, other]), self.v5_literal(both)])
        literal = self.v5_literal(dtype)
        if rng.random() < 0.2:      # '0.5 < A[i]'
            flip = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "!=": "!=", "==": "=="}
            return Test(flip[cmp], [literal, ref])
        return Test(cmp, [ref, literal])

    def v5_affine_test(self, loops: list[Loop]) -> Test:
        """``i > 2``, ``i < n - 1``, ``i != j``: affine, mixed with data terms."""
        rng = self.rng
        v = rng.choice(loops).var
        params = self.small_params()
        others = [loop.var for loop in loops if loop.var != v]
        r = rng.random()
        if r < 0.25 and params:
            return Test(rng.choice(["<", ">="]), [Aff.of({v: 1}), Aff.of({rng.choice(params).name: 1},
                                                                         rng.choice([-1, 0]))])
        if r < 0.4 and others:
            return Test(rng.choice(["<", "!=", ">="]), [Aff.of({v: 1}), Aff.of({rng.choice(others): 1})])
        return Test(rng.choice([">", "<", ">=", "<=", "!="]), [Aff.of({v: 1}), Aff.of({}, rng.randint(0, 4))])

    def v5_guard_test(self, loops: list[Loop]) -> Test:
        """What a clamp, an extremum or a swap is also conditioned on: ``i > 2``,
        ``(i & 1) == 0`` ..."""
        return self.v5_affine_test(loops) if self.rng.random() < 0.6 else self.v5_nonaffine_test(loops)

    def v5_nonaffine_test(self, loops: list[Loop]) -> Test:
        """``i * j > n``, ``(i & 3) == 0``, ``i % n == 0`` (``n`` a kernel argument > 0)."""
        rng = self.rng
        v, w = rng.choice(loops).var, rng.choice(loops).var
        params = self.small_params()
        positive = [p for p in params if p.kind == "arg" and p.value > 0]

        def leaf(name: str) -> X:
            return X("aff", (Aff.of({name: 1}),))
        kind = self.pick({"product": 3, "and": 3, "mod": 2 if positive else 0})
        if kind == "product":
            x = X("*", (leaf(v), leaf(w)))
            rhs = Aff.of({rng.choice(params).name: 1}, rng.choice([0, 1])) if params and rng.random() < 0.5 \
                else Aff.of({}, rng.randint(0, 12))
            return Test(rng.choice([">", "<", ">=", "<="]), [Aff(ext=((1, x),)), rhs])
        if kind == "and":
            mask = rng.choice([1, 3, 7])
            x = X("&", (leaf(v), lit(mask)))
            return Test(rng.choice(["==", "!="]), [Aff(ext=((1, x),)), Aff.of({}, rng.randint(0, mask))])
        x = X("%", (leaf(v), leaf(rng.choice(positive).name)))
        return Test(rng.choice(["==", "!="]), [Aff(ext=((1, x),)), Aff.of({}, rng.choice([0, 0, 1]))])

    def v5_test(self, program: Program, loops: list[Loop], ref: Ref | None = None) -> Test:
        """A condition polysched cannot express: it reads the data, or is not affine,
        or mixes affine and data terms."""
        rng = self.rng
        kind = self.pick({"data": 4, "mixed": 3, "nonaffine": 3, "both": 2})
        if kind == "data":
            return self.v5_data_test(program, loops, ref)
        if kind == "nonaffine":
            return self.v5_nonaffine_test(loops)
        first = self.v5_affine_test(loops) if kind == "mixed" else self.v5_nonaffine_test(loops)
        args = [first, self.v5_data_test(program, loops, ref)]
        if rng.random() < 0.4:
            args.reverse()
        return Test("&&" if rng.random() < 0.65 else "||", args)

    def v5_stmt(self, program: Program, loops: list[Loop]) -> Stmt:
        """A v3-style statement (no iterator term) over the arrays and scalars v5 uses."""
        rng = self.rng
        name, member = self.v5_choose(program)
        target = self.v5_ref(program, name, member, loops)
        want_int = program.ref_dtype(target) == "int"
        reads = []
        for _ in range(self.pick({0: 1, 1: 4, 2: 3})):
            choice = self.v5_choose(program, want_int=want_int)
            if choice is None:
                break
            reads.append(self.v5_ref(program, *choice, loops))
        return Stmt(target, reads, [rng.randrange(12) for _ in reads], "+=" if rng.random() < 0.3 else "=",
                    None, rng.randrange(8))

    def v5_assign(self, program: Program, loops: list[Loop]) -> Assign:
        """``A[i] = 0.5;``, ``x[i] = y[j];``, ``s0 += 1.0;``, ``H[i]++;``, ``--cnt;``."""
        rng = self.rng
        name, member = self.v5_choose(program)
        target = self.v5_ref(program, name, member, loops)
        dtype = program.ref_dtype(target)
        r = rng.random()
        if r < 0.35:
            return Assign(target, "=", self.v5_literal(dtype))
        if r < 0.65:
            choice = self.v5_choose(program, want_int=dtype == "int")
            if choice is not None:
                value = self.v5_ref(program, *choice, loops)
                if (value.name, value.member, value.subs) != (target.name, target.member, target.subs):
                    return Assign(target, "=", value)
        if r < 0.85 or dtype != "int":
            return Assign(target, rng.choice(["+=", "-="]), "1.0" if dtype == "double" else "1")
        return Assign(target, rng.choice(["++", "--", "pre++", "pre--"]))

    def v5_counter(self, program: Program, loops: list[Loop]) -> Ref:
        """An int counter: a scalar ``cnt``, or an element ``H[j]`` of an int array."""
        rng = self.rng
        if rng.random() < 0.5:
            names = [s.name for s in program.scalars if s.dtype == "int" and s.name.startswith("cnt")]
            return Ref(rng.choice(names) if names and rng.random() < 0.5
                       else self.v5_scalar(program, "cnt", "int", "0"))
        choice = self.v5_choose(program, arrays_only=True, want_int=True)
        if choice is None or rng.random() < 0.4:
            name = self.v5_name(program, "H")
            program.arrays.append(Array(name, "int", 1))
            self.v5_names.append(name)
            choice = (name, "")
        return self.v5_ref(program, *choice, loops, first=Aff.of({loops[-1].var: 1}, rng.choice([0, 0, 1])))

    def v5_clamp(self, program: Program, loops: list[Loop]) -> DataIf:
        """``if (A[i][j] < 0.0) A[i][j] = 0.0; else if (A[i][j] > 0.5) { A[i][j] = 0.5;
        B[i] += 1.0; }``"""
        rng = self.rng
        c = copy.deepcopy
        target = self.v5_ref(program, *self.v5_choose(program, arrays_only=True), loops)
        dtype = program.ref_dtype(target)
        values = sorted({self.v5_literal(dtype) for _ in range(6)}, key=float)
        if len(values) < 2:
            values = ["0.0", "1.0"] if dtype == "double" else ["0", "1"]
        low, high = values[0], values[-1]
        test = Test(rng.choice(["<", "<="]), [c(target), low])
        if rng.random() < 0.25:
            test = Test("&&", [self.v5_guard_test(loops), test])
        then = [Assign(c(target), "=", low)]
        other = None
        r = rng.random()
        if r < 0.7:
            more = []
            if rng.random() < 0.5:
                bump = self.v5_counter(program, loops) if rng.random() < 0.5 else \
                    self.v5_ref(program, *self.v5_choose(program), loops)
                step = "1.0" if program.ref_dtype(bump) == "double" else "1"
                more.append(Assign(bump, "+=", step) if rng.random() < 0.6 else Assign(bump, "++"))
            other = [DataIf(Test(rng.choice([">", ">="]), [c(target), high]), [Assign(c(target), "=", high)] + more,
                            None, rng.random() < 0.5, "clamp")]
        elif r < 0.85:
            other = [Stmt(c(target), [c(target)], [rng.randrange(12)], "=", None, rng.randrange(8))]
        return DataIf(test, then, other, rng.random() < 0.5, "clamp")

    def v5_extremum(self, program: Program, loops: list[Loop]) -> DataIf:
        """``if (A[i] > best) best = A[i];``, with the iterator (``arg = i;``), and the
        other extremum in an ``else if``."""
        rng = self.rng
        c = copy.deepcopy
        value = self.v5_ref(program, *self.v5_choose(program, arrays_only=True), loops)
        dtype = program.ref_dtype(value)
        big = rng.random() < 0.6

        def extremum(high: bool) -> str:
            init = ("-100.0" if high else "100.0") if dtype == "double" else ("-1000" if high else "1000")
            return self.v5_scalar(program, "best" if high else "least", dtype, init)
        best = extremum(big)
        test = Test(rng.choice([">", ">="] if big else ["<", "<="]), [c(value), Ref(best)])
        if rng.random() < 0.2:
            test = Test("&&", [self.v5_guard_test(loops), test])
        then = [Assign(Ref(best), "=", c(value))]
        if rng.random() < 0.35:
            arg = self.v5_scalar(program, "arg", "int", "-1")
            then.append(Assign(Ref(arg), "=", Aff.of({rng.choice(loops).var: 1})))
        other = None
        if rng.random() < 0.35:
            second = extremum(not big)
            other = [DataIf(Test("<" if big else ">", [c(value), Ref(second)]), [Assign(Ref(second), "=", c(value))],
                            None, rng.random() < 0.4, "extremum")]
        return DataIf(test, then, other, len(then) > 1 or rng.random() < 0.4, "extremum")

    def v5_count(self, program: Program, loops: list[Loop]) -> DataIf:
        """``if (x[i] > 0) cnt++;``, ``if ((i & 3) == j) H[j]++; else H[j]--;``"""
        rng = self.rng
        target = self.v5_counter(program, loops)
        if len(loops) > 1 and rng.random() < 0.35:
            v, w = loops[-2].var, loops[-1].var
            x = X("&", (X("aff", (Aff.of({v: 1}),)), lit(rng.choice([1, 3, 7]))))
            test = Test("==", [Aff(ext=((1, x),)), Aff.of({w: 1})])
        else:
            test = self.v5_test(program, loops)
        op = self.pick({"++": 4, "pre++": 2, "--": 1, "pre--": 1, "+=": 1})
        then = [Assign(target, op, "2" if op == "+=" else None)]
        other = None
        if rng.random() < 0.25:
            other = [Assign(copy.deepcopy(target), rng.choice(["--", "pre--", "-="]), "1")]
            if other[0].op != "-=":
                other[0].value = None
        return DataIf(test, then, other, rng.random() < 0.3, "count")

    def v5_swap(self, program: Program, loops: list[Loop]) -> DataIf:
        """``if (y[i - 1] > y[i]) { t = y[i]; y[i] = y[i - 1]; y[i - 1] = t; }``"""
        rng = self.rng
        c = copy.deepcopy
        name, member = self.v5_choose(program, arrays_only=True)
        first = Aff.of({loops[-1].var: 1}, rng.choice([0, 0, 1]))
        here = self.v5_ref(program, name, member, loops, first=first)
        near = c(here)
        near.subs[0] = first.plus(rng.choice([-1, -1, 1]))
        dtype = program.ref_dtype(here)
        t = self.v5_scalar(program, "t", dtype, "0.0" if dtype == "double" else "0")
        test = Test(rng.choice([">", "<"]), [c(near), c(here)])
        if rng.random() < 0.2:
            test = Test("&&", [self.v5_guard_test(loops), test])
        then = [Assign(Ref(t), "=", c(here)), Assign(c(here), "=", c(near)), Assign(c(near), "=", Ref(t))]
        return DataIf(test, then, None, True, "swap")

    def v5_general(self, program: Program, loops: list[Loop], depth: int = 0) -> DataIf:
        """Any condition, branches of statements and assignments, now and then an
        ``if`` in a branch or an ``else if``."""
        rng = self.rng

        def item():
            r = rng.random()
            if depth < 1 and r < 0.25:
                return self.v5_general(program, loops, depth + 1)
            return self.v5_stmt(program, loops) if r < 0.6 else self.v5_assign(program, loops)
        # inside an if on the data, any condition will do (an affine one too)
        test = self.v5_test(program, loops) if depth == 0 or rng.random() < 0.6 else self.v5_affine_test(loops)
        then = [item() for _ in range(self.pick({1: 3, 2: 2}))]
        other = None
        r = rng.random()
        if r < 0.35:
            other = [item() for _ in range(self.pick({1: 3, 2: 1}))]
        elif r < 0.55 and depth < 2:
            other = [self.v5_general(program, loops, depth + 1)]
        return DataIf(test, then, other, rng.random() < 0.5, "general")

    def v5_cond(self, program: Program) -> None:
        """Ifs whose condition reads the data or is not affine, in loop bodies of the
        program and in nests of their own: clamps, running extrema into a scalar,
        counters (``cnt++``, ``H[j]++``), conditional swaps and any others."""
        rng = self.rng
        if not self.v5_pool(program):
            name = self.v5_name(program, "E")
            program.arrays.append(Array(name, "double", 1))
            self.v5_names.append(name)
        build = {"clamp": self.v5_clamp, "extremum": self.v5_extremum, "count": self.v5_count,
                 "swap": self.v5_swap, "general": self.v5_general}
        for _ in range(self.pick({1: 2, 2: 4, 3: 4})):
            kind = self.pick({"clamp": 3, "extremum": 3, "count": 4, "swap": 3, "general": 4})
            spots = [(n, list(outer) + [n]) for n, outer in all_nodes(program) if isinstance(n, Loop)]
            if spots and rng.random() < 0.5:
                loop, loops = rng.choice(spots)
                loop.body.insert(rng.randint(0, len(loop.body)), build[kind](program, loops))
            else:
                loops = self.v5_nest(program)
                loops[-1].body.append(build[kind](program, loops))
                if rng.random() < 0.3:
                    loops[-1].body.insert(rng.randint(0, 1), self.v5_stmt(program, loops))
                self.v5_insert(program, loops[0])

    def v5_aos(self, program: Program) -> None:
        """Arrays of structs defined at file scope: members read and written
        (``p[i].x``, ``p[i].vel[k]``, ``a[i][j].re``, ``q[i * n + j].y``), the arrays
        global, local to main or passed as pointers (two of them into one array now
        and then: ``kernel(..., R, R + 1)``); member reads in v3's statements too."""
        rng = self.rng
        for tag in rng.sample(sorted(STRUCTS), self.pick({1: 3, 2: 2})):
            members = [m for m in STRUCTS[tag] if rng.random() < 0.8]
            program.structs.append(Struct(tag, members if len(members) >= 2 else list(STRUCTS[tag][:2])))
        access: list[tuple[str, Struct]] = []
        for _ in range(self.pick({1: 3, 2: 3, 3: 1})):
            struct = rng.choice(program.structs)
            rank = 2 if rng.random() < 0.3 else 1
            place = self.pick({"global": 3, "param": 3, "local": 3})
            array = Array(self.v5_name(program, "R"), f"struct {struct.tag}", rank, local=place == "local")
            program.arrays.append(array)
            if place == "global":
                access.append((array.name, struct))
            if place != "global" or rng.random() < 0.3:
                view = View(self.v5_name(program, "pa"), array.name)
                program.views.append(view)
                access.append((view.name, struct))
                if rank == 1 and place != "global" and rng.random() < 0.5:
                    # a second pointer into the same array (main's call: the overlap check)
                    other = View(self.v5_name(program, "pa"), array.name, rng.choice([1, 1, 2, -1, 0]))
                    program.views.append(other)
                    access.append((other.name, struct))
        self.v5_members += [(name, m[0]) for name, struct in access for m in struct.members]
        for _ in range(self.pick({1: 3, 2: 2})):
            self.v5_aos_nest(program, access)
        if rng.random() < 0.3:
            self.v5_aos_linear(program)
        # members read in v3's statements
        for region in program.regions:
            for node, outer in walk(region):
                if isinstance(node, Stmt) and outer and node.reads and not node.product and rng.random() < 0.2:
                    want_int = program.ref_dtype(node.target) == "int"
                    options = [(n, m) for n, m in self.v5_members
                               if not want_int or self.v5_dtype(program, n, m) == "int"]
                    if options:
                        node.reads[rng.randrange(len(node.reads))] = self.v5_ref(program, *rng.choice(options),
                                                                                list(outer))

    def v5_aos_nest(self, program: Program, access: list[tuple[str, Struct]]) -> None:
        """A nest of statements over members, and a member array walked by a loop."""
        rng = self.rng
        loops = self.v5_nest(program)

        def stmt(loops: list[Loop], target: Ref) -> Stmt:
            want_int = program.ref_dtype(target) == "int"
            reads = []
            for _ in range(self.pick({1: 4, 2: 4, 3: 2})):
                if rng.random() < 0.75:
                    options = [(n, m) for n, m in self.v5_members
                               if not want_int or self.v5_dtype(program, n, m) == "int"]
                    if options:
                        reads.append(self.v5_ref(program, *rng.choice(options), loops))
                        continue
                choice = self.v5_choose(program, want_int=want_int)
                if choice is not None:
                    reads.append(self.v5_ref(program, *choice, loops))
            return Stmt(target, reads, [rng.randrange(12) for _ in reads], "+=" if rng.random() < 0.25 else "=",
                        None, rng.randrange(8))
        body = loops[-1].body
        for _ in range(self.pick({1: 4, 2: 3, 3: 1})):
            name, struct = rng.choice(access)
            body.append(stmt(loops, self.v5_ref(program, name, rng.choice(struct.members)[0], loops)))
        arrays = [(name, m[0]) for name, struct in access for m in struct.members if m[2]]
        if arrays and rng.random() < 0.6:
            inner = Loop(ITERATORS[len(loops)], Bound([Aff.of({}, 0)]), Bound([Aff.of({}, rng.randint(1, 4))]), [],
                         strict=rng.random() < 0.5)
            name, member = rng.choice(arrays)
            target = self.v5_ref(program, name, member, loops + [inner])
            target.subs[-1] = Aff.of({inner.var: 1})
            inner.body.append(stmt(loops + [inner], target))
            body.insert(rng.randint(0, len(body)), inner)
        self.v5_insert(program, loops[0])

    def v5_aos_linear(self, program: Program) -> None:
        """``q[i * n + j].y = q[i * n + j + 1].x ...``: an array of structs seen as rows
        through a pointer (written as generated, the pointer placed: v4's raw views)."""
        rng = self.rng
        struct = rng.choice(program.structs)
        ctype = self._sizes_ctype()

        def size(value: int) -> str:
            name = self.v5_name(program, "ns")
            program.params.append(Param(name, "arg", value, ctype))
            return name
        cols = size(self.pick({1: 1, 2: 2, 3: 3, 4: 3, 5: 2}))
        rows = size(self.pick({1: 1, 2: 2, 3: 3, 4: 2}))
        array = Array(self.v5_name(program, "R"), f"struct {struct.tag}", 1, local=rng.random() < 0.5)
        program.arrays.append(array)
        view = View(self.v5_name(program, "pa"), array.name, raw=True)
        program.views.append(view)
        signed = not self.unsigned and ctype not in UNSIGNED_TYPES
        loops = [Loop(ITERATORS[0], Bound([Aff.of({}, 0)]), Bound([Aff.of({rows: 1}, -1)]), [], strict=True),
                 Loop(ITERATORS[1], Bound([Aff.of({}, 0)]), Bound([Aff.of({cols: 1}, -1)]), [], strict=True)]
        loops[0].body.append(loops[1])
        shape = rng.choice(["row", "row", "col"])

        plain = [m for m in struct.members if not m[2]]

        def ref(offset: int) -> Ref:
            member = rng.choice(plain if plain and rng.random() < 0.8 else struct.members)
            idx = [Aff.of({loops[0].var: 1}), Aff.of({loops[1].var: 1}, offset)]
            subs = [self.linear(shape, idx, [rows, cols])]
            subs += [Aff.of({}, rng.randint(0, 2)) for _ in range(member[2])]
            return Ref(view.name, subs, member=member[0])
        for _ in range(self.pick({1: 3, 2: 2})):
            target = ref(0)
            want_int = program.ref_dtype(target) == "int"
            reads = [ref(rng.choice([0, 0, 1, -1] if signed else [0, 0, 1])) for _ in range(self.pick({1: 2, 2: 2}))]
            reads = [r for r in reads if not want_int or program.ref_dtype(r) == "int"]
            loops[1].body.append(Stmt(target, reads, [rng.randrange(12) for _ in reads],
                                      "+=" if rng.random() < 0.25 else "=", None, rng.randrange(8)))
        self.v5_insert(program, loops[0])


    # -- the C constructs of generator v6 ---------------------------------------------
    def v6_size(self, program: Program, flat: bool, tags: set[str], base: str) -> Aff:
        """The end (exclusive) of a loop of a v6 nest: a size of its own (a kernel
        argument or a ``#define``; 0, 1 or negative now and then: empty loops and loops
        of one iteration, which the expanded arrays' extents must survive), one of the
        program's, or a literal. A flat buffer's rows are sized by kernel arguments
        (its subscripts name them). ``base``: the name of a new one (``ni``, ``NI``, ``ni1``)."""
        rng = self.rng
        olds = [p for p in self.small_params() if abs(p.value) <= 10]
        kind = "new" if flat else self.pick({"new": 6, "old": 2 if olds else 0, "literal": 3})
        if kind == "literal":
            return Aff.of({}, rng.randint(2, 8))
        if kind == "old":
            par = rng.choice(olds)
            if par.value <= 1:
                tags.add("private_small_size")
            return Aff.of({par.name: 1})
        values = {0: 1, 1: 2, 2: 2, 3: 3, 4: 3, 5: 3, 6: 2, 8: 1}
        if not flat and not self.unsigned:
            values[-1] = 1
        value = self.pick(values)
        if value <= 1:
            tags.add("private_small_size")
        if flat or rng.random() < 0.7:
            name = self.v5_name(program, base)
            program.params.append(Param(name, "arg", value, self._sizes_ctype() if flat else ""))
        else:
            name = self.v5_name(program, base.upper())
            program.params.append(Param(name, "define", value))
        return Aff.of({name: 1})

    def v6_loop(self, var: str, lower: int, end: Aff, down: bool = False) -> Loop:
        """``for (var = lower; var < end; var++)`` (or down from ``end - 1``). Unsigned
        programs test it with '<' always: 'i <= n - 1' wraps for n = 0."""
        strict = self.unsigned or self.rng.random() < 0.8
        return Loop(var, Bound([Aff.of({}, lower)]), Bound([end.plus(-1)]), [], down=down, strict=strict)

    def v6_lower(self, tags: set[str]) -> int:
        """A constant lower bound: mostly 0 (an expanded array is indexed ``j - 2`` else)."""
        lower = self.pick({0: 12, 1: 2, 2: 2, 3: 1})
        if lower:
            tags.add("private_lower")
        return lower

    def v6_array(self, program: Program, base: str, dtype: str, flat: bool) -> str:
        """A new array of a v6 nest (nothing else touches it), its access name: 2-d,
        global or a parameter (``double y[9][7]``), or a flat buffer behind a ``double *``
        whose subscripts are linearised (v4's raw views: the pointer placed)."""
        storage = Array(self.v5_name(program, base), dtype, 1 if flat else 2)
        program.arrays.append(storage)
        if not flat and self.rng.random() < 0.7:
            return storage.name
        view = View(self.v5_name(program, base.lower()), storage.name, raw=flat)
        program.views.append(view)
        return view.name

    def v6_at(self, name: str, a: Aff, b: Aff, row: Aff | None, shape: str) -> Ref:
        """Element ``[a][b]`` of ``name``: 2-d, or ``name[a * n + b]`` (``shape`` "row"),
        ``name[IDX(a, b)]`` ("macro") of a flat buffer with rows of ``row`` (a size)."""
        if row is None:
            return Ref(name, [a, b])
        size = row.terms[0][0]
        return Ref(name, [self.linear(shape, [a, b], ["", size])])

    def v6_scalar(self, program: Program, base: str, dtype: str, scope: str) -> Scalar:
        """A scalar of a v6 nest (its own name; declared with an initial value unless of
        scope "block", which its loop body declares)."""
        scalar = Scalar(self.v5_name(program, base), dtype, "0.0" if dtype == "double" else "0", scope)
        program.scalars.append(scalar)
        return scalar

    def v6_init(self, scalar: Scalar, decl: bool, read: Ref | None = None) -> Stmt:
        """``s = 0.0;`` (a literal), ``s = X[0][j];`` (an element), maybe ``double s = ...;``."""
        if read is not None:
            return Stmt(Ref(scalar.name), [read], [0], form="copy", decl=decl)
        if scalar.dtype == "double":
            value = self.pick({"0.0": 6, "0.5": 1, "-0.25": 1, "1.0": 1})
        else:
            value = self.pick({"0": 6, "1": 1, "3": 1})
        return Stmt(Ref(scalar.name), [], [], form="lit", value=value, decl=decl)

    def v6_construct(self, program: Program, kind: str) -> None:
        """One nest of construct ``kind`` (for "refused", one of :data:`V6_REFUSALS`
        applied to a scan, a dot product or a gemm), in a region of its own or at the top
        level of a region of the program."""
        rng = self.rng
        tags = {kind}
        refusal = ""
        if kind == "refused":
            refusal = rng.choice(V6_REFUSALS)
            tags.add(f"refused_{refusal}")
            base = "dot" if refusal in ("guarded_copy", "float", "dest_read") else \
                rng.choice(["scan", "dot", "gemm"])
        else:
            base = kind
        scalars: list[Scalar] = []
        if base == "scan":
            nest = self.v6_scan(program, tags, refusal, scalars)
        else:
            nest = self.v6_dot(program, tags, refusal, scalars, gemm=base == "gemm")
        for scalar in scalars:
            scalar.v6 = tuple(sorted(tags))
        if rng.random() < 0.35:
            program.regions.append([nest])
        else:
            self.v5_insert(program, nest)

    def v6_flat(self, tags: set[str]) -> bool:
        """Whether a nest's arrays are flat buffers."""
        flat = self.rng.random() < 0.25
        if flat:
            tags.add("private_flat")
        return flat

    def v6_dtype(self, tags: set[str], integer: bool) -> str:
        if integer:
            tags.add("private_int")
        return "int" if integer else "double"

    def v6_scope(self, refusal: str) -> tuple[str, bool]:
        """(scope, declared in the loop body) of a construct's scalars."""
        if refusal == "live":
            return "live", False
        if refusal != "no_init" and self.rng.random() < 0.3:
            return "block", True
        return "kernel", False

    def v6_scan(self, program: Program, tags: set[str], refusal: str, scalars: list[Scalar]) -> Loop:
        """``for (j) { s = init; for (i) { Y[i][j] = a * X[i][j] + b * s; s = Y[i][j]; } }``:
        a recurrence down each column (deriche's vertical sweeps) in a scalar private to
        the column loop, which expansion makes ``s_x[j]`` (the loops may then be
        interchanged: the inner loop walked ``Y`` across rows); or a running sum (``s +=
        X[i][j]; Y[i][j] = s;``), or two scalars (``Y[i][j] = .. s .. t; t = s; s =
        Y[i][j];``); the inner loop forward or backward. Refusals: no initial value (the
        value flows from one column to the next), live after the region, a macro for
        the scalar, the column count divided (``j < m / 2``)."""
        rng = self.rng
        flat = self.v6_flat(tags)
        dtype = self.v6_dtype(tags, rng.random() < 0.25)
        variant = self.pick({"recurrence": 4, "running": 3, "second": 2})
        if variant != "recurrence":
            tags.add({"running": "scan_running", "second": "scan_second_order"}[variant])
        cols, rows = self.v6_size(program, flat, tags, "nc"), self.v6_size(program, flat, tags, "nr")
        outer = self.v6_loop("j", self.v6_lower(tags), cols)
        backward = not self.unsigned and rng.random() < 0.3
        if backward:
            tags.add("scan_backward")
        lo_i = self.pick({0: 4, 1: 1})
        inner = self.v6_loop("i", lo_i, rows, down=backward)
        if refusal == "div_extent":
            # 'j <= (n - 1) / 2': no affine trip count
            outer.upper.div = 2
        # IDX(i, j) now and then: x_text writes every IDX node 'IDX(', so a program has one
        # row size written so (all of this nest's references share theirs)
        sizes = {x.name for x in x_terms(program) if x.op == "IDX"}
        shape = self.pick({"row": 4, "macro": 1}) if flat and sizes <= {cols.terms[0][0]} else "row"
        x = self.v6_array(program, "X", dtype, flat)
        y = x if rng.random() < 0.2 else self.v6_array(program, "Y", dtype, flat)
        row = cols if flat else None
        i, j = Aff.of({"i": 1}), Aff.of({"j": 1})

        def at(name: str) -> Ref:
            return self.v6_at(name, i, j, row, shape)
        scope, decl = self.v6_scope(refusal)
        s = self.v6_scalar(program, "acc" if variant == "running" else "ym", dtype, scope)
        scalars.append(s)
        def coeffs(n: int) -> list[int]:
            return [rng.randrange(12) for _ in range(n)]
        form = "noconst" if rng.random() < 0.3 else ""
        if variant == "running":
            body = [Stmt(Ref(s.name), [at(x)], coeffs(1), "+=", None, rng.randrange(8), form=form)]
            if rng.random() < 0.6:
                body.append(Stmt(at(y), [Ref(s.name)], [0], form="copy"))
            else:
                body.append(Stmt(at(y), [Ref(s.name), at(x)], coeffs(2), "=", None, rng.randrange(8)))
        elif variant == "second":
            t = self.v6_scalar(program, "yp", dtype, scope)
            scalars.append(t)
            body = [Stmt(at(y), [at(x), Ref(s.name), Ref(t.name)], coeffs(3), "=", None, rng.randrange(8), form=form),
                    Stmt(Ref(t.name), [Ref(s.name)], [0], form="copy"),
                    Stmt(Ref(s.name), [at(y)], [0], form="copy")]
        else:
            body = [Stmt(at(y), [at(x), Ref(s.name)], coeffs(2), "=", None, rng.randrange(8), form=form),
                    Stmt(Ref(s.name), [at(y)], [0], form="copy")]
        inner.body = body
        if refusal == "macro":
            self.v6_macro(program, s, body)
        inits = []
        if refusal != "no_init":
            for scalar in scalars:
                read = None
                if rng.random() < 0.25:     # 's = X[0][j];': the first row's element
                    read = self.v6_at(x, Aff.of({}, rng.randint(0, 2)), j, row, shape)
                inits.append(self.v6_init(scalar, decl, read))
        outer.body = inits + [inner]
        return outer

    def v6_macro(self, program: Program, scalar: Scalar, body: list) -> None:
        """``#define ACC acc`` and some references to ``acc`` in ``body`` written ``ACC``
        (at least one): the text no longer shows every access, so it is not expanded."""
        scalar.macro = self.v5_name(program, scalar.name.upper())
        mine = [r for st in body for r in refs_of(st) if r.name == scalar.name]
        for ref in mine:
            if self.rng.random() < 0.5:
                ref.style = "macro"
        self.rng.choice(mine).style = "macro"

    def v6_dot(self, program: Program, tags: set[str], refusal: str, scalars: list[Scalar],
               gemm: bool = False) -> Loop:
        """``for (i) for (j) { s = 0.0; for (k) s += A[i][k] * B[k][j]; C[i][j] = s; }``: a
        dot product in a scalar private to ``(i, j)``, copied into its destination, which
        expansion makes the accumulator (``C[i][j]`` itself: the copy is removed, and
        the product may become a micro-kernel call); operands transposed now and then, a
        second accumulator copied into another array. ``gemm``: ``C[i][j] = beta *
        C[i][j] + alpha * s;`` instead of the copy: the scalar spans both loops (``s_x[i][j]``
        on the heap). Refusals: no initial value, live after the region, the copy under
        an ``if``, a float destination, the destination read in the loop (``B`` is
        ``C``), a macro for the scalar, the column count divided."""
        rng = self.rng
        flat = self.v6_flat(tags)
        dtype = self.v6_dtype(tags, not (refusal == "float" or rng.random() < 0.8))
        ni, nj, nk = (self.v6_size(program, flat, tags, base) for base in ("ni", "nj", "nk"))
        li = self.v6_lower(tags)
        lj = self.v6_lower(tags)
        loop_i = self.v6_loop("i", li, ni)
        loop_j = self.v6_loop("j", lj, nj)
        loop_k = self.v6_loop("k", self.pick({0: 5, 1: 1}), nk, down=not self.unsigned and rng.random() < 0.1)
        if refusal == "div_extent":
            loop_j.upper.div = 2
        i, j, k = Aff.of({"i": 1}), Aff.of({"j": 1}), Aff.of({"k": 1})
        shape = "row"           # (operands with rows of several sizes: no IDX, see v6_scan)
        a = self.v6_array(program, "U", dtype, flat)
        b = self.v6_array(program, "V", dtype, flat)
        c = self.v6_array(program, "Y", "float" if refusal == "float" else dtype, flat)
        if refusal == "dest_read":
            b = c               # s += A[i][k] * C[k][j]
        # operands: A[i][k] (rows of nk) or A[k][i] (rows of ni); B[k][j] or B[j][k]
        flip_a, flip_b = rng.random() < 0.12, refusal != "dest_read" and rng.random() < 0.12
        if flip_a or flip_b:
            tags.add("dot_transposed")

        def at(name: str, x: Aff, y: Aff, row: Aff) -> Ref:
            return self.v6_at(name, x, y, row if flat else None, shape)
        left = at(a, k, i, ni) if flip_a else at(a, i, k, nk)
        right = at(b, j, k, nk) if flip_b else at(b, k, j, nj)
        scope, decl = self.v6_scope(refusal)
        s = self.v6_scalar(program, "dot" if not gemm else "tot", dtype, scope)
        scalars.append(s)
        if dtype == "double":
            update = Stmt(Ref(s.name), [left, right], [0, 0], "+=", product=True)
        else:
            update = Stmt(Ref(s.name), [left, right], [rng.randrange(12), rng.randrange(12)], "+=", None,
                          rng.randrange(8))
        loop_k.body = [update]
        dest = at(c, i, j, nj)
        if gemm:
            # C[i][j] = beta * C[i][j] + alpha * s (+ a constant now and then)
            copy_out = Stmt(dest, [copy.deepcopy(dest), Ref(s.name)], [rng.randrange(12), rng.randrange(12)], "=",
                            None, rng.randrange(8), form="noconst" if rng.random() < 0.75 else "")
        else:
            copy_out = Stmt(dest, [Ref(s.name)], [0], form="copy")
        outs: list = [copy_out]
        if refusal == "guarded_copy":
            cond = Cond(Aff.of({"j": 1}), ">=", Aff.of({}, lj + 1)) if rng.random() < 0.5 else \
                Cond(Aff.of({"i": 1, "j": 1}), "%", Aff.of({}, 0), 2)
            outs = [Guard([cond], outs)]
        if not gemm and refusal not in ("float", "dest_read") and rng.random() < 0.25:
            # a second accumulator: t += A[i][k] (or its square), copied into Z[i][j]
            tags.add("dot_several")
            t = self.v6_scalar(program, "sq", dtype, scope)
            scalars.append(t)
            other = self.v6_array(program, "Z", dtype, flat)
            reads = [copy.deepcopy(left)] + ([copy.deepcopy(left)] if dtype == "double" and rng.random() < 0.5 else [])
            if len(reads) == 2:
                loop_k.body.append(Stmt(Ref(t.name), reads, [0, 0], "+=", product=True))
            else:
                loop_k.body.append(Stmt(Ref(t.name), reads, [rng.randrange(12)], "+=", None, rng.randrange(8)))
            outs.append(Stmt(at(other, i, j, nj), [Ref(t.name)], [0], form="copy"))
        if refusal == "macro":
            self.v6_macro(program, s, [update, copy_out])
        inits = []
        if refusal != "no_init":
            for scalar in scalars:
                read = None
                if scalar is s and not gemm and refusal != "float" and rng.random() < 0.2:
                    read = copy.deepcopy(dest)      # 's = C[i][j];': C accumulates
                inits.append(self.v6_init(scalar, decl, read))
        loop_j.body = inits + [loop_k] + outs
        loop_i.body = [loop_j]
        return loop_i

    # -- the C constructs of generator v7 ---------------------------------------------
    def v7_construct(self, program: Program, kind: str) -> None:
        """One nest of construct ``kind`` with arrays declared inside it (for ``table``
        and ``carry`` maybe at the top of the nodes returned: they go to the top level of
        a region, then written as a block), in a region of its own or at the top level
        of a region of the program."""
        tags = {kind}
        made: list[Array] = []
        nodes = getattr(self, f"v7_{kind}")(program, tags, made)
        for array in made:
            array.v7 = tuple(sorted(tags))
        if self.rng.random() < 0.35:
            program.regions.append(nodes)
            return
        region = self.rng.choice(program.regions)
        spots = [k for k in range(len(region) + 1)
                 if k == len(region) or not (isinstance(region[k], Loop) and region[k].cont)]
        k = self.rng.choice(spots)
        region[k:k] = nodes

    def v7_size(self, program: Program, tags: set[str], base: str) -> Aff:
        """The end (exclusive) of a loop of a v7 nest: v6's sizes (0, 1 or negative now
        and then)."""
        small: set[str] = set()
        size = self.v6_size(program, False, small, base)
        if small:
            tags.add("region_small_size")
        return size

    def v7_extent(self, program: Program, base: str, vla: bool) -> Aff:
        """The extent of an array of the region: a ``#define`` of its own (``NB``), or a
        kernel argument of its own (``nb``: a variable length array); at least 1."""
        value = self.pick({1: 1, 2: 2, 3: 2, 4: 3, 5: 2, 6: 2, 8: 1})
        name = self.v5_name(program, base.lower() if vla else base.upper())
        program.params.append(Param(name, "arg" if vla else "define", value))
        return Aff.of({name: 1})

    def v7_local(self, program: Program, made: list[Array], base: str, dtype: str, dims: list[Aff],
                 init: tuple[str, ...] | None = None, const: bool = False, unsized: bool = False) -> Local:
        """A new array of the region and its declaration."""
        array = Array(self.v5_name(program, base), dtype, max(1, len(dims)), region=True)
        program.arrays.append(array)
        made.append(array)
        return Local(array.name, dims, init, const, unsized)

    def v7_stmt(self, target: Ref, reads: list[Ref], op: str = "=") -> Stmt:
        """``target op`` a combination of ``reads`` (v3's statement)."""
        rng = self.rng
        return Stmt(target, reads, [rng.randrange(12) for _ in reads], op, None, rng.randrange(8),
                    form="noconst" if reads and rng.random() < 0.25 else "")

    def v7_zero(self, dtype: str) -> str:
        return "0.0" if dtype in ("double", "float") else "0"

    def v7_row(self, program: Program, tags: set[str], made: list[Array]) -> list:
        """``for (i) { double tmp[NB]; for (j) tmp[j] = f(X[i][j]); for (j) Y[i][j] = a *
        tmp[j] + b * tmp[NB - j - 1]; }``: a row computed into a temporary of the loop
        body and read back mirrored, private to ``i`` once hoisted. ``NB`` a ``#define``
        or a kernel argument (``double row[nb];``); ``tmp[2][NB]`` (the second row from
        the first); int or float elements."""
        rng = self.rng
        dtype = self.pick({"double": 5, "int": 2, "float": 2})
        if dtype != "double":
            tags.add(f"row_{dtype}")
        data = "int" if dtype == "int" else "double"
        vla = rng.random() < 0.45
        if vla:
            tags.add("row_vla")
        two = rng.random() < 0.3
        if two:
            tags.add("row_2d")
        extent = self.v7_extent(program, "nb", vla)
        rows = self.v7_size(program, tags, "ni")
        x = self.v6_array(program, "X", data, False)
        y = self.v6_array(program, "Y", data, False)
        local = self.v7_local(program, made, "row" if vla else "tmp", dtype,
                              ([Aff.of({}, 2)] if two else []) + [extent])
        i, j = Aff.of({"i": 1}), Aff.of({"j": 1})
        mirror = Aff.of({extent.terms[0][0]: 1, "j": -1}, -1)

        def at(first: int, sub: Aff) -> Ref:
            return Ref(local.name, [Aff.of({}, first), sub] if two else [sub])
        fill = self.v6_loop("j", 0, extent, down=not self.unsigned and rng.random() < 0.2)
        fill.body = [self.v7_stmt(at(0, j), [Ref(x, [i, j])])]
        if two:
            fill.body.append(self.v7_stmt(at(1, j), [at(0, j), Ref(x, [i, j])]))
        use = self.v6_loop("j", 0, extent)
        reads = [at(0, j), at(1 if two else 0, mirror)]
        if rng.random() < 0.4:
            reads.append(Ref(x, [i, j]))
        use.body = [self.v7_stmt(Ref(y, [i, j]), reads, "+=" if rng.random() < 0.2 else "=")]
        outer = self.v6_loop("i", self.pick({0: 5, 1: 1}), rows)
        outer.body = [local, fill, use]
        return [outer]

    def v7_acc(self, program: Program, tags: set[str], made: list[Array]) -> list:
        """``for (i) for (j = 0; j + 4 <= nj; j += 4) { double acc[4] = {0.0}; for (k) {
        acc[0] += A[i][k] * B[k][j]; ... acc[3] += A[i][k] * B[k][j + 3]; } for (jj)
        C[i][j + jj] = acc[jj]; }``: a matrix product blocked by hand into registers.
        The list ``{1.0, 2.0}`` now and then (the rest zero), or no initialiser (a loop
        zeroes it); int data (the products ``% 1009``); an ``int hist[2][3] = {0};``
        counting ``hist[k % 2][k % 3] += 1;``, read back into ``C``."""
        rng = self.rng
        integer = rng.random() < 0.25
        if integer:
            tags.add("acc_int")
        dtype = "int" if integer else "double"
        zero = self.v7_zero(dtype)
        ni, nk = self.v7_size(program, tags, "ni"), self.v7_size(program, tags, "nk")
        if rng.random() < 0.75:
            name = self.v5_name(program, "nj" if rng.random() < 0.7 else "NJ")
            value = self.pick({0: 1, 3: 1, 4: 3, 5: 2, 8: 3, 9: 1})
            program.params.append(Param(name, "arg" if name.islower() else "define", value))
            cols = Aff.of({name: 1})
        else:
            cols = Aff.of({}, self.pick({4: 1, 8: 2, 12: 1}))
        a = self.v6_array(program, "U", dtype, False)
        b = self.v6_array(program, "V", dtype, False)
        c = self.v6_array(program, "Y", dtype, False)
        init = self.pick({"zero": 5, "list": 2, "none": 2})
        values = {"zero": (zero,), "list": ("1.0", "2.0") if not integer else ("1", "2"), "none": None}[init]
        if init != "zero":
            tags.add(f"acc_{'list' if init == 'list' else 'noinit'}")
        acc = self.v7_local(program, made, "acc", dtype, [Aff.of({}, 4)], values)
        i, j, k, jj = (Aff.of({v: 1}) for v in ("i", "j", "k", "jj"))
        loop_i = self.v6_loop("i", 0, ni)
        loop_j = Loop("j", Bound([Aff.of({}, 0)]), Bound([cols]), [], step=4, head=4)
        loop_k = self.v6_loop("k", 0, nk)
        for t in range(4):
            left, right = Ref(a, [i, k]), Ref(b, [k, j.plus(t)])
            if integer:
                loop_k.body.append(Stmt(Ref(acc.name, [Aff.of({}, t)]), [left, right], [0, 0], "+=", form="prod"))
            else:
                loop_k.body.append(Stmt(Ref(acc.name, [Aff.of({}, t)]), [left, right], [0, 0], "+=", product=True))
        body: list = [acc]
        out_reads = [Ref(acc.name, [jj])]
        if rng.random() < 0.3:
            tags.add("acc_hist")
            hist = self.v7_local(program, made, "hist", "int", [Aff.of({}, 2), Aff.of({}, 3)], ("0",))
            body.append(hist)

            def mod(v: str, m: int) -> Aff:
                return Aff(ext=((1, X("%", (X("aff", (Aff.of({v: 1}),)), lit(m)))),))
            loop_k.body.append(Stmt(Ref(hist.name, [mod("k", 2), mod("k", 3)]), [], [], "+=", form="lit",
                                    value="1"))
            out_reads.append(Ref(hist.name, [mod("jj", 2), mod("jj", 3)]))
        if init == "none":
            clear = self.v6_loop("jj", 0, Aff.of({}, 4))
            clear.body = [Stmt(Ref(acc.name, [jj]), [], [], form="lit", value=zero)]
            body.append(clear)
        out = self.v6_loop("jj", 0, Aff.of({}, 4))
        dest = Ref(c, [i, Aff.of({"j": 1, "jj": 1})])
        if len(out_reads) == 1 and rng.random() < 0.6:
            out.body = [Stmt(dest, out_reads, [0], form="copy")]
        else:
            out.body = [self.v7_stmt(dest, out_reads, "+=" if rng.random() < 0.3 else "=")]
        loop_j.body = body + [loop_k, out]
        loop_i.body = [loop_j]
        return [loop_i]

    def v7_table(self, program: Program, tags: set[str], made: list[Array]) -> list:
        """A stencil weighted by a table of constants: ``const double w[3] = {0.25, 0.5,
        0.25};`` (``const int coef[] = {1, -2, 1};``) in the body of ``i`` or ``j`` or at
        the region's top, read at a loop iterator (``for (k) Y[i][j] += w[k] * X[i +
        k][j];``) or at constants (``Y[i][j] = w[0] * X[i][j] + w[1] * X[i + 1][j] ...``);
        never inside a subscript."""
        rng = self.rng
        integer = rng.random() < 0.3
        if integer:
            tags.add("table_int")
        dtype = "int" if integer else "double"
        taps = self.pick({2: 1, 3: 4, 4: 1, 5: 1})
        pool = ("1", "-2", "2", "3", "-1", "0") if integer else ("0.25", "0.5", "0.125", "-0.25", "1.0", "0.75")
        values = tuple(rng.choice(pool) for _ in range(taps))
        unsized = rng.random() < 0.35
        if unsized:
            tags.add("table_unsized")
            dims: list[Aff] = []
        elif rng.random() < 0.3:
            name = self.v5_name(program, "TAPS")
            program.params.append(Param(name, "define", taps))
            dims = [Aff.of({name: 1})]
        else:
            dims = [Aff.of({}, taps)]
        table = self.v7_local(program, made, "coef" if integer else "w", dtype, dims, values, const=True,
                              unsized=unsized)
        ni, nj = self.v7_size(program, tags, "ni"), self.v7_size(program, tags, "nj")
        x = self.v6_array(program, "X", dtype, False)
        y = self.v6_array(program, "Y", dtype, False)
        i, j, k = Aff.of({"i": 1}), Aff.of({"j": 1}), Aff.of({"k": 1})
        loop_i = self.v6_loop("i", 0, ni)
        loop_j = self.v6_loop("j", 0, nj)
        loop_i.body = [loop_j]
        target = Ref(y, [i, j])
        if rng.random() < 0.55:
            loop_k = self.v6_loop("k", 0, dims[0] if dims and dims[0].names() else Aff.of({}, taps))
            reads = [Ref(table.name, [k]), Ref(x, [Aff.of({"i": 1, "k": 1}), j])]
            if integer:
                update = Stmt(copy.deepcopy(target), reads, [0, 0], "+=", form="prod")
            else:
                update = Stmt(copy.deepcopy(target), reads, [0, 0], "+=", product=True)
            loop_k.body = [update]
            loop_j.body = [loop_k]
            if rng.random() < 0.5:
                loop_j.body.insert(0, Stmt(copy.deepcopy(target), [], [], form="lit", value=self.v7_zero(dtype)))
        else:
            tags.add("table_constant_index")
            reads = []
            for t in range(taps):
                reads += [Ref(table.name, [Aff.of({}, t)]), Ref(x, [i.plus(t), j])]
            loop_j.body = [Stmt(target, reads, [0] * len(reads), "+=" if rng.random() < 0.2 else "=",
                                form="prod")]
        where = self.pick({"i": 2, "j": 2, "top": 1})
        if where == "top":
            tags.add("table_top")
            return [table, loop_i]
        (loop_i if where == "i" else loop_j).body.insert(0, table)
        return [loop_i]

    def v7_carry(self, program: Program, tags: set[str], made: list[Array]) -> list:
        """An array whose values cross the iterations of the loops inside its block,
        declared at the region's top or in an outer loop's body: a column carried down
        the rows (``carry[j] = a * carry[j] + b * X[i][j]; Y[i][j] = carry[j];``, set
        before the rows), a sliding window (``win[0] = win[1]; win[1] = win[2]; win[2] =
        X[i][j]; Y[i][j] = .. win[0] .. win[2];``), a prefix (``pre[0] = X[i][0]; for (j =
        1; ..) pre[j] = pre[j - 1] + X[i][j];``)."""
        rng = self.rng
        variant = self.pick({"column": 3, "window": 2, "prefix": 2})
        if variant != "column":
            tags.add(f"carry_{variant}")
        integer = rng.random() < 0.25
        if integer:
            tags.add("carry_int")
        dtype = "int" if integer else "double"
        zero = self.v7_zero(dtype)
        x = self.v6_array(program, "X", dtype, False)
        y = self.v6_array(program, "Y", dtype, False)
        i, j = Aff.of({"i": 1}), Aff.of({"j": 1})
        where = self.pick({"top": 1, "outer": 1})
        tags.add(f"carry_{where}")
        if variant == "column":
            vla = rng.random() < 0.3
            extent = self.v7_extent(program, "nc", vla)
            init = None if vla or rng.random() < 0.6 else (zero,)
            local = self.v7_local(program, made, "carry", dtype, [extent], init)
            rows = self.v7_size(program, tags, "ni")
            row = Aff.of({"i": 1, "r": 1}) if where == "outer" else i
            nodes: list = [local]
            if init is None:
                first = self.v6_loop("j", 0, extent)
                first.body = [self.v7_stmt(Ref(local.name, [j]), [Ref(x, [Aff.of({}, 0), j])])
                              if rng.random() < 0.6 else
                              Stmt(Ref(local.name, [j]), [], [], form="lit", value=zero)]
                nodes.append(first)
            loop_i = self.v6_loop("i", 0, rows)
            loop_j = self.v6_loop("j", 0, extent)
            loop_j.body = [self.v7_stmt(Ref(local.name, [j]), [Ref(local.name, [j]), Ref(x, [row, j])]),
                           Stmt(Ref(y, [i, j]), [Ref(local.name, [j])], [0], form="copy")
                           if rng.random() < 0.6 else
                           self.v7_stmt(Ref(y, [i, j]), [Ref(local.name, [j]), Ref(x, [row, j])])]
            loop_i.body = [loop_j]
            nodes.append(loop_i)
        elif variant == "window":
            init = (zero,) if rng.random() < 0.4 else None
            local = self.v7_local(program, made, "win", dtype, [Aff.of({}, 3)], init)
            rows, cols = self.v7_size(program, tags, "ni"), self.v7_size(program, tags, "nj")

            def w(t: int) -> Ref:
                return Ref(local.name, [Aff.of({}, t)])
            loop_i = self.v6_loop("i", 0, rows)
            loop_j = self.v6_loop("j", 0, cols)
            loop_j.body = [Stmt(w(0), [w(1)], [0], form="copy"), Stmt(w(1), [w(2)], [0], form="copy"),
                           self.v7_stmt(w(2), [Ref(x, [i, j])]),
                           self.v7_stmt(Ref(y, [i, j]), [w(0), w(1), w(2)])]
            sets = []
            if init is None:
                k = Aff.of({"k": 1})
                first = self.v6_loop("k", 0, Aff.of({}, 3))
                first.body = [Stmt(Ref(local.name, [k]), [], [], form="lit", value=zero)
                              if rng.random() < 0.5 else self.v7_stmt(Ref(local.name, [k]), [Ref(x, [i, k])])]
                sets = [first]
            if where == "outer":
                # each row starts a window of its own
                loop_i.body = [local] + sets + [loop_j]
                return [loop_i]
            if sets:        # set once, from the first row
                map_affs(sets, lambda a: a.substitute("i", Aff.of({}, 0)))
            loop_i.body = [loop_j]
            return [local] + sets + [loop_i]
        else:
            vla = rng.random() < 0.3
            extent = self.v7_extent(program, "np", vla)
            local = self.v7_local(program, made, "pre", dtype, [extent])
            rows = self.v7_size(program, tags, "ni")
            loop_i = self.v6_loop("i", 0, rows)
            scan = self.v6_loop("j", 1, extent)
            scan.body = [self.v7_stmt(Ref(local.name, [j]), [Ref(local.name, [j.plus(-1)]), Ref(x, [i, j])])]
            use = self.v6_loop("j", 0, extent)
            back = j if rng.random() < 0.5 else Aff.of({extent.terms[0][0]: 1, "j": -1}, -1)
            use.body = [Stmt(Ref(y, [i, j]), [Ref(local.name, [back])], [0], form="copy")
                        if rng.random() < 0.5 else self.v7_stmt(Ref(y, [i, j]), [Ref(local.name, [back]),
                                                                                 Ref(x, [i, j])])]
            start = self.v7_stmt(Ref(local.name, [Aff.of({}, 0)]), [Ref(x, [i, Aff.of({}, 0)])])
            loop_i.body = [start, scan, use]
            if where == "outer":
                loop_i.body.insert(0, local)
                return [loop_i]
            nodes = [local, loop_i]
        if where == "outer":
            loop_r = self.v6_loop("r", 0, self.v7_size(program, tags, "nr"))
            loop_r.body = nodes
            return [loop_r]
        return nodes

    # -- generator v9: temporaries of a loop body ----------------------------------------
    def v9_use(self, program: Program, rng: random.Random) -> None:
        """Build on ``program`` (a copy of the one this generator wrote: its lists) with
        the choices of ``rng``."""
        self.rng = rng
        self.params, self.arrays, self.views, self.scalars = \
            program.params, program.arrays, program.views, program.scalars
        if self.big is not None:
            self.big = program.param(self.big.name)

    def v9_construct(self, program: Program) -> None:
        """A nest of one to three loops (v3's bounds, a step of 2 now and then, guards
        around inner loops) whose innermost body defines one to three temporaries and
        reads them in later statements writing arrays (:data:`V9_FEATURES`), over arrays
        of its own: inputs ``G`` (real) and ``GI`` (int), ``W`` (real, never written: an
        int temporary converts a sum of its elements), outputs ``H``, ``H1`` and ``HI``;
        in a region of its own or at the top level of a region of the program."""
        rng = self.rng
        tags = {"temp"}
        depth = self.pick({1: 3, 2: 4, 3: 3})
        if depth == 3:
            tags.add("temp_depth3")
        loops: list[Loop] = []
        for level in range(depth):
            lower, upper = self.bounds(loops, EXTENT_BY_DEPTH[depth])
            loop = Loop(ITERATORS[level], lower, upper, [], step=self.pick({1: 8, 2: 1}),
                        down=not self.unsigned and rng.random() < 0.15, strict=rng.random() < 0.5)
            if loops:
                loops[-1].body.append(self.maybe_guard(loop, loops, 0.1))
            loops.append(loop)
        rank = depth if depth < 3 else self.pick({2: 1, 3: 1})
        subs_vars = [loop.var for loop in loops][depth - rank:]
        made: dict[str, str] = {}

        def array(role: str, base: str, dtype: str) -> str:
            """The access name of the nest's array of ``role`` (made on first use)."""
            if role not in made:
                storage = Array(self.v5_name(program, base), dtype, rank)
                program.arrays.append(storage)
                name = storage.name
                if rng.random() < 0.3:
                    view = View(self.v5_name(program, base.lower()), storage.name)
                    program.views.append(view)
                    name = view.name
                made[role] = name
            return made[role]

        def at(name: str, offsets: dict | None = None) -> Ref:
            offsets = offsets or {0: 4, -1: 2, 1: 2, 2: 1, -2: 1}
            return Ref(name, [Aff.of({v: 1}, self.pick(offsets)) for v in subs_vars])

        def real_in() -> str:
            return array("g", "G", self.pick({"double": 4, "float": 1}))

        def int_in() -> str:
            return array("gi", "GI", "int")

        def coeffs(n: int) -> list[int]:
            return [rng.randrange(12) for _ in range(n)]

        def element(real: bool) -> Ref:
            """An input element a statement of type real / int may read."""
            return at(int_in() if not real or rng.random() < 0.15 else real_in())

        temps: list[Scalar] = []
        n = self.pick({1: 4, 2: 4, 3: 2})
        live = rng.randrange(n) if rng.random() < 0.12 else -1
        for k in range(n):
            dtype = self.pick({"double": 5, "float": 2, "int": 2})
            scope = "live" if k == live else self.pick({"block": 5, "kernel": 4})
            tags.add({"block": "temp_decl", "kernel": "temp_kernel", "live": "temp_live"}[scope])
            if dtype != "double":
                tags.add(f"temp_{dtype}")
            scalar = Scalar(self.v5_name(program, ("t", "u", "h")[k]), dtype, "0" if dtype == "int" else "0.0",
                            scope)
            program.scalars.append(scalar)
            temps.append(scalar)

        def definition(t: Scalar, decl: bool, others: list[Scalar]) -> Stmt:
            """``t = e;`` (``T t = e;`` with ``decl``): ``e`` of elements, ``others``, literals."""
            real = t.dtype != "int"
            form = self.pick({"sum": 8, "prod": 2 if real else 1, "lit": 1, "copy": 1, "real": 0 if real else 3})
            target = Ref(t.name)
            if form == "lit":
                tags.add("temp_literal")
                value = rng.choice(DOUBLE_CONSTS) if real else str(rng.randint(-3, 9))
                return Stmt(target, [], [], form="lit", value=value, decl=decl)
            if form == "real":
                tags.add("temp_convert")
                w = array("w", "W", self.pick({"double": 3, "float": 1}))
                reads = [at(w) for _ in range(self.pick({1: 2, 2: 2, 3: 1}))]
                return Stmt(target, reads, coeffs(len(reads)), "=", None, rng.randrange(8), form="real", decl=decl)
            pool = [o for o in others if real or o.dtype == "int"]
            count = 1 if form == "copy" else self.pick({2: 4, 3: 2} if form == "prod" else {1: 2, 2: 4, 3: 2})
            reads = []
            for _ in range(count):
                if pool and rng.random() < 0.35:
                    reads.append(Ref(rng.choice(pool).name))
                    tags.add("temp_chain")
                else:
                    reads.append(element(real))
            if form == "copy":
                return Stmt(target, reads, [0], form="copy", decl=decl)
            form = "prod" if form == "prod" else "noconst" if rng.random() < 0.15 else ""
            return Stmt(target, reads, coeffs(len(reads)), "=", None, rng.randrange(8), form=form, decl=decl)

        def use(ts: list[Scalar]) -> object:
            """A statement writing an output element that reads the temporaries ``ts``."""
            integer = all(t.dtype == "int" for t in ts) and rng.random() < 0.5
            if integer:
                out = array("hi", "HI", "int")
            else:
                out = array("h1", "H", "double") if rng.random() < 0.3 else \
                    array("h", "H", self.pick({"double": 5, "float": 1}))
            reads = [Ref(t.name) for t in ts]
            if rng.random() < 0.5:
                reads.append(element(not integer))
            rng.shuffle(reads)
            target = at(out, {0: 6, 1: 1, -1: 1})
            if len(reads) == 1 and rng.random() < 0.35:
                stmt = Stmt(target, reads, [0], form="copy")
            else:
                iter_var = loops[-1].var if rng.random() < 0.1 else None
                stmt = Stmt(target, reads, coeffs(len(reads)), "+=" if rng.random() < 0.2 else "=", iter_var,
                            rng.randrange(8), form="noconst" if rng.random() < 0.15 else "")
            if rng.random() < 0.08:
                tags.add("temp_guarded_use")
                return Guard(self.conds(loops), [stmt])
            return stmt

        body: list = []
        uses = {t.name: self.pick({0: 1, 1: 5, 2: 3}) for t in temps}
        for t in temps:
            if uses[t.name] == 0:
                tags.add("temp_unused")
            elif uses[t.name] == 2:
                tags.add("temp_used_twice")
        blocked = rng.randrange(n) if rng.random() < 0.25 else -1
        pending: list[Scalar] = []

        def emit_use() -> None:
            ready = [t for t in pending if uses[t.name]]
            ts = rng.sample(ready, min(len(ready), self.pick({1: 3, 2: 1})))
            for t in ts:
                uses[t.name] -= 1
            body.append(use(ts))

        for k, t in enumerate(temps):
            d = definition(t, t.scope == "block", temps[:k])
            body.append(d)
            if rng.random() < 0.15:
                tags.add("temp_compound")
                body.append(Stmt(Ref(t.name), [element(t.dtype != "int")], coeffs(1), "+=", None, rng.randrange(8)))
            inputs = [r for r in d.reads if r.subs and r.name in (made.get("g"), made.get("gi"))]
            if k == blocked and inputs and uses[t.name]:
                # an element the value reads written before it is used
                tags.add("temp_blocked_write")
                target = copy.deepcopy(rng.choice(inputs))
                body.append(Stmt(target, [at(target.name)], coeffs(1), "=", None, rng.randrange(8)))
            pending.append(t)
            while any(uses[p.name] for p in pending) and rng.random() < 0.5:
                emit_use()
        while any(uses[p.name] for p in pending):
            emit_use()
        if rng.random() < 0.15:
            # a second assignment, then a use of the new value
            tags.add("temp_reassigned")
            t = rng.choice(temps)
            body.append(definition(t, False, [o for o in temps if o is not t]))
            body.append(use([t]))
        loops[-1].body = body
        for t in temps:
            t.v9 = tuple(sorted(tags))
        if rng.random() < 0.35:
            program.regions.append([loops[0]])
        else:
            self.v5_insert(program, loops[0])


# v5: the structs arrays of structs hold (members: name, type, rank; a member array's
# extents are the layout's)
STRUCTS = {
    "pt": (("x", "double", 0), ("y", "double", 0), ("vel", "double", 1), ("tag", "int", 0)),
    "cplx": (("re", "double", 0), ("im", "double", 0)),
    "rec": (("key", "int", 0), ("val", "double", 0), ("bins", "int", 1)),
}


def _plus_aff(x: X, a: Aff) -> X:
    """``x + a`` written ``x + i - 1`` (the terms of ``a``, then its constant)."""
    terms = Aff(a.terms, 0, a.ext)
    if terms.terms or terms.ext:
        x = X("+", (x, X("aff", (terms,))))
    if a.const > 0:
        x = X("+", (x, lit(a.const)))
    elif a.const < 0:
        x = X("-", (x, lit(-a.const)))
    return x


def _shifted_node(node, var: str, k: int):
    """A copy of ``node`` (a statement or a loop) with ``var`` replaced by ``var + k``."""
    node = copy.deepcopy(node)
    if not k:
        return node
    value = Aff.of({var: 1}, k)

    map_affs([node], lambda a: a.substitute(var, value))
    return node


def generate(seed: int, index: int, v4=None, v5=None, v6=False, v7=False, v8=False, v9=False) -> Program:
    """Program number ``index`` of the batch ``seed`` (always the same one). ``v4``: the
    constructs of generator v4 it has (a subset of :data:`V4_KINDS`), instead of those
    drawn (tests force them: the program is then another one, but as deterministic);
    ``v5`` likewise for those of generator v5 (:data:`V5_KINDS`). ``v6``: generator v6's
    (:data:`V6_KINDS`), which are opt-in: ``False`` (or empty) none, the program v5
    writes; ``True`` drawn (at least one); a set of kinds: those. ``v7`` likewise for
    generator v7's (:data:`V7_KINDS`), added to the program ``v6`` asks for (``polysched
    fuzz --generator 7``: ``v6=True, v7=True``). ``v8``: the program written with
    generator v8's declarations at the top of its regions (:func:`v8_layout`;
    ``--generator 8``: ``v6=v7=v8=True``), otherwise the same. ``v9``: that program, the
    same, with generator v9's nests of temporaries added (:func:`_with_v9`; ``--generator
    9``: ``v6=v7=v8=v9=True``)."""
    forced6 = () if isinstance(v6, bool) else v6
    forced7 = () if isinstance(v7, bool) else v7
    for version, forced, kinds in ((4, v4, V4_KINDS), (5, v5, V5_KINDS), (6, forced6, V6_KINDS),
                                   (7, forced7, V7_KINDS)):
        unknown = set(forced or ()) - set(kinds)
        if unknown:
            raise ValueError(f"unknown v{version} constructs {sorted(unknown)} (known: {', '.join(kinds)})")
    rng = random.Random(f"polysched-fuzz:{seed}:{index}")
    last = None
    for _ in range(200):
        generator = _Generator(rng, seed, index, v4, v5, v6, v7)
        program = generator.program()
        if v8:
            program.v8, program.version = True, 8
        try:
            _render_repairing(program)
            if generator.extra and not extra_features(program, dynamic=False):
                continue
            if not generator.v4 <= v4_features(program):
                continue
            if not generator.v5 <= v5_features(program):
                continue
            if not generator.v6 <= v6_features(program):
                continue
            if not generator.v7 <= v7_features(program):
                continue
            # Mostly programs that do something (empty ones, e.g. all loops empty for
            # a negative size, are kept now and then: they test the guards).
            if simulate(program).instances == 0 and rng.random() < 0.8:
                continue
        except InvalidProgram as err:
            last = err
            continue
        return _with_v9(program, generator) if v9 else program
    raise RuntimeError(f"no valid program for seed {seed}, index {index}: {last}")


def _with_v9(program: Program, generator: "_Generator") -> Program:
    """Generator v9: ``program`` (valid, left as it is) with one nest of temporaries
    added (two with the chance :data:`V9_SECOND`), drawn from the stream
    "polysched-fuzz-v9:seed:index" until the result is valid; a nest that runs no
    statement is kept now and then."""
    draw = random.Random(f"polysched-fuzz-v9:{program.seed}:{program.index}")
    nests = 2 if draw.random() < V9_SECOND else 1
    before = simulate(program).instances
    last = None
    for _ in range(200):
        candidate = copy.deepcopy(program)
        generator.v9_use(candidate, draw)
        candidate.version = 9
        try:
            for _ in range(nests):
                generator.v9_construct(candidate)
            _render_repairing(candidate)
            if "temp" not in v9_features(candidate):
                continue
            if simulate(candidate).instances == before and draw.random() < 0.8:
                continue
            return candidate
        except InvalidProgram as err:
            last = err
    raise RuntimeError(f"no valid v9 program for seed {program.seed}, index {program.index}: {last}")


def _render_repairing(program: Program) -> str:
    """``render(program)``; a ``!=`` loop that would not reach its end, or an offset
    loop that would overflow, loses that feature and the program is tried again (the
    generator's random stream is not touched)."""
    for _ in range(16):
        try:
            return render(program)
        except InvalidProgram as err:
            loop = err.loop
            if loop is not None and loop.ne:
                loop.ne = False
            elif loop is not None and loop.offset:
                loop.offset = 0
            else:
                raise
    return render(program)
