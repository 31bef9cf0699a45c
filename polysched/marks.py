"""The mark vocabulary of schedule trees: what a mark node *means*, with no backend syntax.

A mark node sits directly above the band whose first member (loop) it applies to.
Its ``isl.Id`` name is the canonical text of one of these values:

    Parallel()                                   "parallel"
    Parallel(private=("t",), reductions=(("+", "s"),))
                                                 "parallel(private=t; reduction=+:s)"
    Parallel(schedule="dynamic")                 "parallel(schedule=dynamic)"
    Parallel(lastprivate=("t",))                 "parallel(lastprivate=t)"
    Simd()                                       "simd"
    Ivdep()                                      "ivdep"
    Unroll(4)                                    "unroll(4)"
    Tensorize("gemm", (("m", 4), ("n", 8)))      "tensorize(gemm; m=4, n=8)"
    Jam()                                        "jam"

``mark.to_id()`` gives the ``isl.Id``; ``parse_mark(id_or_text)`` gives the value back
and raises :class:`MarkError` for anything else. The texts survive isl's printing and
reading of schedule trees (no double quotes). Older spellings are read too:
``"parallel private(t) reduction(+:s)"`` (clauses as the tiling pass wrote them) and
``"unroll 4"``. What a mark becomes in C (OpenMP, GCC pragmas, calls) is emit_c's
business; whether it is true (a ``Parallel`` loop carries no dependence except on its
declared private and reduction scalars) is checked by ``polysched.dependence.check``.
"""
from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Union

import islpy as isl

from polysched.errors import MarkError
from polysched.limits import MAX_JAM

REDUCTION_OPERATORS = ("+", "*", "-", "&", "|", "^", "&&", "||", "max", "min")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class _MarkBase:
    """``to_id()`` / ``from_id(id)`` shared by every mark type."""

    def to_id(self) -> isl.Id:
        return isl.Id(self.text())

    @classmethod
    def from_id(cls, ident: "isl.Id | str"):
        """The mark of ``ident`` (an ``isl.Id`` or its name); :class:`MarkError` if it
        is not a mark of this type."""
        mark = parse_mark(ident)
        if not isinstance(mark, cls):
            raise MarkError(f"mark '{mark.text()}' is not a {cls.__name__} mark")
        return mark

    def __str__(self) -> str:
        return self.text()


SCHEDULE_KINDS = ("static", "dynamic", "guided", "auto")


def _schedule_kind(text) -> str:
    """``"dynamic,4"``: OpenMP's schedule kind, and a positive chunk size after a comma
    (none for ``auto``), in canonical spelling; ``""`` for none given."""
    if text is None:
        return ""
    if not isinstance(text, str):
        raise MarkError(f"schedule: expected a kind such as 'dynamic' or 'dynamic,4', got {text!r}")
    kind, comma, chunk = (part.strip() for part in text.strip().partition(","))
    if not kind and not comma:
        return ""
    if kind not in SCHEDULE_KINDS:
        raise MarkError(f"schedule {text.strip()!r}: the kind is one of {', '.join(SCHEDULE_KINDS)}")
    if not comma:
        return kind
    if kind == "auto" or not chunk.isdigit() or int(chunk) < 1:
        raise MarkError(f"schedule {text.strip()!r}: a chunk size is a positive integer"
                        + (" (and 'auto' takes none)" if kind == "auto" else ""))
    return f"{kind},{int(chunk)}"


def _names(values) -> tuple[str, ...]:
    if isinstance(values, str):
        values = [v for v in re.split(r"[\s,]+", values) if v]
    out = tuple(str(v).strip() for v in (values or ()))
    for name in out:
        if not _NAME.fullmatch(name):
            raise MarkError(f"{name!r} is not a C identifier")
    return out


