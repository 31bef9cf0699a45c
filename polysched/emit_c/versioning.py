"""What the optimized code of a region assumes, and the run-time check that guards it.

The pipeline works under assumptions that C does not guarantee:

- the parameters lie in ``scop.context`` (``[n] -> { : n >= 1 }``): schedules,
  tiles and isl's AST are exact only there;
- the loop counters and the bound arithmetic fit in the counter type;
- arrays reached through different pointers do not overlap (isl sees distinct names
  as distinct memory);
- a linearised subscript that C computes in 32-bit unsigned arithmetic (``out[y * w +
  x]`` with ``unsigned`` operands) does not wrap: it stays below ``2**32``.

Polly's answer is code versioning, and so is ours: the region becomes

    if (n >= 1 && n <= 67108864 && (&dst[n - 1] + 1 <= &src[-1] || &src[n - 2] + 1 <= &dst[0])) {
      <optimized code>
      <iterators set to their final values>
    } else {
      <the original region, verbatim>
    }

so the output computes what the input computed for every parameter value and every
call, and the check costs a few comparisons per execution of the region. Conditions
that hold by construction are left out (and with them, possibly, the ``if``).

Counter types: ``int`` when every parameter and iterator has a signed type no wider
than ``int`` and the iterators stay within ``2**27`` once the parameters are within
``2**26`` (the check bounds the parameters by that, so that sums of a few scaled
counters cannot overflow), else ``long long`` with every parameter cast to it
(so that ``n - 1`` on an ``unsigned n`` cannot wrap) and 64-bit parameters bounded by
``2**56``. A statement body sees its iterators converted back to their declared type
(``(unsigned)(c0)``), so its own arithmetic is the original's.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import combinations

import islpy as isl

from polysched.errors import ArgumentError
from polysched.islutil import foreach_band_piece, val
from polysched.scop.model import Array, Scop
from polysched.scop.source import (blank_strings, blank_strings_and_directives, line_starts, offset_of,
                                   statement_end, strip_comments)

INT_BOUND = 2 ** 26        # |parameter| bound under int counters
# |iterator| bound under int counters, with parameters within INT_BOUND: tile and skew
# arithmetic (a few scaled counters summed) then stays far below 2**31
ITERATOR_BOUND = 2 ** 27
WIDE_ITERATOR_BOUND = 2 ** 60   # |iterator| bound under long long counters
WIDE_BOUND = 2 ** 56       # |parameter| bound for 64-bit parameters under long long counters

_NARROW = {"char", "short", "int8_t", "int16_t", "uint8_t", "uint16_t", "_Bool", "bool"}
_SIGNED_INT = {"int", "signed", "int32_t"}
_WIDE = {"long", "size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t", "int64_t", "uint64_t",
         "intmax_t", "uintmax_t"}
_UNSIGNED = {"unsigned", "size_t", "uintptr_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
             "uintmax_t", "_Bool", "bool"}
_QUALIFIERS = {"const", "volatile", "register", "static", "auto"}


def _words(c_type: str) -> set[str]:
    return set(c_type.split()) - _QUALIFIERS


def type_spelling(c_type: str) -> list[str]:
    """The type's words in a canonical order ("long long" keeps both words)."""
    return sorted(w for w in c_type.split() if w not in _QUALIFIERS)


def fits_int(c_type: str) -> bool:
    """Whether every value of ``c_type`` is an ``int`` and arithmetic on it is signed
    ``int`` arithmetic (integer promotion): ``int``, ``short``, ``unsigned char``..."""
    words = _words(c_type)
    if not words:
        return False
    if words & _NARROW:
        return not (words & _WIDE)
    return words <= _SIGNED_INT


def is_wide(c_type: str) -> bool:
    """Whether ``c_type`` may hold values beyond 32 bits (or is unknown: a typedef)."""
    words = _words(c_type)
    known = _NARROW | _SIGNED_INT | _WIDE | _UNSIGNED
    return bool(words & _WIDE) or not words <= known


def is_unsigned(c_type: str) -> bool:
    return bool(_words(c_type) & _UNSIGNED)


_BASIC_TYPE_WORDS = {"void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool"}


