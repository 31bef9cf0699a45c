"""OpenMP data-sharing of scalars written inside a loop that is to run in parallel.

Notation: ``memory[A] = { S[i] -> T[j] }``, the memory-based dependences (raw ∪ war ∪
waw, every write a may-source, nothing killed) between accesses of array ``A``; for a
scalar ``x``, ``flow { W[i] -> R[j] }`` (the write whose value the read sees, must-writes
killing earlier values) and ``live_in { R[j] }`` (reads that may see the value from
before the scop). A loop is given by ``iteration { S[i] -> [outer rows..., loop] }``:
two instances run in the same iteration when ``same_value(iteration)`` relates them.

A scalar (0-d array) written in the loop carries memory dependences on every loop, so
the loop is parallel only if each such scalar is either

- **private**: every read of it in an iteration sees a value written in the same
  iteration (value-based flow, no live-in read), and no value written in the loop is
  read after it, inside the scop or after it (live-out);
- or a **reduction**: its only accesses in the loop are statements ``x += e``,
  ``x -= e``, ``x *= e``, ``x = x + e`` or ``x = x * e`` with ``e`` not mentioning ``x``,
  and ``x`` is an integer, or reassociating floating-point sums was asked for
  (``reassociate``): a parallel floating-point sum rounds differently.

Anything else keeps the loop sequential.
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Collection
from dataclasses import dataclass, field

import islpy as isl

from polysched.islutil import isl_operation_cap, maps_of
from polysched.scop.declarations import EXTRA_FLOATING_TYPES, closing_paren
from polysched.scop import INTEGER_FUNCTIONS
from polysched.scop.model import Scop
from polysched.scop.unsigned import integer_kind

from .analysis import memory_dependences, statement_times
from .loops import is_parallel, same_value


def restrict_to_array(umap: isl.UnionMap, array: str) -> isl.UnionMap:
    """The part of an access relation ``{ S[i] -> A[f(i)] }`` that touches ``array``."""
    result = isl.UnionMap.empty(umap.get_space())
    for m in maps_of(umap):
        if m.get_tuple_name(isl.dim_type.out) == array:
            result = result.union(isl.UnionMap.from_map(m))
    return result


@dataclass
class ScalarFlow:
    """Value-based dataflow of one scalar ``x``: ``flow { W[i] -> R[j] }`` (the write
    whose value the read sees) and ``live_in { R[j] }`` (reads that may see the value
    from before the scop)."""

    flow: isl.UnionMap
    live_in: isl.UnionSet


class ScopAccesses:
    """Per-array memory dependences and scalar dataflow of a scop, computed once.

    Memory-based (every write a may-source, nothing killed), with the original
    schedule: ``memory[A] = raw ∪ war ∪ waw`` restricted to accesses of ``A``.
    """

    def __init__(self, scop: Scop):
        self.scop = scop
        self.reads = scop.reads
        self.writes = scop.writes.union(scop.may_writes)
        self.memory: dict[str, isl.UnionMap] = {}
        times = statement_times(scop)
        for name in scop.arrays:
            reads = restrict_to_array(self.reads, name)
            writes = restrict_to_array(self.writes, name)
            self.memory[name] = memory_dependences(writes, reads, times).union(
                memory_dependences(reads, writes, times)).union(memory_dependences(writes, writes, times))
        self._scalar_flow: dict[str, ScalarFlow] = {}
        self._recurrences: isl.UnionMap | None = None

    def all_memory(self) -> isl.UnionMap:
        result = isl.UnionMap.empty(self.scop.context.get_space())
        for deps in self.memory.values():
            result = result.union(deps)
        return result

    def recurrences(self) -> isl.UnionMap:
        """``{ S[s] -> S[t] }``: instance ``t`` of ``S`` reads an element that the earlier
        instance ``s`` of the same statement wrote, and the two write different elements:
        a chain of updates (seidel-2d's ``A[i][j]`` reads ``A[i][j - 1]``), not a sum into
        one element (which a register holds)."""
        if self._recurrences is None:
            raw = memory_dependences(self.writes, self.reads, statement_times(self.scop))
            same_statement = isl.UnionMap.empty(raw.get_space())
            for m in maps_of(raw):
                if m.get_tuple_name(isl.dim_type.in_) == m.get_tuple_name(isl.dim_type.out):
                    same_statement = same_statement.union(isl.UnionMap.from_map(m))
            same_element = self.scop.writes.apply_range(self.scop.writes.reverse())
            self._recurrences = same_statement.subtract(same_element)
        return self._recurrences

    def memory_except(self, names: set[str]) -> isl.UnionMap:
        result = isl.UnionMap.empty(self.scop.context.get_space())
        for name, deps in self.memory.items():
            if name not in names:
                result = result.union(deps)
        return result

    def scalar_flow(self, name: str) -> ScalarFlow:
        """Value-based flow of scalar ``name`` (must-writes kill earlier values)."""
        if name not in self._scalar_flow:
            reads = restrict_to_array(self.reads, name)
            must = restrict_to_array(self.scop.writes, name)
            may = restrict_to_array(self.scop.may_writes, name)
            info = isl.UnionAccessInfo.from_sink(reads).set_must_source(must).set_may_source(may)
            try:
                flow = info.set_schedule(self.scop.schedule).compute_flow()
                self._scalar_flow[name] = ScalarFlow(
                    flow.get_may_dependence(), flow.get_may_no_source().domain())
            except isl.Error:
                # isl's dataflow can fail on strided domains (fuzz seed 3, program 2385:
                # "affine expression involves some of the domain dimensions"). Then every
                # memory-based write -> read pair stands in for the flow, and every read
                # may see a value from before: a superset on both sides, so the scalar is
                # never wrongly found private (analysis.analyze does the same for arrays)
                memory = memory_dependences(must.union(may), reads, statement_times(self.scop))
                self._scalar_flow[name] = ScalarFlow(memory, reads.domain())
        return self._scalar_flow[name]


# operators of lower precedence than + and *, which would break "x = x + e" into
# something that is not a reduction
_LOW_PRECEDENCE = re.compile(r"\?|<|>|==|!=|&&|\|\||,|(?<![&|])[&|^](?![&|])")


@dataclass
class ScalarVerdict:
    """The scalars a parallel loop makes ``private`` and the ``reductions`` (``(name,
    operator)`` pairs) it combines, or the ``blocking`` scalars that keep the loop
    sequential (with a reason)."""

    private: list[str] = field(default_factory=list)
    # private, and live after the region: the loop's last write is its final value
    # (`last_write_reason`; OpenMP's lastprivate(conditional: ...))
    lastprivate: list[str] = field(default_factory=list)
    reductions: list[tuple[str, str]] = field(default_factory=list)
    blocking: dict[str, str] = field(default_factory=dict)
    reassociated: list[str] = field(default_factory=list)  # floating-point reductions

    @property
    def ok(self) -> bool:
        return not self.blocking



_INTEGER_TYPE_WORDS = frozenset(
    "char short int long signed unsigned _Bool bool size_t ssize_t ptrdiff_t intptr_t uintptr_t "
    "int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t intmax_t uintmax_t".split())


_FLOATING_WORDS = frozenset({"float", "double", "_Complex", *EXTRA_FLOATING_TYPES})


def _type_words(c_type: str) -> set[str]:
    return set(c_type.replace("const", " ").replace("volatile", " ").split())


def is_integer_type(c_type: str) -> bool:
    """Whether ``c_type`` (``"unsigned long"``, ``"int32_t"``) is an integer type; an
    unknown name (a typedef, ``DATA_TYPE``) counts as not integer: never reassociate
    what might be floating point."""
    words = _type_words(c_type)
    return bool(words) and words <= _INTEGER_TYPE_WORDS


_UNSIGNED = frozenset("unsigned _Bool bool size_t uintptr_t uint8_t uint16_t uint32_t uint64_t uintmax_t".split())
_NARROWER_THAN_INT = frozenset("char short int8_t int16_t uint8_t uint16_t".split())
_NARROW_OR_UNSIGNED = _UNSIGNED | _NARROWER_THAN_INT


def may_overflow(c_type: str) -> bool:
    """Whether sums and products of integer type ``c_type`` may overflow, which C leaves
    undefined: a signed type of ``int``'s rank or wider. (Unsigned arithmetic wraps;
    ``char`` and ``short`` compute in ``int`` and convert back modulo.)"""
    return is_integer_type(c_type) and not _type_words(c_type) & _NARROW_OR_UNSIGNED


def wraps_in_a_copy(c_type: str, op: str) -> bool:
    """Whether a parallel reduction ``op`` into a scalar of ``c_type`` must run on an
    unsigned copy (emit_c's wrapped reductions): a sum or product that may overflow
    (`may_overflow`), and a product of a narrower signed type, whose partial products
    gcc's OpenMP combiner multiplies in that type itself, overflowing where C would
    compute in ``int`` (helper-60: UBSan, "243 * 243 cannot be represented in type
    'short int'"). An unsigned copy gives the same value modulo the type's width."""
    if op in ("+", "-"):
        return may_overflow(c_type)
    return op == "*" and is_integer_type(c_type) and not _type_words(c_type) & _UNSIGNED


# what binds more loosely than each bitwise operator (x = x | a ^ b is x | (a ^ b), a
# reduction; x = x ^ a | b is (x ^ a) | b, none); | itself is associative
_LOOSER_THAN_BITWISE = {"|": re.compile(r"\?|&&|\|\||,"),
                        "^": re.compile(r"\?|&&|\|\||,|(?<!\|)\|(?!\|)"),
                        "&": re.compile(r"\?|&&|\|\||,|(?<!\|)\|(?!\|)|\^")}


def _strip_parentheses(text: str) -> str:
    """``text`` without parentheses around all of it: ``((a + b))`` is ``a + b``."""
    text = text.strip()
    while text.startswith("(") and text.endswith(")"):
        depth = 0
        for k, ch in enumerate(text):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and k < len(text) - 1:
                return text         # '(a) + (b)': the first closes before the end
        text = text[1:-1].strip()
    return text


def _top_level_split(text: str, separators: str) -> list[tuple[str, str]]:
    """(separator, position) of each ``separators`` character outside brackets."""
    out, depth = [], 0
    for k, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0 and ch in separators:
            out.append((ch, k))
    return out


_COMPARISON = re.compile(r"(?<![<>=!-])(>=|<=|>|<)(?![<>=])")


def _names(text: str, name: str) -> bool:
    """Whether ``text`` names the variable ``name``: a struct member of that name
    (``p.s``, ``q->s``) is another variable."""
    return re.search(rf"(?<![\w.])(?<!->){re.escape(name)}(?!\w)", text) is not None


def _selection(text: str, name: str) -> str | None:
    """``"max"``/``"min"`` if ``text`` is ``name = name > e ? name : e;`` or one of its
    spellings (``<``, ``>=``, ``<=``, either side, either arm, parenthesised), with
    ``e`` written the same in the test and the arm and free of ``name``; else None."""
    parts = _selection_parts(text, name)
    return parts[0] if parts else None


def _selection_parts(text: str, name: str) -> tuple[str, str] | None:
    """`_selection`'s operator and the selected value ``e`` (without blanks)."""
    match = re.fullmatch(rf"{re.escape(name)}\s*=(?!=)\s*(.+?)\s*;?", text, re.DOTALL)
    if not match:
        return None
    rhs = _strip_parentheses(match.group(1))
    call = re.fullmatch(r"(fmax|fmin)[fl]?\s*\((.*)\)", rhs, re.DOTALL)
    if call and len(_top_level_split(call.group(2), ",")) == 1:
        # name = fmax(name, e), a floating-point max (helper-95: under the region's own
        # reduction(max: mx) clause it stayed sequential; which of 0.0 and -0.0 or of a
        # NaN and a number it keeps depends on the order, as for 'name > e ? name : e')
        [(_, comma)] = _top_level_split(call.group(2), ",")
        squeeze = lambda part: re.sub(r"\s+", "", _strip_parentheses(part))    # noqa: E731
        first, second = squeeze(call.group(2)[:comma]), squeeze(call.group(2)[comma + 1:])
        if (first == name) == (second == name):
            return None
        value = second if first == name else first
        return (None if _names(value, name) else (call.group(1)[1:], value))
    marks = _top_level_split(rhs, "?:")
    if [mark for mark, _ in marks] != ["?", ":"]:
        return None
    (_, question), (_, colon) = marks
    test, picked, other = rhs[:question], rhs[question + 1:colon], rhs[colon + 1:]
    test = _strip_parentheses(test)
    if re.search(r"&&|\|\||==|!=|,", _top_level(test)):
        return None
    comparisons = [m for m in _COMPARISON.finditer(test)       # outside brackets
                   if test[:m.start()].count("(") == test[:m.start()].count(")")
                   and test[:m.start()].count("[") == test[:m.start()].count("]")]
    if len(comparisons) != 1:
        return None
    comparison = comparisons[0]
    left, right = test[:comparison.start()], test[comparison.end():]
    squeeze = lambda part: re.sub(r"\s+", "", _strip_parentheses(part))    # noqa: E731
    left, right, picked, other = map(squeeze, (left, right, picked, other))
    if (left == name) == (right == name):
        return None
    value = right if left == name else left
    if {picked, other} != {name, value} or _names(value, name):
        return None
    # 'a > b ? a : b' and 'a < b ? b : a' keep the greater
    keeps_left = picked == left
    return ("max" if keeps_left == (comparison.group(1) in (">", ">=")) else "min"), value


def reduction_operator(body: str, name: str) -> str | None:
    """The OpenMP reduction operator if ``body`` is ``name op= e;``, ``name = name op e;``
    or ``name = e op name;`` (``op`` not ``-``) with ``e`` free of ``name``, else None
    (``-`` is a sum: partial sums combine with +).
    ``|``, ``&`` and ``^`` are integer reductions (``is_integer_type``): exact in any
    order, and never overflowing.

    >>> reduction_operator("s += A[i] * B[i];", "s")
    '+'
    >>> reduction_operator("s = s * 2 + 1;", "s") is None
    True
    >>> reduction_operator("h = h ^ A[i] << 3;", "h")
    '^'
    >>> reduction_operator("m = m > A[i] ? m : A[i];", "m")
    'max'
    >>> reduction_operator("s = A[i] * B[i] + s;", "s")
    '+'
    >>> reduction_operator("s = A[i] - s;", "s") is None
    True
    """
    text = body.strip()
    if re.match(r"if\s*\(", text):
        return _conditional_update(text, name)
    if re.fullmatch(rf"(?:{re.escape(name)}\s*(?:\+\+|--)|(?:\+\+|--)\s*{re.escape(name)})\s*;?", text):
        return "+"          # x++ is x += 1, x-- is x += -1
    selection = _selection(text, name)
    if selection is not None:
        return selection
    parts = _update_parts(text, name)
    return None if parts is None else parts[0]


def _update_parts(text: str, name: str) -> tuple[str, str] | None:
    """``(op, e)`` of the sum, product or bitwise update ``name op= e;``, ``name =
    name op e;`` or ``name = e op name;`` (`reduction_operator`), else None."""
    ident = re.escape(name)
    match = re.fullmatch(rf"{ident}\s*([-+*|&^])=\s*(.+?)\s*;?", text, re.DOTALL)
    if match:
        op, rest = match.groups()
        op = "+" if op == "-" else op     # x -= e is x + (-e): partial sums combine with +
    else:
        match = re.fullmatch(rf"{ident}\s*=(?!=)\s*(.+?)\s*;?", text, re.DOTALL)
        if not match:
            return None
        rhs = _strip_parentheses(match.group(1))
        binary = r"([-+*]|\|(?!\|)|&(?!&)|\^)"
        forward = re.fullmatch(rf"{ident}\s*{binary}\s*(.+)", rhs, re.DOTALL)
        # x = e + x, the operand x last and the operator before it binary: e ends in an
        # operand (x = a * +x is a product)
        backward = re.fullmatch(rf"(.*?[\w\])])\s*{binary}\s*{ident}", rhs, re.DOTALL)
        if forward:
            op, rest = forward.groups()
            op = "+" if op == "-" else op     # x = x - a + b is x + (-a + b)
        elif backward and backward.group(2) != "-":     # x = a - x is no reduction
            rest, op = backward.groups()
        else:
            return None
        # x = x * a + b is not a product reduction; x = x + a * b is a sum; and
        # x = x * a % m is (x * a) % m: / and % bind like * and apply to the product
        # (x = a % m * x is (a % m) * x, a product; x = a + b * x is none)
        top = _top_level(rest).replace("->", ".")      # q->n is no comparison
        if op in _LOOSER_THAN_BITWISE:
            if _LOOSER_THAN_BITWISE[op].search(top):
                return None
        elif _LOW_PRECEDENCE.search(top) or (op == "*" and re.search(r"[-+/%]" if forward else r"[-+]", top)):
            return None
    if _names(rest, name):
        return None
    return op, rest


def _conditional_update(text: str, name: str) -> str | None:
    """The reduction operator of ``if (c) u`` without ``else``: that of the update ``u``
    when ``c`` does not read ``name`` (a sum of the elements that pass a test is a sum:
    the private copies start at the identity, which a skipped update keeps); and for
    ``if (e > x) x = e;`` (any comparison, either side) the selection it is, ``x = e >
    x ? e : x``. Else None.

    >>> _conditional_update("if (A[i] > 0) { s += A[i]; }", "s")
    '+'
    >>> _conditional_update("if (A[i] < m) m = A[i];", "m")
    'min'
    >>> _conditional_update("if (s > 0) s += A[i];", "s") is None
    True
    """
    parts = _if_parts(text)
    if parts is None:
        return None
    test, update = parts
    if not _names(test, name):
        return reduction_operator(update, name)
    ternary = _as_ternary(test, update, name)
    return None if ternary is None else _selection(ternary, name)


def _if_parts(text: str) -> tuple[str, str] | None:
    """``(test, update)`` of ``if (test) update;`` or ``if (test) { update; }`` (one
    statement, no ``else``), else None (any other statement too)."""
    opening = re.match(r"if\s*\(", text)
    closing = closing_paren(text, opening.end() - 1) if opening else len(text)
    if closing == len(text):
        return None
    test, update = text[opening.end():closing], text[closing + 1:].strip()
    if update.startswith("{") and update.endswith("}") and update.count("{") == 1:
        update = update[1:-1].strip()       # one statement in braces
    if not update or re.search(r"\belse\b|[{};]\s*\S", update):
        return None                         # an else, or more than one statement
    return test, update


def _as_ternary(test: str, update: str, name: str) -> str | None:
    """``if (test) name = e;`` written as ``name = (test) ? (e) : name;``."""
    assigned = re.fullmatch(rf"{re.escape(name)}\s*=(?!=)\s*(.+?)\s*;?", update, re.DOTALL)
    return None if assigned is None else f"{name} = ({test}) ? ({assigned.group(1)}) : {name};"


def _selected_value(body: str, name: str) -> str | None:
    """The value ``e`` a selection statement (`_selection`, or ``if (e > x) x = e;``)
    keeps, without blanks; None for any other statement."""
    text = body.strip()
    conditional = _if_parts(text)
    if conditional is not None:
        text = _as_ternary(*conditional, name) or ""
    parts = _selection_parts(text, name)
    return parts[1] if parts else None


def _top_level(text: str) -> str:
    """``text`` with every parenthesised or bracketed part removed."""
    out, depth = [], 0
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def used_after_scop(scop: Scop, name: str) -> bool:
    """Whether the value scalar ``name`` has after the region may be read: the front
    end's ``live_scalars`` (scop/liveness.py), everything when it is not known.

    A scalar whose value might be read after the region is live-out: privatising it
    would lose the value the sequential code leaves behind. What the region's own
    blocks declare ends with them.
    """
    array = scop.arrays.get(name)
    if array is not None and array.origin == "region":
        return False
    return scop.live_scalars is None or name in scop.live_scalars


def _cell_spellings(scop: Scop, name: str) -> re.Pattern | None:
    """How the statements may spell cell ``name``: a struct member by its text
    (``st->n``, ``v.a``, blanks allowed around ``->`` and ``.``); the one element of a
    pointer or 1-d array as ``*s``, ``(*s)``, ``*(s)`` or ``s[0]``. None for anything else."""
    array = scop.arrays.get(name)
    if array is None:
        return None
    if array.text:
        if not array.is_scalar or not re.fullmatch(r"[A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)+", array.text):
            return None
        parts = re.split(r"\s*(->|\.)\s*", array.text)
        pattern = "".join(re.escape(p) if k % 2 == 0 else rf"\s*{re.escape(p)}\s*" for k, p in enumerate(parts))
        return re.compile(rf"(?<![\w.>]){pattern}(?!\s*(?:\[|\.|->|\())(?!\w)")
    if len(array.dims) != 1 or array.linearized:
        return None
    ident = re.escape(name)
    after = r"(?!\s*(?:\[|\.|->|\())"
    return re.compile(rf"\(\s*\*\s*{ident}\s*\){after}|"
                      rf"\*\s*(?:{ident}(?!\w)|\(\s*{ident}\s*\)){after}|(?<![\w.>]){ident}\s*\[\s*0\s*\]{after}")


def spelled_as(scop: Scop, stmt, name: str, replacement: str, body: str | None = None,
               later: str | None = None) -> str | None:
    """``stmt``'s body (or ``body``, a rewriting of it that left the cell's references
    alone) with every reference to cell ``name`` (`reduced_cell`) written
    ``replacement`` (the first; the others ``later`` when given); the body itself for a
    variable, or a cell the statement does not touch; None when the body reaches the
    cell in a way the spellings do not cover (``(*st).n``, ``&s[0]``, a comment that
    looks like one): as many matches as the model has references (one per source
    position), and no other mention of a pointer cell's name left."""
    array = scop.arrays.get(name)
    positions = {(a.line, a.col) for a in stmt.accesses if a.array == name}
    if array is None or not positions or (array.is_scalar and not array.text):
        return stmt.body if body is None else body
    pattern = _cell_spellings(scop, name)
    if pattern is None:
        return None
    text = stmt.body if body is None else body
    spellings = itertools.chain([replacement], itertools.repeat(replacement if later is None else later))
    body, found = pattern.subn(lambda match: next(spellings), text)
    mentions = len(re.findall(rf"(?<![\w.])(?<!->){re.escape(name)}(?!\w)", text))
    if found != len(positions) or (not array.text and mentions != found):
        return None
    return body


def reduced_cell(scop: Scop, name: str) -> bool:
    """Whether ``name`` is one memory cell, not a variable, that a parallel loop may
    still reduce: a struct member (``st->count += ...``), or a pointer or 1-d array of
    which the region touches only element 0 (an out-parameter, ``*sum += a[i]``), every
    statement spelling it plainly (`spelled_as`). OpenMP reduces variables only, so the
    loop updates a local copy in its place (emit_c's cell reductions) and adds it to the
    cell after the loop, when some update ran."""
    array = scop.arrays.get(name)
    if array is None or _cell_spellings(scop, name) is None:
        return False
    if not array.text:
        touched = restrict_to_array(scop.reads.union(scop.writes).union(scop.may_writes), name)
        zero = isl.UnionSet(f"{{ {name}[0] }}").align_params(touched.get_space())
        if touched.is_empty() or not touched.range().is_subset(zero):
            return False
    return all(spelled_as(scop, stmt, name, name) is not None for stmt in scop.statements)


def clause_candidate(array) -> bool:
    """Whether a parallel loop may name ``array`` in a data-sharing clause rather than
    be kept sequential by its dependences: a scalar, or an array the region declares in
    one of its blocks (``double t[N];``), which may be ``private`` (never a reduction)."""
    return array.is_scalar or array.origin == "region"


def may_reassociate(reassociate: bool | Collection[str], name: str) -> bool:
    """Whether ``reassociate`` (True: every one; or the names of scalars) lets the
    floating-point reductions of ``name`` be reordered."""
    return reassociate is True or (not isinstance(reassociate, bool) and name in reassociate)


def classify_scalars(scop: Scop, accesses: ScopAccesses, domain: isl.UnionSet,
                     iteration: isl.UnionMap, reassociate: bool | Collection[str] = False,
                     asked: str = "--reassociate") -> ScalarVerdict:
    """Data-sharing of the scalars written by the instances ``domain`` of a loop: a
    scalar whose ``memory`` dependences the loop does not carry needs nothing, else it is
    private (``private_reason`` is None), a reduction (``reduction_of``), or blocking.

    ``iteration``: ``{ S[i] -> [outer rows..., loop] }``: two instances with equal
    values run in the same iteration of the loop (and of every loop around it).
    ``reassociate``: floating-point reductions are allowed (else they block): True, or
    the names of the scalars whose reductions are. ``asked``: how a blocking reason
    spells that request to the caller's user (the CLI's flag, or an argument).
    """
    verdict = ScalarVerdict()
    same_iteration = same_value(iteration)
    for name, array in scop.arrays.items():
        # a struct member (v.a, p->sum) or an out-parameter (*s): memory, not a variable
        in_memory = bool(array.text) or not clause_candidate(array)
        cell = in_memory and reduced_cell(scop, name)
        if not clause_candidate(array) and not cell:
            continue
        writes = restrict_to_array(accesses.writes, name).intersect_domain(domain)
        if writes.is_empty():
            continue
        # its dependences are not carried by this loop: nothing to do (one iteration)
        if accesses.memory[name].intersect_domain(domain).intersect_range(domain) \
                .is_subset(same_iteration):
            continue
        if in_memory:
            # OpenMP privatises and reduces variables, not memory, and the liveness scan
            # after the region looks for the model's name. A reduction runs on a local
            # copy (reduced_cell)
            op = reduction_of(scop, accesses, name, domain, reassociate) if cell else None
            if op is None or op in SELECTIONS:
                verdict.blocking[name] = (
                    f"'{array.text}' is a struct member: never private, a reduction only of 'x op= e' updates"
                    if array.text else
                    f"'{name}' is a pointer or array: never private, a reduction only of '*{name} op= e' updates")
                continue
            reason = ""
        else:
            reason = private_reason(scop, accesses, name, domain, same_iteration, live_after=True)
            if reason is None and not used_after_scop(scop, name):
                verdict.private.append(name)
                continue
            if reason is None:
                reason = last_write_reason(scop, accesses, name, domain, iteration)
                if reason is None:
                    verdict.lastprivate.append(name)
                    continue
            if not array.is_scalar:
                verdict.blocking[name] = reason
                continue
            op = reduction_of(scop, accesses, name, domain, reassociate)
        if op is None:
            reason = _inexact_selection(scop, name, domain, asked) or reason
        inexact = inexact_integer_update(scop, name, domain) if op is not None else None
        if inexact is not None:
            verdict.blocking[name] = inexact
            continue
        if op is not None and not is_integer_type(array.element_type):
            if not may_reassociate(reassociate, name):
                # (an integer type polysched does not know, __int128 or a typedef, might be
                # floating point: never reordered unasked; helper-57: "floating-point" was wrong)
                kind = "floating-point" if _type_words(array.element_type) & _FLOATING_WORDS else \
                    f"'{array.element_type}' (not known to be an integer type)"
                verdict.blocking[name] = f"{kind} reduction (parallel only with {asked})"
                continue
            verdict.reassociated.append(name)
        # (a signed integer sum or product is exact in any order too: the emitted loop
        # updates an unsigned copy, which wraps where partial sums might overflow; see
        # emit_c's wrapped reductions)
        if op is not None:
            verdict.reductions.append((name, op))
            continue
        verdict.blocking[name] = reason
    return verdict


# a floating constant (not the digits ending a name: p0.x, x1e5), a type, a call (not
# the test of an 'if', nor a function that gives an integer: __builtin_popcount, abs)
_FLOATING_TEXT = re.compile(r"(?<!\w)\d+\.|\.\d|(?<!\w)\d+[eE][-+]?\d|\b(?:float|double)\b|"
                            rf"\b(?!(?:if|{'|'.join(sorted(INTEGER_FUNCTIONS))})\b)\w+\s*\(")


def dependences_without_reductions(scop: Scop, reassociate: bool | Collection[str] = False
                                   ) -> isl.UnionMap | None:
    """The memory dependences ``{ S[s] -> T[t] }`` less those among the updates of an
    integer scalar that its updating statements make one reduction (`reduction_of`
    over their instances, `inexact_integer_update` None): what a parallel loop must
    not carry, the rest it reduces with clauses. The statements that set the scalar or
    read its total stay ordered with the updates. None when there are no such scalars.
    Floating-point scalars count too where ``reassociate`` allows their reductions
    (True, or their names), as `classify_scalars` does."""
    def updates_of(name: str, variable: bool) -> isl.UnionSet | None:
        """The instances of the statements updating ``name`` (of a cell: no max/min,
        which its copy could not start at the identity of), None when none does."""
        found = None
        for stmt in scop.statements:
            if any(a.array == name for a in stmt.accesses):
                op = reduction_operator(spelled_as(scop, stmt, name, name) or "", name)
                if op is not None and (variable or op not in SELECTIONS):
                    domain = isl.UnionSet.from_set(stmt.domain)
                    found = domain if found is None else found.union(domain)
        return found

    candidates = {}
    for name, array in scop.arrays.items():
        if (is_integer_type(array.element_type) or may_reassociate(reassociate, name)) \
                and ((array.is_scalar and not array.text) or reduced_cell(scop, name)):
            updates = updates_of(name, array.is_scalar and not array.text)
            if updates is not None:
                candidates[name] = updates
    if not candidates:      # (most regions: no per-array dependences computed)
        return None
    accesses = ScopAccesses(scop)
    # only the dependences among the updates go: the statements that set the scalar or
    # read its total stay ordered with them (a tester: 'b[i] = b[i] / s' after the
    # user's own 'reduction(+:s)' loop kept s's whole reduction ordered, and the cost
    # fusion joined that loop with a sequential sum)
    reductions = {name: updates for name, updates in candidates.items()
                  if reduction_of(scop, accesses, name, updates, reassociate)
                  and inexact_integer_update(scop, name, updates) is None}
    if not reductions:
        return None
    result = accesses.memory_except(set(reductions))
    for name, updates in reductions.items():
        deps = accesses.memory[name]
        result = result.union(deps.subtract(deps.intersect_domain(updates).intersect_range(updates)))
    return result


def inexact_integer_update(scop: Scop, name: str, domain: isl.UnionSet) -> str | None:
    """Why the updates of integer scalar ``name`` in ``domain`` are no modular sum or
    product that partial results may combine, or None. ``_Bool s; s += a`` is
    ``s = (s + a) != 0``; ``int s; s += x * 0.5`` truncates ``s + x * 0.5`` toward zero
    at every step. (A floating-point scalar is a reassociation: classify_scalars.)"""
    element = scop.arrays[name].element_type
    if not is_integer_type(element):
        return None
    if set(element.split()) & {"_Bool", "bool"}:
        return "a _Bool update is no sum (it converts to 0 or 1 at every step)"
    for stmt in scop.statements:
        if all(a.array != name for a in stmt.accesses) or \
                stmt.domain.intersect(domain.extract_set(stmt.domain.get_space())).is_empty():
            continue
        if _integer_update_under_a_test(scop, stmt, name):
            continue
        if _cast_to_integer_update(scop, stmt, name):
            continue
        others = [scop.arrays[a.array].element_type for a in stmt.accesses if a.array != name]
        if any(not is_integer_type(t) for t in others) or stmt.floating or _FLOATING_TEXT.search(stmt.body):
            return "an integer updated with a value that may not be an integer (C converts at every step)"
    return None


# a cast to a type (its words) at the start of an expression, and what follows it
_LEADING_CAST = re.compile(r"\(\s*((?:const\s+|volatile\s+)*[A-Za-z_][\w\s]*?)\s*\)\s*(.+)", re.DOTALL)


def _cast_to_integer_update(scop: Scop, stmt, name: str) -> bool:
    """Whether ``stmt`` updates ``name`` with one value cast to an integer type
    (``s += (uint64_t)sq(x[i]);``, ``t = t + (long)floor(x[i] * 0.5);``, also under an
    ``if``), or given by a function that gives an integer (``r += lrintf(f[i])``):
    whatever is converted is, element by element, before the sum, so the sum is of
    integers and exact in any order."""
    text = (spelled_as(scop, stmt, name, name) or stmt.body).strip()
    if_parts = _if_parts(text)
    parts = _update_parts(if_parts[1] if if_parts else text, name)
    if parts is None:
        return False
    value = _strip_parentheses(parts[1].strip())
    call = re.fullmatch(r"([A-Za-z_]\w*)\s*\(.*\)", value, re.DOTALL)
    if call is not None and call.group(1) in INTEGER_FUNCTIONS and _top_level(value).strip() == call.group(1):
        return True         # lrintf(f[i]), __builtin_popcount(u[i]): one integer
    cast = _LEADING_CAST.fullmatch(value)
    if cast is None:
        return False
    to_type = " ".join(scop.typedefs.get(word, word) for word in cast.group(1).split())
    operand = _top_level(cast.group(2)).replace("->", ".")
    # the cast applies to all that follows: a name with calls, subscripts and members,
    # or a parenthesised expression ('(long)x * y' casts x alone)
    return is_integer_type(to_type) and \
        re.fullmatch(r"\s*(?:[A-Za-z_]\w*(?:\s*\.\s*\w+)*)?\s*", operand) is not None


def _integer_update_under_a_test(scop: Scop, stmt, name: str) -> bool:
    """Whether ``stmt`` is ``if (test) update;`` whose update reads only ``name``,
    integer arrays and scalars of the model, iterators, parameters and integer literals.
    The test only picks the updates, whatever it reads: ``if (D[j] > 0.5) count++;``
    counts exactly. (Any other word, a macro or a struct member, might not be an
    integer: then the whole statement is judged.)"""
    parts = _if_parts(stmt.body.strip())
    if parts is None or _FLOATING_TEXT.search(parts[1]) or re.search(r"\.|->", parts[1]):
        return False
    known = {name, *stmt.iterators, *scop.parameters}
    for word in set(re.findall(r"[A-Za-z_]\w*", re.sub(r"\b\d\w*", "", parts[1]))) - known:
        array = scop.arrays.get(word)
        if array is None or array.text or not is_integer_type(array.element_type):
            return False
    return True


# why a scalar the code after the region may read cannot simply be private
LIVE_AFTER = "may be live after the scop"


def private_reason(scop: Scop, accesses: ScopAccesses, name: str, domain: isl.UnionSet,
                   same_iteration: isl.UnionMap, live_after: bool = False) -> str | None:
    """None if scalar ``name`` can be ``private`` in the loop whose instances are
    ``domain``, else why not. ``same_iteration { S[i] -> T[j] }``: the instance pairs
    that run in one iteration (``same_value(iteration)``). Private means: no read in
    ``domain`` is in ``live_in``, ``flow`` into ``domain`` stays in ``same_iteration``,
    no ``flow`` out of ``domain``, and the scalar is not used after the scop (unless
    ``live_after``: the caller sees to the value it leaves, `last_write_reason`)."""
    flow = accesses.scalar_flow(name)
    reads = restrict_to_array(accesses.reads, name).intersect_domain(domain).domain()
    if not flow.live_in.intersect(reads).is_empty():
        return "read before written in an iteration"
    into_loop = flow.flow.intersect_range(reads)
    if not into_loop.is_subset(same_iteration):
        return "value flows between iterations"
    if not flow.flow.intersect_domain(domain).subtract_range(domain).is_empty():
        return "value read after the loop"
    if not live_after and used_after_scop(scop, name):
        return LIVE_AFTER
    return None


# isl operations the order check of a live-out private scalar may take (last_write_reason)
LAST_WRITE_OPERATIONS = 1_000_000


def last_write_reason(scop: Scop, accesses: ScopAccesses, name: str, domain: isl.UnionSet,
                      iteration: isl.UnionMap) -> str | None:
    """None if scalar ``name``, private to the loop whose instances are ``domain``
    (`private_reason` with ``live_after``), leaves after the loop the value the original
    leaves: OpenMP's ``lastprivate(conditional: name)`` copies out the value of the
    iteration that wrote it last, and that is the original's last write when the loop
    visits the writes in their original order. ``iteration { S[i] -> [outer, loop] }``
    (as for `classify_scalars`): no two writes ``x``, ``y`` of ``name`` in ``domain``
    with ``orig(x) lex< orig(y)`` but ``iteration(x) lex> iteration(y)``; writes in one
    iteration keep their order (their dependences are not the clause's). A write after
    the loop sets the final value itself, after the loop's copy (its dependence orders
    it); a loop that writes nothing leaves the value alone (the ``conditional``)."""
    writes = restrict_to_array(accesses.writes, name).intersect_domain(domain).domain()
    try:
        with isl_operation_cap(writes.get_ctx(), LAST_WRITE_OPERATIONS):
            original = scop.schedule_map.intersect_domain(writes)
            new = iteration.intersect_domain(writes)
            reordered = original.lex_lt_union_map(original).intersect(new.lex_gt_union_map(new))
            if reordered.is_empty():
                return None
    except isl.Error:
        pass
    return f"{LIVE_AFTER}, and the loop would not write it last where the original does"


SELECTIONS = ("max", "min")
_CAST = re.compile(r"\(\s*(?:const\s+|volatile\s+)*(?:unsigned|signed|char|short|int|long|float|double|_Bool|bool|"
                   r"size_t|u?int\d+_t|[A-Za-z_]\w*_t)\b[^()]*\)")


def _exact_selection(scop: Scop, stmt, name: str) -> bool:
    """Whether ``name = name > e ? name : e`` keeps the greater of two values of one
    integer type, whatever the order: ``e`` casts nothing and every value it compares
    converts to ``name``'s type as C compares it (`_converts_to`; of a type narrower than
    ``int``: ``name``'s own type, and ``e`` one element or a small literal). (Converted
    on assignment, ``char m`` and ``int e`` select among values taken modulo 256, whose
    maximum is not the last value kept; a floating-point selection keeps 0.0 or -0.0,
    NaN or not, by the order.)"""
    words = _type_words(scop.arrays[name].element_type)
    if not is_integer_type(scop.arrays[name].element_type) or words & {"_Bool", "bool"}:
        return False
    if _CAST.search(stmt.body) or stmt.floating or _FLOATING_TEXT.search(stmt.body):
        return False
    others = [scop.arrays[a.array].element_type for a in stmt.accesses if a.array != name]
    if words & _NARROWER_THAN_INT:
        # a narrow type: e computes in int ('A[i] + B[i]' of shorts), which the
        # assignment truncates (the selection then depends on the order); one element or
        # a small literal keeps its value
        value = _selected_value(stmt.body, name) or ""
        if not re.fullmatch(r"[A-Za-z_]\w*(?:(?:\.|->)\w+)*|\d{1,2}", _top_level(value)) or \
                value.startswith("("):
            return False
        return all(t is not None and _type_words(t) == words
                   for t in others + _operand_types(scop, stmt, name, literals=False))
    kind = integer_kind(scop.arrays[name].element_type)
    return kind is not None and all(_converts_to(integer_kind(t) if t is not None else None, kind)
                                    for t in others + _operand_types(scop, stmt, name))


_LITERAL = re.compile(r"(?<![\w.])(0[xX][0-9a-fA-F]+|\d+)([uUlL]*)(?![\w.])")


def _operand_types(scop: Scop, stmt, name: str, literals: bool = True) -> list[str | None]:
    """The C types of the values ``stmt`` reads besides arrays and outside subscripts:
    its iterators (declared types), the region's parameters (a macro's: ``int``) and,
    with ``literals``, integer literals (by value and suffix); None for any other word
    (an enumerator, a macro the model does not know), whose type is unknown."""
    text = re.sub(r"[A-Za-z_]\w*\s*(?=\[|->|\.(?!\d))", " ", stmt.body)     # array and struct bases
    while True:                                                         # subscripts
        text, n = re.subn(r"\[[^\[\]]*\]", " ", text)
        if not n:
            break
    text = re.sub(r"(?:\.|->)\s*[A-Za-z_]\w*", " ", text)                # members
    types: list[str | None] = []
    for digits, suffix in _LITERAL.findall(text) if literals else ():
        value = int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits)
        suffix = suffix.lower()
        types.append(None if value >= 2 ** 31 else
                     ("unsigned " if "u" in suffix else "") + ("long" if "l" in suffix else "int"))
    for word in set(re.findall(r"(?<![\w.])[A-Za-z_]\w*", _LITERAL.sub(" ", text))) - {"if", "else", name}:
        if word in scop.arrays:
            types.append(scop.arrays[word].element_type)
        elif word in stmt.iterators:
            types.append(stmt.iterator_types.get(word) or scop.variable_types.get(word))
        elif word in scop.parameters:
            types.append(scop.variable_types.get(word, "int"))
        else:
            types.append(None)
    return types


def _converts_to(kind: tuple[int, bool] | None, target: tuple[int, bool]) -> bool:
    """Whether C's usual arithmetic conversions of a value of integer ``kind`` (width,
    signed; None: not known) with one of ``target`` (of ``int``'s rank or wider) give
    ``target``: a comparison with a ``target`` value and the store into it then see the
    same value, and a max/min over such values does not depend on the order. ``int m``
    against a ``size_t i`` compares in ``unsigned long``, stores an ``int``: helper run
    of session 52, ``m = m > i ? m : i`` kept 5 in parallel where the loop kept 9."""
    if kind is None:
        return False
    width, signed = (32, True) if kind[0] < 32 else kind           # the integer promotions
    if signed == target[1] or not target[1]:
        return target[0] >= width
    return target[0] > width        # a wider signed target holds every unsigned value


def _inexact_selection(scop: Scop, name: str, domain: isl.UnionSet, asked: str) -> str | None:
    """Why a ``name = name > e ? name : e`` of ``domain`` is no reduction, if one is
    not exact (`_exact_selection`), else None (helper-58: a floating-point one was
    "read before written in an iteration")."""
    for stmt in scop.statements:
        if stmt.domain.intersect(domain.extract_set(stmt.domain.get_space())).is_empty():
            continue
        if reduction_operator(stmt.body, name) in SELECTIONS and not _exact_selection(scop, stmt, name):
            if not is_integer_type(scop.arrays[name].element_type):
                return "a floating-point max/min selection (which of equal values, 0.0 or -0.0, or a NaN it " \
                       f"keeps depends on the order; parallel only with {asked})"
            return "a max/min selection of values converted on assignment (not the same in any order)"
    return None


def reduction_of(scop: Scop, accesses: ScopAccesses, name: str, domain: isl.UnionSet,
                 reassociate: bool | Collection[str] = False) -> str | None:
    """The OpenMP operator (``"+"``, ``"*"``, ``"|"``, ``"max"``...) if every statement
    of ``domain`` touching scalar ``name`` is an update ``name op= e`` of that one
    operator (one read and one write of ``name``, see ``reduction_operator``; a
    selection must be exact, ``_exact_selection``, or a floating-point one that
    ``reassociate`` allows: True, or names ``name``), else None. Says nothing of the
    element type: a floating-point reduction is a reassociation (``classify_scalars``)."""
    # (a floating-point max keeps 0.0 or -0.0, a NaN or not, by the order: that is what
    # --reassociate or the region's own reduction(max: m) clause accepts)
    order_free = may_reassociate(reassociate, name) and \
        bool(_type_words(scop.arrays[name].element_type) & _FLOATING_WORDS)
    touching = restrict_to_array(accesses.reads.union(accesses.writes), name) \
        .intersect_domain(domain).domain()
    ops = set()
    for stmt in scop.statements:
        if touching.intersect(isl.UnionSet.from_set(stmt.domain)).is_empty():
            continue
        body = spelled_as(scop, stmt, name, name)
        op = reduction_operator(body, name) if body is not None else None
        if op is None:
            return None
        # one read and one write of x, nothing else on it (a selection reads it twice)
        # (a conditional update's write is a may-write)
        kinds = sorted(a.kind.replace("may_write", "write") for a in stmt.accesses if a.array == name)
        if kinds != ["read", "write"] and not (op in SELECTIONS and set(kinds) == {"read", "write"}
                                                and kinds.count("write") == 1):
            return None
        if op in SELECTIONS and not order_free and not _exact_selection(scop, stmt, name):
            return None
        ops.add(op)
    return ops.pop() if len(ops) == 1 else None


def racy_user_loops(scop: Scop) -> list[tuple[int, str, str]]:
    """The region's own ``#pragma omp parallel for`` loops that carry a dependence
    (`Scop.user_parallel_loops`), as (the pragma's line, its text, why): two iterations
    touch one element of an array, one writing it, or a scalar is neither private
    (declared in the loop, or written before read in each iteration, and named in a
    private clause) nor a reduction of the pragma's reduction clause (which may reorder
    a floating-point sum). The loop's result then depends on how its threads
    interleave."""
    found = []
    if not scop.user_parallel_loops:
        return found
    accesses = ScopAccesses(scop)
    for user_loop in scop.user_parallel_loops:
        line, text, depth = user_loop.line, user_loop.text, user_loop.depth
        statements = [stmt for stmt in scop.statements if stmt.name in user_loop.statements]
        if not statements:
            continue
        # collapse(k): the k loops from the pragma's share the iterations
        collapsed = re.search(r"\bcollapse\s*\(\s*(\d+)\s*\)", text)
        shared = int(collapsed.group(1)) if collapsed else 1
        domain = outer = member = None
        for stmt in statements:
            dims = stmt.domain.dim(isl.dim_type.set)
            if dims < depth + shared:
                break
            loops = isl.Map.identity(stmt.domain.get_space().map_from_set()).intersect_domain(stmt.domain)
            loops = loops.project_out(isl.dim_type.out, depth + shared, dims - depth - shared) \
                .reset_tuple_id(isl.dim_type.out)
            pieces = (isl.UnionSet.from_set(stmt.domain),
                      isl.UnionMap.from_map(loops.project_out(isl.dim_type.out, depth, shared)),
                      isl.UnionMap.from_map(loops.project_out(isl.dim_type.out, 0, depth)))
            domain, outer, member = pieces if domain is None else \
                (domain.union(pieces[0]), outer.union(pieces[1]), member.union(pieces[2]))
        else:
            why = []
            for name, deps in accesses.memory.items():
                if clause_candidate(scop.arrays[name]):
                    continue
                deps = deps.intersect_domain(domain).intersect_range(domain)
                if not deps.is_empty() and not is_parallel(deps, outer, member):
                    why.append(f"'{scop.arrays[name].c_text}' is written in one iteration and touched in another")
            named = clause_variables(text)
            verdict = classify_scalars(scop, accesses, domain, outer.flat_range_product(member),
                                       reassociate=tuple(named["reduction"]), asked="a reduction clause")
            why += [f"scalar '{name}': {reason}" for name, reason in verdict.blocking.items()]
            # OpenMP shares what the loop does not declare, unless a clause says otherwise
            named = set().union(*named.values())
            why += [f"scalar '{name}' is written in each iteration but shared by the threads (no private "
                    f"clause names it)" for name in verdict.private + verdict.lastprivate
                    if scop.arrays[name].is_scalar and scop.arrays[name].origin != "region"
                    and scop.arrays[name].declared_as not in named and name not in named]
            why += [f"scalar '{name}' is a '{op}' reduction the pragma has no reduction clause for"
                    for name, op in verdict.reductions if name not in named]
            # (C makes private the iterators of the loops the pragma shares, not those of
            # the loops inside them)
            why += [f"the iterator '{name}' of a loop inside is declared outside the parallel loop and shared by "
                    f"the threads (declare it in its loop, 'for (int {name} = ...', or name it in a private clause)"
                    for name in dict.fromkeys(name for level, name in user_loop.undeclared_iterators
                                          if level >= shared)
                    if name not in named]
            if why:
                found.append((line, text, "; ".join(why)))
    return found


def private_clauses_read_after(scop: Scop) -> list[tuple[int, str, str]]:
    """The scalars that a region's own ``omp parallel for`` makes private (``private``,
    ``firstprivate``) and the code after the region may read, as (the pragma's line,
    its text, the name): compiled with OpenMP, the loop leaves such a scalar as it was;
    without, the loop sets it (helper-98 of session 64: 'private(t)' of a global became
    lastprivate, and the output printed the loop's last value where the original, with
    -fopenmp, printed the value from before)."""
    found = []
    for user_loop in scop.user_parallel_loops:
        named = clause_variables(user_loop.text)
        for name in sorted(named.get("private", set()) | named.get("firstprivate", set())):
            # (every variable of that name: the clause may name a block's local)
            if any(scop.arrays[model].is_scalar and used_after_scop(scop, model)
                   for model in scop.variables_named(name)):
                found.append((user_loop.line, user_loop.text, name))
    return found


def clause_variables(pragma: str) -> dict[str, set[str]]:
    """The variables an OpenMP pragma's data-sharing clauses name, by clause
    (``private(t)``, ``firstprivate``, ``lastprivate(conditional: t)``, ``reduction(+:
    s)``, ``linear(k: 2)``; not array sections, ``reduction(+: a[0:n])``)."""
    names: dict[str, set[str]] = {"reduction": set()}
    for kind, inside in re.findall(r"\b(private|firstprivate|lastprivate|reduction|linear)\s*\(([^()]*)\)", pragma):
        inside = inside.rpartition(":")[2] if kind in ("reduction", "lastprivate") else inside.partition(":")[0]
        names.setdefault(kind, set()).update(part.strip() for part in inside.split(",") if part.strip().isidentifier())
    return names