@dataclass(frozen=True)
class Parallel(_MarkBase):
    """The loop's iterations may run concurrently (threads). ``private``: scalars
    each iteration writes before reading; ``reductions``: ``(operator, scalar)`` pairs
    whose partial results are combined (``(("+", "s"),)``). A mapping
    ``{"s": "+"}`` is accepted for ``reductions``."""

    private: tuple[str, ...] = ()
    reductions: tuple[tuple[str, str], ...] = ()
    # how the iterations go to the threads, as OpenMP's ``schedule`` clause: "" (the
    # runtime's default, static), "static", "dynamic", "guided" or "auto", a chunk
    # size after a comma ("dynamic,4"). What a loop without reductions computes does not
    # depend on it (its iterations are independent); a reduction's partial results do,
    # under anything but a static schedule: the tiling policy asks for one only on loops
    # without reductions
    schedule: str = ""
    # private scalars whose value after the loop is read: each iteration has its own,
    # and the last write's value is kept (OpenMP's ``lastprivate(conditional: t)``)
    lastprivate: tuple[str, ...] = ()

    def __post_init__(self):
        # a name once per clause: OpenMP refuses 'private(t, t)' and 'reduction(+:s, s)'
        object.__setattr__(self, "private", tuple(dict.fromkeys(_names(self.private))))
        object.__setattr__(self, "lastprivate", tuple(dict.fromkeys(_names(self.lastprivate))))
        both = set(self.private) & set(self.lastprivate)
        if both:
            raise MarkError(f"scalar {sorted(both)[0]!r} is both private and lastprivate")
        reductions = self.reductions
        if isinstance(reductions, dict):
            reductions = [(op, name) for name, op in reductions.items()]
        pairs: dict[str, str] = {}
        for pair in reductions or ():
            op, name = pair
            if op not in REDUCTION_OPERATORS:
                raise MarkError(f"unknown reduction operator {op!r} (known: {' '.join(REDUCTION_OPERATORS)})")
            name = _names([name])[0]
            if pairs.setdefault(name, str(op)) != str(op):
                raise MarkError(f"scalar {name!r} is given two reduction operators ({pairs[name]} and {op})")
            if name in self.private or name in self.lastprivate:
                raise MarkError(f"scalar {name!r} is both private and a reduction")
        object.__setattr__(self, "reductions", tuple((op, name) for name, op in pairs.items()))
        object.__setattr__(self, "schedule", _schedule_kind(self.schedule))

    @property
    def scalars(self) -> set[str]:
        """The scalars whose dependences the clauses take care of."""
        return set(self.private) | set(self.lastprivate) | {name for _, name in self.reductions}

    def clauses(self) -> str:
        """``private=t; reduction=+:s``: what the canonical text holds in parentheses."""
        parts = []
        if self.private:
            parts.append("private=" + ",".join(self.private))
        if self.lastprivate:
            parts.append("lastprivate=" + ",".join(self.lastprivate))
        if self.reductions:
            parts.append("reduction=" + ",".join(f"{op}:{name}" for op, name in self.reductions))
        if self.schedule:
            parts.append("schedule=" + self.schedule)
        return "; ".join(parts)

    def text(self) -> str:
        clauses = self.clauses()
        return "parallel" + (f"({clauses})" if clauses else "")


@dataclass(frozen=True)
class Simd(_MarkBase):
    """The loop's iterations may run in SIMD lanes (no dependence carried)."""

    def text(self) -> str:
        return "simd"


@dataclass(frozen=True)
class Ivdep(_MarkBase):
    """Like :class:`Simd`, for compilers' ``ivdep``: no loop-carried dependence."""

    def text(self) -> str:
        return "ivdep"


@dataclass(frozen=True)
class Unroll(_MarkBase):
    """Ask the C compiler to unroll the loop ``factor`` times (order unchanged)."""

    factor: int

    def __post_init__(self):
        # an int, not '4' or True; at most MAX_JAM copies (gcc refuses 'unroll N' for
        # N >= 65535, and --unroll has the same bound)
        try:
            factor = operator.index(self.factor)
        except TypeError:
            factor = None
        if factor is None or isinstance(self.factor, bool):
            raise MarkError(f"unroll factor must be an integer, got {self.factor!r}")
        if not 1 <= factor <= MAX_JAM:
            raise MarkError(f"unroll factor must be between 1 and {MAX_JAM}, got {factor}")
        object.__setattr__(self, "factor", factor)

    def text(self) -> str:
        return f"unroll({self.factor})"


@dataclass(frozen=True)
class Tensorize(_MarkBase):
    """Replace the loop nest below by the intrinsic ``name``; ``params`` are
    ``(key, value)`` pairs (a mapping is accepted)."""

    name: str
    params: tuple[tuple[str, object], ...] = ()

    def __post_init__(self):
        _names([self.name])
        params = self.params
        if isinstance(params, dict):
            params = list(params.items())
        object.__setattr__(self, "params", tuple((str(k), v) for k, v in (params or ())))

    def text(self) -> str:
        inner = self.name
        if self.params:
            inner += "; " + ", ".join(f"{k}={v}" for k, v in self.params)
        return f"tensorize({inner})"


@dataclass(frozen=True)
class Jam(_MarkBase):
    """The loops below hold unroll-and-jammed copies of statements (written by
    ``unroll_and_jam``, right below the strip-mined loop): the C printer may keep array
    elements that an innermost loop below reuses in local scalars across that loop
    (scalar replacement), where it proves that legal. No claim about dependences."""

    def text(self) -> str:
        return "jam"


Mark = Union[Parallel, Simd, Ivdep, Unroll, Tensorize, Jam]
LOOP_CLAIMS = (Parallel, Simd, Ivdep)      # claim: the loop carries no dependence
MARK_TYPES = (Parallel, Simd, Ivdep, Unroll, Tensorize, Jam)


def to_id(mark: Mark) -> isl.Id:
    """The ``isl.Id`` of a mark node for ``mark``."""
    return isl.Id(mark.text())


def _value(text: str):
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        return text


_LEGACY_CLAUSE = re.compile(r"(private|reduction)\s*\(\s*(?:([^:()]+?)\s*:)?\s*([^()]*?)\s*\)")