def definition_checks(scop: Scop) -> list[str]:
    """The enumeration constants the model read as their values (``NX == 40``: an enum
    under an ``#if`` has another value under another ``-D``), then `type_checks`: C
    conditions the compiler folds, under which the optimized code runs."""
    return [f"{name} == {value}" for name, value in scop.enumerators.items()] + type_checks(scop)


def type_checks(scop: Scop) -> list[str]:
    """The types the model was read with, as C conditions
    (``__builtin_types_compatible_p(__typeof__(A[0][0]), double)``), when the file
    includes headers of its own (``scop.types_from_headers``): their ``#if``s, which the
    file does not show, may give ``DATA_TYPE`` or ``real`` another type under another
    ``-D``, and with it other dependences (a float reduction), other intrinsics (a double
    micro-kernel) or other counter arithmetic (an unsigned size). Constant expressions, which the compiler
    folds: the optimized code runs only for the types it was made for. One per array and
    scalar of the source, size and iterator declared before the region, of a basic C
    type (qualifiers dropped; the builtin ignores them too). A GNU builtin, as
    ``__builtin_malloc`` in the output is: C11's ``_Generic`` draws warnings under
    ``-std=c99 -pedantic``."""
    if not scop.types_from_headers:
        return []
    checks = []

    def check(type_or_value: str, c_type: str) -> None:
        words = type_spelling(c_type)
        if words and set(words) <= _BASIC_TYPE_WORDS and "void" not in words:
            unqualified = " ".join(w for w in c_type.split() if w not in _QUALIFIERS)
            checks.append(f"__builtin_types_compatible_p({type_or_value}, {unqualified})")

    for array in scop.arrays.values():
        if array.origin in ("global", "param", "local") and not array.text and not array.member:
            element = array.name + "[0]" * (1 if array.linearized else len(array.dims))
            # (a typedef's basic type: VAL a[N] with VAL int32_t here and double under -DX)
            check(f"__typeof__({element})", scop.typedefs.get(array.element_type, array.element_type))
    for name, c_type in scop.variable_types.items():
        if name not in scop.loop_scoped and name not in scop.c_texts and name not in scop.arrays:
            check(f"__typeof__({name})", scop.typedefs.get(c_type, c_type))
    # a typedef names its type wherever it is visible: for (idx i = ...) too
    for name, basic in scop.typedefs.items():
        check(name, basic)
    return checks


