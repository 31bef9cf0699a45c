"""The polyhedral model of one SCoP: arrays, statements, and the original schedule.

Everything polyhedral is an isl object; Python containers only hold them.

Notation used in the docstrings below (isl syntax):

    domain   [N, M] -> { S0[i, j] : 0 <= i < N and 0 <= j < M }
    read     [N, M] -> { S0[i, j] -> A[i, j + 1] }      (domain intersected)
    write    [N, M] -> { S0[i, j] -> B[i, j] }
    schedule an isl schedule tree whose bands follow the C loops
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import islpy as isl

from polysched.islutil import val
from polysched.errors import PolyschedError


class ScopError(PolyschedError):
    """A construct the polyhedral model cannot represent, or malformed input.

    ``str(err)`` is ``file:line:col: error: one sentence``, which the CLI prints
    before exiting with status 2.
    """

    def __init__(self, filename: str, line: int, col: int, message: str):
        super().__init__(message)
        self.filename = filename
        self.line = line
        self.col = col
        self.message = message

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.col}: error: {self.message}"


@dataclass
class Array:
    """An array (or a scalar, as a 0-d array) accessed inside the SCoP.

    ``dims`` are the declared extents as C text (``["N", "M + 1"]``), empty for a
    scalar; ``element_type`` is the C element type (``"double"``, ``"int32_t"``).
    """

    name: str
    element_type: str
    dims: list[str] = field(default_factory=list)
    # how the name is declared: "global", "param", "local" ("" when undeclared);
    # through_pointer: reached through a pointer (so another name may alias it);
    # restrict: its outermost pointer level is restrict-qualified
    origin: str = ""
    through_pointer: bool = False
    restrict: bool = False
    # one dimension in C, subscripted A[i * n + j] and modelled as A[i, j]: ``dims``
    # are "" (the number of rows is not declared) and the row sizes (["", "n"])
    linearized: bool = False
    # its C text, when the name is the model's own (a struct member: "img->data"; the
    # array of structs "p" for p[i].x, whose member ".x" follows the first
    # ``member_after`` subscripts)
    text: str = ""
    member: str = ""
    member_after: int = 0
    # the C text of the initialiser of a constant table the region declares
    # (origin "region": ``{0, 1, 0, -1}``)
    initializer: str = ""
    # the name the source declares it by, when the model renamed it (a variable of a
    # block of the region, ``double tmp[4];`` as ``tmp_1``, its name taken elsewhere)
    declared_as: str = ""

    @property
    def c_text(self) -> str:
        return self.text or self.name

    @property
    def is_scalar(self) -> bool:
        return not self.dims

    def element(self, subscripts: list[str]) -> str:
        """The C text of the element at ``subscripts`` of the model (``A[i][j]``; for a
        linearised array ``A[(i) * (n) + (j)]``)."""
        if self.linearized:
            index = subscripts[0]
            for size, s in zip(self.dims[1:], subscripts[1:]):
                index = f"({index}) * ({size}) + ({s})"
            subscripts = [index]
        text = "".join(f"[{s}]" for s in subscripts[:self.member_after]) + self.member \
            + "".join(f"[{s}]" for s in subscripts[self.member_after:])
        return self.c_text + text


@dataclass
class Access:
    """One array reference in a statement body.

    ``relation``: ``[params] -> { S0[i, j] -> A[i, j + 1] }``, intersected with the
    statement domain. ``kind`` is ``"read"``, ``"write"`` or ``"may_write"``. A compound
    assignment ``A[i] += x`` yields a read and a write of ``A[i]``.
    """

    array: str
    kind: str
    relation: isl.Map
    line: int = 0
    col: int = 0
    # a read C may not evaluate: in an arm of '?:', right of '&&'/'||', or in a branch
    # of a conditional statement
    conditional: bool = False


# C's floating types, narrowest first
FLOAT_TYPES = ("_Float16", "__bf16", "float", "double", "long double")


@dataclass
class Statement:
    """One C statement (an assignment) executed for every point of ``domain``.

    ``body`` is the statement's C text, verbatim from the source (macros and math calls
    kept), written in terms of ``iterators``: ``"C[i][j] += alpha * A[i][k] * B[k][j];"``.
    """

    name: str
    iterators: list[str]
    domain: isl.Set
    accesses: list[Access]
    body: str
    line: int = 0
    col: int = 0
    # offset in the source just past the statement, when it is not its first ';' at
    # depth 0 (an 'if' statement); 0 otherwise
    source_end: int = 0
    # it reads a floating constant, casts to a type that may not be an integer, or calls
    # a math function (macros expanded): an integer it updates is converted back
    floating: bool = False
    # the widest floating type (FLOAT_TYPES) of the values its right-hand side reads:
    # arrays, scalars, constants ('0.5' is a double), casts and math calls; "" for none,
    # None when not known (a statement not read from C)
    float_type_read: str | None = None
    # the declared types of its iterators whose name loops of the region declare with
    # different types (for (int i ...) here, for (size_t i ...) elsewhere); the
    # others' types are the region's (``Scop.variable_types``)
    iterator_types: dict[str, str] = field(default_factory=dict)

    def _union(self, *kinds: str) -> isl.UnionMap:
        result = isl.UnionMap.empty(self.domain.get_space().params())
        for access in self.accesses:
            if access.kind in kinds:
                result = result.union(isl.UnionMap.from_map(access.relation))
        return result

    @property
    def reads(self) -> isl.UnionMap:
        """``{ S[i] -> A[f(i)] }`` for every read reference."""
        return self._union("read")

    @property
    def writes(self) -> isl.UnionMap:
        """``{ S[i] -> A[f(i)] }`` for every definite (must) write."""
        return self._union("write")

    @property
    def may_writes(self) -> isl.UnionMap:
        """``{ S[i] -> A[f(i)] }`` for writes that may not happen (superset semantics)."""
        return self._union("may_write")


def statements_domain(statements: list[Statement], space: isl.Space) -> isl.UnionSet:
    """``{ S0[i, j]; S1[i] }``: the instances of ``statements`` (parameters of ``space``)."""
    result = isl.UnionSet.empty(space)
    for stmt in statements:
        result = result.union(isl.UnionSet.from_set(stmt.domain))
    return result


def fix_parameters(context: isl.Set, values: dict[str, int]) -> isl.Set:
    """``context`` with each parameter named in ``values`` fixed to its value (names it
    does not have are ignored)."""
    for name, value in values.items():
        pos = context.find_dim_by_name(isl.dim_type.param, name)
        if pos >= 0:
            context = context.fix_val(isl.dim_type.param, pos, val(int(value)))
    return context


def is_parallel_for_pragma(text: str) -> bool:
    """Whether pragma ``text`` (``#pragma omp parallel for private(t)``) shares the
    loop after it among threads."""
    return re.match(r"#\s*pragma\s+omp\s+parallel\s+for\b", text) is not None


@dataclass(frozen=True)
class UserParallelLoop:
    """A loop of the region that its own ``#pragma omp parallel for`` names
    (`is_parallel_for_pragma`)."""
    line: int                  # the pragma's line
    text: str                  # the pragma, as written
    depth: int                 # how many loops enclose the loop inside the region
    statements: tuple[str, ...]    # the statements inside it
    # the iterators of the loops inside it that those loops do not declare (shared by
    # the threads unless a clause says otherwise), each with how deep it is nested
    # below the loop (1 for a loop in its body)
    undeclared_iterators: tuple[tuple[int, str], ...]


@dataclass
class Scop:
    """A static control part: one ``#pragma scop`` ... ``#pragma endscop`` region.

    ``source[region_start:region_end]`` is the text that emission replaces: the lines
    strictly between the two pragmas. ``parameters`` are the symbolic sizes (macros or
    ``int`` function parameters) in isl order; ``parameter_values`` holds the values
    known for this preprocessing (``-D`` and ``#define`` defaults), which are *not* part
    of ``context``, so that generated code stays correct for every dataset preset.
    ``context``: ``[N, M] -> { : N >= 1 and M >= 1 }``.
    ``identifiers``: every identifier in the file, so emitted names never clash.
    ``variable_types``: the declared C type of each parameter that is a variable and
    of each loop iterator (``{"n": "unsigned", "i": "long"}``); macros are absent.
    ``loop_scoped``: iterators declared in their ``for`` (dead after the region).
    ``live_iterators``: iterators that the code around the region may read (see
    emit_c/versioning.py), filled by the front end.
    """

    filename: str
    source: str
    region_start: int
    region_end: int
    start_line: int
    end_line: int
    function: str
    parameters: list[str]
    parameter_values: dict[str, int]
    context: isl.Set
    arrays: dict[str, Array]
    statements: list[Statement]
    schedule: isl.Schedule
    identifiers: frozenset[str] = frozenset()
    variable_types: dict[str, str] = field(default_factory=dict)
    loop_scoped: frozenset[str] = frozenset()
    live_iterators: tuple[str, ...] = ()
    # scalars whose value the code around the region may read (None: not known, all)
    live_scalars: tuple[str, ...] | None = None
    # iterators, sizes and scalars whose address the program takes where a pointer may
    # reach them in the region (scop/liveness.py: address_taken): checked at run time
    address_taken: tuple[str, ...] = ()
    # parameters that are products of sizes (w__x__h, c_texts '(w * h)'): values, which
    # no pointer reaches (their factors are checked instead)
    products: tuple[str, ...] = ()
    # (start, end) of the text an output replaces, when it is more than the region:
    # a region of polysched's own output, whose original code the region is
    replaced: tuple[int, int] | None = None
    # the C text of the model's names that are not C names: struct members read as
    # variables ({"img__w": "img->w"}; see extract.py: members_as_variables)
    c_texts: dict[str, str] = field(default_factory=dict)
    # the preprocessor condition under which the region's own '#if' branches are the
    # ones the model read (None: it has none); the optimized code is emitted under it
    preprocessor_guard: str | None = None
    # the region's own loop pragmas, which its model leaves out ((line, text):
    # '#pragma omp parallel for', 'omp simd', 'GCC ivdep', ...): the pipeline places
    # parallel and vector loops of its own where they asked for some
    user_loop_pragmas: tuple[tuple[int, str], ...] = ()
    # the loops its '#pragma omp parallel for's name, for the check that they carry
    # nothing
    user_parallel_loops: tuple[UserParallelLoop, ...] = ()
    # linearised subscripts that C computes in 32-bit unsigned arithmetic (out[y * w +
    # x] with unsigned y, w, x), each as ([params] -> { [highest row] }, the row sizes
    # ([params] -> { [w] },)): exact only while (highest row + 1) * sizes <= 2**32, which
    # is not affine; the emitted code checks it at run time (emit_c/versioning.py)
    address_bounds: tuple[tuple[isl.PwAff, tuple[isl.PwAff, ...]], ...] = ()
    # the file includes headers of its own, whose '#if's may choose other types under
    # other -D: the optimized code runs only where the types are the ones read
    # (emit_c/versioning.py: type_checks)
    types_from_headers: bool = False
    # the enumeration constants the model read as their values ({"NX": 40}): an enum
    # under an '#if' takes another value under another -D, so the optimized code runs
    # only where they have these (emit_c/versioning.py: definition_checks)
    enumerators: dict[str, int] = field(default_factory=dict)
    # the typedef names its variables and arrays are declared with, and the basic types
    # they stood for ({"idx": "int"}), checked like the enumerators
    typedefs: dict[str, str] = field(default_factory=dict)
    # the macros of the program's headers (or -D) the region uses, each use with the
    # expansion the model read, stringified ({"IDX(polysched_a0)": '"(2*(polysched_a0))"'}):
    # compared at compile time in the emitted check (MacroTable.expansions_to_check)
    macro_expansions: dict[str, str] = field(default_factory=dict)
    # the region's identifiers that were no macros when it was read (arrays, variables,
    # functions; C's words left out): with headers of the program's own, the optimized
    # code is compiled only where none is a macro (emit_c: _under_preprocessor_guard)
    plain_names: tuple[str, ...] = ()
    # statements of the source that a transformation removed from the model (scalar
    # expansion's copy into the destination): their text is still in the region
    removed: tuple[Statement, ...] = ()
    # lines the front end inserted into ``source`` (declarations moved before the
    # region, scop/hoist.py): statement lines count them, the file as written does not
    inserted_lines: tuple[int, ...] = ()

    def line_as_written(self, line: int) -> int:
        """Line ``line`` of ``source`` in the file as written (`inserted_lines`)."""
        return line - sum(k < line for k in self.inserted_lines)

    @property
    def replaced_span(self) -> tuple[int, int]:
        """``source[start:end]``, the text an output puts its region in place of."""
        return self.replaced or (self.region_start, self.region_end)

    def variables_named(self, name: str) -> list[str]:
        """The model's names of the variables the C code calls ``name``: the name itself,
        or those of the region's blocks declared as ``name`` (renamed, as ``tmp_1``)."""
        if name in self.arrays:
            return [name]
        return [a.name for a in self.arrays.values() if a.declared_as == name]

    def statement(self, name: str) -> Statement:
        for stmt in self.statements:
            if stmt.name == name:
                return stmt
        raise KeyError(name)

    def _union(self, get) -> isl.UnionMap:
        result = isl.UnionMap.empty(self.context.get_space())
        for stmt in self.statements:
            result = result.union(get(stmt))
        return result

    @property
    def domain(self) -> isl.UnionSet:
        """``[params] -> { S0[i, j] : ...; S1[i] : ... }``."""
        return statements_domain(self.statements, self.context.get_space())

    @property
    def reads(self) -> isl.UnionMap:
        return self._union(lambda s: s.reads)

    @property
    def writes(self) -> isl.UnionMap:
        return self._union(lambda s: s.writes)

    @property
    def may_writes(self) -> isl.UnionMap:
        return self._union(lambda s: s.may_writes)

    @property
    def schedule_map(self) -> isl.UnionMap:
        """The original schedule as a flat map ``{ S0[i, j] -> [t0, t1, ...] }``."""
        return self.schedule.get_map()

    def with_values(self, values: dict[str, int] | None = None) -> isl.Set:
        """The context with parameters fixed to ``values`` (default: the known ones)."""
        return fix_parameters(self.context, self.parameter_values if values is None else values)

    def __repr__(self) -> str:
        from polysched.display import scop_summary
        return scop_summary(self)

    def _repr_html_(self) -> str:
        from polysched.display import scop_html
        return scop_html(self)

    def __str__(self) -> str:
        lines = [
            f"scop {self.filename}:{self.start_line}-{self.end_line} in {self.function}()",
            f"  parameters: {', '.join(self.parameters) or '(none)'}"
            + (f"  known: {self.parameter_values}" if self.parameter_values else ""),
            f"  context: {self.context}",
            "  arrays:",
        ]
        for arr in self.arrays.values():
            dims = "".join(f"[{d}]" for d in arr.dims)
            lines.append(f"    {arr.element_type} {arr.name}{dims}")
        lines.append("  statements:")
        for stmt in self.statements:
            body = stmt.body.replace("\n", "\n" + " " * 8)   # continuation lines stay indented
            lines.append(f"    {stmt.name} (line {self.line_as_written(stmt.line)}): {body}")
            lines.append(f"      domain: {stmt.domain}")
            for acc in stmt.accesses:
                lines.append(f"      {acc.kind}: {acc.relation}")
        lines.append(f"  schedule: {self.schedule}")
        return "\n".join(lines)


def scop_to_dict(scop: Scop) -> dict:
    """A JSON-ready description of ``scop``; every polyhedral object in isl notation."""
    return {
        "filename": scop.filename,
        "function": scop.function,
        "start_line": scop.start_line,
        "end_line": scop.end_line,
        "region_start": scop.region_start,
        "region_end": scop.region_end,
        "parameters": list(scop.parameters),
        "parameter_values": dict(scop.parameter_values),
        "context": str(scop.context),
        "arrays": [{"name": a.name, "element_type": a.element_type, "dims": list(a.dims)}
                   for a in scop.arrays.values()],
        "statements": [{
            "name": s.name,
            "line": scop.line_as_written(s.line),
            "col": s.col,
            "iterators": list(s.iterators),
            "body": s.body,
            "domain": str(s.domain),
            "reads": [str(a.relation) for a in s.accesses if a.kind == "read"],
            "writes": [str(a.relation) for a in s.accesses if a.kind == "write"],
            "may_writes": [str(a.relation) for a in s.accesses if a.kind == "may_write"],
        } for s in scop.statements],
        "schedule": str(scop.schedule),
        "schedule_map": str(scop.schedule_map.intersect_domain(scop.domain)),
    }