def _parse_parallel(rest: str, text: str) -> Parallel:
    rest = rest.strip()
    if not rest:
        return Parallel()
    private: list[str] = []
    lastprivate: list[str] = []
    reductions: list[tuple[str, str]] = []
    schedule = ""
    if rest.startswith("(") and rest.endswith(")"):          # parallel(private=a,b; reduction=+:s)
        for part in rest[1:-1].split(";"):
            if not part.strip():
                continue
            key, _, values = part.partition("=")
            key = key.strip()
            if key == "private":
                if not _names(values):        # (helper-54: read as a plain 'parallel')
                    raise MarkError(f"mark '{text}': private= names no variable")
                private += _names(values)
            elif key == "lastprivate":
                if not _names(values):
                    raise MarkError(f"mark '{text}': lastprivate= names no variable")
                lastprivate += _names(values)
            elif key in ("reduction", "reductions"):
                op = ""
                for item in values.split(","):
                    # "+:s,c" as OpenMP's reduction(+:s, c): a name alone takes the operator before it
                    given, _, name = item.strip().rpartition(":")
                    op = given.strip() or op
                    if not op:
                        raise MarkError(f"mark '{text}': a reduction is written operator:name "
                                        f"(reduction=+:s,+:c or reduction=+:s,c), got {item.strip()!r}")
                    reductions.append((op, name.strip()))
            elif key == "schedule":
                schedule = values
            else:
                raise MarkError(f"mark '{text}': unknown parallel clause {key!r}")
        return Parallel(tuple(private), tuple(reductions), schedule, tuple(lastprivate))
    # the tiling pass's older spelling: "parallel private(t, u) reduction(+:s, r)"
    consumed = _LEGACY_CLAUSE.sub("", rest).strip()
    if consumed:
        raise MarkError(f"mark '{text}': cannot read {consumed!r}")
    for kind, op, names in _LEGACY_CLAUSE.findall(rest):
        if kind == "private":
            private += _names(names)
        else:
            reductions += [(op.strip(), name) for name in _names(names)]
    return Parallel(tuple(private), tuple(reductions))


def parse_mark(name: isl.Id | str) -> Mark:
    """The typed value of a mark node's id (or its name); :class:`MarkError` if the
    name is not in the vocabulary."""
    text = name.get_name() if isinstance(name, isl.Id) else str(name)
    text = text.strip()
    word = re.match(r"[A-Za-z_]*", text).group(0)
    rest = text[len(word):]
    if word == "parallel":
        return _parse_parallel(rest, text)
    if word in ("simd", "ivdep") and not rest.strip():
        return Simd() if word == "simd" else Ivdep()
    if word == "jam" and not rest.strip():
        return Jam()
    if word == "unroll":
        match = re.fullmatch(r"\s*\(\s*([-+]?\d+)\s*\)\s*|\s+([-+]?\d+)\s*", rest)   # -3: out of range
        if match:
            return Unroll(int(match.group(1) or match.group(2)))
        raise MarkError(f"mark '{text}': unroll needs a factor, as in 'unroll(4)'")
    if word == "tensorize":
        match = re.fullmatch(r"\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:;(.*))?\)\s*|:([A-Za-z_][A-Za-z0-9_]*)", rest)
        if match:
            if match.group(3):
                return Tensorize(match.group(3))
            params = []
            for item in (match.group(2) or "").split(","):
                if item.strip():
                    key, _, value = item.partition("=")
                    params.append((key.strip(), _value(value)))
            return Tensorize(match.group(1), tuple(params))
        raise MarkError(f"mark '{text}': expected 'tensorize(name; key=value, ...)'")
    raise MarkError(f"unknown mark '{text}' (known: parallel, simd, ivdep, unroll(N), tensorize(name), jam)")


def try_parse_mark(name: isl.Id | str) -> Mark | None:
    """:func:`parse_mark`, or None for a name outside the vocabulary."""
    try:
        return parse_mark(name)
    except MarkError:
        return None


def parallel_marks(schedule: isl.Schedule) -> list[tuple[str, list[str]]]:
    """``[(mark, statements)]``: the `Parallel` marks of ``schedule``, outermost first,
    each with the names of the statements under it (where a tensorized region's
    blocks run in parallel; tiled regions say it in their tiling report)."""
    found: list[tuple[str, list[str]]] = []

    def visit(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.mark:
            name = node.mark_get_id().get_name()
            if isinstance(try_parse_mark(name), Parallel):
                statements: list[str] = []
                node.get_domain().foreach_set(lambda s: statements.append(s.get_tuple_name()))
                found.append((name, sorted(statements)))
        return True
    schedule.get_root().foreach_descendant_top_down(visit)
    return found


__all__ = ["Ivdep", "Jam", "LOOP_CLAIMS", "MARK_TYPES", "Mark", "MarkError", "Parallel", "SCHEDULE_KINDS", "Simd",
           "Tensorize", "Unroll", "parallel_marks", "parse_mark", "to_id", "try_parse_mark"]