@dataclass
class Versioning:
    """The plan for one region.

    ``counter_type``: C type of the generated loop counters. ``parameter_text``: how a
    parameter is printed in generated expressions (``"(long long)n"``).
    ``iterator_casts``: original iterator -> its declared type, when it differs from
    the counter type. ``assumed``: ``[params] -> { : ... }`` where the optimized code is
    valid (context and overflow bounds). ``alias_checks``: pairs of arrays that must not
    overlap. ``row_checks``: arrays reached through a pointer per row (``double **A``,
    ``R[i].v[j]``) that the region writes: their rows must not overlap each other, which
    a loop over the row pointers checks at run time (each row past the end of the one
    before). ``row_pair_checks``: pairs of arrays, one written, at least one reached
    through a pointer per row (2-d): a loop over the rows checks that no row of one
    overlaps the other (its rows or its block), and that no written row overlaps a
    table of row pointers or a pointer to one held in memory (`pointer_cell`).
    ``cell_checks``: (written array, array) pairs: the first's block must not hold the
    pointer through which the second is reached, when that pointer is memory.
    ``never``: why the optimized code can never be proven safe (then the region keeps
    its original code). ``live_iterators``: set to their final values after the
    optimized code.
    """

    counter_type: str
    parameter_text: dict[str, str]
    iterator_casts: dict[str, str]
    assumed: isl.Set
    alias_checks: list[tuple[Array, Array]] = field(default_factory=list)
    row_checks: list[Array] = field(default_factory=list)
    row_pair_checks: list[tuple[Array, Array]] = field(default_factory=list)
    cell_checks: list[tuple[Array, Array]] = field(default_factory=list)
    # linearised subscripts computed in 32-bit unsigned arithmetic (Scop.address_bounds)
    address_bounds: tuple[tuple[isl.PwAff, tuple[isl.PwAff, ...]], ...] = ()
    never: list[str] = field(default_factory=list)
    live_iterators: tuple[str, ...] = ()

    def iterator_cast(self, iterator: str, statement_types: dict[str, str]) -> str | None:
        """The type a statement converts the counter of ``iterator`` to (None: none):
        its own declared type where loops declare the name with several types
        (``Statement.iterator_types``), else the region's (``iterator_casts``)."""
        own = statement_types.get(iterator)
        if own is None:
            return self.iterator_casts.get(iterator)
        return None if type_spelling(own) == type_spelling(self.counter_type) else own

    @property
    def needs_check(self) -> bool:
        return bool(self.alias_checks) or bool(self.row_checks) or bool(self.row_pair_checks) \
            or bool(self.cell_checks) or bool(self.address_bounds) \
            or not self.assumed.plain_is_universe()

    def describe(self) -> list[str]:
        """One line per assumption and what the emitted code does about it."""
        if self.never:
            return [f"original code kept: {reason}" for reason in self.never]
        lines = []
        if not self.assumed.plain_is_universe():
            lines.append(f"optimized code runs when {self.assumed} holds (checked at run time; "
                         "else the original code)")
        if self.alias_checks:
            # (members by name: A[].re/y[].im; a pair of views of the same memory once)
            pairs = ", ".join(dict.fromkeys(f"{_shown(a)}/{_shown(b)}" for a, b in self.alias_checks))
            lines.append(f"run-time check that these arrays do not overlap: {pairs}")
        if self.address_bounds:
            lines.append("run-time check that the subscripts computed in 32-bit unsigned arithmetic "
                         "(A[y * w + x]) stay below 2**32, where they do not wrap")
        if self.row_checks:
            rows = ", ".join(_shown(a) for a in self.row_checks)
            lines.append(f"run-time check that the rows of {rows} do not overlap (each after the one before)")
        if self.row_pair_checks:
            pairs = ", ".join(dict.fromkeys(f"{_shown(a)}/{_shown(b)}" for a, b in self.row_pair_checks))
            lines.append(f"run-time check, row by row, that these arrays reached through row pointers do not "
                         f"overlap: {pairs}")
        if self.cell_checks:
            pairs = ", ".join(dict.fromkeys(f"{_shown(w)}/&{_shown(x)}" for w, x in self.cell_checks))
            lines.append(f"run-time check that written arrays do not hold the pointers that reach arrays: {pairs}")
        if self.counter_type != "int":
            lines.append(f"loop counters are {self.counter_type} (the program's types need it)")
        if self.live_iterators:
            lines.append(f"iterators left at their final values: {', '.join(self.live_iterators)}")
        return lines


# schedule terms under which the iterator bounds above keep the loop counters in range:
# the sum of a band member's absolute coefficients (Pluto's skews and wavefronts add
# 1-3 iterators; 8 * ITERATOR_BOUND leaves int a factor 2 for the bounds' own sums)
# and offsets; larger ones (a hand-written skew('S1', 1, 0, 2**30), or k + 4a + ... + 4h
# over nine iterators) scale the iterator bound down
SMALL_COEFFICIENT = 8
SMALL_OFFSET = 2 ** 20


def schedule_terms(schedule: isl.Schedule | None) -> tuple[int, int]:
    """The largest sum of absolute coefficients (of the iterators and parameters) and
    the largest constant of a band member of ``schedule``: a loop counter is at most
    that sum times the largest iterator, plus the constant."""
    from fractions import Fraction
    largest = [1, 0]

    def coefficient_sum(aff: isl.Aff, scale: Fraction = Fraction(1)) -> Fraction:
        """The sum of the absolute iterator and parameter coefficients of ``aff`` times
        ``scale``, its integer divisions' included (``5 * floor(j / 5)`` scales ``j``
        by 1)."""
        def value(kind, k) -> Fraction:        # (isl gives the rational coefficient: 3/4)
            return abs(Fraction(str(aff.get_coefficient_val(kind, k))))

        total = Fraction(0)
        for kind in (isl.dim_type.in_, isl.dim_type.param):
            for k in range(aff.dim(kind)):
                total += value(kind, k)
        for k in range(aff.dim(isl.dim_type.div)):
            coefficient = value(isl.dim_type.div, k)
            if coefficient:
                total += coefficient_sum(aff.get_div(k), coefficient)
        return total * scale

    def piece(_set: isl.Set, aff: isl.Aff) -> None:
        total = coefficient_sum(aff)
        largest[0] = max(largest[0], -(-total.numerator // total.denominator))
        # a tile loop floor(i / T) + c: the code computes T * (counter) = i + T * c
        scale = max([1] + [abs(aff.get_div(k).get_denominator_val().get_num_si())
                           for k in range(aff.dim(isl.dim_type.div))])
        largest[1] = max(largest[1], abs(aff.get_constant_val().get_num_si()) * scale)

    if schedule is not None:
        foreach_band_piece(schedule, piece)
    return largest[0], largest[1]


def plan(scop: Scop, counter_type: str | None = None, schedule: isl.Schedule | None = None) -> Versioning:
    """The versioning plan of ``scop`` run under ``schedule``; ``counter_type`` forces
    the counter type."""
    types = scop.variable_types
    iterators = {it for stmt in scop.statements for it in stmt.iterators}
    # the sizes and loop variables int cannot hold: of a wider or unsigned type, or a
    # macro of a value past INT_BOUND
    wider = sorted({name for name in types if (name in scop.parameters or name in iterators)
                    and not fits_int(types[name])}
                   | {p for p in scop.parameters if p not in types
                      and abs(scop.parameter_values.get(p, 0)) > INT_BOUND})
    everything_int = not wider
    coefficient, offset = schedule_terms(schedule)
    small_terms = coefficient <= SMALL_COEFFICIENT and offset <= SMALL_OFFSET
    if counter_type is None:
        fits = everything_int and small_terms and \
            not _small_iterators(scop, _bounded_context(scop, False), ITERATOR_BOUND).is_empty()
        counter_type = "int" if fits else "long long"
    wide_counters = is_wide(counter_type)
    if not wide_counters and not everything_int:
        # 32-bit counters compare with the program's wider or unsigned sizes in their
        # type (c0 < n - 3 in unsigned: n = 1 wraps), and the run-time check would need
        # the sizes cast down, which wraps too ((int32_t)lo for lo = 2^32 + 5 is 5)
        raise ArgumentError(f"iterator_type {counter_type!r}: {', '.join(wider)} "
                            f"{'does' if len(wider) == 1 else 'do'} not fit int; the loop counters need a "
                            "64-bit type ('long long', or iterator_type None to choose)")

    # a struct member's C text (img->w) for the model's name of it (img__w)
    parameter_text = {p: f"({scop.c_texts[p]})" for p in scop.parameters if p in scop.c_texts}
    if wide_counters:
        for p in scop.parameters:
            text = scop.c_texts.get(p, p)
            parameter_text[p] = f"({counter_type}){text}" if p in types and p not in scop.c_texts \
                else f"({counter_type})({text})"
    iterator_casts = {it: types[it] for it in sorted(iterators)
                      if it in types and type_spelling(types[it]) != type_spelling(counter_type)}

    bounded = _bounded_context(scop, wide_counters)
    iterator_bound = WIDE_ITERATOR_BOUND if wide_counters else ITERATOR_BOUND
    if not small_terms:      # counters reach coefficient * iterator + offset
        iterator_bound = max(0, iterator_bound - offset) // coefficient
    assumed = _small_iterators(scop, bounded, iterator_bound)
    # conditions the types already guarantee are not tested; not a 64-bit unsigned's
    # n >= 0, which its cast (long long)n breaks from 2^63 on (size_t lo = SIZE_MAX)
    known = isl.Set.universe(scop.context.get_space())
    for k, p in enumerate(scop.parameters):
        if is_unsigned(types.get(p, "int")) and not (wide_counters and is_wide(types[p])):
            known = known.lower_bound_val(isl.dim_type.param, k, isl.Val(0))
    assumed = assumed.gist(known).coalesce()

    result = Versioning(counter_type, parameter_text, iterator_casts, assumed,
                        address_bounds=scop.address_bounds, live_iterators=tuple(scop.live_iterators))
    if bounded.is_empty():
        result.never.append("the model holds for no parameter value (e.g. an unsigned comparison "
                            "that always wraps around, or a linearised subscript A[i * n + j] whose "
                            "j always leaves its row of n)")
    elif assumed.is_empty():
        bound = f"2**{iterator_bound.bit_length() - 1}" if iterator_bound >= 2 else str(iterator_bound)
        result.never.append(f"a loop counter may exceed {bound}, "
                            f"where tile arithmetic in {counter_type} could overflow")
    _plan_alias_checks(scop, result)
    return result


def counter_limit(counter_type: str) -> int:
    """The largest magnitude every value of ``counter_type`` holds (its negative too)."""
    words = _words(counter_type)
    bits = 64 if is_wide(counter_type) else 8 if "char" in words else 16 if "short" in words else 32
    return 2 ** (bits - 1) - 1


def parameter_ranges(scop: Scop, assumed: isl.Set) -> dict[str, tuple[int, int]]:
    """Each parameter's (least, greatest) value where ``assumed`` holds and its C type
    allows (a macro's, of no declared type, as a ``long long``)."""
    ranges = {}
    for k, p in enumerate(scop.parameters):
        c_type = scop.typedefs.get(scop.variable_types.get(p, ""), scop.variable_types.get(p, ""))
        words = _words(c_type)
        bits = 8 if "char" in words or words & {"int8_t", "uint8_t"} else \
            16 if "short" in words or words & {"int16_t", "uint16_t"} else \
            1 if words & {"_Bool", "bool"} else 64 if is_wide(c_type) or not words else 32
        lo, hi = (0, 2 ** bits - 1) if is_unsigned(c_type) else (-2 ** (bits - 1), 2 ** (bits - 1) - 1)
        alone = assumed.move_dims(isl.dim_type.set, 0, isl.dim_type.param, k, 1)
        least, greatest = alone.dim_min_val(0), alone.dim_max_val(0)
        if least.is_int():
            lo = max(lo, least.to_python())
        if greatest.is_int():
            hi = min(hi, greatest.to_python())
        ranges[p] = (lo, hi)
    return ranges


def _bounded_context(scop: Scop, wide_counters: bool) -> isl.Set:
    """``scop.context`` with each parameter bounded so that the counters' arithmetic
    stays in range: ``±INT_BOUND`` under ``int`` counters (narrow types need nothing),
    ``±WIDE_BOUND`` for 64-bit parameters under ``long long`` ones."""
    assumed = scop.context
    for k, p in enumerate(scop.parameters):
        c_type = scop.variable_types.get(p, "int")
        if wide_counters:
            bound = WIDE_BOUND if is_wide(c_type) else None
        else:
            bound = None if (_words(c_type) & _NARROW) else INT_BOUND
        if bound is not None:
            assumed = assumed.upper_bound_val(isl.dim_type.param, k, val(bound))
            if not is_unsigned(c_type):
                assumed = assumed.lower_bound_val(isl.dim_type.param, k, val(-bound))
    return assumed


def _small_iterators(scop: Scop, context: isl.Set, iterator_bound: int) -> isl.Set:
    """The part of ``context`` where every statement instance has its iterators within
    ``±iterator_bound``: ``context`` minus the parameters of ``{ S[i] : |i_k| >
    iterator_bound }``. Literal bounds near ``INT_MAX`` (``for (i = 2147483600; ...)``)
    fit ``int`` themselves, but a tile's last point ``3 * c0 + 2`` does not: for them
    the set is empty under ``int`` counters; ``i < 12 * n`` bounds ``n`` a little more."""
    space = context.get_space()
    outside = isl.Set.empty(space)
    for stmt in scop.statements:
        domain = stmt.domain.align_params(space).intersect_params(context)
        for k in range(domain.dim(isl.dim_type.set)):
            box = domain.lower_bound_val(isl.dim_type.set, k, val(-iterator_bound)) \
                .upper_bound_val(isl.dim_type.set, k, val(iterator_bound))
            outside = outside.union(domain.subtract(box).params())
    return context.subtract(outside).coalesce()


def kept_apart(a: Array, b: Array) -> bool:
    """Whether ``a`` and ``b`` cannot overlap whatever the run: neither is reached through
    a pointer (undeclared names count as pointers: nothing proves otherwise), or
    ``restrict`` rules it out (`_restrict_separates`)."""
    return not (_may_be_aliased(a) or _may_be_aliased(b)) or _restrict_separates(a, b)


def _may_be_aliased(array: Array) -> bool:
    return array.through_pointer or not array.origin


def _restrict_separates(a: Array, b: Array) -> bool:
    """Whether ``restrict`` rules out that ``a`` and ``b`` overlap: one is a pointer
    parameter declared ``restrict``, reached directly (not its rows, ``double **restrict
    A``, nor a member's pointer, ``R[i].v``, which are pointers loaded from memory, not
    based on it), and the other is a parameter or a global, which cannot be based on it
    (a local ``q = a + 1`` is, and may overlap it legally)."""
    def protected(array: Array) -> bool:
        return array.restrict and array.origin == "param" and not array.text and not array.member \
            and "" not in array.dims[1:]

    def independent(array: Array) -> bool:
        return array.origin in ("param", "global") and not array.text and not array.member

    return (protected(a) and independent(b)) or (protected(b) and independent(a))


def _shown(array: Array) -> str:
    """How C names ``array``: ``R[].a`` for the model's ``R__a`` (a member of an array of
    structs), ``img->data`` for ``img__data``."""
    return array.c_text + "[]" * array.member_after + array.member if array.member else array.c_text


def _plan_alias_checks(scop: Scop, result: Versioning) -> None:
    written = written_arrays(scop)
    # variables a pointer may reach: globals, undeclared names, and those whose address
    # the program takes (a probe's `double *p = &acc;` read acc as p[0] in the region;
    # `int *p = &i;` read the iterator i, which the optimized loops leave alone)
    taken = set(scop.address_taken)
    # (a struct's scalar member is memory a pointer may reach too: p->sum). A scalar
    # the file does not declare and the region only reads may be a header's enumerator,
    # whose address C cannot take (&HN would not compile): it is left out.
    # (the arrays of scalar expansion and those the region declares are its own: no
    # pointer reaches them)
    candidates = [a for a in scop.arrays.values() if a.origin not in ("expanded", "region")
                  and a.name not in scop.products and (
                  not a.is_scalar or a.origin == "global"
                  or (a.origin == "" and a.name in written) or a.name in taken or a.text)]
    for name in sorted(taken - set(scop.arrays)):       # iterators and sizes
        text = scop.c_texts.get(name, "")                 # a size read through a pointer: p->n
        candidates.append(Array(name, scop.variable_types.get(name, "int"), origin="local", text=text,
                                through_pointer="->" in text or "[" in text))
        if name not in scop.parameters:
            written.add(name)                             # the loops change an iterator
    candidates.sort(key=lambda a: a.name)
    for a, b in combinations(candidates, 2):
        if kept_apart(a, b):
            continue
        if a.name not in written and b.name not in written:
            continue
        if a.member and b.member and a.text == b.text and "" not in a.dims[a.member_after:] \
                and "" not in b.dims[b.member_after:]:
            continue        # two members of one array of structs (p[i].x, p[j].y) never overlap,
            #               # unless they are pointers (p[i].a[j], p[k].b[l])
        rowed = [array for array in (a, b) if "" in array.dims[1:]]
        if not rowed:
            result.alias_checks.append((a, b))
        elif all(_row_pair_candidate(array) for array in (a, b)):
            result.row_pair_checks.append((a, b))
        else:
            for array in rowed:
                reason = (f"'{_shown(array)}' is reached through a pointer to pointers, whose rows may "
                          f"overlap '{_shown(b if array is a else a)}': no run-time check can prove otherwise")
                if reason not in result.never:
                    result.never.append(reason)
    # a store into the pointer through which an array is reached (src->data, a global
    # 'unsigned char *g') changes where the original reads next (helper-71's probe, and
    # the same for plain blocks in session 52)
    holders = [x for x in sorted(scop.arrays.values(), key=lambda a: a.name) if pointer_cell(x) is not None]
    for w in candidates:
        if w.name in written and not w.is_scalar and "" not in w.dims[1:] and _may_be_aliased(w):
            result.cell_checks += [(w, x) for x in holders]
    # the rows of one array reached through row pointers may overlap each other
    for array in candidates:
        if array.name not in written or "" not in array.dims[1:]:
            continue
        if len(array.dims) != 2:
            reason = (f"'{_shown(array)}' is reached through more than one level of row pointers, whose "
                      "rows may overlap each other: no run-time check is generated for that")
            if reason not in result.never:
                result.never.append(reason)
        elif not result.never:
            result.row_checks.append(array)


def pointer_cell(array: Array) -> tuple[str, str] | None:
    """The bytes of the pointer through which ``array`` is reached when that pointer is
    memory a store of the region may reach (a struct member ``src->rows``, a global
    ``float **g``), else None (a parameter, a local, an array of pointers): a store
    there changes where the original reads next."""
    if not array.dims or array.dims[0] != "" or not (array.text or array.origin == "global"):
        return None
    cell = f"&({array.c_text})"
    return f"(const char *){cell}", f"(const char *)({cell} + 1)"


def _row_pair_candidate(array: Array) -> bool:
    """Whether a row-by-row overlap check (`Versioning.row_pair_checks`) can cover
    ``array``: reached through one pointer per row, 2-d (``float **in``, ``in[y][x]``),
    or an array with no row pointers of any rank, not a member of a struct array (whose
    rows interleave with its other members) nor a scalar."""
    if array.is_scalar or array.member:
        return False
    return "" not in array.dims[1:] or len(array.dims) == 2


def written_arrays(scop: Scop) -> set[str]:
    """The arrays (and scalars) some statement of ``scop`` writes or may write."""
    names = set()
    scop.writes.union(scop.may_writes).range().foreach_set(lambda s: names.add(s.get_tuple_name()))
    return names


def accessed_elements(scop: Scop, array: str) -> isl.Set | None:
    """``[params] -> { A[i, j] }``: every element of ``array`` the region touches (under
    the context), or None when it touches none."""
    accesses = scop.reads.union(scop.writes).union(scop.may_writes) \
        .intersect_domain(scop.domain).intersect_params(scop.context)
    found = []
    accesses.range().foreach_set(lambda s: found.append(s) if s.get_tuple_name() == array else None)
    return found[0] if found else None



def iterator_skeleton(scop: Scop) -> str:
    """The original region with every statement replaced by ``;``: only its loops
    (and affine ``if``s) remain, which leave each iterator at the value the original
    leaves it at. The compiler folds these empty loops into the final values. (The
    statements a transformation removed from the model go too: ``scop.removed``.)"""
    source = scop.source
    plain = blank_strings(strip_comments(source))
    starts = line_starts(source)
    spans = set()
    cuts = []                   # removed without a ';' in their place
    for stmt in scop.statements + list(scop.removed):
        if not stmt.line:
            continue
        start = offset_of(starts, stmt.line, stmt.col)
        end, depth = start, 0
        if stmt.source_end:                     # an 'if' statement: many ';'
            spans.add((start, stmt.source_end))
            continue
        comma = start - 1
        while comma > scop.region_start and plain[comma].isspace():
            comma -= 1
        if plain[comma] == ",":
            # a start a loop's initialisation sets ('for (i = 0, s = 1.0; ...)', run as
            # the statement before the loop): it goes with its comma, up to the next
            # ',' or ';' (the loop's other starts stay)
            while end < scop.region_end and not (plain[end] in ",;" and depth <= 0):
                depth += plain[end] in "([{"
                depth -= plain[end] in ")]}"
                end += 1
            cuts.append((comma, end))
            continue
        spans.add((start, statement_end(plain, start, scop.region_end)))
    # the operands of one comma expression are statements inside one span: one ';'
    spans = [(start, end) for start, end in spans
             if not any(a < start < b for a, b in spans)]
    text = list(source[scop.region_start:scop.region_end])
    for start, end in spans:
        for k in range(start, end):
            if text[k - scop.region_start] not in "\r\n":
                text[k - scop.region_start] = " "
        text[start - scop.region_start] = ";"   # where the statement began
    for start, end in cuts:
        for k in range(start, end):
            if text[k - scop.region_start] not in "\r\n":
                text[k - scop.region_start] = " "
    dead = {name for stmt in scop.statements for name in stmt.iterators} - set(scop.live_iterators)
    return _without_dead_nests("".join(text), dead)


# what a statement writes: 'x = ', 'x += ', 'x++', '--x' (not 'x == ', 'x <= ')
_WRITTEN = re.compile(r"([A-Za-z_]\w*)\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|(?:\+\+|--)\s*([A-Za-z_]\w*)"
                      r"|([A-Za-z_]\w*)\s*(?:\+\+|--)")
# a 'for' that declares its iterator: 'for (int c0 = ', 'for (long long i = '
_DECLARED = re.compile(r"\bfor\s*\(\s*(?:[A-Za-z_]\w*\s+)+\**\s*([A-Za-z_]\w*)\s*=")


def _without_dead_nests(skeleton: str, dead: set[str]) -> str:
    """``skeleton`` without its top-level statements that write nothing but iterators
    declared in their ``for`` and the region's iterators in ``dead`` (not read after
    it): a loop nest of the loops a generated region holds (re-optimized, each run
    added another such nest), an emptied statement. A loop that also steps a pointer
    (``p += m;``, ``i++, e++``) stays. With them go the pragmas and comments before them (a generated
    ``#pragma omp parallel for`` must not fall onto the next loop, whose iterator's final
    value it would leave undefined), polysched's own one-line notes, and the
    ``#define``/``#undef`` of a name no other line uses. Other preprocessor lines stay."""
    stripped = strip_comments(skeleton)
    plain = blank_strings_and_directives(stripped)
    out = list(skeleton)

    def blank(a: int, b: int, only=lambda k: True) -> None:
        for k in range(a, b):
            if out[k] not in "\r\n" and only(k):
                out[k] = " "

    previous_end = 0
    for start, end in _top_level_statements(plain):
        gap, previous_end = previous_end, end
        text = plain[start:end]
        if not re.match(r"(for|while|do|if)\b|[{;]", text):
            continue                        # (a declaration the loops may read)
        written = {next(name for name in match.groups() if name) for match in _WRITTEN.finditer(text)}
        if not written <= dead | set(_DECLARED.findall(text)):
            continue
        blank(start, end)
        blank(gap, start, lambda k: stripped[k] != skeleton[k])             # comments
        for pragma in re.finditer(r"(?m)^[ \t]*#[ \t]*pragma\b.*$", skeleton[gap:start]):
            blank(gap + pragma.start(), gap + pragma.end())
    # (polysched's own notes of an earlier run: the region's gets its own above it)
    text = re.sub(r"(?m)^[ \t]*/\* polysched: [^\n]*?\*/[ \t]*$", "", "".join(out))
    for name in set(re.findall(r"(?m)^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", text)):
        directive = re.compile(rf"(?m)^[ \t]*#[ \t]*(define|undef)[ \t]+{name}\b.*$")
        if not re.search(rf"\b{name}\b", directive.sub("", text)):
            text = directive.sub("", text)
    return text


def _top_level_statements(plain: str) -> list[tuple[int, int]]:
    """The spans of the statements of the C statement list ``plain`` (comments, strings
    and directives blanked): ``for``/``while`` (...) S, ``if`` (...) S [``else`` S],
    ``do`` S ``while`` (...);, ``{ ... }``, and anything else up to its ``;``."""
    n = len(plain)

    def skip_space(k: int) -> int:
        while k < n and plain[k].isspace():
            k += 1
        return k

    def past_group(k: int) -> int:          # k at an opening bracket: past its match
        depth = 0
        while k < n:
            depth += plain[k] in "([{"
            depth -= plain[k] in ")]}"
            k += 1
            if depth == 0:
                break
        return k

    def keyword(k: int, word: str) -> bool:
        return plain.startswith(word, k) and not (k + len(word) < n and (plain[k + len(word)].isalnum()
                                                                         or plain[k + len(word)] == "_"))

    def statement(k: int) -> int:           # k at a statement's first token: past its end
        if keyword(k, "for") or keyword(k, "while"):
            return statement(skip_space(past_group(skip_space(k + (3 if plain[k] == "f" else 5)))))
        if keyword(k, "if"):
            end = statement(skip_space(past_group(skip_space(k + 2))))
            after = skip_space(end)
            return statement(skip_space(after + 4)) if keyword(after, "else") else end
        if keyword(k, "do"):
            end = skip_space(statement(skip_space(k + 2)))
            end = skip_space(past_group(skip_space(end + 5)))
            return end + 1
        if plain[k] == "{":
            return past_group(k)
        return statement_end(plain, k, n)

    spans, k = [], skip_space(0)
    while k < n:
        end = min(statement(k), n)
        spans.append((k, end))
        k = skip_space(end)
    return spans
