"""The C front end: ``#pragma scop`` regions -> :class:`~polysched.scop.model.Scop`.

Pipeline per file:
1. ``gcc -E -dD`` with the user's ``-D``/``-I`` gives the final macro table and the
   typedef names (:mod:`.macros`); pycparser only ever sees the region and small
   declaration chunks, so system headers with GNU extensions never reach it.
2. Each region's raw text (comments blanked, backslash-newlines resolved, offsets
   kept) is wrapped in a dummy function and parsed with pycparser; coordinates map
   back to the original file. Its own ``#define``s apply inside it (polysched's helper
   macros in its own output); ``#undef``, ``#line`` and loop pragmas are skipped.
3. Declarations of the enclosing function and the file give element types and
   extents (:mod:`.declarations`).
4. The AST is walked in textual order: loops and ``if``s build iteration domains,
   assignments become statements ``S0, S1, ...`` with access relations (a chained
   ``a = b = e;`` is ``b = e;`` then ``a = b;``; a block-scope ``double t = e;`` is
   ``t = e;``), and the loop structure becomes an isl schedule tree (bands per loop,
   sequences per block).
"""
from __future__ import annotations

import dataclasses

import copy
import itertools
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

import islpy as isl
from pycparser import c_ast, c_generator, c_parser
try:
    from pycparser.c_parser import Coord
except ImportError:  # pycparser 2.x
    from pycparser.plyparser import Coord

from polysched.islutil import isl_operation_cap, maps_of
from polysched.textio import DIRECTIVE_START, line_ending, pasted_header_spans, read_source

from .affine import (AffineConverter, NotAffine, array_root, assignment_target, basic_type_size, parameter_names,
                     parameters_at_least, positive_parameters, pw_aff_c_text, type_size, val)
from .declarations import (_BASIC_WORDS, Declaration, Visible, blank_attributes, declaration_of,
                           header_declaration, header_typedef, integer_literals, literals_refusal,
                           table_shape_refusal, type_text, visible_declarations)
from . import hoist
from .hoist import HoistDeclarations
from .delinearize import chain_of, dimension_sizes, expand, grouped, iterator_monomials, literal_row
from .liveness import address_taken, live_after, restrict_escapes
from .unsigned import (INTEGER_CONSTANT_TYPES, SIZE_OPERATORS, in_range, integer_kind, integer_range, no_wrap,
                       unsigned_comparisons, modular_kind, unsigned_width_of, wraps_at_32_bits)
from .macros import (Macro, MacroTable, conditional_lines, expand_statement_macros, int_literal_value, macro_table,
                     unparenthesised_macro)
from .model import FLOAT_TYPES, Access, Array, Scop, ScopError, Statement, UserParallelLoop, is_parallel_for_pragma
from .pure import PurityChecker
from .source import (IDENT_RE, LineMap, Region, UnbalancedConditional, blank_directives, blank_lines, blank_strings,
                     conditional_groups, continuations_in_place, enclosing_function, find_regions, identifiers,
                     join_continuations, line_col, line_starts, offset_of, original_of_output, strip_comments,
                     top_level_text, untaken_lines)

# Pure functions of <math.h> (and <stdlib.h>'s abs family, and <complex.h>'s parts,
# conjugates, roots, exponentials and logarithms) allowed in statement bodies.
MATH_FUNCTIONS = frozenset("""
    sqrt sqrtf sqrtl cbrt cbrtf exp expf expl exp2 exp2f expm1 log logf logl log2 log2f log10 log10f
    log1p pow powf powl fabs fabsf fabsl abs labs llabs floor floorf floorl ceil ceilf ceill round
    roundf lround trunc truncf fmod fmodf fmin fminf fmax fmaxf fma fmaf sin sinf cos cosf tan tanf
    asin asinf acos acosf atan atanf atan2 atan2f sinh sinhf cosh coshf tanh tanhf hypot hypotf
    erf erff erfc erfcf copysign copysignf rint rintf nearbyint ldexp
    creal crealf creall cimag cimagf cimagl cabs cabsf cabsl carg cargf cargl
    conj conjf conjl cproj cprojf cprojl csqrt csqrtf cexp cexpf clog clogf cpow cpowf
    nearbyintf nearbyintl
""".split())

# Pure functions that give an integer (an integer reduction may sum them): <math.h>'s
# rounding to a long, <stdlib.h>/<inttypes.h>'s absolute values, and gcc's bit builtins
INTEGER_FUNCTIONS = frozenset("""
    abs labs llabs imaxabs lrint lrintf lrintl llrint llrintf llrintl lround lroundf lroundl
    llround llroundf llroundl
    __builtin_popcount __builtin_popcountl __builtin_popcountll __builtin_parity __builtin_parityl
    __builtin_parityll __builtin_clz __builtin_clzl __builtin_clzll __builtin_ctz __builtin_ctzl
    __builtin_ctzll __builtin_clrsb __builtin_clrsbl __builtin_clrsbll __builtin_ffs __builtin_ffsl
    __builtin_ffsll __builtin_bswap16 __builtin_bswap32 __builtin_bswap64
""".split())

# Those that never set errno (C11 7.12.1: the others may, under gcc's default
# -fmath-errno); a file that reads errno sees which call failed last, in which order.
ERRNO_FREE_FUNCTIONS = frozenset("""
    fabs fabsf fabsl abs labs llabs floor floorf floorl ceil ceilf ceill round roundf trunc truncf
    fmin fminf fmax fmaxf copysign copysignf rint rintf nearbyint creal crealf creall cimag cimagf cimagl
    conj conjf conjl cproj cprojf cprojl
    nearbyintf nearbyintl imaxabs
""".split()) | frozenset(name.removeprefix("__builtin_") for name in INTEGER_FUNCTIONS if name.startswith("__builtin_"))
_ERRNO_READ = re.compile(r"\b(?:errno|__errno_location|perror|strerror(?:_r)?|math_errhandling)\b")

_GEN = c_generator.CGenerator()
_WRAPPER = "void __polysched_scop(void) {\n"

# isl operations the sign of one subscript may take (`Extractor.assume_in_bounds`)
BOUNDS_OPERATIONS = 2_000_000


# the identifiers the C compiler's preprocessor defines by itself (C17 6.10.8, and gcc's
# __COUNTER__): polysched's own macro expansion knows none of them
_PREDEFINED_MACROS = frozenset({"__LINE__", "__FILE__", "__DATE__", "__TIME__", "__COUNTER__",
                                "__STDC__", "__STDC_VERSION__", "__STDC_HOSTED__", "__BASE_FILE__",
                                "__TIMESTAMP__", "__INCLUDE_LEVEL__"})


class _ParseFailure(Exception):
    def __init__(self, message: str, line: int, col: int):
        super().__init__(message)
        self.message, self.line, self.col = message, line, col


class _Parser(c_parser.CParser):
    """pycparser with every syntax error carrying a line and column."""

    def _parse_error(self, msg, coord):
        if not isinstance(coord, Coord):
            tok = None
            try:
                tok = self._tokens.peek(1)
            except Exception:
                pass
            if tok is not None:
                coord = Coord(file=tok.filename, line=tok.lineno, column=tok.column)
        if isinstance(coord, Coord):
            raise _ParseFailure(msg, coord.line, coord.column or 1)
        raise _ParseFailure(msg, -1, 1)


def _normalise_defines(defines) -> dict[str, str]:
    if defines is None:
        return {}
    if isinstance(defines, dict):
        return {str(k): ("" if v is None else str(v)) for k, v in defines.items()}
    result = {}
    for item in defines:
        name, _, value = str(item).partition("=")
        result[name.strip()] = value
    return result


def extract(path_or_text, defines=None, include_dirs=None, filename: str | None = None, *,
            _inserted: tuple[int, ...] = (), _columns: dict | None = None) -> list[Scop]:
    """Every ``#pragma scop`` region of a C file as a :class:`Scop`, in file order.

    ``path_or_text``: a path (``Path``, or a ``str`` without newline) or C source
    text (a ``str`` containing a newline). ``defines``: ``{"N": "100"}`` or ``["N=100"]``
    (like ``-D``); ``include_dirs`` like ``-I``. ``filename`` names the source in errors.
    Raises :class:`ScopError` (``file:line:col``) for anything outside the model.

    Conventions: ``start_line``/``end_line`` are the lines of the two pragmas;
    ``parameters`` are in order of first use; the context says every size (a parameter
    bounding a loop from above) is >= 1 and every other parameter >= 0 (known values are
    in ``parameter_values``), and fixes the size macros whose value
    had to be used as a constant (``i * M``, ``i % M``: ``M = 1000`` in the context, which
    the emitted code checks at run time); ``i != e`` loops stepping by 1 are ``i < e``
    (``i > e``) under the assumption that they start on the right side of ``e``; a
    region without statements is left out, with a notice on stderr (an error when no
    region has statements); names declared nowhere are errors, arrays whose declaration is not
    understood get ``element_type == ""``. Scalars declared in blocks inside the region
    (``double t = e;`` in a loop body) are arrays with ``origin == "region"``, which the
    emitted region declares; never-assigned integers with an affine initialiser
    (``int ii = i + 1;``) are replaced by that expression. Variables the region declares
    at its top level are read as declared just before ``#pragma scop`` (hoist.py): the
    scops' ``source`` is the file with them moved there. Errors are located through
    ``#line`` directives (and in the file as written).
    """
    if isinstance(path_or_text, Path) or "\n" not in str(path_or_text):
        path = str(path_or_text)
        text = read_source(path)
        filename = filename or path
    else:
        text = str(path_or_text)
        filename = filename or "<input>"
    defines = _normalise_defines(defines)
    byte_order_mark = text.startswith("\ufeff")
    if byte_order_mark:
        # a UTF-8 byte order mark: whitespace to the compiler (the first line's '#define'
        # was no directive here: every file-scope declaration was lost); one column
        # wide, it is read as a space and written back (every offset stays)
        text = " " + text[1:]
    lone_cr = re.search(r"\r(?!\n)", text)
    if lone_cr:
        # the compiler ends a line there (classic Mac OS files, a stray CR after a '//'
        # comment), the front end does not: a statement after it was read as comment
        line = text.count("\n", 0, lone_cr.start()) + 1
        raise ScopError(filename, line, lone_cr.start() - text.rfind("\n", 0, lone_cr.start()),
                        "a carriage return not followed by a line feed, which C compilers read as "
                        "the end of a line and polysched does not: convert the line ends to LF or CRLF")
    stripped = strip_comments(text)
    line_map = LineMap.of(stripped, _inserted)
    line_map.expansions = dict(_columns or {})
    try:
        found = find_regions(filename, stripped, text)
    except ScopError as err:
        raise line_map.relocate(err) from None
    if not found:
        return []
    table = macro_table(filename, text, defines, include_dirs, region_lines=tuple(r.scop_line for r in found))
    # each region is read with the macros in force where it is; one inside '#if 0' is
    # not read at all (the compiler never sees it)
    tables = {k: region_table for k in range(len(found)) if (region_table := table.at_region(k)) is not None}
    regions = {k: _original_code(text, found[k], filename, line_map) for k in tables}
    no_strings = blank_strings(stripped)
    plain = blank_directives(no_strings)
    moved = {}
    for k in reversed(tables):     # the last first: the earlier regions' offsets stay
        text, moved_here = expand_statement_macros(text, plain, [(regions[k].start, regions[k].end)], tables[k])
        moved.update(moved_here)
    if moved:      # a region uses FOR(i, n)-like macros: read it as the compiler does
        stripped = strip_comments(text)
        line_map = LineMap.of(stripped, _inserted)
        line_map.expansions = {**(_columns or {}), **moved}
        found = find_regions(filename, stripped, text)
        regions = {k: _original_code(text, found[k], filename, line_map) for k in tables}
        no_strings = blank_strings(stripped)
        plain = blank_directives(no_strings)
    without_generated = _without_generated_code(no_strings, list(regions.values()), pasted_header_spans(text))
    directives_blanked = blank_directives(stripped)
    if not moved and table.kept_lines is not None:
        # declarations in '#if' branches not taken are not the file's (a typedef's
        # '#else' after its '#ifndef'); the regions read their own branches
        inside = {n for r in found for n in range(r.scop_line, r.endscop_line + 1)}
        untaken = untaken_lines(stripped, table.kept_lines) - inside
        if untaken:
            plain, directives_blanked = blank_lines(plain, untaken), blank_lines(directives_blanked, untaken)
    top = top_level_text(plain)
    conditional = conditional_lines(stripped)
    starts = line_starts(text)
    scops, empty, unreadable = [], [], []
    for k, region in regions.items():
        macros = tables[k]
        regrouping = unparenthesised_macro(macros, plain[region.start:region.end])
        if regrouping is not None:
            regrouped, at = regrouping
            offset = region.start + at
            user = re.match(r"\w+", plain[offset:]).group(0)
            through = f" (here in '{user}', defined as '{macros.get(user).body.strip()}')" if user != regrouped else ""
            line = plain.count("\n", 0, offset) + 1
            body = macros.get(regrouped).body.strip()
            raise line_map.relocate(ScopError(
                filename, line, offset - plain.rfind("\n", 0, offset),
                f"macro '{regrouped}' (defined as '{body}') groups with the code around it once expanded"
                f"{through} (C does not read it as one parenthesised value); put its body and parameters in "
                f"parentheses"))
        function = enclosing_function(plain, region.scop_offset)
        if function is None:
            # (at file scope C has declarations only; between a function's header and
            # its body, the body's first brace: helper-99's was read as an untyped 'n')
            line = plain.count("\n", 0, region.scop_offset) + 1
            raise line_map.relocate(ScopError(
                filename, line, 1, "'#pragma scop' outside every function body: put the region inside the "
                "braces of the function whose statements it holds"))
        visible = visible_declarations(macros, plain, top, function, directives_blanked, conditional)
        try:
            built = _build_region(line_map, filename, text, stripped, plain, starts, region, macros, visible)
        except HoistDeclarations as request:
            # read the file again, the declarations moved before the region (once per
            # region: a region asking again would be a bug, never an endless loop)
            if not moved and len(_inserted) < len(found):
                hoisting = request.hoisting
                line = hoisting.line
                columns = {k + (k >= line): spans for k, spans in (_columns or {}).items()}
                columns.update({k: [(c, c, c, w) for c, w in sorted(pairs)] for k, pairs in hoisting.columns.items()})
                return _with_byte_order_mark(byte_order_mark, extract(
                    hoisting.apply(text, line_ending(text)), defines, include_dirs, filename,
                    _inserted=tuple(k + (k >= line) for k in _inserted) + (line,), _columns=columns))
            # (the offsets of the region's statement macros, expanded in place, would move)
            unreadable.append(line_map.relocate(request.refusal))
            continue
        except ScopError as err:
            if region.outer is None and "/* polysched: " in text[region.start:region.end]:
                # code polysched generated, without the original it came from (no run-time
                # check was needed): what it does is what the original did
                err = ScopError(err.filename, err.line, err.col, f"{err.message} (this region is polysched's "
                                f"generated code, without its original: optimize the original file)")
            unreadable.append(err)
            continue
        if built is None:       # nothing to optimize: the region stays as written
            empty.append(line_map.relocate(ScopError(filename, region.scop_line, 1,
                                                     "the SCoP region contains no assignment statement")))
            continue
        builder, scop = built
        scop.inserted_lines = _inserted
        scop.start_line, scop.end_line = scop.line_as_written(scop.start_line), scop.line_as_written(scop.end_line)
        if table.kept_lines is not None and not moved:
            outside = _definitions_guard(text, stripped, table.kept_lines, macros, found, region, builder, scop,
                                         function, table)
            if outside is not None:
                scop.preprocessor_guard = outside if scop.preprocessor_guard in (None, "1") \
                    else f"{scop.preprocessor_guard} && {outside}"
        # (not the scalars the region's own blocks declare: no address of theirs outlives them)
        variables = (builder.all_iterators - set(scop.loop_scoped)) | set(scop.parameters) \
            | {a.name for a in scop.arrays.values() if a.is_scalar and a.origin != "region"} | builder.product_factors
        # what the code around the region does: around the whole region of an output
        # (its generated code, which a new output replaces, is no code after the original:
        # a re-optimized swap through 't' took 't' for live and lost its parallel loop)
        whole = region if region.outer is None else replace(region, start=region.outer[0], end=region.outer[1])
        # restrict keeps a parameter apart only where no pointer may be based on it
        for name in restrict_escapes(plain, whole, function, {a.name for a in scop.arrays.values()
                                                               if a.restrict and not a.text}, macros):
            scop.arrays[name].restrict = False
        if any(a.restrict for a in scop.arrays.values()):
            # restrict kept arrays apart: under another -D a header may define it away
            # (#define restrict), so the compiled spelling is compared too
            for word in ("restrict", "__restrict", "__restrict__"):
                if re.search(rf"\b{word}\b", plain):
                    scop.macro_expansions = {**scop.macro_expansions, **(
                        macros.expansions([word]) if word in macros else {word: f'"{word}"'})}
        # a bit-field has no address: no pointer reaches it (and &cfg.n would not compile)
        variables = {n for n in variables if not getattr(visible.declarations.get(n), "bitfield", False)}
        # a member read through a pointer (p->n) is memory another pointer may write
        # (q->n), and so is an array's element (sz[0]: elements_as_variables)
        through_pointers = {name for name, text in scop.c_texts.items()
                            if ("->" in text or text.startswith("(*") or "[" in text) and name in variables}
        scop.address_taken = tuple(sorted(set(address_taken(plain, whole, function, visible, variables, macros,
                                                          scop.c_texts))
                                          | through_pointers))
        # fresh names avoid the macros and declarations of included headers too (#define c0 5)
        scop.identifiers = _names_seen_by(without_generated, k, regions) | frozenset(macros.macros) \
            | macros.header_identifiers
        # (and the pointers loops step: the code after the region may read where they end)
        scop.live_iterators = live_after(plain, whole, function, visible,
                                         builder.all_iterators - set(scop.loop_scoped) | set(builder.bumped_texts),
                                         macros)
        data_set = [name for name in scop.live_iterators if name in builder.set_under_data_tests]
        if data_set:
            # (the optimized loops run whatever the test says: data_test_over_loops)
            unreadable.append(builder.error(builder.set_under_data_tests[data_set[0]], (
                f"loop under a condition that reads the data sets '{data_set[0]}', which the code after the "
                f"region reads: its final value would depend on the data")))
            continue
        # (a scalar declared in the region's own blocks ends with its block)
        scalars = {a.name for a in scop.arrays.values() if a.is_scalar and a.origin != "region"}
        scop.live_scalars = live_after(plain, whole, function, visible, scalars, macros,
                                       reread=lambda: read_before_written(scop, scalars))
        scops.append(scop)
    if (unreadable or empty) and not scops:
        # (helper-95: with every region refused, only the first one's reason was said)
        for err in unreadable[1:]:
            print(f"{err.filename}:{err.line}:{err.col}: note: {err.message}; this region is refused too",
                  file=sys.stderr)
        raise (unreadable or empty)[0]
    # a region the model cannot read next to ones it can (Polly's way, not Pluto's): the
    # others are optimized, it stays as written
    for err in unreadable:
        print(f"{err.filename}:{err.line}:{err.col}: note: {err.message}; the region is kept as written",
              file=sys.stderr)
    for where in empty:
        print(f"polysched: {where.filename}:{where.line}: the region contains no assignment statement; "
              f"it is kept as written", file=sys.stderr)
    return _with_byte_order_mark(byte_order_mark, scops)


def _with_byte_order_mark(byte_order_mark: bool, scops: list[Scop]) -> list[Scop]:
    """``scops`` whose source starts with the file's byte order mark again, where it
    had one (read as a space: the output keeps every byte outside the regions)."""
    for scop in scops if byte_order_mark else []:
        scop.source = "\ufeff" + scop.source[1:]
    return scops


def read_before_written(scop: Scop, scalars: set[str]) -> set[str]:
    """The ``scalars`` some instance of the region reads before the region writes them:
    the value it had on entry, which a run of the region after another one sees. isl's
    dataflow of their reads, ``{ S[i] -> s[] }``, against their definite writes; a read
    with no source is one of those."""
    if not scalars:
        return set()
    domain = scop.domain
    reads = scop.reads.intersect_domain(domain)
    reads = _with_targets(reads, scalars)
    writes = _with_targets(scop.writes.intersect_domain(domain), scalars)
    flow = isl.UnionAccessInfo.from_sink(reads).set_must_source(writes) \
        .set_schedule(scop.schedule).compute_flow()
    return {m.get_tuple_name(isl.dim_type.out) for m in maps_of(flow.get_may_no_source())}


def _with_targets(accesses: isl.UnionMap, names: set[str]) -> isl.UnionMap:
    """The maps of ``accesses`` whose range is one of ``names``."""
    kept = isl.UnionMap.empty(accesses.get_space())
    for m in maps_of(accesses):
        if m.get_tuple_name(isl.dim_type.out) in names:
            kept = kept.union(m)
    return kept


def _build_region(line_map: LineMap, filename: str, text: str, stripped: str, plain: str, starts: list[int],
                  region: Region, macros: MacroTable, visible: Visible) -> tuple["_RegionBuilder", Scop] | None:
    """One region's Scop (None when it has no statement). Errors point at the presumed location (``#line``). Deep
    expressions are walked recursively in places, so the recursion limit is raised
    while building, where that is safe (Python >= 3.11 keeps Python frames off the C
    stack); past it, a one-line error."""
    limit = sys.getrecursionlimit()
    if sys.version_info >= (3, 11):
        sys.setrecursionlimit(max(limit, 100_000))
    try:
        _check_not_a_braceless_body(filename, plain, stripped, region, macros)
        declarations = dict(visible.declarations)      # (the builder declares what it names)
        builder = _RegionBuilder(filename, text, stripped, plain, starts, region, macros, visible)
        try:
            scop = builder.build()
        except (ScopError, NotAffine):
            if not builder.loop_aliases:
                raise
            # a loop over a product of sizes read as a nest the model cannot read (its
            # iterator in a loop bound: i_hi * Q is not affine): the region as written;
            # its own errors are the region's
            visible.declarations.clear()
            visible.declarations.update(declarations)
            builder = _RegionBuilder(filename, text, stripped, plain, starts, region, macros, visible,
                                     split_products=False)
            scop = builder.build()
        return None if scop is None else (builder, scop)
    except ScopError as err:
        raise line_map.relocate(err) from None
    except RecursionError:
        err = ScopError(filename, region.scop_line, 1, "expressions nested too deeply to analyse")
        raise line_map.relocate(err) from None
    finally:
        sys.setrecursionlimit(limit)


def _check_not_a_braceless_body(filename: str, plain: str, stripped: str, region: Region,
                                macros: MacroTable) -> None:
    """Refuse a region right after ``if (...)``, ``for (...)``, ``while (...)``, ``else``
    or ``do`` without braces: C makes only its first statement their body, and the
    region's output (one ``if`` around the optimized code and the original) would put
    all of it there."""
    before = plain[:region.scop_offset].rstrip()
    # a conditional block right before the region ('#ifdef X ... #endif'): what precedes
    # it may be the head, whichever branch the compiler keeps
    lines = stripped[:region.scop_offset].rstrip().split("\n")
    if lines and re.match(r"\s*#\s*endif\b", lines[-1]):
        depth, k = 0, len(lines) - 1
        while k >= 0:
            if re.match(r"\s*#\s*endif\b", lines[k]):
                depth += 1
            elif re.match(r"\s*#\s*if", lines[k]):
                depth -= 1
                if depth == 0:
                    break
            k -= 1
        before = plain[:len("\n".join(lines[:max(k, 0)]))].rstrip()
    head = None
    if before.endswith(")"):
        depth, k = 0, len(before) - 1
        while k >= 0:
            depth += {")": 1, "(": -1}.get(before[k], 0)
            if depth == 0:
                break
            k -= 1
        word = re.search(r"([A-Za-z_]\w*)\s*$", before[:max(k, 0)])
        if word and word.group(1) in ("if", "for", "while", "switch"):
            head = f"{word.group(1)} (...)"
        elif word and word.group(1) in macros:     # '#define WHEN(c) if (c)' may be one
            head = f"{word.group(1)}(...)"
    else:
        word = re.search(r"\b(else|do|[A-Za-z_]\w*)$", before)
        if word and (word.group(1) in ("else", "do") or word.group(1) in macros):   # '#define ONLY_ODD if (n % 2)'
            head = word.group(1)
    if head is not None:
        raise ScopError(filename, region.scop_line, 1, f"the region follows '{head}' without braces, which "
                        f"makes only its first statement the body: put the region in braces")


@dataclass
class _Local:
    """A variable declared in a block inside the region: ``model`` is its scalar's
    name in the model and the emitted code; an integer alias has ``alias`` (its affine
    initialiser) and ``alias_text`` (the C text used in its place) instead."""

    name: str
    model: str
    alias: c_ast.Node | None = None
    alias_text: str = ""
    decl: "Declaration | None" = None         # its declaration (an array's extents)


def _listed_elements(init: c_ast.InitList, inner: list[int]) -> list[tuple[tuple[int, ...], c_ast.Node]] | None:
    """The elements an initialiser list gives an array whose extents after the first
    are ``inner`` (constants), as C reads it, braces elided or not: ``{{1, 2}, {3}}``
    and ``{1, 2, 0, 3}`` of ``a[2][2]`` both give ``(0, 0) 1, (0, 1) 2, (1, 0) 3``
    (and ``(1, 1)`` 0 for the second). Elements past an inner extent are dropped (gcc
    warns and drops them). None for designators or a braced single value."""
    listed: list[tuple[tuple[int, ...], c_ast.Node]] = []

    def fill(items: list, at: int, prefix: tuple[int, ...], shape: list[int | None]) -> int | None:
        """Elements of the sub-array at ``prefix`` (extents ``shape``; None: unbounded)
        from ``items[at:]``; the position after the last item used."""
        k = 0
        while at < len(items) and (shape[0] is None or k < shape[0]):
            item = items[at]
            if isinstance(item, c_ast.NamedInitializer):
                return None
            if len(shape) == 1:
                if isinstance(item, c_ast.InitList):
                    return None
                listed.append((prefix + (k,), item))
                at += 1
            elif isinstance(item, c_ast.InitList):
                if fill(list(item.exprs or []), 0, prefix + (k,), shape[1:]) is None:
                    return None
                at += 1
            else:
                at = fill(items, at, prefix + (k,), shape[1:])
                if at is None:
                    return None
            k += 1
        return at

    items = list(init.exprs or [])
    return listed if fill(items, 0, (), [None] + list(inner)) is not None else None


def _is_const_array(node: c_ast.Decl) -> bool:
    """Whether ``node`` declares an array of ``const`` elements (``const int dx[4]``)."""
    t = node.type
    if not isinstance(t, c_ast.ArrayDecl):
        return False
    while isinstance(t, c_ast.ArrayDecl):
        t = t.type
    return isinstance(t, c_ast.TypeDecl) and "const" in (t.quals or [])


_SIGNED_INTEGER_WORDS = frozenset("int long signed short ptrdiff_t ssize_t intptr_t intmax_t int32_t int64_t".split())


def _is_signed_integer(c_type: str) -> bool:
    """Signed types at least as wide as ``int``: affine values do not wrap there."""
    words = set(c_type.split())
    return bool(words) and words <= _SIGNED_INTEGER_WORDS and "short" not in words


_REPLACEABLE_RE = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|(?:->|\.)\s*[A-Za-z_]\w*|[A-Za-z_]\w*|\d[\w.]*')


def _replace_identifiers(text: str, mapping: dict[str, str]) -> str:
    """``text`` with every identifier token in ``mapping`` replaced (not in string or
    character literals, numbers, or member names after ``.``/``->``)."""
    return _REPLACEABLE_RE.sub(lambda m: mapping.get(m.group(), m.group()), text)


@dataclass
class _Context:
    """Where the walk is: enclosing iterators and the domain ``{ [i, j] : ... }``."""

    iterators: list[str]
    domain: isl.Set


@dataclass
class _Built:
    """A sub-tree's schedule and the statements it contains."""

    schedule: isl.Schedule
    statements: list[Statement] = field(default_factory=list)


class _RegionBuilder:
    def __init__(self, filename: str, text: str, stripped: str, plain: str, starts: list[int],
                 region: Region, macros: MacroTable, visible: Visible, split_products: bool = True):
        self.filename = filename
        self.text = text
        self.stripped = stripped
        self.plain = plain
        self.starts = starts
        self.region = region
        # the region's own '#define's (polysched's helper macros in its own output)
        # apply inside it whatever '#undef' follows
        self.macros = macros
        self.preprocessor_guard: str | None = None      # (scan_directives: the '#if's taken)
        self.user_loop_pragmas: list[tuple[int, str]] = []   # (scan_directives: line, text)
        # the line of the loop each '#pragma omp parallel for' names -> (its line, text),
        # and what the walk found of those loops (Scop.user_parallel_loops)
        self.pragma_of_loop: dict[int, tuple[int, str]] = {}
        self.user_parallel_loops: list[UserParallelLoop] = []
        self.region_text, defined = self.scan_directives()
        self.macros = macros.with_definitions(defined) if defined else macros
        self.visible = visible
        self.ctx = isl.DEFAULT_CONTEXT
        # (its directives' words left out: '#ifdef', '#pragma omp ...' name no identifier)
        region_words = self.region_words = set(re.findall(r"[A-Za-z_]\w*", self.region_text))
        # Only typedef names the region mentions (casts like '(DATA_TYPE)'); macro
        # bodies parsed later may mention more, so they are added on demand.
        # a name declared as a variable is not a type, whatever some header says
        self.typedefs = visible.typedefs - set(visible.declarations)
        self.typedef_line = "".join(f"typedef int {t};" for t in sorted(self.typedefs & region_words))
        self.parameters: list[str] = []
        self.parameter_values: dict[str, int] = {}
        self.statements: list[Statement] = []
        self.arrays: dict[str, Array] = {}
        self.written: set[str] = set()
        self.array_targets: set[str] = set()          # arrays whose elements the region assigns
        self.tables: dict[str, tuple[int, ...]] = {}   # the region's integer tables it only reads
        self.table_refusals: dict[str, str] = {}       # the region's other arrays: why not a table
        self.all_iterators: set[str] = set()
        self.loop_scoped_types: dict[str, str] = {}   # iterators declared in their 'for'
        # iterators that loops declare with different types ('for (int i ...)' then
        # 'for (size_t i ...)'): each type, in order; loop_scoped_types holds the type of
        # the loop being walked (walk_for), and each statement records its own
        self.retyped: dict[str, list[str]] = {}
        # params where unsigned comparisons do not wrap and 'i != e' loops reach e
        self.no_wrap: list[isl.Set] = []
        self.pending_ranges: list[tuple[isl.PwAff, int, int]] = []
        self._expr_cache: dict[str, c_ast.Node] = {}
        self._outside_names: frozenset[str] | None = None
        self.body: c_ast.Compound | None = None
        # block scopes inside the region, after the region's own level (region_constant)
        self.scopes: list[dict[str, _Local]] = [{}]
        self.local_models: set[str] = set()
        self.used_locals: list[_Local] = []            # by the statement being built
        self.fixed_macros: dict[str, int] = {}         # size macros used at their value
        self.enumerators_read: dict[str, int] = {}     # enumeration constants read as their value
        # parameters the model needed >= 1 (a division read as floor, a loop condition
        # monotone only then); `size_parameters` adds those that bound a loop from above
        self.sizes: set[str] = set()
        # a one-dimensional array subscripted as rows of different sizes (A[i * n + j]
        # and A[i * m + j]): no chain; named in the refusal
        self.mixed_rows: dict[str, list[str]] = {}
        # iterator -> (the loops around it, its value once its last loop there ended):
        # the start of a remainder loop 'for (; i < n; i++)'
        self.exit_values: dict[str, tuple[tuple[str, ...], isl.PwAff]] = {}
        self._exited: dict[str, tuple[tuple, "_Local | None"]] = {}     # exited_iterator's
        # (depth, variables the loops in its body set) of each loop being walked
        self.loop_sets: list[tuple[int, set[str]]] = []
        self.c_texts: dict[str, str] = {}       # struct members read as variables
        self.product_factors: set[str] = set()   # variables read only as w__x__h
        self.products: list[str] = []            # the w__x__h: values, not memory
        # members of arrays of structs, read as arrays: p__x -> (".x", rank of p)
        self.members: dict[str, tuple[str, int]] = {}
        self._element_names: dict[str, str] = {}     # sz[0] -> sz__0 (elements_as_variables)
        self._written_elements: dict[str, str] = {}  # dims -> "dims[2]", an element the region writes
        self._enum_typedefs: set[str] | None = None   # typedef enum {...} band_t (integer_type)
        self.inlined: set[str] = set()      # the functions whose calls the model inlined
        self._defined_functions: set[str] | None = None
        self._purity: PurityChecker | None = None
        self._errno_read: bool | None = None
        self._typing_macros: set[str] = set()        # macros whose type is being read
        self._macro_types: dict[str, str | None] = {}  # their types, once read
        self.conditional = 0        # > 0 while reading what C may not evaluate (a ?: arm)
        self.floating = False       # a floating constant, cast or call read (macros expanded)
        self.float_types_read: set[str] = set()     # the floating types of the values read
        self.statement_locals: set[str] = set()     # declared in a conditional statement's branch
        self.not_region_constant: dict[str, tuple[str, str]] = {}   # region_constant's refusals
        # arrays subscripted as A[i * n + j]: name -> chain of size monomials (delinearize.py)
        self.linearized: dict[str, list[tuple[str, ...]]] = {}
        # pointers into rows declared in the region (row_pointers_read): their declarations
        self.row_pointers: dict[str, c_ast.Decl] = {}
        # pointers a loop steps ('a += m;', pointer_bumps_read), each read as '(a + i * m)'
        # in the statements' text: their text now, and the steps, which make no statements
        self.bumped_texts: dict[str, str] = {}
        self.bump_steps: dict[int, tuple[str, str]] = {}     # id(step) -> (pointer, text after it)
        # id(if) -> (the if, 'if (...) continue;', the statements after it) of an 'if'
        # that stands for them (continues_as_guards)
        self.continue_guards: dict[int, tuple[c_ast.If, c_ast.If, list[c_ast.Node]]] = {}
        # id(if) -> (the if, the statements under it) of an 'if' a data-dependent test
        # was moved down to, into the loops it was around (data_test_over_loops); and
        # the variables those loops set, with a loop setting each
        self.pushed_guards: dict[int, tuple[c_ast.If, list[c_ast.Node]]] = {}
        self.set_under_data_tests: dict[str, c_ast.For] = {}
        self._region_writes: set[str] | None = None
        # 1-d arrays left linearised: one subscript computed in 32-bit unsigned arithmetic, by array
        self.wrapping_subscripts: dict[str, c_ast.Node] = {}
        # id(loop) -> the 'if (b) break;' statements read into its condition (breaks_as_conditions)
        self.folded_breaks: dict[int, list[c_ast.If]] = {}
        # their subscripts computed in 32-bit unsigned arithmetic: (highest row, row sizes)
        self.address_bounds: list[tuple[isl.PwAff, tuple[isl.PwAff, ...]]] = []
        self.distributed: set[str] = set()    # linearised arrays read without compound sizes
        self.compound_sizes: dict[str, c_ast.Node] = {}     # "(len - 2)" -> its expression
        # loops over a product of sizes read as nests (split_product_loops): id(inner loop)
        # -> the flat iterator, a name for (i_hi * Q + i_lo) in its body
        self.split_products = split_products
        self.loop_aliases: dict[int, dict[str, _Local]] = {}

    # -- positions ----------------------------------------------------------------
    def position(self, node: c_ast.Node | None) -> tuple[int, int]:
        """Original (line, col) where a region node's text starts."""
        if node is None:
            return self.region.scop_line, 1
        coords = [n.coord for n in _walk_nodes(node) if n.coord is not None and n.coord.line]
        if not coords:
            return self.region.scop_line, 1
        first = min(coords, key=lambda c: (c.line, c.column or 1))
        # wrapped text: typedef line, wrapper line, then the region's first line.
        line = first.line - 2 + self.region.scop_line
        if line > self.region.endscop_line:
            return self.region.endscop_line, 1
        col = first.column or 1
        if isinstance(node, c_ast.UnaryOp) and node.op not in ("p++", "p--", *SIZE_OPERATORS):
            # pycparser puts a prefix operator's coordinate on its operand
            inner_line, inner_col = self.position(node.expr)
            k = offset_of(self.starts, inner_line, inner_col)
            while k > self.region.start and self.plain[k - 1] in " \t\n(":
                k -= 1
            if self.plain[k - len(node.op):k] == node.op:
                return line_col(self.starts, k - len(node.op))
        return line, col

    def error(self, node: c_ast.Node | None, message: str) -> ScopError:
        line, col = self.position(node)
        # the model's names (img__w, np__value, w__x__h) as the source writes them
        return ScopError(self.filename, line, col, self.as_written(message))

    # -- parsing ------------------------------------------------------------------
    def scan_directives(self) -> tuple[str, dict[str, Macro]]:
        """The region text with its preprocessor lines blanked, and the macros it
        defines. ``#define``/``#undef``/``#line`` and loop pragmas (OpenMP ``for``/``simd``,
        ``GCC ivdep``/``unroll``: polysched places its own; `Scop.user_loop_pragmas`)
        are skipped, ``omp for`` (a loop shared by an enclosing team) refused; any other
        directive is an error, but for polysched's own ``#ifndef POLYSCHED_...`` defaults.
        Backslash-newlines are resolved in place."""
        text = self.stripped[self.region.start:self.region.end]
        lines = text.split("\n")
        raw_lines = self.text[self.region.start:self.region.end].split("\n")
        defined: dict[str, Macro] = {}
        own_conditionals = 0
        conditionals: list[tuple[int, int, str]] = []    # (first line, last line, directive)
        k = 0
        while k < len(lines):
            if not re.match(rf"^{DIRECTIVE_START}", lines[k]):
                k += 1
                continue
            first = k
            k = _directive_end(lines, raw_lines, k)
            directive = join_continuations("\n".join(lines[first:k + 1])).strip()
            m = _REGION_DEFINE_RE.match(directive)
            if _OWN_CONDITIONAL_RE.match(directive):    # polysched's output: a default of its own
                own_conditionals += 1
            elif own_conditionals and re.match(r"^#\s*endif\b", directive):
                own_conditionals -= 1
            elif re.match(r"^#\s*(define|undef)\s+(?!polysched_)", directive, re.I):
                # the optimized code comes before the original's copy, which alone keeps
                # the directive: code above it would see the macro as before the region
                raise ScopError(self.filename, self.region.scop_line + 1 + first, lines[first].index("#") + 1,
                                "'#define' or '#undef' inside a '#pragma scop' region (the optimized code "
                                "could not keep its place): move it before the region")
            elif m:
                params = None
                if m.group(2) is not None:
                    params = tuple(p.strip() for p in m.group(3).split(",") if p.strip())
                defined[m.group(1)] = Macro(m.group(1), params, m.group(4).strip())
            elif _CONDITIONAL_RE.match(directive) and self.macros.kept_lines is not None:
                conditionals.append((first, k, directive))
            else:
                self.skip_loop_directive(directive, self.region.scop_line + 1 + first, lines[first].index("#") + 1)
            for j in range(first, k + 1):
                lines[j] = " " * len(lines[j])
            k += 1
        for index, line in enumerate(lines):
            # C99's pragma operator, '_Pragma("omp parallel for")': the directive it
            # stands for, where it is (a macro's _Pragma stays an error: pragma inside)
            for m in reversed(list(_PRAGMA_OPERATOR_RE.finditer(line))):
                text = re.sub(r"\\(.)", r"\1", m.group(1))
                self.skip_loop_directive(f"#pragma {text}", self.region.scop_line + 1 + index, m.start() + 1)
                line = line[:m.start()] + " " * (m.end() - m.start()) + line[m.end():]
            lines[index] = line
        if conditionals:
            self.preprocessor_guard = self.taken_branches(lines, conditionals)
        return continuations_in_place("\n".join(lines)), defined

    def skip_loop_directive(self, directive: str, line: int, col: int) -> None:
        """A directive of the region that is none of its own: a loop pragma, recorded
        (`Scop.user_loop_pragmas`), or an error at ``line:col``."""
        if re.match(r"^#\s*pragma\s+omp\s+for\b", directive):
            # the threads of an enclosing parallel region share the loop: each runs
            # the rest of the region whole, which the model (one thread) cannot say
            raise ScopError(self.filename, line, col,
                            "'#pragma omp for' inside a '#pragma scop' region (its loop shared among the "
                            "threads of an enclosing parallel region) is not supported: write "
                            "'#pragma omp parallel for', or put the region inside the loop's body")
        if not _SKIPPED_DIRECTIVE_RE.match(directive):
            pragma = re.match(r"#\s*pragma\s+(omp\s+\w+|\w+)", directive)
            if pragma:
                # (helper-99: 'omp atomic' was 'a preprocessor directive', where 'omp simd' is kept)
                raise ScopError(self.filename, line, col, f"'#pragma {' '.join(pragma.group(1).split())}' inside a "
                                "'#pragma scop' region is not supported (of pragmas, a region may hold loop "
                                "pragmas only: omp parallel for, omp simd, GCC ivdep or unroll)")
            raise ScopError(self.filename, line, col, "preprocessor directive inside a '#pragma scop' region")
        if re.match(r"^#\s*pragma\s", directive):
            self.user_loop_pragmas.append((line, " ".join(directive.split())))

    def parallel_pragma_loops(self, body: c_ast.Node) -> dict[int, tuple[int, str]]:
        """The line of the loop that each of the region's ``#pragma omp parallel for``
        names (C puts the loop right after it: the first ``for`` on a later line, or on
        the line of a ``_Pragma("...")``) -> (the pragma's line, its text)."""
        pragmas = [(line, text) for line, text in self.user_loop_pragmas if is_parallel_for_pragma(text)]
        if not pragmas:
            return {}
        loop_lines = sorted({self.position(n)[0] for n in _walk_nodes(body) if isinstance(n, c_ast.For)})
        found = {}
        for line, text in pragmas:
            after = [loop for loop in loop_lines if loop >= line]
            if after:
                found[after[0]] = (line, text)
        return found

    def taken_branches(self, lines: list[str], conditionals: list[tuple[int, int, str]]) -> str:
        """The region's ``#if``/``#ifdef``/``#elif``/``#else`` branches as the compiler
        takes them (`MacroTable.kept_lines`): the lines of the others are blanked in
        ``lines`` (their directives already are). Returns the C preprocessor condition
        under which those branches are the ones taken (``!defined(DEBUG) && (V > 1)``):
        the optimized code holds only there, and is emitted under it."""
        first_line = self.region.scop_line + 1       # the line of lines[0]
        kept = self.macros.kept_lines or frozenset()
        has_code = [bool(line.strip()) for line in lines]
        try:
            groups = conditional_groups(conditionals)
        except UnbalancedConditional as err:
            if err.at is None:
                raise ScopError(self.filename, first_line + conditionals[-1][0], 1,
                                "an '#if' of the region ends after it: put the whole conditional inside the "
                                "region") from None
            raise ScopError(self.filename, first_line + conditionals[err.at][0], 1,
                            f"'#{err.word}' without its '#if' in the region") from None
        taken = {}
        for group in groups:
            for branch in group:
                start, end = branch[1], branch[2]
                taken[id(branch)] = any(has_code[j] and first_line + j in kept for j in range(start, end))
        terms = []
        for group in groups:
            start, end = group[0][1], group[-1][2]
            if not any(has_code[j] for j in range(start, end)):
                continue                       # no code either way: nothing to choose
            enclosing = [b for g in groups if g is not group for b in g if b[1] <= start and end <= b[2]]
            if not all(taken[id(b)] for b in enclosing):
                continue                       # inside a branch not taken: blanked whole
            negated = []
            for branch in group:
                if taken[id(branch)]:
                    terms.append(_conjunction(negated + [branch[0]]))
                    break
                negated.append(f"!{branch[0]}")
            else:
                terms.append(_conjunction(negated))
        for group in groups:
            for branch in group:
                if not taken[id(branch)]:
                    for j in range(branch[1], branch[2]):
                        lines[j] = " " * len(lines[j])
        return " && ".join(f"({t})" for t in terms if t) or "1"

    def parse_region(self) -> c_ast.Compound:
        region_text = self.region_text
        depth = 0
        for k in range(self.region.start, self.region.end):
            depth += self.plain[k] == "{"
            depth -= self.plain[k] == "}"
            if depth < 0:   # (the wrapped text would parse: the rest as another function)
                line, col = line_col(self.starts, k)
                raise ScopError(self.filename, line, col, "'}' closes a block the region did not open: "
                                "'#pragma scop' and '#pragma endscop' must be in the same block")
        # pycparser rejects '\r' (CRLF files); a space keeps every column in place
        # (an attribute, double t[N] __attribute__((aligned(64)));, is left out likewise)
        region_text = blank_attributes(region_text) if "__attribute" in region_text else region_text
        wrapped = self.typedef_line + "\n" + _WRAPPER + region_text.replace("\r", " ") + "\n}\n"
        try:
            ast = _Parser().parse(wrapped, filename=self.filename)
        except _ParseFailure as err:
            if err.line < 0:
                line, col = self.region.endscop_line, 1
            else:
                line, col = self.position(c_ast.ID("", coord=Coord(self.filename, err.line, err.col)))
            message = err.message
            if err.line < 0:        # the end of the region: a block it opens and does not close?
                plain = blank_strings(strip_comments(region_text))
                if plain.count("{") > plain.count("}"):
                    raise ScopError(self.filename, line, col, "'#pragma endscop' is inside a block that the "
                                    "region opens: the region must close every brace it opens") from None
            source_line = self.text.splitlines()[line - 1] if 0 < line <= self.text.count("\n") + 1 else ""
            if re.search(r"\b__assert_fail\b|\bassert\s*\(", source_line):
                # (glibc's assert, read expanded: a GNU statement expression calling __assert_fail)
                raise ScopError(self.filename, line, col, "'assert' inside a SCoP: it may end the program (a call "
                                "with side effects); check before '#pragma scop'") from None
            if message.startswith("before: "):
                message = f"syntax error before '{message[8:]}'"
                macro = self.macros.get(err.message[8:])
                if macro is not None:
                    # the region is read with its macros unexpanded, as values or statements
                    message += (f": macro '{macro.name}' (defined as '{macro.body.strip()}') is read in place, "
                                f"as a value or a statement; one that expands to an operator or a part of "
                                f"one is not")
                at = offset_of(self.starts, line, col)
                before = self.plain[:at].rstrip()
                last_line = before[before.rfind("\n") + 1:]
                if "\n" in self.plain[len(before):at] and re.search(r"[\w)\]]$", before) \
                        and not re.match(r"\s*(for|if|while|switch)\b", last_line):
                    # the line before ends an expression, this one starts another: the
                    # ';' between them is missing (where gcc says so too)
                    line, col = line_col(self.starts, len(before))
                    message = f"expected ';' before '{err.message[8:]}'"
            else:
                message = f"syntax error: {message[0].lower() + message[1:]}"
            # a byte that is not UTF-8 text, read as a surrogate escape (the lexer prints
            # '\udcff'): shown as the byte it is ('\xff')
            message = re.sub(r"\\udc([89a-f][0-9a-f])", r"\\x\1", message)
            if re.search(r"\?\s*:", blank_strings(strip_comments(source_line))):
                # (helper-78: gcc accepts it; the parser's message did not say what it was)
                message = "the GNU conditional 'a ?: b', without its middle operand, is not supported (write " \
                          "'a ? a : b')"
            raise ScopError(self.filename, line, col, message) from None
        except Exception as err:  # pycparser internal failure: still a syntax problem
            raise ScopError(self.filename, self.region.scop_line, 1, f"cannot parse the region: {err}") from None
        func = ast.ext[-1]
        _resolve_cast_types(func.body, self.visible.typedef_types)
        return func.body

    def parse_expression(self, text: str, site: c_ast.Node) -> c_ast.Node:
        """A macro expansion as an expression node (cached)."""
        if text not in self._expr_cache:
            try:
                words = set(re.findall(r"[A-Za-z_]\w*", text))
                prefix = "".join(f"typedef int {t};" for t in sorted(self.typedefs & words))
                ast = _Parser().parse(f"{prefix}\nint __polysched_e = ({text});", filename="<macro>")
                self._expr_cache[text] = _resolve_cast_types(ast.ext[-1].init, self.visible.typedef_types)
            except Exception:
                raise NotAffine(site, f"cannot read the macro expansion '{text.strip()}' as an expression") from None
        return self._expr_cache[text]

    # -- affine conversion ----------------------------------------------------------
    def classify(self, name: str, node: c_ast.Node) -> None:
        if self.resolve(name) is not None:
            raise NotAffine(node, f"data-dependent expression: '{name}' is declared and written inside the SCoP "
                                  "and cannot appear in a loop bound, subscript or condition")
        if name in self.all_iterators:
            raise NotAffine(node, self.outside_its_loop(name))
        if name in self.written:
            # (helper-80: 'm = n / 2;' then 'n = m - 1;' was told only that m is written)
            why = self.not_region_constant.get(name)
            raise NotAffine(node, f"data-dependent expression: '{name}' is written inside the SCoP and cannot "
                                  "appear in a loop bound, subscript or condition" +
                                  (f" (set at the region's top to '{why[0]}', no function of the sizes: "
                                   f"{why[1]})" if why else ""), written=name)
        decl = self.visible.declarations.get(name)
        if decl is not None and decl.volatile:
            raise self.volatile_error(name, node)
        if decl is None:
            self.check_declared(name, node)
            if name in re.findall(r"[A-Za-z_]\w*", self.visible.unread_header):
                raise NotAffine(node, f"the type of '{name}' is not known: polysched could not read the header "
                                      f"of '{self.visible.function}'")
            if name not in self.macros and name not in self.visible.enumerators \
                    and name not in self.visible.enumerator_names and name not in self.loop_scoped_types:
                decl = header_declaration(self.macros, name, self.visible.typedefs) \
                    if name in self.macros.header_identifiers else None
                if decl is None:
                    # (int assumed, an unsigned n would make 'i < n' with i = -2 false in C)
                    # (helper-33: Pluto's matmul-seq.c declares N nowhere; the file only uses it)
                    raise NotAffine(node, f"the type of '{name}' is not known: polysched found no declaration "
                                          "of it that it reads (none at all, or typeof, __auto_type, a K&R "
                                          "parameter); declare it with a plain integer type")
                self.visible.declarations[name] = decl
        if decl is not None:
            if decl.dims:
                raise NotAffine(node, f"array '{name}' used without subscripts in a loop bound, subscript or condition")
            if not decl.is_integer_scalar:
                raise NotAffine(node, f"'{name}' has type '{decl.element_type}'; only integer parameters can appear "
                                      "in loop bounds, subscripts and conditions")

    def as_written(self, text: str) -> str:
        """``text`` with the model's names of struct members as C writes them:
        ``tbl__k[j]`` is ``tbl[j].k``, ``img__w`` is ``img->w``."""
        for name, (member, after) in self.members.items():
            text = re.sub(rf"\b{re.escape(name)}((?:\[[^\[\]]*\]){{{after}}})",
                          lambda m: f"{self.c_texts[name]}{m.group(1)}{member}", text)
        for name, written in self.c_texts.items():
            if name not in self.members:
                text = re.sub(rf"\b{re.escape(name)}\b", written, text)
        return text

    def volatile_error(self, name: str, node: c_ast.Node) -> ScopError:
        member, after = self.members.get(name, ("", 0))
        text = self.c_texts.get(name, name) + "[]" * after + member
        qualifier = self.visible.declarations[name].volatile
        return self.error(node, f"'{text}' is {qualifier}: the order and number of its accesses are part of what "
                                f"the program does, which optimizing would change")

    def check_declared(self, name: str, node: c_ast.Node) -> None:
        """A ScopError unless ``name`` may be declared: seen among the declarations,
        declared by a header, or at least mentioned in the file outside the region (a
        declaration this front end does not read, e.g. an enumerator). What remains is
        certainly undeclared: the file would not compile."""
        if name in self.visible.declarations or name in self.macros or name in self.outside_names \
                or name in self.macros.header_identifiers:
            return
        if name in self.statement_locals:
            # (helper-81: '{ int k = i + 1; A[k][j] = ...; }' under a data test was told
            # that k is not declared)
            raise self.error(node, f"'{name}', declared under a condition that reads the data, is used in a "
                                   f"subscript or bound, which must be known before the program runs: write its "
                                   f"value there, or declare '{name}' outside the condition")
        if name in _PREDEFINED_MACROS:
            # (helper-102: '__LINE__' was told it is not declared)
            raise self.error(node, f"'{name}' is a macro the C compiler predefines, which polysched does not "
                                   f"expand inside a region: write its value instead")
        raise self.error(node, f"'{name}' is not declared")

    @property
    def outside_names(self) -> frozenset[str]:
        """Every identifier of the file outside the region (directives excluded); of an
        output, outside its whole region (the generated code a new output replaces: its
        'double t;' renamed the original's own 't' to 't_1' the second time)."""
        if self._outside_names is None:
            start, end = self.region.outer or (self.region.scop_offset, self.region.end)
            outside = self.plain[:start] + "\n" + self.plain[end:]
            self._outside_names = frozenset(re.findall(r"[A-Za-z_]\w*", outside))
        return self._outside_names

    # -- block-scope declarations -------------------------------------------------------
    def resolve(self, name: str) -> "_Local | None":
        """The region-local variable ``name`` refers to here, if any."""
        for scope in reversed(self.scopes):
            local = scope.get(name)
            if local is not None:
                self.used_locals.append(local)
                return local
        return None

    def alias_node(self, name: str) -> c_ast.Node | None:
        local = self.resolve(name)
        if local is None:
            local = self.exited_iterator(name)
        return None if local is None else local.alias

    def outside_its_loop(self, name: str) -> str:
        """Why the iterator ``name``, read outside its loop, has no value here."""
        if self.set_again(name):
            return f"loop iterator '{name}' used after its loop inside a later loop that runs another loop " \
                   f"over '{name}', so its value is not known here"
        if name in self.exit_values:
            return f"loop iterator '{name}' used after its loop, where its value cannot be written out (a " \
                   "rational coefficient, a division inside a division, or too many cases)"
        return f"loop iterator '{name}' used outside its loop, where its value is not known (after a loop " \
               f"that runs conditionally, inside another loop, declares its own '{name}', tests " \
               f"'{name}-- > 0' or sets '{name}' beside its iterator, or after a block that declares another " \
               f"'{name}')"

    def set_again(self, name: str) -> bool:
        """Whether a loop entered since ``name``'s last loop ended runs another loop over
        it: from its second iteration on, a read there sees that loop's value (helper-73,
        wrong code: 'for (t..) { b[t] = i; for (i = 0; i < m; i++) ... }' after a loop
        over i read n at every t)."""
        known = self.exit_values.get(name)
        return known is not None and any(name in names for depth, names in self.loop_sets
                                         if depth >= len(known[0]))

    def exited_iterator(self, name: str, record: bool = True) -> "_Local | None":
        """An iterator read after its loop (``last = i;``, ``A[i] = 0;``, ``for (j = i;
        ...)``) as an integer alias of its value there, the loop's exit value, e.g.
        ``((int) ((long long) n <= -1 ? 0 : (long long) n))`` after ``for (i = 0; i < n;
        i++)`` (a step of 2 floors: pw_aff_c_text). None where that value is not known
        (after a conditional loop, or in another loop's body) or not printable."""
        known = self.exit_values.get(name)
        if known is None or name not in self.all_iterators or self.set_again(name):
            return None
        cached = self._exited.get(name)
        if cached is None or cached[0] is not known:
            text, c_type = pw_aff_c_text(known[1]), self.type_of(name)
            local = None
            if text is not None and c_type is not None:
                # (the model reads its own names, img__w or w__x__h; C the source's)
                text = f"(({c_type}) {text})"
                local = _Local(name, name, self.parse_expression(text, c_ast.ID(name)), self.as_written(text))
            cached = self._exited[name] = (known, local)
        if record and cached[1] is not None:
            self.used_locals.append(cached[1])      # (check_local_uses: not through a macro body)
        return cached[1]

    def local_declaration(self, node: c_ast.Decl, ctx: _Context) -> _Built | None:
        """``double t = e;`` inside a block of the region: ``t`` becomes a scalar of the
        model (renamed if its name is taken elsewhere) that the emitted region declares
        once, and the declaration a statement ``t = e;``. The scalar is private to a
        parallel loop exactly when its value never crosses iterations, as for any other.
        A never-assigned integer with an affine initialiser (``int ii = i + 1;``) is
        instead a name for that expression: it may appear in subscripts and bounds."""
        name = node.name
        storage = [s for s in (node.storage or []) if s not in ("auto", "register")]
        if storage == ["static"] and _is_const_array(node) and isinstance(node.init, c_ast.InitList):
            storage = []        # static const int dx[] = {...}: a table like any constant one
        if storage:
            raise self.error(node, f"'{storage[0]}' declaration of '{name}' inside a SCoP "
                                   "(declare it before '#pragma scop')")
        if self.row_pointers.get(name) is node:
            # its uses read the array already; the statements' text reads it as ``(A + i * m)``
            text = self.local_text(self.initializer_text(node))
            self.scopes[-1][name] = _Local(name, name, node.init, f"({text})")
            return None
        decl = declaration_of(node, "local")
        shape = self.visible.array_typedefs.get(decl.element_type) if decl is not None else None
        if shape is not None:          # typedef double vec4[4]; vec4 v[n]; is double v[n][4]
            decl = dataclasses.replace(decl, element_type=shape.element_type, dims=decl.dims + shape.dims,
                                       volatile=decl.volatile or shape.volatile)
        if decl is None or "" in decl.dims[1:] or (decl.dims[:1] == [""] and not (
                isinstance(node.type, c_ast.ArrayDecl) and isinstance(node.init, c_ast.InitList))) or name is None:
            raise self.error(node, f"declaration of '{name}' inside a SCoP: only scalars and arrays (not pointers "
                                   "or functions) can be declared inside the region")
        if decl.volatile:
            raise self.error(node, f"'{decl.volatile}' declaration of '{name}' inside a SCoP: the order and number "
                                   "of its accesses are part of what the program does (declare it before "
                                   "'#pragma scop' and leave its loops out of the region)")
        initializer, filled, table, why_not = "", False, None, "it has no list of values"
        if decl.dims and node.init is not None:
            initializer = self.constant_table(node, decl)
            if decl.dims == [""] and isinstance(node.type, c_ast.ArrayDecl):
                decl.dims = [str(len(node.init.exprs or []))]          # double w[] = {...}
            # written in the region: given its values by statements at each declaration
            filled = name in self.array_targets
            initializer = "" if filled else initializer
            # an integer table only read: subscripts may read it (AffineConverter.table)
            shape = table_shape_refusal(decl)
            if not filled and not shape \
                    and not any(isinstance(e, (c_ast.InitList, c_ast.NamedInitializer)) for e in node.init.exprs):
                # (literals only: a macro's value may be another under the -D the output
                # is compiled with)
                literals = integer_literals(node.init, decl.element_type)
                table = self.padded_table(literals, decl.dims[0], name) if literals is not None else None
                why_not = literals_refusal(decl.element_type) if literals is None else \
                    "its extent is not a constant that holds its list" if table is None else ""
            else:
                why_not = "the region writes it" if filled else shape or "its list of values is not a flat list"
        if isinstance(node.init, c_ast.InitList) and not decl.dims:
            raise self.error(node, f"scalar '{name}' is initialised with a braced list inside a SCoP")
        if name in ctx.iterators:
            raise self.error(node, f"declaration of '{name}' shadows a loop iterator")
        if node.init is not None and not decl.dims and name not in self.written \
                and _is_signed_integer(decl.element_type):
            alias = self.converted(node.init, decl.element_type, node)
            try:
                self.converter(ctx).pw_aff(alias)
            except NotAffine:
                self.pending_ranges = []
            else:
                self.assume_in_range(ctx.domain)
                text = self.local_text(self.initializer_text(node))
                self.scopes[-1][name] = _Local(name, name, alias, f"(({decl.element_type}) ({text}))")
                return None
        model = self.local_model_name(name)
        local = _Local(name, model, decl=decl)
        dims, sizes = self.local_extents(node, decl, ctx) if decl.dims else ([], [])
        self.scopes[-1][name] = local
        self.local_models.add(model)
        self.arrays[model] = Array(model, decl.element_type, dims, origin="region", initializer=initializer,
                                   declared_as=name if model != name else "")
        if table is not None:
            self.tables[model] = table
        self.table_refusals[model] = why_not
        if filled:
            return self.array_initialisation(node, model, decl.element_type, sizes, ctx, decl.dims)
        if node.init is None or initializer:
            return None
        stmt_name = f"S{len(self.statements)}"
        domain = ctx.domain.set_tuple_name(stmt_name)
        accesses = [self.access(c_ast.ID(name, coord=node.coord), "write", ctx, domain)]
        self.start_reads()
        self.reads(node.init, ctx, domain, accesses)
        text = self.initializer_text(node)
        self.check_local_uses(text, node)
        body = f"{model} = {self.local_text(text)};"
        line, col = self.declaration_start(node)
        stmt = Statement(stmt_name, list(ctx.iterators), domain, accesses, body, line, col, **self.read_facts())
        self.statements.append(stmt)
        return _Built(isl.Schedule.from_domain(isl.UnionSet.from_set(domain)), [stmt])

    def converted(self, value: c_ast.Node, c_type: str, site: c_ast.Node) -> c_ast.Node:
        """``(c_type) (value)``: the value a variable of ``c_type`` set to ``value``
        holds, as the alias read in its place (helper-51: ``long t = j - 5;`` read as
        ``j - 5`` made ``t < 3u`` an unsigned comparison, and ``int t = j * 100000``
        with a long j lost its narrowing). The model's value is the unconverted one,
        where it fits the type (the cast's range assumption)."""
        cast = copy.copy(self.parse_expression(f"({c_type}) 0", site))
        cast.expr = value
        return cast

    def region_constant(self, node: c_ast.Node, ctx: _Context) -> _Local | None:
        """``m = n / 2;`` at the region's top level, the only write of an integer ``m``
        declared before the region, with an affine value of the parameters: after it,
        ``m`` is that value (an alias, as a block's ``int m = n / 2;`` is), which loop
        bounds, subscripts and conditions may use (helper-47: refused as data-dependent).
        The statement stays, for the code after the region. The emitted text reads
        ``((int) (n / 2))``: the value converted to m's type, as the assignment did, so
        arithmetic on it keeps its type; the model's value is the unconverted one, so
        the parameters for which it fits are an assumption, checked at run time."""
        if not (isinstance(node, c_ast.Assignment) and node.op == "=" and isinstance(node.lvalue, c_ast.ID)
                and not isinstance(node.rvalue, c_ast.Assignment)
                and any(item is node for item in self.body.block_items or [])):
            return None
        name = node.lvalue.name
        decl = self.visible.declarations.get(name)
        if decl is None or not decl.is_integer_scalar or decl.volatile or self.names_another(name) \
                or integer_range(self.integer_type(decl.element_type)) is None \
                or any(name in self.macros.names_reached(word) for word in self.region_words if word in self.macros):
            # (a macro the region uses may read or write m where the text does not show it)
            return None

        def writes(n: c_ast.Node) -> bool:
            target = n.lvalue if isinstance(n, c_ast.Assignment) else \
                n.expr if isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&") else None
            return isinstance(target, c_ast.ID) and target.name == name
        if [n for n in _walk_nodes(self.body) if writes(n)] != [node]:
            return None
        if any(isinstance(n, c_ast.ArrayDecl) and any(isinstance(x, c_ast.ID) and x.name == name
                                                      for x in _walk_nodes(n.dim)) for n in _walk_nodes(self.body)):
            return None     # (an extent: the emitted region declares its arrays before m is set)
        alias = self.converted(node.rvalue, decl.element_type, node)
        try:
            self.converter(ctx).pw_aff(alias)
        except NotAffine as refusal:
            self.pending_ranges = []
            self.not_region_constant[name] = (self.as_written(_GEN.visit(node.rvalue)),
                                              f"it reads '{refusal.written}', which the SCoP writes too"
                                              if refusal.written else refusal.message)
            return None
        self.assume_in_range(ctx.domain)
        text = self.local_text(self.as_written(_GEN.visit(node.rvalue)))
        return _Local(name, name, alias, f"(({decl.element_type}) ({text}))")

    def constant_table(self, node: c_ast.Decl, decl: Declaration) -> str:
        """The C text of the initialiser of an array a block of the region declares,
        which must be a table of constants the region never writes (``const int dx[4] =
        {0, 1, 0, -1};``): then declaring it once, initialised, at the region's start
        gives every iteration the values its own declaration gave (``access`` refuses a
        write)."""
        name = node.name
        if not isinstance(node.init, c_ast.InitList):
            raise self.error(node, f"array '{name}' is initialised with something other than a braced list")
        for part in _walk_nodes(node.init):
            constant = isinstance(part, (c_ast.Constant, c_ast.InitList, c_ast.UnaryOp, c_ast.BinaryOp,
                                         c_ast.TernaryOp, c_ast.Cast, c_ast.Typename, c_ast.TypeDecl,
                                         c_ast.IdentifierType, c_ast.ExprList, c_ast.NamedInitializer)) \
                or type(part).__name__ == "ArrayDesignator" \
                or (isinstance(part, c_ast.ID) and self.resolve(part.name) is None
                    and (self.macros.integer_value(part.name) is not None
                         or part.name in self.visible.enumerators))
            if not constant:
                raise self.error(part, f"the initialiser of array '{name}', declared inside a SCoP, is not made "
                                       "of constants (declare the array before '#pragma scop')")
        if decl.dims == [""] and any(isinstance(e, (c_ast.InitList, c_ast.NamedInitializer))
                                     for e in node.init.exprs or []):
            raise self.error(node, f"array '{name}' has no declared size (give it one)")
        return self.initializer_text(node)

    def local_extents(self, node: c_ast.Decl, decl: Declaration, ctx: _Context) \
            -> tuple[list[str], list[isl.PwAff]]:
        """The extents of an array a block of the region declares (``double t[N][n];``)
        as C text and as functions of the parameters only, ``[n] -> { [i] -> [(n)] }``. The
        emitted region declares it once, at its start, so each extent must have one
        value for the whole region: constants and sizes the region never writes, no
        iterator and no variable of its blocks."""
        extents, sizes, dim_nodes, t = [], [], [], node.type
        while isinstance(t, c_ast.ArrayDecl):
            dim_nodes.append(t.dim)
            t = t.type
        # (the extents of an array typedef follow the declarator's: vec4 v[n])
        dim_nodes += [self.parse_expression(text, node) for text in decl.dims[len(dim_nodes):]]
        for k, dim in enumerate(dim_nodes):
            if dim is None:            # double w[] = {...}: the initialiser's count
                dim = c_ast.Constant("int", decl.dims[k], coord=node.coord)
            text = self.as_written(_GEN.visit(dim))
            site = dim if getattr(dim, "coord", None) is not None else node
            try:
                size = self.converter(ctx).pw_aff(dim)
            except NotAffine as err:
                raise self.error(site, f"the size '{text}' of array '{node.name}', declared inside a SCoP, is "
                                      f"not a constant or a size the region does not write: "
                                      f"{self.as_written(err.message)}") from None
            if size.involves_dims(isl.dim_type.in_, 0, size.dim(isl.dim_type.in_)):
                raise self.error(site, f"the size '{text}' of array '{node.name}', declared inside a SCoP, "
                                      "depends on a loop iterator (declare the array before '#pragma scop')")
            extents.append(self.local_text(text))     # (an integer alias as its expression)
            sizes.append(size)
        return extents, sizes

    def array_initialisation(self, node: c_ast.Decl, model: str, element_type: str, sizes: list[isl.PwAff],
                             ctx: _Context, extents: list[str]) -> _Built | None:
        """The statements giving an array that a block of the region declares and the
        region writes (``double acc[4] = {0};`` or ``float acc[2][2] = {{0.0f}};`` in a
        loop body) its initial values at each declaration, as C does: ``acc[a][b] =
        e;`` for each element listed, then a loop nest setting every other element to
        0. ``extents``: the declared ones, as written."""
        name = node.name
        words = set(element_type.replace("const", " ").split())
        if not words or not words <= _BASIC_WORDS:
            raise self.error(node, f"array '{name}' of type '{element_type}' is declared with an initialiser "
                                   "inside a SCoP (only arrays of arithmetic types can be)")
        inner = [self.constant_size(e, node) for e in extents[1:]]
        listed = _listed_elements(node.init, inner) if None not in inner else None
        if listed is None:
            raise self.error(node, f"array '{name}', declared inside a SCoP and written there, is initialised "
                                   "with designators, braces around a single value or sizes that are not "
                                   "constants (assign its elements in a loop)")
        line, col = self.declaration_start(node)
        parts = []
        universe = isl.Set.universe(ctx.domain.get_space())
        for position, value in listed:
            stmt_name = f"S{len(self.statements)}"
            # (an element past the extent is dropped, as gcc drops it, with a warning)
            inside = sizes[0].gt_set(isl.PwAff.val_on_domain(universe, val(position[0])))
            domain = ctx.domain.intersect(inside).set_tuple_name(stmt_name)
            if domain.is_empty():
                continue
            element: c_ast.Node = c_ast.ID(name, coord=node.coord)
            for k in position:
                element = c_ast.ArrayRef(element, c_ast.Constant("int", str(k)), coord=node.coord)
            accesses = [self.access(element, "write", ctx, domain)]
            body = f"{model}{''.join(f'[{k}]' for k in position)} = {self.as_written(_GEN.visit(value))};"
            parts.append(self.initialisation_statement(stmt_name, list(ctx.iterators), domain, accesses, body,
                                                       line, col))
        # every element not listed: zero, in a loop nest over new iterators
        n, names = len(ctx.iterators), []
        for _ in sizes:
            names.append(self.fresh_region_name(f"{model}_i"))
            self.local_models.add(names[-1])
        domain = ctx.domain.add_dims(isl.dim_type.set, len(sizes))
        for k, size in enumerate(sizes):
            domain = domain.set_dim_name(isl.dim_type.set, n + k, names[k])
            var = isl.PwAff.var_on_domain(isl.LocalSpace.from_space(domain.get_space()), isl.dim_type.set, n + k)
            zero = isl.PwAff.val_on_domain(isl.Set.universe(domain.get_space()), val(0))
            domain = domain.intersect(var.ge_set(zero)).intersect(
                var.lt_set(size.add_dims(isl.dim_type.in_, len(sizes))))
        for position, _ in listed:
            point = isl.Set.universe(domain.get_space())
            for k, index in enumerate(position):
                point = point.fix_val(isl.dim_type.set, n + k, val(index))
            domain = domain.subtract(point)
        domain = domain.coalesce()
        if not domain.is_empty():
            stmt_name = f"S{len(self.statements)}"
            within = _Context(ctx.iterators + names, domain)
            element = c_ast.ID(name, coord=node.coord)
            for z in names:
                element = c_ast.ArrayRef(element, c_ast.ID(z, coord=node.coord), coord=node.coord)
            domain = domain.set_tuple_name(stmt_name)
            accesses = [self.access(element, "write", within, domain)]
            body = f"{model}{''.join(f'[{z}]' for z in names)} = 0;"
            built = self.initialisation_statement(stmt_name, ctx.iterators + names, domain, accesses, body,
                                                  line, col)
            for k in reversed(range(len(sizes))):
                dims = ", ".join(f"i{j}" for j in range(n + len(sizes)))
                built = _Built(built.schedule.insert_partial_schedule(
                    isl.MultiUnionPwAff(f"[{{ {stmt_name}[{dims}] -> [(i{n + k})] }}]")), built.statements)
            parts.append(built)
        return self.sequence(parts)

    def initialisation_statement(self, stmt_name: str, iterators: list[str], domain: isl.Set,
                                 accesses: list[Access], body: str, line: int, col: int) -> _Built:
        stmt = Statement(stmt_name, list(iterators), domain, accesses, body, line, col)
        self.statements.append(stmt)
        return _Built(isl.Schedule.from_domain(isl.UnionSet.from_set(domain)), [stmt])

    def fresh_region_name(self, base: str, bare: bool = False) -> str:
        """``base0``, ``base1``, ... (``base``, ``base1``, ... when ``bare``): the first
        name used nowhere in the file, its headers or the region."""
        name, k = (base if bare else f"{base}0"), 0
        while self.local_model_name(name) != name or name in self.region_words:
            k += 1
            name = f"{base}{k}"
        return name

    def local_model_name(self, name: str) -> str:
        """``name``, or ``name_1``, ``name_2``, ... when ``name`` may mean something else
        somewhere (in the file outside the region, a header, another local)."""
        def used(candidate: str) -> bool:
            return (candidate in self.outside_names or candidate in self.visible.declarations
                    or candidate in self.macros or candidate in self.macros.header_identifiers
                    or candidate in self.local_models or candidate in self.all_iterators
                    or candidate in self.arrays)
        if not used(name):
            return name
        k = 1
        while used(f"{name}_{k}") or f"{name}_{k}" in self.region_words:
            k += 1
        return f"{name}_{k}"

    def renames_text(self) -> bool:
        """Whether a statement's text must go through local_text: a local is in scope, a
        counter was bumped, or an iterator has an exit value."""
        return any(self.scopes) or bool(self.bumped_texts) or bool(self.exit_values)

    def local_text(self, text: str) -> str:
        """C text of the region rewritten for the scope here: renamed locals under their
        model names, integer aliases replaced by their (parenthesised) expression."""
        mapping: dict[str, str] = dict(self.bumped_texts)
        for scope in self.scopes:
            for name, local in scope.items():
                replacement = local.alias_text if local.alias is not None else local.model
                if replacement != name:
                    mapping[name] = replacement
                else:
                    mapping.pop(name, None)
        declared = {name for scope in self.scopes for name in scope}
        for name in self.exit_values.keys() & set(re.findall(r"[A-Za-z_]\w*", text)) - declared:
            exited = self.exited_iterator(name, record=False)
            if exited is not None:
                mapping[name] = exited.alias_text
        return _replace_identifiers(text, mapping) if mapping else text

    def check_local_uses(self, text: str, node: c_ast.Node) -> None:
        """A local read through a macro body (not an argument) would not be renamed in
        the emitted text: refuse rather than emit code that reads another variable."""
        words = set(re.findall(r"[A-Za-z_]\w*", text))
        # an alias read through another one (int u = x + 1; int v = u + 1; in[v]): v's
        # text is already u's replaced (``((x + 1) + 1)``)
        reached = [local for local in self.used_locals if local.alias is not None and local.name in words]
        while reached:
            local = reached.pop()
            inner = set(re.findall(r"[A-Za-z_]\w*", _GEN.visit(local.alias))) - words
            words |= inner
            reached += [other for other in self.used_locals if other.alias is not None and other.name in inner]
        for local in self.used_locals:
            if (local.alias is not None or local.model != local.name) and local.name not in words:
                if local.name in self.all_iterators and self._exited.get(local.name, (None, None))[1] is local:
                    raise self.error(node, f"the loop iterator '{local.name}' is read after its loop in a macro's "
                                           "body; pass it as an argument")
                raise self.error(node, f"'{local.name}', declared inside the SCoP, is used in a macro's body; "
                                       "pass it as an argument or declare it before '#pragma scop'")
        self.used_locals = []

    def initializer_text(self, node: c_ast.Decl) -> str:
        """The source text of a declarator's initialiser (``e`` in ``double t = e, u;``)."""
        line, col = self.position(c_ast.ID("", coord=node.coord))
        equals, end = hoist.initialiser_span(self.plain, offset_of(self.starts, line, col) + len(node.name),
                                             self.region.end)
        start = equals + 1
        raw = self.text[start:end]
        if raw != self.stripped[start:end]:
            raw = re.sub(r"\s*\n\s*", " ", self.stripped[start:end])
        return join_continuations(raw).strip()

    def declaration_start(self, node: c_ast.Decl) -> tuple[int, int]:
        """Line and column where the declaration containing ``node`` starts (its type)."""
        line, col = self.position(c_ast.ID("", coord=node.coord))
        k = offset_of(self.starts, line, col)
        while k > self.region.start and self.plain[k - 1] not in ";{}":
            k -= 1
        while k < len(self.plain) and self.plain[k].isspace():
            k += 1
        return line_col(self.starts, k)


    def on_fixed(self, name: str, value: int) -> None:
        self.fixed_macros[name] = value

    def on_parameter(self, name: str, value: int | None) -> None:
        if name not in self.parameters:
            self.parameters.append(name)
        if value is not None:
            self.parameter_values[name] = value

    def converter(self, ctx: _Context) -> AffineConverter:
        return AffineConverter(ctx.iterators, ctx.domain, self.macros, self.classify,
                               self.parse_expression, self.on_parameter, self.alias_node, self.on_fixed,
                               on_range=self.on_range, type_of=self.type_of, size_of=self.size_of, table=self.table,
                               enumerator=self.enumerator, on_sizes=self.sizes.update, not_a_table=self.not_a_table)

    def enumerator(self, name: str) -> int | None:
        """The value of enumeration constant ``name``, unless a variable of the region
        hides it."""
        if name in self.all_iterators or any(name in scope for scope in self.scopes):
            return None
        value = self.visible.enumerators.get(name)
        if value is not None:
            self.enumerators_read[name] = value
        return value

    def table(self, name: str) -> tuple[int, ...] | None:
        """The values of ``name`` when it is a table of integer constants nothing writes:
        declared ``const`` before the region with integer literals
        (``Declaration.table``), or in a block of the region and only read there."""
        local = self.resolve(name)
        if local is not None:
            return self.tables.get(local.model)
        decl = self.visible.declarations.get(name)
        if decl is None or decl.table is None:
            return None
        return self.padded_table(decl.table, decl.dims[0], name)

    def not_a_table(self, name: str) -> str:
        """`` ('dx' is not a table of integer constants: why)``, the end of a message
        about ``dx[e]`` where only a table's element could have been read; "" when
        there is nothing to say (an unknown name)."""
        local = self.resolve(name)
        decl = local.decl if local is not None else self.visible.declarations.get(name)
        if decl is None:
            return ""
        if local is None and name in self._written_elements:
            # (helper-59: it said "not declared 'const'" of a size array the region wrote)
            return (f" ('{self.as_written(name)}' is written inside the SCoP, at "
                    f"'{self._written_elements[name]}': only the elements of an array the region never "
                    "writes may be read in its loop bounds, subscripts and conditions)")
        if local is not None:
            why = self.table_refusals.get(local.model, "")
        elif decl.through_pointer:
            why = "it is reached through a pointer, whose elements may change"
        else:
            why = table_shape_refusal(decl) or decl.table_refusal or "its extent is not a constant that holds its list"
        return f" ('{self.as_written(name)}' is not a table of integer constants: {why})" if why else ""

    def padded_table(self, values, extent: str, name: str) -> tuple[int, ...] | None:
        """``values`` and as many zeros as the constant ``extent`` ("": the list's
        length) holds beyond them, None if it is not a constant that holds them."""
        if any(v is None for v in values):
            return None
        size = len(values) if not extent.strip() else self.constant_size(extent, c_ast.ID(name))
        if size is None or size < len(values):
            return None
        return tuple(values) + (0,) * (size - len(values))

    def size_of(self, operand: c_ast.Node) -> int | None:
        """``sizeof operand`` for a type name, or an array (possibly subscripted:
        ``A[0]``) declared with constant sizes outside a parameter list, else None."""
        if isinstance(operand, c_ast.Typename):
            return 8 if isinstance(operand.type, c_ast.PtrDecl) else basic_type_size(operand)
        subscripts = 0
        while isinstance(operand, c_ast.ArrayRef) or (isinstance(operand, c_ast.UnaryOp) and operand.op == "*"):
            # (sizeof *V is sizeof V[0])
            operand, subscripts = operand.name if isinstance(operand, c_ast.ArrayRef) else operand.expr, subscripts + 1
        if not isinstance(operand, c_ast.ID):
            return None
        local = self.resolve(operand.name)
        decl = self.visible.declarations.get(operand.name) if local is None else local.decl
        if decl is None or decl.origin == "param" or subscripts > len(decl.dims):
            return None     # an array parameter is a pointer: sizeof gives 8, a classic bug
        size = type_size(decl.element_type)
        for dim in decl.dims[subscripts:]:
            if set(re.findall(r"[A-Za-z_]\w*", dim)) & self.macros.redefined:
                return None     # its value where the array is declared may not be the region's
            count = self.constant_size(dim, operand) if dim.strip() else \
                len(decl.table) if decl.table is not None else None      # const int w[] = {...}
            if count is None or size is None:
                return None
            size *= count
        return size

    def constant_size(self, text: str, site: c_ast.Node) -> int | None:
        """The value of an array size written as an integer constant expression of
        literals and integer macros (``N + 1``, ``2 * M``), else None."""
        try:
            return self.constant_int(self.parse_expression(text, site))
        except ScopError:
            return None

    def on_range(self, value: isl.PwAff, low: int, high: int) -> None:
        self.pending_ranges.append((value, low, high))

    def assume_in_range(self, evaluated_on: isl.Set) -> None:
        """The ranges the last conversions reported (casts, unsigned arithmetic: see
        `AffineConverter.on_range`), as assumptions: the parameters for which every
        value stays in its range at every point of ``evaluated_on``."""
        ranges, self.pending_ranges = self.pending_ranges, []
        if ranges:
            self.no_wrap.append(in_range(ranges, evaluated_on))

    def affine(self, ctx: _Context, node: c_ast.Node) -> isl.PwAff:
        try:
            value = self.converter(ctx).pw_aff(node)
        except NotAffine as err:
            raise self.error(err.node, err.message) from None
        self.assume_in_range(ctx.domain)
        return value

    def condition(self, ctx: _Context, node: c_ast.Node, evaluated_on: isl.Set | None = None) -> isl.Set:
        """``node`` as a set over ``ctx``'s iterators; the ranges its values must keep
        are assumed at the points of ``evaluated_on`` (default: ``ctx.domain``), or
        left to the caller with ``evaluated_on=False``."""
        try:
            result = self.converter(ctx).condition(node)
        except NotAffine as err:
            raise self.error(err.node, err.message) from None
        if evaluated_on is not False:
            self.assume_in_range(ctx.domain if evaluated_on is None else evaluated_on)
        return result

    # -- the walk -------------------------------------------------------------------
    def build(self) -> Scop | None:
        """The region's Scop, None when it has no statement."""
        body = self.body = self.parse_region()
        declare_block_iterators_in_their_loops(body)
        # (not in the original code an output keeps, nor past '#if's of the region: the
        # line moved before it would be there under every -D)
        if self.region.outer is None and self.preprocessor_guard is None:
            hoisting = hoist.plan(self, body)
            if hoisting is not None:
                first = hoist.top_level_declarations(body)[0]
                raise HoistDeclarations(hoisting, self.error(first, _unsupported(first)))
        self.prescan(body)
        self.pragma_of_loop = self.parallel_pragma_loops(body)
        universe = isl.Set.universe(isl.Space.set_alloc(self.ctx, 0, 0))
        built = self.walk(body, _Context([], universe))
        if built is None:
            return None
        scop = self.finish(built.schedule)
        # 'i * M', 'i % M' were read with M's known value: the model holds for that value
        # only, so the context says so; the emitted code checks it at run time (the
        # original code runs for any other value) like every other assumption.
        for name, value in self.fixed_macros.items():
            pos = scop.context.find_dim_by_name(isl.dim_type.param, name)
            if pos < 0:     # read at its value only (`#define NEG -4` is no size): a literal
                continue
            scop.context = scop.context.fix_val(isl.dim_type.param, pos, val(value))
        return scop

    def prescan(self, node: c_ast.Node) -> None:
        """Names written anywhere in the region, and every loop iterator."""
        self.members_as_variables(node)
        self.elements_as_variables(node)
        outer_loops: set[str] = set()       # iterators of loops that do not declare them
        declaring: dict[str, c_ast.For] = {}    # the first loop declaring each
        for child in _walk_nodes(node):
            target = assignment_target(child)
            if isinstance(target, c_ast.FuncCall) and isinstance(target.name, c_ast.ID):
                # 'N(0) = 2' with '#define N(k) n': what the expansion assigns is written
                target = self.macro_lvalue(target)
            base = target
            while isinstance(base, c_ast.ArrayRef):
                base = base.name
            if base is not target and isinstance(base, c_ast.ID):
                self.array_targets.add(base.name)
            if isinstance(target, c_ast.ID):
                self.written.add(target.name)
                # 'TOT += e' with '#define TOT tot': the variable the macro names is written
                seen = {target.name}
                macro = self.macros.get(target.name)
                while macro is not None and not macro.is_function_like \
                        and re.fullmatch(r"\(*\s*[A-Za-z_]\w*\s*\)*", macro.body.strip()):
                    named = re.search(r"[A-Za-z_]\w*", macro.body).group(0)
                    if named in seen:
                        break
                    seen.add(named)
                    self.written.add(named)
                    macro = self.macros.get(named)
            if isinstance(child, c_ast.For):
                name = _loop_iterator_name(child)
                if name:
                    self.all_iterators.add(name)
                    # 'for (i = 0, j = n - 1; ...)': j is a function of i (induction_variables)
                    hoisted = {part.lvalue.name for part in self.hoisted_starts(child)}
                    self.all_iterators.update(n for n in _loop_variables(child)[1:] if n not in hoisted)
                    if isinstance(child.init, c_ast.DeclList) and child.init.decls:
                        for k, declared in enumerate(child.init.decls):
                            decl = declaration_of(declared, "local")
                            if decl is None:
                                continue
                            if k == 0:
                                declaring.setdefault(declared.name, child)
                            types = self.retyped.setdefault(declared.name, [])
                            # (a typedef as the file's declarations have it: idx_t -> unsigned)
                            c_type = self.integer_type(decl.element_type)
                            if c_type not in types:
                                types.append(c_type)
                    else:
                        outer_loops.add(name)
        for name, types in list(self.retyped.items()):
            if len(types) == 1:
                self.loop_scoped_types[name] = types[0]
                del self.retyped[name]
            else:
                # before the walk (linearised subscripts): a 32-bit unsigned one if any,
                # whose arithmetic wraps soonest
                self.loop_scoped_types[name] = next((t for t in types if integer_kind(t) == (32, False)), types[0])
        # an iterator some loop declares and another uses undeclared is the function's
        # too (for (int i ...) then for (i ...)): alive after the region
        for name in outer_loops & set(self.loop_scoped_types):
            if name in self.retyped:
                raise self.error(declaring[name], f"loops declare '{name}' with several types and another uses "
                                                  f"the '{name}' declared before: rename one")
            declared = self.visible.declarations.get(name)
            if declared is not None and declared.element_type != self.loop_scoped_types[name]:
                raise self.error(declaring[name], f"a loop declares '{name}' as '{self.loop_scoped_types[name]}' and another "
                                       f"uses the '{declared.element_type} {name}' declared before: rename one")
            del self.loop_scoped_types[name]
        # an iterator no declaration names (nor the region's own): the file does not compile
        # (helper-33: Pluto's test excerpts; the output was written, and did not compile)
        in_region = {d.name for d in _walk_nodes(node) if isinstance(d, c_ast.Decl) and d.name}
        for name in sorted(outer_loops - in_region - set(self.loop_scoped_types)):
            loop = next(c for c in _walk_nodes(node) if isinstance(c, c_ast.For) and _loop_iterator_name(c) == name)
            self.check_declared(name, loop)
        # loop increments write their iterator, which is not "data"
        self.written -= self.all_iterators
        for loop in [n for n in _walk_nodes(node) if isinstance(n, c_ast.For)]:
            self.breaks_as_conditions(loop)
        bumps = self.pointer_bumps(node)
        self.cells_of_pointers(node)
        self.calls_inlined(node)
        self.row_pointers_read(node)
        self.pointer_bumps_read(node, bumps)
        if self.split_products:
            self.split_product_loops(node)
        self.linearized = self.linearized_arrays(node)
        self.products_as_parameters(node)
        # a row of a product of sizes, out[c * (w * h) + p]: flat once w * h is one size
        self.linearized.update(self.linearized_arrays(node, skip=set(self.linearized)))

    def macro_lvalue(self, call: c_ast.FuncCall) -> c_ast.ID | None:
        """The variable a function-like macro call assigns to (``N(0)`` with ``#define
        N(k) n``: ``n``; ``AT(j, i)`` with ``#define AT(j, i) A[(i) + (j) * n]``: the
        array ``A``), as an ID; None when it names no macro. When the expansion cannot
        be read, everything the macro reaches counts as written."""
        macro = self.macros.get(call.name.name)
        if macro is None or not macro.is_function_like:
            return None
        args = [_GEN.visit(a) for a in (call.args.exprs if call.args else [])]
        try:
            node = self.parse_expression(self.macros.call_text(macro, args), call)
        except Exception:  # noqa: BLE001 -- unread: assume the worst
            self.written |= self.macros.names_reached(macro.name)
            return None
        while isinstance(node, (c_ast.ArrayRef, c_ast.Cast)) or (isinstance(node, c_ast.UnaryOp)
                                                                 and node.op == "*"):
            node = node.name if isinstance(node, c_ast.ArrayRef) else node.expr
        if isinstance(node, c_ast.ID):
            return node
        self.written |= self.macros.names_reached(macro.name)
        return None

    def members_as_variables(self, body: c_ast.Node) -> None:
        """``img->w``, ``img->data[i]``, ``s.x[i]``: a member of a struct variable (a
        pointer to one, or one) declared before the region is a variable of its own,
        named ``img__w`` in the model (``c_texts`` keeps its C text for the emitted
        code): rewritten so in ``body``. Only members of structs defined at file
        scope, one level deep, the members of an array of them a member points to
        (``s->pos[i].x``: ``s__pos__x[i]``, the array ``s->pos``) and those of a struct
        member (``img->size.h``: ``img__size__h``); the statement's text keeps
        ``img->w``."""
        taken = set(self.region_words) | set(self.visible.declarations) | set(self.macros.macros)
        named: dict[str, str] = {}          # C text (img->w, p[].x) -> the model's name
        bases: set[str] = set()
        # two rounds: s->pos[i].x is s__pos[i].x once s->pos is the variable s__pos
        for second in (False, True):
            for parent in list(_walk_nodes(body)):
                for field, child in parent.children():
                    if not (isinstance(child, c_ast.StructRef) and isinstance(child.field, c_ast.ID)):
                        continue
                    # p[i][j].x: the element of an array of structs; its subscripts stay
                    subscripts, root = [], child.name
                    while isinstance(root, c_ast.ArrayRef) and child.type == ".":
                        subscripts.insert(0, root.subscript)
                        root = root.name
                    if not isinstance(root, c_ast.ID):
                        continue
                    base = self.visible.declarations.get(root.name)
                    # the second round reads s__pos[i].x, and s__size.h (img->size.h: a struct
                    # member of a struct, which the first round made the variable s__size)
                    if second and (root.name not in self.c_texts or root.name in self.members or not (
                            subscripts or (child.type == "." and base is not None and not base.dims))):
                        continue    # (ps[i].inner.n, three levels)
                    through_pointer = child.type == "->"
                    if base is None or (base.dims != ([""] if through_pointer else []) and not subscripts) \
                            or (subscripts and len(base.dims) != len(subscripts)):
                        continue
                    member = self.visible.structs.get(base.element_type, {}).get(child.field.name)
                    if member is None:
                        continue
                    if member.bitfield and (subscripts or _written_there(parent, field)):
                        # its neighbours share its memory location: two threads writing s[i].a
                        # and s[j].b race, and a bit-field has no address for the overlap check
                        what = f"{root.name}[...]{child.type}{child.field.name}" if subscripts else \
                            f"{root.name}{child.type}{child.field.name}"
                        raise self.error(child, f"bit-field '{what}' {'in an array' if subscripts else 'written'}: "
                                                f"it shares its memory with the members next to it, which the "
                                                f"model keeps apart, and has no address")
                    shown = self.c_texts.get(root.name, root.name) if second else root.name
                    text = f"{shown}{'[]' if subscripts else ''}{child.type}{child.field.name}"
                    name = named.get(text)
                    if name is None:
                        name = f"{root.name}__{child.field.name}"
                        while name in taken:
                            name += "_"
                        taken.add(name)
                        named[text] = name
                        if subscripts:
                            # an array of its own (p__x[i] for p[i].x), inside p's memory
                            self.c_texts[name] = self.c_texts.get(root.name, root.name)
                            self.members[name] = (f".{child.field.name}", len(base.dims))
                            declared = Declaration(name, member.element_type, base.dims + member.dims,
                                                   base.origin, base.restrict, base.volatile or member.volatile)
                        else:
                            self.c_texts[name] = text
                            # reached through the struct's pointer, or part of the struct itself
                            origin = "param" if through_pointer else base.origin
                            declared = Declaration(name, member.element_type, list(member.dims), origin,
                                                   member.restrict, base.volatile or member.volatile,
                                                   bitfield=member.bitfield)
                        self.visible.declarations[name] = declared
                    bases.add(root.name)
                    variable = c_ast.ID(name, coord=root.coord)
                    for subscript in subscripts:
                        variable = c_ast.ArrayRef(variable, subscript, coord=root.coord)
                    _set_child(parent, field, variable)
        # a struct copied whole (p[i] = q[i]) is memory its members' variables share
        for node in _walk_nodes(body):
            if isinstance(node, c_ast.ID) and node.name in bases:
                # (helper-80: a list walk, 'while (p) { s += p->v; p = p->next; }', was told
                # this, not that its 'while' is no loop of the model)
                loop = next((n for n in _walk_nodes(body) if isinstance(n, (c_ast.While, c_ast.DoWhile))), None)
                if loop is not None:
                    raise self.error(loop, _unsupported(loop))
                raise self.error(node, f"'{node.name}' is used whole and through its members: its members "
                                       f"are read as variables of their own, which cannot share memory with it")

    def elements_as_variables(self, body: c_ast.Node) -> None:
        """``sz[0]``, ``dims[1][2]``: the elements of an integer array declared before the
        region, which the region reads at constant subscripts only and never writes, are
        variables of their own (``sz__0``; ``c_texts`` keeps ``sz[0]``), so that they may
        bound loops, as ``img->w`` does (`members_as_variables`). Each counts as reached
        through a pointer: the run-time check keeps it apart from every written array."""
        chains: dict[str, list[tuple[c_ast.Node, str, list[int]]]] = {}
        rejected: set[str] = set()
        for parent in list(_walk_nodes(body)):
            for field, child in parent.children():
                if isinstance(child, c_ast.ID) and not (isinstance(parent, c_ast.ArrayRef) and field == "name"):
                    rejected.add(child.name)        # the array used whole (or not an array)
                if not isinstance(child, c_ast.ArrayRef) or (isinstance(parent, c_ast.ArrayRef)
                                                             and field == "name"):
                    continue
                subscripts, root = [], child
                while isinstance(root, c_ast.ArrayRef):
                    value = root.subscript
                    number = int_literal_value(value.value) if isinstance(value, c_ast.Constant) \
                        and value.type == "int" else None
                    subscripts.insert(0, number)
                    root = root.name
                if not isinstance(root, c_ast.ID):
                    continue
                written = _written_there(parent, field) or (isinstance(parent, c_ast.UnaryOp) and parent.op == "&")
                if written:
                    self._written_elements.setdefault(root.name, _GEN.visit(child))
                if None in subscripts or written:
                    rejected.add(root.name)
                else:
                    chains.setdefault(root.name, []).append((parent, field, subscripts))
        taken = set(self.region_words) | set(self.visible.declarations) | set(self.macros.macros)
        for array, uses in sorted(chains.items()):
            base = self.visible.declarations.get(array)
            # (not the rows of a pointer to pointers: p[0][1] reads a pointer from memory)
            # (nor a struct's member array, c->dims: members_as_variables named it c__dims)
            if array in rejected or base is None or base.volatile or array in self.macros or "" in base.dims[1:] \
                    or array in self.c_texts \
                    or any(len(subscripts) != len(base.dims) for _p, _f, subscripts in uses) \
                    or set(base.element_type.split()) & {"float", "double", "struct", "union", "_Complex"} \
                    or base.element_type in self.visible.structs:
                continue
            for parent, field, subscripts in uses:
                text = array + "".join(f"[{k}]" for k in subscripts)
                name = self._element_names.get(text)
                if name is None:
                    name = f"{array}__{'_'.join(str(k) for k in subscripts)}"
                    while name in taken:
                        name += "_"
                    taken.add(name)
                    self._element_names[text] = name
                    self.c_texts[name] = text
                    self.visible.declarations[name] = Declaration(name, base.element_type, [], "param")
                _set_child(parent, field, c_ast.ID(name, coord=getattr(parent, "coord", None)))

    def inline_function(self, name: str) -> tuple[list[str], list[str | None], c_ast.Node] | None:
        """``static inline int at(int y, int x, int w) { return y * w + x; }``: its
        parameter names, their types and its returned expression with C's conversions
        written out, when the function is pure, returns an integer type, takes integer
        parameters only, and is one return of its parameters, integer constants and
        operators. The types are None for ``int`` parameters (which receive int
        arguments unchanged; `inline_round` converts others) and the type's text for
        others: ``size_t idx(size_t i, size_t j, size_t n) { return i * n +
        j; }`` returns ``(size_t) ((size_t) (i) * (size_t) (n) + (size_t) (j))`` with
        the arguments in place, the value C computes, which the subscript reader then
        types as it types the same casts written in the source. Else None."""
        if self.purity.problem(name) is not None:
            return None
        definition = self.one_return(name)
        if definition is None:
            return None
        function, params, value = definition
        if not all(_integer_declarator(p.type) for p in [function] + params):
            return None
        names = [p.name for p in params]
        if not _int_arithmetic_of(value, names):
            return None
        types = [None if _plain_int(p.type) else type_text(p.type) for p in params]
        # (an int result of int parameters is the expression's own value; of others, such
        # as unsigned ones, a conversion: int at(unsigned y, ...) is negative past 2**31)
        if not _plain_int(function.type) or any(types):
            value = _cast_to(type_text(function.type), value)
        return names, types, value

    def one_return(self, name: str) -> tuple[c_ast.Node, list[c_ast.Decl], c_ast.Node] | None:
        """The type, parameters and returned expression of the function ``name`` of this
        file, as the compiler reads it (preprocessed), when its body is one ``return
        e;``; else None (a macro, a variable, or anything else)."""
        from .pure import function_definition
        if name in self.macros or name in self.visible.variables or name not in self.defined_functions():
            return None
        text = function_definition(self.purity.plain, name)
        try:
            ast = c_parser.CParser().parse(self.purity.typedef_line + "\n" + text, filename="<function>")
        except Exception:  # noqa: BLE001 - not read: not inlined
            return None
        definition = ast.ext[-1] if ast.ext else None
        if not isinstance(definition, c_ast.FuncDef) or definition.decl.name != name:
            return None
        function = definition.decl.type
        params = [p for p in (function.args.params if function.args else []) if not isinstance(p, c_ast.Typename)]
        items = definition.body.block_items or []
        if not all(isinstance(p, c_ast.Decl) for p in params) or len(items) != 1 \
                or not isinstance(items[0], c_ast.Return) or items[0].expr is None:
            return None
        return function, params, items[0].expr

    def accessor_function(self, name: str) -> tuple[list[str], int, str, c_ast.Node] | None:
        """``static inline float px(const float *img, int w, int x, int y) { return
        img[y * w + x]; }``, an accessor as image code writes them: its parameter
        names, the position of its pointer parameter, the pointer's element type
        (`type_text`: qualifiers left out) and the subscript, when the function is one
        ``return p[e];`` of its one pointer parameter ``p`` (to an arithmetic type) and
        ``e`` is int arithmetic of its int parameters (`inline_function`'s rules). Such
        a call reads one element and changes nothing: the model reads it as
        ``p[e]`` with the arguments in place, the emitted code calls it as the original
        does. Else None."""
        definition = self.one_return(name)
        if definition is None:
            return None
        function, params, value = definition
        if not (isinstance(value, c_ast.ArrayRef) and isinstance(value.name, c_ast.ID)) \
                or not self.purity.is_scalar(function.type):
            return None
        pointers = [k for k, p in enumerate(params) if isinstance(p.type, c_ast.PtrDecl)]
        if len(pointers) != 1 or params[pointers[0]].name != value.name.name:
            return None
        pointer = params[pointers[0]].type
        if set(pointer.quals or ()) - {"const", "restrict"} or not self.purity.is_scalar(pointer.type):
            return None
        names = [p.name for p in params]
        if not all(_integer_declarator(p.type) for k, p in enumerate(params) if k != pointers[0]) \
                or not _int_arithmetic_of(value.subscript, [n for n in names if n != value.name.name]):
            return None
        types = [None if _plain_int(p.type) else type_text(p.type) for p in params]
        return names, types, pointers[0], type_text(pointer.type), value.subscript

    def calls_inlined(self, body: c_ast.Node) -> None:
        """``b[at(y, x, w)]``: a call of a function `inline_function` reads, in a loop
        header, condition or subscript, becomes its returned expression with the
        arguments in place (``y * w + x``), rewritten so in ``body`` before the flat
        subscripts are read (delinearize.py). The statement's text keeps the call.
        Nested calls (``at(at(i, j, n), 1, 3)``) are inlined from the innermost out:
        each round inlines the calls whose arguments are int arithmetic already."""
        cache: dict[str, tuple[list[str], c_ast.Node] | None] = {}
        accessors: dict[str, tuple | None] = {}
        for _ in range(8):          # (nesting depth read; deeper calls stay calls)
            if not (self.inline_round(body, cache) | self.accessors_inlined(body, accessors)):
                break

    def accessors_inlined(self, body: c_ast.Node, cache: dict) -> bool:
        """``px(img, w, x + 1, y)`` of an accessor (`accessor_function`) with an array
        of its element type and int arguments: ``img[y * w + (x + 1)]`` in ``body``,
        for the model (the statement's text keeps the call). Whether it read one."""
        inlined_any = False
        for parent in list(_walk_nodes(body)):
            for field, child in parent.children():
                if not (isinstance(child, c_ast.FuncCall) and isinstance(child.name, c_ast.ID)):
                    continue
                name = child.name.name
                if name not in cache:
                    cache[name] = self.accessor_function(name)
                args = child.args.exprs if child.args else []
                if cache[name] is None or len(args) != len(cache[name][0]):
                    continue
                names, types, pointer, element, subscript = cache[name]
                array = args[pointer]
                decl = self.visible.declarations.get(array.name) if isinstance(array, c_ast.ID) else None
                if decl is None or self.resolve(array.name) is not None or len(decl.dims) != 1 \
                        or decl.element_type != element:
                    continue
                inlined_any = True
                self.inlined.add(name)
                others = [k for k in range(len(names)) if k != pointer]
                values = self.converted_arguments([names[k] for k in others], [types[k] for k in others],
                                                  [args[k] for k in others])
                index = _with_arguments(subscript, values, child.coord)
                _set_child(parent, field, c_ast.ArrayRef(copy.deepcopy(array), index, coord=child.coord))
        return inlined_any

    def inline_round(self, body: c_ast.Node, cache: dict) -> bool:
        """One round of `calls_inlined`: whether it inlined a call."""
        inlined_any = False
        for position in list(_affine_positions(body)):
            for parent in list(_walk_nodes(position)):
                for field, child in parent.children():
                    if not (isinstance(child, c_ast.FuncCall) and isinstance(child.name, c_ast.ID)):
                        continue
                    name = child.name.name
                    if name not in cache:
                        cache[name] = self.inline_function(name)
                    args = child.args.exprs if child.args else []
                    if cache[name] is None or len(args) != len(cache[name][0]):
                        continue
                    names, types, expr = cache[name]
                    inlined_any = True
                    self.inlined.add(name)
                    values = self.converted_arguments(names, types, args)
                    _set_child(parent, field, _with_arguments(expr, values, child.coord))
        return inlined_any

    def converted_arguments(self, names: list[str], types: list[str | None], args: list[c_ast.Node]) \
            -> dict[str, c_ast.Node]:
        """Each parameter's value in a call of an inlined function: its argument, with
        the conversion C applies to it written out (``(size_t) (i - 1)``) where the
        parameter is not an ``int`` (``types``: None) receiving int arithmetic. (A long
        argument of an int parameter becomes ``(int) (off)``, which the model assumes
        fits an int, checked at run time: helper-16 found it read as ``off``.)"""
        return {n: a if t is None and self.int_valued(a) else _cast_to(t or "int", a)
                for n, t, a in zip(names, types, args)}

    def pointer_bumps(self, body: c_ast.Node) -> dict[str, tuple[c_ast.For, str, int, c_ast.Node, int, c_ast.Node]]:
        """``for (i = 0; i < n; i++) { ...a[j]...; a += m; }``: a pointer that a loop
        of the region steps by a value the region does not change, as row-by-row code
        walks an image or a matrix. Each one found: ``(L, i, c, step, sign, e)`` for
        ``a``, the loop ``L`` over ``i`` from ``c`` (no loop of the region around it, a start that is an integer
        constant, a step of ``+1``), the step (``a += e;``, ``a -= e;``, ``a = a + e;``,
        ``a++``..., one of the statements of ``L``'s body or after the iterator's step in
        its increment, ``i++, a += m``), its sign and ``e`` (integer arithmetic of
        values the region does not write). ``a`` is a pointer declared before the
        region that nothing else in the region assigns. These are no longer written (so
        that ``*a`` is ``a[0]``: `cells_of_pointers`); `pointer_bumps_read` reads their
        uses."""
        loops = [n for n in _walk_nodes(body) if isinstance(n, c_ast.For)]
        nested = {id(inner) for loop in loops for inner in _walk_nodes(loop.stmt) if isinstance(inner, c_ast.For)}
        counts: dict[str, int] = {}       # assignments, and declarations of the name in the region
        for n in _walk_nodes(body):
            target = assignment_target(n)
            if isinstance(target, c_ast.ID) or isinstance(n, c_ast.Decl):
                name = target.name if isinstance(target, c_ast.ID) else n.name
                counts[name] = counts.get(name, 0) + 1
        region_words = set(IDENT_RE.findall(self.plain, self.region.start, self.region.end))
        through_macros = set().union(*(self.macros.names_reached(w) for w in region_words if w in self.macros))
        found = {}
        for loop in loops:
            name = _loop_iterator_name(loop)
            steps = loop.next.exprs if isinstance(loop.next, c_ast.ExprList) else [loop.next]
            items = loop.stmt.block_items or [] if isinstance(loop.stmt, c_ast.Compound) else []
            first = _loop_start(loop)
            # (a 'continue' would skip the step: continues_as_guards)
            if id(loop) in nested or name is None or not _steps_by_one(steps[0], name) or first is None \
                    or any(isinstance(n, (c_ast.Continue, c_ast.Break)) for n in _walk_nodes(loop.stmt)):
                continue
            start: int | None = None
            for step in items + steps[1:]:
                bump = _pointer_step(step)
                if bump is None:
                    continue
                pointer, sign, value = bump
                decl = self.visible.declarations.get(pointer)
                names = {n.name for n in _walk_nodes(value) if isinstance(n, c_ast.ID)}
                if decl is None or decl.dims != [""] or decl.volatile or counts.get(pointer) != 1 \
                        or pointer in self.c_texts or pointer in self.all_iterators or pointer in through_macros \
                        or pointer in self.macros or not self.integer_valued(value) \
                        or names & (self.written | self.all_iterators):
                    continue
                # read only for a loop that steps a pointer: a macro's value read here
                # is pinned in the context (constant_int), which a loop stepping none
                # must not do ('for (j = N - 2; ...; j--)' pinned N = 20 in adi)
                start = self.constant_int(first) if start is None else start
                if start is None:
                    break
                found[pointer] = (loop, name, start, step, sign, value)
        self.written -= set(found)
        return found

    def pointer_bumps_read(self, body: c_ast.Node, bumps: dict) -> None:
        """Each pointer `pointer_bumps` found whose every other use is ``a[x]`` inside its
        loop ``L`` (``for (i = c; ...)``): ``a`` there is ``a + (i - c) * e`` before the
        step and ``a + (i - c + 1) * e`` after it, the value it had on entry to the
        region plus the steps taken. Each use is read as ``a[(long) (i - c) * (long)
        (e) + x]`` in ``body`` (the model's ``a`` is its value on entry, a flat subscript
        read as rows of ``e``), the statements' text reads ``(a + (long) (i - c) *
        (long) (e))`` in place of ``a``, and the step makes no statement. The loops the
        optimized code runs after its statements to leave the iterators at their final
        values (`versioning.iterator_skeleton`) keep the steps: ``a`` ends where it
        would. A pointer used otherwise stays refused where it is stepped."""
        if not bumps:
            return
        parents = {id(child): parent for parent in _walk_nodes(body) for _, child in parent.children()}
        uses: dict[str, list[c_ast.ID]] = {}
        for n in _walk_nodes(body):
            if isinstance(n, c_ast.ID) and n.name in bumps:
                uses.setdefault(n.name, []).append(n)
        for pointer, (loop, name, start, step, sign, value) in bumps.items():
            inside = {id(n) for n in _walk_nodes(loop.stmt)}
            in_step = {id(n) for n in _walk_nodes(step)}
            declarations = {id(n) for decl in self.row_pointers.values() for n in _walk_nodes(decl)}
            named = [n for n in uses[pointer] if id(n) not in in_step and id(n) not in declarations]

            def plain(use: c_ast.ID) -> bool:
                parent = parents.get(id(use))
                above = parents.get(id(parent))
                return id(use) in inside and isinstance(parent, c_ast.ArrayRef) and parent.name is use \
                    and not (isinstance(above, c_ast.ArrayRef) and above.name is parent)

            if not all(plain(use) for use in named):
                self.written.add(pointer)
                continue
            items = (loop.stmt.block_items or []) if isinstance(loop.stmt, c_ast.Compound) else [loop.stmt]
            position = next((k for k, item in enumerate(items) if item is step), len(items))
            extent = f"(long) ({self.as_written(_GEN.visit(value))})"

            def offset_text(taken: int) -> str:
                count = f"(long) {name}" if taken == 0 else f"((long) {name} {'-' if taken > 0 else '+'} {abs(taken)})"
                return f"({pointer} {'+' if sign > 0 else '-'} {count} * {extent})"

            for use in named:
                parent = parents[id(use)]
                item = next(k for k, it in enumerate(items) if id(use) in {id(n) for n in _walk_nodes(it)})
                taken = start - (1 if item > position else 0)
                count = _cast_to("long", c_ast.ID(name, coord=use.coord))
                if taken:
                    count = c_ast.BinaryOp("-" if taken > 0 else "+", count,
                                           c_ast.Constant("int", str(abs(taken))), coord=use.coord)
                moved = _cast_to("long", value)
                for n in _walk_nodes(moved):
                    n.coord = use.coord         # (positions are the use's: the statement's text)
                product = c_ast.BinaryOp("*", count, moved, coord=use.coord)
                parent.subscript = c_ast.BinaryOp("+", product, parent.subscript, coord=use.coord) if sign > 0 \
                    else c_ast.BinaryOp("-", parent.subscript, product, coord=use.coord)
            self.bumped_texts[pointer] = offset_text(start)
            self.bump_steps[id(step)] = (pointer, offset_text(start - 1))
            if not any(item is step for item in items):       # 'i++, a += m': the loop steps i only
                steps = [e for e in loop.next.exprs if e is not step]
                loop.next = steps[0] if len(steps) == 1 else c_ast.ExprList(steps, loop.next.coord)

    def row_pointers_read(self, body: c_ast.Node) -> None:
        """``const double *row = A + i * m;`` in a block of the region, then ``row[j]``:
        a pointer into a one-dimensional array of its element type, declared once with
        ``B + e``, ``B - e``, ``&B[e]`` or ``B``, never assigned, and used only as
        ``row[j]``, where ``e`` is int arithmetic of the iterators of the loops around
        the declaration and of values the region does not write (so it is the same at
        every use in its block). Each use is read as ``B[e + j]`` in ``body`` (before
        the flat subscripts are read as rows), and the declaration as an alias whose
        text, ``(A + i * m)``, replaces ``row`` in the statements (`local_declaration`).
        Any other pointer declaration stays refused there."""
        found: dict[str, tuple[c_ast.Decl, list[str]]] = {}
        declared: dict[str, int] = {}

        def visit(node: c_ast.Node, loops: list[str]) -> None:
            if isinstance(node, c_ast.Decl) and node.name:
                declared[node.name] = declared.get(node.name, 0) + 1
                if isinstance(node.type, c_ast.PtrDecl):
                    found[node.name] = (node, list(loops))
            inner = loops + [n for n in [_loop_iterator_name(node)] if n] if isinstance(node, c_ast.For) else loops
            for _, child in node.children():
                visit(child, inner)

        visit(body, [])
        parents = {id(child): parent for parent in _walk_nodes(body) for _, child in parent.children()}
        named: dict[str, list[c_ast.ID]] = {}       # each candidate's uses, found in one walk
        for n in _walk_nodes(body):
            if isinstance(n, c_ast.ID) and n.name in found:
                named.setdefault(n.name, []).append(n)
        for name, (decl_node, loops) in found.items():
            # (not one that hides a variable of the same name, which the uses outside
            # its block read: session 50, those were read as the row too)
            target = self.row_pointer_target(decl_node, loops) \
                if declared[name] == 1 and name not in self.visible.declarations else None
            if target is None:
                continue
            uses = [(parents[id(n)], n) for n in named.get(name, [])]

            def plain(parent: c_ast.Node, use: c_ast.ID) -> bool:
                """``row[j]``, not ``row`` as a value nor ``row[j][k]``."""
                above = parents.get(id(parent))
                return isinstance(parent, c_ast.ArrayRef) and parent.name is use \
                    and not (isinstance(above, c_ast.ArrayRef) and above.name is parent)

            if not all(plain(parent, use) for parent, use in uses):
                continue        # refused as a pointer declaration (local_declaration)
            array, offset = target
            for parent, child in uses:
                index = parent.subscript
                if offset is not None:
                    moved = copy.deepcopy(offset)
                    for n in _walk_nodes(moved):
                        n.coord = child.coord       # (positions are the use's: the statement's text)
                    index = c_ast.BinaryOp("+", moved, parent.subscript, child.coord)
                parent.name = c_ast.ID(array, coord=child.coord)
                parent.subscript = index
            self.row_pointers[name] = decl_node

    def row_pointer_target(self, node: c_ast.Decl, loops: list[str]) -> tuple[str, c_ast.Node | None] | None:
        """``(B, e)`` of the row pointer ``T *p = B + e;`` (`row_pointers_read`; ``e``
        None for ``B`` alone), else None."""
        pointer = node.type
        if not (isinstance(pointer.type, c_ast.TypeDecl) and isinstance(pointer.type.type, c_ast.IdentifierType)) \
                or set(pointer.quals or ()) - {"restrict", "const"} or "volatile" in (pointer.type.quals or ()) \
                or node.name in self.written or node.init is None:
            return None
        init, offset = node.init, None
        if isinstance(init, c_ast.UnaryOp) and init.op == "&" and isinstance(init.expr, c_ast.ArrayRef):
            init, offset = init.expr.name, init.expr.subscript
        elif isinstance(init, c_ast.BinaryOp) and init.op in ("+", "-"):
            base, offset = init.left, init.right
            right = self.visible.declarations.get(init.right.name) if isinstance(init.right, c_ast.ID) else None
            if init.op == "+" and right is not None and right.dims:         # i * m + A
                base, offset = init.right, init.left
            if init.op == "-":
                offset = c_ast.UnaryOp("-", offset, init.coord)
            init = base
        if not isinstance(init, c_ast.ID) or init.name == node.name:
            return None
        decl = self.visible.declarations.get(init.name)
        if decl is None or len(decl.dims) != 1 or init.name in self.all_iterators \
                or decl.element_type != type_text(pointer.type):
            return None
        if offset is not None:
            names = {n.name for n in _walk_nodes(offset) if isinstance(n, c_ast.ID)}
            if not self.int_valued(offset) or any(n in self.written or (n in self.all_iterators and n not in loops)
                                                  for n in names):
                return None
        return init.name, offset

    def integer_valued(self, expr: c_ast.Node) -> bool:
        """Whether ``expr`` is integer arithmetic (+, -, *, /, % of integer variables,
        integer macros and literals) of any integer type."""
        for node in _walk_nodes(expr):
            if isinstance(node, c_ast.ID):
                if integer_kind(self.type_of(node.name) or "") is None and (
                        node.name not in self.macros or self.macros.integer_value(node.name) is None):
                    return False
            elif isinstance(node, c_ast.Constant):
                if node.type not in INTEGER_CONSTANT_TYPES:
                    return False
            elif not (isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*", "/", "%")) \
                    and not (isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+")):
                return False
        return True

    def int_valued(self, expr: c_ast.Node) -> bool:
        """Whether ``expr`` is int arithmetic (+, -, *, /, % of variables of types that
        promote to int and of int literals): an int parameter then receives it unchanged."""
        for node in _walk_nodes(expr):
            if isinstance(node, c_ast.ID):
                kind = integer_kind(self.type_of(node.name) or "")
                value = self.macros.integer_value(node.name) if node.name in self.macros else None
                if value is not None:
                    if not -2 ** 31 <= value < 2 ** 31:
                        return False
                elif kind is None or kind[0] > 32 or (kind[0] == 32 and not kind[1]):
                    return False
            elif isinstance(node, c_ast.Constant):
                if node.type != "int" or not re.fullmatch(r"\d+", node.value) or int(node.value) >= 2 ** 31:
                    return False
            elif not (isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*", "/", "%")) \
                    and not (isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+")):
                return False
        return True

    # -- flat loops over a product of sizes ---------------------------------------------
    def split_product_loops(self, body: c_ast.Node) -> None:
        """``for (int i = 0; i < P * Q; i++) S(i)``, a flat loop over the product of two
        sizes (`product_factor_kind`), as C over flat buffers clears or scales a whole
        matrix: read as the nest ``for (T i_hi = 0; i_hi < P; i_hi++) for (T i_lo = 0;
        i_lo < Q; i_lo++) S(i_hi * Q + i_lo)``, rewritten so in ``body``, so that next
        to ``A[i * Q + j]`` its ``A[i]`` is ``A[i_hi, i_lo]`` of the same rows of ``Q``
        (else ``P * Q`` is one size, ``P__x__Q``, and ``A[i]`` row 0, column ``i`` under
        the assumption ``i < Q``: ``P * Q <= Q``, which practically no run satisfies).

        ``{ [i_hi, i_lo] -> [i_hi * Q + i_lo] : 0 <= i_hi < P and 0 <= i_lo < Q }`` is a
        bijection onto ``{ [i] : 0 <= i < P * Q }``, in the same order, for ``Q >= 1``;
        for ``P <= 0`` or ``Q = 0`` both loops run nothing, and ``P, Q < 0`` (where
        ``P * Q > 0``) is outside the context, which has every parameter ``>= 0``.
        Only where an array the loop subscripts with ``i`` has rows of ``P`` or ``Q``
        elsewhere: that factor is the inner one, ``Q`` (the right-hand one if both). The
        statements' text reads ``(i_hi * Q + i_lo)`` in place of ``i`` (a name for it
        in the inner loop's body, `loop_aliases`, as an induction variable is): ``i``
        must be declared in its loop (dead after it), a signed integer type at least
        as wide as ``int`` and the factors (the expression has its value and type),
        only read in the body and not through a macro (whose body the text does not
        rename). Other loops stay as they are; a split the model cannot read (``i`` in
        a loop bound: ``i_hi * Q`` is not affine) makes `_build_region` read the
        region again without splitting."""
        declared_inside = {n.name for n in _walk_nodes(body) if isinstance(n, c_ast.Decl)}
        loops = [(n, flat) for n in _walk_nodes(body) if isinstance(n, c_ast.For)
                 for flat in [self.flat_product_loop(n, declared_inside)] if flat is not None]
        for loop, (name, c_type, left, right) in loops:
            rows = self.row_sizes(body, name, loop.stmt)
            if left not in rows and right not in rows:
                continue        # (nothing to be consistent with: A[2 * i] stays one row of 2 P Q)
            outer, inner = (right, left) if left in rows and right not in rows else (left, right)
            hi, lo = self.fresh_iterator(f"{name}_hi"), self.fresh_iterator(f"{name}_lo")

            def flat(coord) -> c_ast.Node:
                return c_ast.BinaryOp("+", c_ast.BinaryOp("*", c_ast.ID(hi, coord=coord), c_ast.ID(inner, coord=coord),
                                                          coord=coord), c_ast.ID(lo, coord=coord), coord=coord)

            for parent in list(_walk_nodes(loop.stmt)):
                for field, child in parent.children():
                    if isinstance(child, c_ast.ID) and child.name == name \
                            and not (isinstance(parent, c_ast.StructRef) and field == "field"):
                        _set_child(parent, field, flat(child.coord))   # (the use's position: the statement's text)

            def counter(var: str, bound: str, stmt: c_ast.Node) -> c_ast.For:
                init = copy.deepcopy(loop.init)         # 'T var = 0': the type of i
                init.decls[0].name = init.decls[0].type.declname = var
                coord = loop.cond.coord
                return c_ast.For(init, c_ast.BinaryOp("<", c_ast.ID(var, coord=coord), c_ast.ID(bound, coord=coord),
                                                      coord=coord),
                                 c_ast.UnaryOp("p++", c_ast.ID(var, coord=coord), coord=coord), stmt, coord=loop.coord)

            inner_loop = counter(lo, inner, loop.stmt)
            nest = counter(hi, outer, inner_loop)
            parent, field = next((p, f) for p in _walk_nodes(body) for f, c in p.children() if c is loop)
            _set_child(parent, field, nest)
            self.loop_aliases[id(inner_loop)] = {name: _Local(name, name, flat(loop.coord),
                                                              f"({hi} * {inner} + {lo})")}
            for var in (hi, lo):
                self.all_iterators.add(var)
                self.loop_scoped_types[var] = c_type

    def flat_product_loop(self, loop: c_ast.For, declared_inside: set[str]) -> tuple[str, str, str, str] | None:
        """``(i, T, P, Q)`` of a loop ``for (T i = 0; i < P * Q; i++)`` that
        `split_product_loops` reads as a nest (or ``P * Q > i``, ``++i``, ``i += 1``), else None."""
        init, cond = loop.init, loop.cond
        if not (isinstance(init, c_ast.DeclList) and len(init.decls) == 1
                and isinstance(init.decls[0].type, c_ast.TypeDecl)):
            return None
        name, start = init.decls[0].name, init.decls[0].init
        if not (isinstance(start, c_ast.Constant) and start.type == "int" and int_literal_value(start.value) == 0
                and _steps_by_one(loop.next, name)):
            return None
        if isinstance(cond, c_ast.BinaryOp) and cond.op == ">":
            cond = c_ast.BinaryOp("<", cond.right, cond.left)
        if not (isinstance(cond, c_ast.BinaryOp) and cond.op == "<" and isinstance(cond.left, c_ast.ID)
                and cond.left.name == name and isinstance(cond.right, c_ast.BinaryOp) and cond.right.op == "*"
                and isinstance(cond.right.left, c_ast.ID) and isinstance(cond.right.right, c_ast.ID)):
            return None
        left, right = cond.right.left.name, cond.right.right.name
        factors = [self.product_factor_kind(f, declared_inside) for f in (left, right)]
        decl = declaration_of(init.decls[0], "local")
        c_type = self.integer_type(decl.element_type) if decl is not None and not decl.dims and not decl.volatile \
            else ""
        kind = integer_kind(c_type)
        if None in factors or kind is None or not kind[1] or kind[0] < max(32, *(f[0] for f in factors)) \
                or name in self.macros:
            return None
        body = list(_walk_nodes(loop.stmt))
        if any(isinstance(n, (c_ast.Break, c_ast.Goto, c_ast.Label, c_ast.Return, c_ast.NamedInitializer))
               or isinstance(n, c_ast.Decl) and n.name == name
               or id(n) in self.bump_steps or isinstance(n, c_ast.ID) and n.name in self.bumped_texts
               for n in body):
            return None
        for parent in body:     # i only read: not assigned, stepped, subscripted or its address taken
            for field, child in parent.children():
                if isinstance(child, c_ast.ID) and child.name == name and (
                        isinstance(parent, c_ast.Assignment) and field == "lvalue"
                        or isinstance(parent, c_ast.UnaryOp) and parent.op in ("++", "--", "p++", "p--", "&")
                        or isinstance(parent, (c_ast.ArrayRef, c_ast.FuncCall)) and field == "name"):
                    return None
        # a macro whose body reads i (#define V (i * 0.5)) would read it in the emitted text,
        # where it is not declared; one that turns its arguments into text (#, ##) would spell it
        for word in {n.name for n in body if isinstance(n, c_ast.ID) and n.name in self.macros}:
            reached = self.macros.names_reached(word)
            if name in reached or any("#" in self.macros.get(m).body for m in reached | {word} if m in self.macros):
                return None
        return name, c_type, left, right

    def row_sizes(self, body: c_ast.Node, name: str, within: c_ast.Node) -> set[str]:
        """The innermost row sizes in ``body`` (``n`` of ``A[i * n + j]``) of the
        one-dimensional arrays that ``within`` subscripts with ``name``."""
        def refs(node: c_ast.Node) -> list[c_ast.ArrayRef]:
            return [ref for ref in self.walk_expanded(node) if isinstance(ref, c_ast.ArrayRef)
                    and isinstance(ref.name, c_ast.ID) and len(getattr(self.visible.declarations.get(ref.name.name),
                                                                       "dims", ())) == 1]

        arrays = {ref.name.name for ref in refs(within)
                  if any(isinstance(n, c_ast.ID) and n.name == name for n in _walk_nodes(ref.subscript))}
        subscripts = [self.expanded(ref.subscript) for ref in refs(body) if ref.name.name in arrays]
        return {size for (size, *more) in iterator_monomials([t for t in subscripts if t is not None],
                                                             self.mentions_iterator) if not more}

    def fresh_iterator(self, base: str) -> str:
        """``base``, ``base1``, ...: the first name the file, its headers and the region
        use nothing else for, an iterator from now on."""
        name = self.fresh_region_name(base, bare=True)
        self.all_iterators.add(name)
        return name

    def product_factor_kind(self, name: str, declared_inside: set[str]) -> tuple[int, bool] | None:
        """The integer kind of ``name`` as a factor of a product of sizes (`integer_kind`),
        or None unless it is a signed integer scalar declared before the region that the
        region does not change (nor declares, nor reads through a pointer or a macro)."""
        decl = self.visible.declarations.get(name)
        if decl is None or decl.dims or decl.volatile or name in self.written or name in declared_inside \
                or name in self.all_iterators or name in self.macros or name in self.c_texts:
            return None         # (not img->w or *np: memory another pointer may write)
        kind = integer_kind(decl.element_type)
        return kind if kind is not None and kind[1] else None

    def products_as_parameters(self, body: c_ast.Node) -> None:
        """``w * h`` in ``for (p = 0; p < w * h; p++)``: a product of values the region
        does not change (signed integer scalars declared before it, and integer
        constants) is one value for the whole region, a parameter of its own named
        ``w__x__h`` in the model, of the product's C type, with ``c_texts`` keeping
        ``(((long long) w) * h)`` for the emitted code (the same value where the source
        computes it, and its range checked at run time like any size). Rewritten so in
        ``body``.
        Unsigned factors are left alone: their product wraps, and compares unsigned."""
        declared_inside = {n.name for n in _walk_nodes(body) if isinstance(n, c_ast.Decl)}

        def factor_kind(name: str) -> tuple[int, bool] | None:
            return self.product_factor_kind(name, declared_inside)

        def widths(e: c_ast.Node) -> list[int] | None:
            """The widths of the variables of ``e`` when it is made of them, integer
            constants, ``+ - *`` and parentheses only; else None."""
            if isinstance(e, c_ast.ID):
                kind = factor_kind(e.name)
                return None if kind is None else [kind[0]]
            if isinstance(e, c_ast.Constant):
                return [] if e.type == "int" and int_literal_value(e.value) is not None else None
            if isinstance(e, c_ast.UnaryOp) and e.op in ("-", "+"):
                return widths(e.expr)
            if isinstance(e, c_ast.Cast):           # (long)w * h: to a signed integer type
                kind = integer_kind(_GEN.visit(e.to_type))
                inner = widths(e.expr)
                return None if kind is None or not kind[1] or inner is None else [kind[0], *inner]
            if isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-", "*"):
                left, right = widths(e.left), widths(e.right)
                return None if left is None or right is None else left + right
            return None

        def holds_product(e: c_ast.Node) -> bool:
            return any(isinstance(n, c_ast.BinaryOp) and n.op == "*" and widths(n.left) and widths(n.right)
                       for n in _walk_nodes(e))

        # (a flat array's subscript, i * n * m + n * m, is delinearize.py's to read)
        def positions() -> list[c_ast.Node]:
            return [n for n in _affine_positions(body)
                    if not (isinstance(n, c_ast.ArrayRef) and array_root(n) in self.linearized)]

        # '#define NPIX (w * h)' used in a bound: the product its expansion holds
        for parent in [n for position in positions() for n in _walk_nodes(position)]:
            for field, child in parent.children():
                if isinstance(child, c_ast.ID) and child.name in self.macros and child.name not in self.macros.redefined:
                    try:
                        expansion = self.macro_expansion(child, child, frozenset())
                    except ScopError:
                        continue
                    if expansion is not None and holds_product(expansion):
                        for n in _walk_nodes(expansion):    # (the statement's text spans the use)
                            n.coord = child.coord
                        _set_child(parent, field, expansion)

        taken = set(self.region_words) | set(self.visible.declarations) | set(self.macros.macros)
        named: dict[str, str] = {}
        for parent in [n for position in positions() for n in _walk_nodes(position)]:
            for field, child in parent.children():
                if not (isinstance(child, c_ast.BinaryOp) and child.op == "*"):
                    continue
                left, right = widths(child.left), widths(child.right)
                if not left or not right:       # a constant factor: affine already
                    continue
                text = self.as_written(_GEN.visit(child))
                name = named.get(text)
                if name is None:
                    # computed in long long: the run-time check evaluates it where the source
                    # may not (under an 'if'), and must not overflow there; where the source
                    # does, it is the same value (or undefined behaviour there already)
                    wide = copy.deepcopy(child)
                    for node in _walk_nodes(wide):
                        if isinstance(node, c_ast.BinaryOp) and node.op == "*":
                            node.left = c_ast.Cast(c_ast.Typename(None, [], None, c_ast.TypeDecl(
                                None, [], None, c_ast.IdentifierType(["long", "long"]))), node.left)
                    words = [w for w in re.findall(r"[A-Za-z_]\w*", text) if w not in _TYPE_WORDS]
                    name = "__x__".join(words)
                    while name in taken:
                        name += "_"
                    taken.add(name)
                    named[text] = name
                    self.c_texts[name] = f"({self.as_written(_GEN.visit(wide))})"
                    self.products.append(name)
                    self.product_factors |= {n.name for n in _walk_nodes(child) if isinstance(n, c_ast.ID)}
                    # int, or the widest factor's type (C's usual arithmetic conversions)
                    c_type = "long" if max(left + right) > 32 else "int"
                    self.visible.declarations[name] = Declaration(name, c_type, [], "param")
                _set_child(parent, field, c_ast.ID(name, coord=child.coord))

    def cells_of_pointers(self, body: c_ast.Node) -> None:
        """``*p`` and ``*(p + e)`` for a pointer ``p`` of one level (``double *sum``, a
        parameter or a variable declared before the region, not changed in it) or a
        one-dimensional array (``double C[40]``: helper-47, refused) are the elements
        ``p[0]`` and ``p[e]``: rewritten so in ``body``, so that they are accesses like
        any other (the overlap check compares them with the arrays a pointer may reach).
        The statement's text keeps ``*p``."""
        def pointer(n: c_ast.Node) -> bool:
            decl = self.visible.declarations.get(n.name) if isinstance(n, c_ast.ID) else None
            return decl is not None and len(decl.dims) == 1 and n.name not in self.written

        def cell(n: c_ast.Node) -> c_ast.ArrayRef | None:
            if not (isinstance(n, c_ast.UnaryOp) and n.op == "*"):
                return None
            split = base_and_offset(n.expr)
            return None if split is None else c_ast.ArrayRef(*split, coord=n.coord)

        def base_and_offset(e: c_ast.Node) -> tuple[c_ast.ID, c_ast.Node] | None:
            """``e`` as ``p + offset`` for one pointer ``p`` added (not subtracted) along
            the sum's spine: ``(A + i) - 1`` is ``A + ((i) - 1)``."""
            if pointer(e):
                return e, c_ast.Constant("int", "0", coord=e.coord)
            if not (isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-")):
                return None
            left = base_and_offset(e.left)
            if left is not None:
                return left[0], c_ast.BinaryOp(e.op, left[1], e.right, coord=e.coord)
            right = base_and_offset(e.right) if e.op == "+" else None
            if right is not None:
                return right[0], c_ast.BinaryOp("+", e.left, right[1], coord=e.coord)
            return None

        values = self.pointed_values(body, pointer)
        for parent in _walk_nodes(body):
            for field, child in parent.children():
                element = cell(child)
                if element is not None and isinstance(element.name, c_ast.ID) and element.name.name in values \
                        and isinstance(child.expr, c_ast.ID):
                    element = c_ast.ID(values[element.name.name], coord=child.coord)
                if element is not None:
                    _set_child(parent, field, element)

    def pointed_values(self, body: c_ast.Node, pointer) -> dict[str, str]:
        """Pointers ``p`` that the region uses only as ``*p`` and never writes through
        (``for (i = 0; i < *np; i++)``): ``*p`` is then a value of its own, named
        ``p__value`` in the model (a size it may bound loops with), reached through a
        pointer (so checked at run time against the arrays the region writes, like
        ``img->w``). Returns ``{p: name}``; ``c_texts`` gets ``(*p)``."""
        whole, other = set(), set()
        for parent in _walk_nodes(body):
            for field, child in parent.children():
                if not (isinstance(child, c_ast.ID) and pointer(child)):
                    continue
                deref = isinstance(parent, c_ast.UnaryOp) and parent.op == "*"
                (whole if deref else other).add(child.name)
        for node in _walk_nodes(body):       # written through: *p = e, (*p)++
            target = assignment_target(node)
            if isinstance(target, c_ast.UnaryOp) and target.op == "*" and isinstance(target.expr, c_ast.ID):
                other.add(target.expr.name)
        taken = set(self.region_words) | set(self.visible.declarations) | set(self.macros.macros)
        values = {}
        for p in sorted(whole - other):
            decl = self.visible.declarations[p]
            name = f"{p}__value"
            while name in taken:
                name += "_"
            taken.add(name)
            values[p] = name
            self.c_texts[name] = f"(*{p})"
            self.visible.declarations[name] = Declaration(name, decl.element_type, [], "param", False, decl.volatile)
        return values

    # -- linearised subscripts (delinearize.py) ------------------------------------------
    def linearized_arrays(self, body: c_ast.Node, skip: set[str] = frozenset()) -> dict[str, list[tuple[str, ...]]]:
        """The one-dimensional arrays the region subscripts with products of sizes
        (``A[i * n + j]``), each with the chain every subscript of it fits (not those
        in ``skip``)."""
        subscripts: dict[str, list[tuple[c_ast.Node, dict[str, str]]]] = {}
        for child, scope in self.walk_expanded_in_scope(body):
            if isinstance(child, c_ast.ArrayRef) and isinstance(child.name, c_ast.ID) \
                    and child.name.name not in skip:
                decl = self.visible.declarations.get(child.name.name)
                if decl is not None and len(decl.dims) == 1:
                    subscripts.setdefault(decl.name, []).append((child.subscript, scope))
        initializers = self.integer_initializers(body)
        chains = {}
        for name, found in subscripts.items():
            nodes = [node for node, _ in found]
            # C computes a subscript in 32-bit unsigned arithmetic modulo 2**32: not the
            # row and column the model would name (64 bits wrap like addresses do)
            # (unless only +, - and * wrap: exact while the address stays below 2**32,
            # which `delinearized` has checked at run time); with the types its iterators
            # have where it is (helper-101: 'for (unsigned j ...)' after the loop was no
            # reason to refuse B[(size_t)(j * n + i)] in 'for (int j ...)')
            wrapping = next((n for n, scope in found if wraps_at_32_bits(n, self.scoped_type_of(scope))
                             and self.modular_kind(n) != (32, False)), None)
            if wrapping is not None:
                self.wrapping_subscripts[name] = wrapping
                continue
            # compound row sizes first ((len - 2) one size); else distributed: the diagonal
            # A[k * (n + 1)] next to A[i * n + j] is row k, column k of rows of n
            for compound in (True, False):
                expanded = [self.expanded(n, compound, locals_=initializers) for n in nodes]
                if any(terms is None for terms in expanded):
                    continue
                chain = chain_of(expanded, self.mentions_iterator)
                if chain is not None and all(grouped(t, chain, self.mentions_iterator, self.size_node) is not None
                                             for t in expanded):
                    chains[name] = chain
                    if not compound:
                        self.distributed.add(name)
                    break
                rows = {m for m in iterator_monomials(expanded, self.mentions_iterator) if len(m) == 1}
                if len(rows) > 1:
                    # rows of n in one subscript, of m in another: the message says so
                    self.mixed_rows[name] = sorted(size for (size,) in rows)
        return chains

    def modular_kind(self, subscript: c_ast.Node) -> tuple[int, bool] | None:
        """unsigned.py's `modular_kind` of ``subscript``, its macros expanded."""
        return modular_kind(subscript, self.type_of, self.unfolded)

    def walk_expanded(self, body: c_ast.Node):
        """The nodes of ``body`` and of the macro expansions in it (``AT(C, i, j)`` with
        ``#define AT(M, i, j) M[(i) * n + (j)]``: the subscript ``C[(i) * n + (j)]``;
        helper-54: C was no linearised array through the macro, and the product i * n
        was refused). An expansion that cannot be read is skipped: the walk of the
        statements reports it."""
        return (node for node, _ in self.walk_expanded_in_scope(body))

    def walk_expanded_in_scope(self, body: c_ast.Node):
        """`walk_expanded`'s nodes, each with ``{name: C type}`` of the iterators that
        the loops around it declare with a type other loops of the region do not give
        them (`retyped`: ``for (int j ...)`` there, ``for (unsigned j ...)`` elsewhere)."""
        stack = [(body, frozenset(), {})]
        while stack:
            node, hide, scope = stack.pop()
            yield node, scope
            try:
                expansion = self.macro_expansion(node, node, hide)
            except (ScopError, NotAffine):
                expansion = None
            if expansion is not None:
                stack.append((expansion, hide | {self.macro_name(node)}, scope))
                continue
            if isinstance(node, c_ast.For) and isinstance(node.init, c_ast.DeclList):
                declared = {d.name: found.element_type for d in node.init.decls if d.name in self.retyped
                            for found in [declaration_of(d, "local")] if found is not None}
                scope = {**scope, **declared} if declared else scope
            stack.extend((child, hide, scope) for _, child in reversed(node.children()))

    def scoped_type_of(self, scope: dict[str, str]):
        """`type_of`, where the iterators of ``scope`` (`walk_expanded_in_scope`) have
        their types there."""
        return lambda name: self.integer_type(scope[name]) if name in scope else self.type_of(name)

    def expanded(self, subscript: c_ast.Node, compound: bool = True, locals_: dict[str, c_ast.Node] | None = None):
        """``subscript`` as delinearize.py's terms (``compound``: a factor that is a sum
        of sizes and constants is one size; ``locals_``: variables declared in the
        region, read as their initialisers)."""
        def unfold(node: c_ast.Node) -> c_ast.Node | None:
            if locals_ and isinstance(node, c_ast.ID) and node.name in locals_:
                return locals_[node.name]
            return self.unfolded(node)

        # in a subscript C computes modulo 2**32 (`modular_kind`), a conversion to a 32-bit
        # type, (unsigned) y of an index helper's parameter, keeps the value modulo 2**32
        # too: read through, as the address check bounds the whole
        modular = self.modular_kind(subscript) == (32, False)
        return expand(subscript, self.is_size, unfold,
                      compound=self.compound_size if compound else (lambda node: None),
                      row_constant=self.row_constant,
                      widening=lambda cast: _widening_cast(cast) or (modular and _cast_width(cast) == 32))

    def integer_initializers(self, body: c_ast.Node) -> dict[str, c_ast.Node]:
        """The integer variables declared once in ``body`` with an initialiser, never
        assigned and not hiding a variable of the same name (``int ih = oh * 2 - 1;``, a
        convolution's input row), by name: the subscripts that use them are rows of the
        sizes their initialisers multiply (``img[(c * H + ih) * W + iw]``). The walk
        reads them as its aliases; one that is no alias there is refused there."""
        declared: dict[str, list[c_ast.Node | None]] = {}
        for node in _walk_nodes(body):
            if isinstance(node, c_ast.Decl) and node.name and isinstance(node.type, c_ast.TypeDecl) \
                    and isinstance(node.type.type, c_ast.IdentifierType) \
                    and integer_kind(" ".join(node.type.type.names)) is not None:
                declared.setdefault(node.name, []).append(node.init)
            elif isinstance(node, c_ast.Decl) and node.name:
                declared.setdefault(node.name, []).append(None)
        # (`prescan` has the names the region assigns, ++ and -- included: self.written,
        # and the loop iterators it took out of them)
        return {name: inits[0] for name, inits in declared.items()
                if len(inits) == 1 and isinstance(inits[0], c_ast.Node) and not isinstance(inits[0], c_ast.InitList)
                and name not in self.written | self.all_iterators and name not in self.visible.declarations}

    def row_constant(self, node: c_ast.Node) -> str | None:
        """The name of a constant row size: a positive literal's digits, or an integer
        macro of positive value by its name (a size of the model like a parameter, so
        the code stays right for any ``-D`` value)."""
        if isinstance(node, c_ast.ID) and node.name in self.macros:
            value = self.macros.integer_value(node.name)
            return node.name if value is not None and value > 0 else None
        return literal_row(node)

    def _integer_constant(self, node: c_ast.Node) -> bool:
        return (isinstance(node, c_ast.Constant) and node.type == "int") or (
            isinstance(node, c_ast.ID) and node.name in self.macros and self.macros.integer_value(node.name) is not None)

    def compound_size(self, node: c_ast.Node) -> str | None:
        """The name of ``node`` as one size of a linearised subscript (delinearize.py)
        when it is a sum of sizes (each possibly times an integer constant) and integer
        constants with at least one size (``len - 2``, ``w - k + 1``, ``2 * w + 2``), or a
        positive constant times a size or such a sum (im2col's rows of ``9 * C``, which
        distributed would be rows of ``C`` that the column ``q < 9 * C`` leaves), each
        term possibly divided by a positive constant (``w / 2``): its C text in
        parentheses; else None."""
        if isinstance(node, c_ast.BinaryOp) and node.op == "*":
            if self.row_constant(node.left) is not None:
                other = node.right
            elif self.row_constant(node.right) is not None:
                other = node.left
            else:
                return None
            if not (isinstance(other, c_ast.ID) and self.is_size(other.name)) and self.compound_size(other) is None:
                return None
            name = f"({_GEN.visit(node)})"
            self.compound_sizes[name] = node
            return name
        if not (isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "/")):
            return None
        sizes = 0
        for leaf in _walk_nodes(node):
            if isinstance(leaf, c_ast.BinaryOp) and leaf.op in ("+", "-"):
                continue
            # a quotient by a positive constant (a pooled image's rows of 'w / 2', a
            # strided output's '(w - 1) / 2 + 1'): C's value, converted as C divides
            if isinstance(leaf, c_ast.BinaryOp) and leaf.op == "/" and self.row_constant(leaf.right) is not None:
                continue
            if isinstance(leaf, c_ast.BinaryOp) and leaf.op == "*" and (
                    self._integer_constant(leaf.left) or self._integer_constant(leaf.right)):
                continue
            if isinstance(leaf, c_ast.UnaryOp) and leaf.op in ("-", "+"):
                continue
            if isinstance(leaf, c_ast.ID) and self.is_size(leaf.name):
                sizes += 1
            elif not self._integer_constant(leaf):
                return None
        if not sizes:
            return None
        name = f"({_GEN.visit(node)})"
        self.compound_sizes[name] = node
        return name

    def size_node(self, name: str) -> c_ast.Node:
        """The expression of the size ``name`` of a linearised subscript (a constant
        row size is named by its digits)."""
        if name.isdigit():
            return c_ast.Constant("int", name)
        return self.compound_sizes.get(name) or c_ast.ID(name)

    def is_size(self, name: str) -> bool:
        """May ``name`` be a size in a linearised subscript (an integer variable the
        region does not write)?"""
        if name in self.all_iterators or name in self.written or name in self.macros \
                or self.enumerator(name) is not None:
            return False
        decl = self.visible.declarations.get(name)
        return decl is not None and decl.is_integer_scalar

    def mentions_iterator(self, node: c_ast.Node) -> bool:
        return any(isinstance(n, c_ast.ID) and n.name in self.all_iterators for n in _walk_nodes(node))

    def unfolded(self, node: c_ast.Node) -> c_ast.Node | None:
        """The parsed expansion of a macro use in a subscript (``IDX(i, j)``), else None."""
        try:
            return self.macro_expansion(node, node, frozenset())
        except ScopError:
            return None

    def delinearized(self, subscript: c_ast.Node, chain: list[tuple[str, ...]], ctx: "_Context",
                     name: str, site: c_ast.Node | None) -> list[isl.PwAff]:
        """The subscripts ``(a0, a1, ...)`` of the linearised ``subscript`` of ``name``,
        assuming ``0 <= a_k < size_k`` for the inner ones wherever it is evaluated."""
        groups = grouped(self.expanded(subscript, name not in self.distributed), chain, self.mentions_iterator,
                         self.size_node)
        converter = self.converter(ctx)
        pieces = []
        for group in groups:
            try:
                pieces.append(converter.pw_aff(group, site))
            except NotAffine as err:
                raise self.error(site or err.node or subscript, f"non-affine subscript '{_GEN.visit(subscript)}' "
                                                                f"of '{name}': {err.message}") from None
            self.assume_in_range(ctx.domain)
        zero = converter.constant(0)
        extents = [converter.pw_aff(self.size_node(size)) for size in dimension_sizes(chain)]

        def holds(candidate: list[isl.PwAff]) -> isl.Set:
            """The parameters for which every inner subscript stays in its row."""
            outside = ctx.domain.empty(ctx.domain.get_space())
            for piece, extent in zip(candidate[1:], extents):
                outside = outside.union(piece.lt_set(zero).union(piece.ge_set(extent)).intersect(ctx.domain))
            return outside.params().complement()

        # The address is the same for every split into row and column, but only one
        # keeps the column in its row: `px[y * w + w - 1 - x]` groups as row `y + 1`,
        # column `-1 - x`, which holds for no run; borrowing one row gives `(y, w - 1 - x)`.
        best, best_holds = pieces, holds(pieces)
        if not best_holds.is_equal(best_holds.universe(best_holds.get_space())) and len(extents) <= 3:
            for deltas in itertools.product((0, -1, 1), repeat=len(extents)):
                candidate = list(pieces)
                for k, (delta, extent) in enumerate(zip(deltas, extents)):
                    if delta:
                        candidate[k] = candidate[k].add(converter.constant(delta))
                        candidate[k + 1] = candidate[k + 1].sub(extent if delta > 0 else extent.neg())
                candidate_holds = holds(candidate)
                if best_holds.is_strict_subset(candidate_holds):
                    best, best_holds = candidate, candidate_holds
        if not any(piece.affine_hull().plain_is_universe()
                   for piece in best_holds.intersect(ctx.domain.params()).get_basic_sets()):
            # Where the column leaves its row in some iterations of every run but
            # degenerate ones (`D[i * n + j - 1]` at j = 0 is `D[i - 1, n - 1]` unless
            # n = 1), the split is piecewise:
            # each column, innermost first, borrows a row where it is negative and gives
            # one back past its extent. A split that holds for some runs is kept, its
            # condition checked at run time: BLAS's `C[i * ldc + j]` for j < n assumes
            # n <= ldc (distinct rows, so the i loop is parallel) where the piecewise
            # split had rows overlap for n <= 2 ldc, with the i loop sequential.
            candidate = list(pieces)
            for k in range(len(extents), 0, -1):
                column, extent = candidate[k], extents[k - 1]
                below = column.lt_set(zero)
                above = column.ge_set(extent)
                inside = below.union(above).complement()
                candidate[k] = (column.intersect_domain(inside)
                                .union_max(column.add(extent).intersect_domain(below))
                                .union_max(column.sub(extent).intersect_domain(above)))
                row = candidate[k - 1]
                candidate[k - 1] = (row.intersect_domain(inside)
                                    .union_max(row.add(converter.constant(-1)).intersect_domain(below))
                                    .union_max(row.add(converter.constant(1)).intersect_domain(above)))
            candidate = [piece.coalesce() for piece in candidate]
            candidate_holds = holds(candidate)
            if best_holds.is_strict_subset(candidate_holds):
                best, best_holds = candidate, candidate_holds
        self.no_wrap.append(best_holds)
        if wraps_at_32_bits(subscript, self.type_of):
            self.bound_address(best[0], extents, ctx.domain)
        return best

    def bound_address(self, row: isl.PwAff, extents: list[isl.PwAff], domain: isl.Set) -> None:
        """Assume the address ``row * prod(extents) + (columns)`` of a subscript that C
        computes in 32-bit unsigned arithmetic (`linearized_arrays`) lies in [0, 2**32)
        wherever ``domain`` evaluates it, which makes C's value the exact one: ``row >= 0``
        joins the context, and ``(max row + 1) * prod(extents) <= 2**32``, which is not
        affine, is checked by the emitted code (``Scop.address_bounds``). The columns
        are within their extents already (`delinearized`'s assumption)."""
        zero = isl.PwAff.val_on_domain(isl.Set.universe(domain.get_space()), val(0))
        self.no_wrap.append(domain.intersect(row.lt_set(zero)).params().complement())

        def over_params(value: isl.PwAff, on: isl.Set) -> isl.PwAff:
            return isl.Map.from_pw_aff(value.intersect_domain(on)).range().dim_max(0)

        highest = over_params(row, domain)
        # -1 where the subscript is never evaluated: nothing to check there
        none = isl.PwAff.val_on_domain(isl.Set.universe(highest.get_domain_space()), val(-1))
        universe = isl.Set.universe(domain.get_space())
        self.address_bounds.append((highest.union_max(none).coalesce(),
                                    tuple(over_params(e, universe).coalesce() for e in extents)))

    def walk(self, node: c_ast.Node, ctx: _Context) -> _Built | None:
        if isinstance(node, c_ast.Compound):
            nested = node is not self.body
            if nested:
                self.scopes.append({})
            try:
                return self.sequence([self.walk(item, ctx) for item in (node.block_items or [])])
            finally:
                if nested:
                    # a variable of the block is not the one of the same name after it
                    for declared in self.scopes.pop():
                        self.exit_values.pop(declared, None)
        if isinstance(node, c_ast.Decl) and len(self.scopes) > 1:
            return self.local_declaration(node, ctx)
        if isinstance(node, c_ast.For):
            # (the position walks the loop: only looked up when the region has such pragmas)
            pragma = self.pragma_of_loop.pop(self.position(node)[0], None) if self.pragma_of_loop else None
            first = len(self.statements)
            built = self.walk_for(node, ctx)
            if pragma is not None:
                self.user_parallel_loops.append(UserParallelLoop(
                    *pragma, len(ctx.iterators), tuple(stmt.name for stmt in self.statements[first:]),
                    tuple(_undeclared_inner_iterators(node))))
            return built
        if isinstance(node, c_ast.If):
            if self.is_data_condition(ctx, node.cond):
                if _has_loop(node):
                    return self.data_test_over_loops(node, ctx)
                return self.conditional_statement(node, ctx)
            cond = self.condition(ctx, node.cond)
            self.assume_no_wrap(node.cond, ctx.iterators, ctx.domain)
            before = dict(self.exit_values)
            then = self.walk(node.iftrue, _Context(ctx.iterators, ctx.domain.intersect(cond)))
            after_then, self.exit_values = self.exit_values, dict(before)     # (the else runs instead)
            other = None
            if node.iffalse is not None:
                other = self.walk(node.iffalse, _Context(ctx.iterators, ctx.domain.intersect(cond.complement())))
            self.exit_values = self.merged_exit_values(after_then, self.exit_values, cond, ctx)
            return self.sequence([then, other])
        if id(node) in self.bump_steps:         # 'a += m;' (pointer_bumps_read): a is read further on
            pointer, text = self.bump_steps[id(node)]
            self.bumped_texts[pointer] = text
            return None
        if isinstance(node, (c_ast.Assignment, c_ast.UnaryOp)) and (
                isinstance(node, c_ast.Assignment) or node.op in ("++", "--", "p++", "p--")):
            self.check_not_a_pointer_step(node)
            built = self.statement(node, ctx)
            constant = self.region_constant(node, ctx)
            if constant is not None:
                self.scopes[0][constant.name] = constant
            return built
        if isinstance(node, c_ast.ExprList):
            return self.comma_statements(node, ctx)
        if isinstance(node, c_ast.EmptyStatement):
            return None
        raise self.error(node, _unsupported(node))

    def check_not_a_pointer_step(self, node: c_ast.Node) -> None:
        """A pointer stepped as `pointer_bumps_read` does not read: a clear error."""
        step = _pointer_step(node)
        decl = self.visible.declarations.get(step[0]) if step is not None and self.resolve(step[0]) is None \
            else None
        if decl is not None and decl.dims == [""]:
            name = step[0]
            raise self.error(node, f"'{name}' is a pointer a loop steps, read only when that loop starts at a "
                                   f"constant, steps by 1 and is in no other loop of the region, '{name}' is "
                                   f"used only as '{name}[e]' inside it, and the step is integer arithmetic of values "
                                   f"the region does not change (else step an index: '{name}[i * m + j]')")

    def comma_statements(self, node: c_ast.ExprList, ctx: _Context) -> _Built | None:
        """``t = A[i], A[i] = B[i], B[i] = t;``: C evaluates the operands of ``,`` one
        after the other, as the statements ``t = A[i];`` ``A[i] = B[i];`` ``B[i] = t;``."""
        for part in node.exprs:
            simple = isinstance(part, c_ast.Assignment) and not isinstance(part.rvalue, c_ast.Assignment) \
                or isinstance(part, c_ast.UnaryOp) and part.op in ("++", "--", "p++", "p--")
            if not simple:
                raise self.error(part, f"'{_GEN.visit(part)}' in a comma expression: only assignments "
                                       f"'x = e' and '++'/'--' can be its operands")
        start = self.statement_span(node)[0]
        if self.plain[start] == "(":
            raise self.error(node, "parenthesised comma expression as a statement (write the assignments "
                                   "as statements of their own)")
        return self.sequence([self.statement(part, ctx, operand=True) for part in node.exprs])

    def sequence(self, parts: list[_Built | None]) -> _Built | None:
        parts = [p for p in parts if p is not None]
        if not parts:
            return None
        result = parts[0]
        for part in parts[1:]:
            result = _Built(result.schedule.sequence(part.schedule), result.statements + part.statements)
        return result

    def walk_for(self, node: c_ast.For, ctx: _Context) -> _Built | None:
        """The loop ``node``; where loops of the region declare its iterators with
        different types, walked under this loop's types, which its statements record
        (``Statement.iterator_types``): the emitted code converts the counters to them."""
        name = _loop_iterator_name(node)
        if name and not isinstance(node.init, c_ast.DeclList) and self.resolve(name) is not None:
            # (the block's variable counts, and keeps its last value after the loop:
            # not the model's iterator of that name)
            raise self.error(node, f"loop over '{name}', a variable that a block of the region declares and uses "
                                   f"outside its loops: declare the iterator before '#pragma scop' or in its loop, "
                                   f"'for (int {name} = ...'")
        declared = {}
        if isinstance(node.init, c_ast.DeclList):
            for decl in node.init.decls:
                found = declaration_of(decl, "local") if decl.name in self.retyped else None
                if found is not None:
                    declared[decl.name] = found.element_type
        if not declared:
            return self.walk_loop(node, ctx)
        saved = {name: self.loop_scoped_types[name] for name in declared}
        self.loop_scoped_types.update(declared)
        try:
            built = self.walk_loop(node, ctx)
        finally:
            self.loop_scoped_types.update(saved)
        for stmt in built.statements if built is not None else []:
            for name, c_type in declared.items():
                stmt.iterator_types.setdefault(name, c_type)
        return built

    def walk_loop(self, node: c_ast.For, ctx: _Context) -> _Built | None:
        hoisted = self.hoisted_starts(node)
        if hoisted:
            # 'for (i = 0, s = 1.0; ...)': s = 1.0 runs once, before the first test, as
            # the statement before the loop it is (helper-45: it was refused)
            rest = [part for part in node.init.exprs if part not in hoisted]
            loop = c_ast.For(rest[0] if len(rest) == 1 else c_ast.ExprList(rest, node.init.coord),
                             node.cond, node.next, node.stmt, node.coord)
            return self.sequence([*(self.statement(part, ctx, operand=True) for part in hoisted),
                                  self.walk_loop(loop, ctx)])
        name, init = self.loop_init(node)
        if name in ctx.iterators:
            raise self.error(node, f"loop iterator '{name}' shadows the iterator of an enclosing loop")
        if name in self.c_texts:     # st.i, p->i, sz[0], read as variables of their own
            raise self.error(node, f"loop iterator '{self.c_texts[name]}' is not a plain variable (only those "
                                   f"are renamed in the optimized loops)")
        self.check_not_modified(node.stmt, name)
        iterator_range = integer_range(self.type_of(name) or "")
        # 'for (i = n; i-- > b;)': the condition tests i, then steps it down; the body
        # sees n - 1 down to b. Modelled as 'for (i = n - 1; i >= b; i--)', whose
        # iterator is the value the body sees; the tests are on that value plus one.
        post_bound = self.post_decrement_bound(node, name, iterator_range)
        if post_bound is None:
            self.check_not_modified(node.cond, name)
            step = self.loop_step(node, name)
        else:
            step = -1
        # (the flat iterator of a loop over a product of sizes, split_product_loops)
        counters, counter_values = self.induction_variables(node, name, init, step, ctx)
        induction = {**counters, **self.loop_aliases.get(id(node), {})}
        if not induction:
            return self.walk_for_iterator(node, ctx, name, init, step, iterator_range, post_bound)
        self.scopes.append(induction)
        try:
            built = self.walk_for_iterator(node, ctx, name, init, step, iterator_range, post_bound)
        finally:
            self.scopes.pop()
        known = self.exit_values.get(name)
        if known is not None and known[0] == tuple(ctx.iterators):
            # j = j0 + (i - i0) * factor holds after the loop too, at i's exit value
            # ('for (i = 0, j = 5; i < n; i++, j += 2) ...; last = j;')
            for other, (start, first, factor) in counter_values.items():
                self.exit_values[other] = (known[0], _counter_value(start, first, factor, known[1]))
        return built

    def hoisted_starts(self, node: c_ast.For) -> list[c_ast.Assignment]:
        """The assignments after the first of a loop's start (``i = 0, s = 1.0``) to a
        scalar that is no counter: not a signed integer (those are the loop's other
        counters, ``induction_variables``), never stepped by the increment, and set from
        nothing the start sets. Each runs once before the first test, whatever the
        order: the statements before the loop."""
        if not isinstance(node.init, c_ast.ExprList) or len(node.init.exprs) < 2 \
                or not all(isinstance(part, c_ast.Assignment) and isinstance(part.lvalue, c_ast.ID)
                           for part in node.init.exprs):
            return []
        names = _loop_variables(node)
        stepped = {n.name for n in _walk_nodes(node.next) if isinstance(n, c_ast.ID)} if node.next else set()
        hoisted = []
        for k, part in enumerate(node.init.exprs[1:], start=1):
            decl = self.visible.declarations.get(part.lvalue.name)
            # (a start before it reading it, 'i = s, s = 1.0', would read the value set)
            read_before = any(isinstance(n, c_ast.ID) and n.name == part.lvalue.name
                              for earlier in node.init.exprs[:k] for n in _walk_nodes(earlier.rvalue))
            if part.op != "=" or part.lvalue.name in stepped or decl is None or decl.dims or read_before \
                    or _is_signed_integer(decl.element_type) \
                    or any(isinstance(n, c_ast.ID) and n.name in names for n in _walk_nodes(part.rvalue)):
                continue
            hoisted.append(part)
        return hoisted

    def induction_variables(self, node: c_ast.For, name: str, init: c_ast.Node | None, step: int,
                            ctx: _Context) -> tuple[dict[str, _Local], dict[str, tuple[isl.PwAff, isl.PwAff, int]]]:
        """``for (i = 0, j = n - 1; i < j; i++, j--)``: the variables after the first,
        each an affine function of the iterator (``j = n - 1 - i``), as aliases the
        loop's condition and body read (their text replaced by the function's); and for
        each, that function as ``(j0, i0, factor)``, PwAffs on the loop's outer domain
        (its exit value from the iterator's: _counter_value)."""
        names = _loop_variables(node)[1:]
        steps = node.next.exprs[1:] if isinstance(node.next, c_ast.ExprList) else []
        if not names:
            if steps:
                raise self.error(steps[0], f"loop increment changes more than '{name}'")
            return {}, {}
        if isinstance(node.init, c_ast.DeclList):
            starts = {d.name: (d.init, declaration_of(d, "local")) for d in node.init.decls[1:]}
        else:
            starts = {p.lvalue.name: (p.rvalue if p.op == "=" else None, self.visible.declarations.get(p.lvalue.name))
                      for p in node.init.exprs[1:]}
        if abs(step) != 1 or init is None:
            raise self.error(node.next, f"a loop setting several variables must step '{name}' by 1")

        def before_loop(expression: c_ast.Node) -> str:
            """C text of a value computed before the loop (an iterator read after its
            loop as its exit value: helper-75, 'for (k = 0, j = i; ...)' read the
            optimized code's stale i)."""
            return self.local_text(self.as_written(_GEN.visit(expression)))

        aliases, values = {}, {}
        for other in names:
            start, decl = starts[other]
            stepping = [e for e in steps if any(isinstance(n, c_ast.ID) and n.name == other for n in _walk_nodes(e))]
            if start is None or len(stepping) > 1 or isinstance(start, c_ast.InitList):
                raise self.error(node.init, f"'{other}' in the loop over '{name}' must be set ('{other} = e') and "
                                            f"stepped by a constant in the increment at most once")
            if decl is None or decl.dims or not _is_signed_integer(decl.element_type):
                if any(isinstance(n, c_ast.ID) and n.name in names + [name] for n in _walk_nodes(start)):
                    # (else it would run before the loop: hoisted_starts)
                    raise self.error(start, f"the start of '{other}' reads a variable the same loop sets")
                if not stepping and not isinstance(node.init, c_ast.DeclList):
                    # (helper-45: 'for (i = 0, s = 1.0; ...)' with a double s was called a counter)
                    raise self.error(node.init, f"'{other}' is set in the loop's start and never stepped: only "
                                                f"counters are set there in a region; write "
                                                f"'{other} = {_GEN.visit(start)};' before the loop")
                raise self.error(node.init, f"'{other}', set with the iterator '{name}', must be a signed integer "
                                            f"(int or wider) declared before the region or in the loop")
            if any(isinstance(n, c_ast.ID) and n.name in names + [name] for n in _walk_nodes(start)):
                raise self.error(start, f"the start of '{other}' reads a variable the same loop sets")
            self.check_not_modified(node.stmt, other)
            self.check_not_modified(node.cond, other)
            start_pa = self.affine(ctx, start)      # (a clear error if it is not affine)
            # j = j0 + (i - i0) * factor (a variable the increment does not step is j0)
            factor = self.step_of(stepping[0], other, node) * step if stepping else 0
            values[other] = (start_pa, self.affine(ctx, init), factor)
            # in j's type, as j is set and stepped (helper-51: 'long j' read as int
            # arithmetic, j * 1000000000 overflowed)
            c_type = decl.element_type
            if factor:
                constant = c_ast.Constant("int", str(abs(factor)))
                alias = c_ast.BinaryOp("+" if factor > 0 else "-", start, c_ast.BinaryOp(
                    "*", c_ast.BinaryOp("-", c_ast.ID(name), init), constant))
                text = f"((({c_type}) ({before_loop(start)})) {'+' if factor > 0 else '-'} " \
                       f"((({c_type}) {name}) - (({c_type}) ({before_loop(init)}))) * {abs(factor)})"
            else:
                alias, text = start, f"(({c_type}) ({before_loop(start)}))"
            # (emitted C: the model's names as the source writes them, w__x__h as (w * h))
            aliases[other] = _Local(other, other, self.converted(alias, c_type, node), self.as_written(text))
        unknown = [e for e in steps if not any(isinstance(n, c_ast.ID) and n.name in names for n in _walk_nodes(e))]
        if unknown:
            raise self.error(unknown[0], f"loop increment changes a variable the loop does not set")
        return aliases, values

    def walk_for_iterator(self, node: c_ast.For, ctx: _Context, name: str, init: c_ast.Node | None, step: int,
                          iterator_range: tuple[int, int] | None, post_bound: c_ast.Node | None) -> _Built | None:
        """The loop over ``name`` (walk_for, once its variables are known)."""
        if node.cond is None:
            raise self.error(node, f"loop over '{name}' has no condition (unbounded loop)")
        if init is None:            # 'for (; i < n; i++)': where the last loop over i left it
            known = self.exit_values.get(name)
            if known is None or known[0] != tuple(ctx.iterators):
                raise self.error(node, f"loop over '{name}' has no start: a remainder loop 'for (; {name} ...)' "
                                       f"must follow a loop over '{name}' in the same block")
            init_pa = known[1]
        else:
            init_pa = self.affine(ctx, init)
            # the start value is converted to the iterator's type ('unsigned char v = n'
            # starts at n % 256): the model holds where it fits; casts inside it likewise
            if iterator_range is not None and not self.fits(init, iterator_range):
                self.on_range(init_pa, *iterator_range)
        self.assume_in_range(ctx.domain)
        n = len(ctx.iterators)
        # the variables loops in the body set: an exit value from before this loop is
        # not what its condition (tested again after each iteration) or its body sees
        # once one of them ran (exited_iterator; its start is read once, before)
        self.loop_sets.append((n, {v for loop in _walk_nodes(node.stmt) if isinstance(loop, c_ast.For)
                                   for v in _set_by(loop)}))
        try:
            return self.walk_loop_from(node, ctx, name, init_pa, step, iterator_range, post_bound)
        finally:
            self.loop_sets.pop()

    def walk_loop_from(self, node: c_ast.For, ctx: _Context, name: str, init_pa: isl.PwAff, step: int,
                       iterator_range: tuple[int, int] | None, post_bound: c_ast.Node | None) -> _Built | None:
        """The loop over ``name`` from ``init_pa`` (walk_for_iterator, once its start is
        known): its domain, its exit value, its body."""
        n = len(ctx.iterators)
        domain = ctx.domain.add_dims(isl.dim_type.set, 1).set_dim_name(isl.dim_type.set, n, name)
        inner = _Context(ctx.iterators + [name], domain)
        if post_bound is not None:
            tested_cond = c_ast.BinaryOp(">", c_ast.ID(name), post_bound, node.cond.coord)     # on the value + 1
            loop_cond = c_ast.BinaryOp(">=", c_ast.ID(name), post_bound, node.cond.coord)
            init_pa = init_pa.add(isl.PwAff.val_on_domain(isl.Set.universe(init_pa.domain().get_space()), val(-1)))
        else:
            loop_cond = self.not_equal_bound(node.cond, name, step, ctx, init_pa)
        for cmp in _walk_nodes(loop_cond):
            # any other 'i != N' is rejected (the message is clearer than the
            # monotonicity failure it would cause below); 'a[i] != 0' reads data, which
            # self.condition refuses as such
            parts = list(_walk_nodes(cmp))
            if isinstance(cmp, c_ast.BinaryOp) and cmp.op == "!=" and any(
                    isinstance(n, c_ast.ID) and n.name == name for n in parts) and not any(
                    isinstance(n, (c_ast.ArrayRef, c_ast.FuncCall, c_ast.StructRef)) for n in parts):
                raise self.error(cmp, f"loop condition with '!=' on the iterator '{name}' is supported only "
                                      f"as the whole condition of a loop stepping by 1 (write '<' or '>' instead)")
        cond = self.condition(inner, loop_cond, evaluated_on=False)    # ranges: where tested, below
        if not cond.involves_dims(isl.dim_type.set, n, 1):
            raise self.error(node.cond, f"loop condition does not bound the iterator '{name}'")
        var = isl.PwAff.var_on_domain(isl.LocalSpace.from_space(domain.get_space()), isl.dim_type.set, n)
        init_ext = init_pa.add_dims(isl.dim_type.in_, 1)
        start = var.ge_set(init_ext) if step > 0 else var.le_set(init_ext)
        progression = start
        if abs(step) > 1:
            progression = start.intersect(var.sub(init_ext).mod_val(val(abs(step))).zero_set())
        # The loop runs while the condition holds; the domain is {i >= init : cond(i)} only
        # if the condition, once false, stays false along the progression.
        shift = isl.Map(_shift_map_text(n + 1, step))
        previous_ok = cond.apply(shift)             # { i : cond(i - step) }
        earlier = var.sub(isl.PwAff.val_on_domain(isl.Set.universe(domain.get_space()), val(step)))
        earlier_started = earlier.ge_set(init_ext) if step > 0 else earlier.le_set(init_ext)
        witness = domain.intersect(progression).intersect(earlier_started).intersect(cond) \
            .subtract(previous_ok)
        if not witness.intersect_params(positive_parameters(witness.get_space())).is_empty():
            breaks = self.folded_breaks.get(id(node))
            if breaks:          # (helper-101: the error pointed at the 'i < n' the user wrote)
                test = _GEN.visit(breaks[0].cond)
                raise self.error(breaks[0], f"'if ({test}) break;' is read as part of the loop's condition, "
                                            f"'!({test})', which is not monotone in '{name}' (it becomes true again "
                                            "after being false): write the bound the break sets into the loop's "
                                            "condition")
            raise self.error(node.cond, f"loop condition is not monotone in '{name}' (it becomes true again "
                                        "after being false), which a polyhedral domain cannot express")
        witness = witness.intersect_params(parameters_at_least(witness.get_space(), 0))
        if not witness.is_empty():      # monotone only where its parameters are >= 1
            self.sizes.update(parameter_names(witness))
        inner.domain = domain.intersect(progression).intersect(cond)
        # (and the loop's other variables: 'for (i = 0, j = n - 1; ...; i++, j--)' leaves
        # j at a value no earlier loop over j did)
        for variable in _set_by(node) | {name}:
            self.exit_values.pop(variable, None)
        if step == -1 and iterator_range is not None and iterator_range[0] == 0 and not inner.domain.is_bounded():
            # 'for (unsigned i = n - 1; i < n; i--)': below 0, i wraps around to its
            # type's largest value, where the condition must fail (an assumption,
            # checked at run time); the loop ends there
            if iterator_range[1] < 2 ** 62:     # 64-bit: versioning keeps sizes below 2**56
                top = isl.PwAff.val_on_domain(isl.Set.universe(domain.get_space()), val(iterator_range[1]))
                self.no_wrap.append(domain.intersect(var.eq_set(top)).intersect(cond).params().complement())
            inner.domain = inner.domain.intersect(var.nonneg_set())
            exit_value = isl.PwAff.val_on_domain(ctx.domain, val(iterator_range[1]))
            tested = domain.intersect(var.eq_set(init_ext)).union(inner.domain.apply(shift)) \
                .intersect(var.nonneg_set())
        else:
            # the first value along the progression where the condition fails (it
            # stays false after: checked above): the iterator's value after the loop
            ended = domain.intersect(progression).subtract(cond)
            exit_value = isl.Map.from_range(ended).move_dims(isl.dim_type.in_, 0, isl.dim_type.out, 0, n)
            exit_value = exit_value.lexmin_pw_multi_aff() if step > 0 else exit_value.lexmax_pw_multi_aff()
            exit_value = exit_value.get_pw_aff(0)
            # the condition is tested at the first value and after every iteration
            tested = domain.intersect(var.eq_set(init_ext)).union(inner.domain.apply(shift))
        if post_bound is not None:
            # C tests the start and then, after each iteration, the value the body saw
            # (it steps below b, or wraps around from 0, only after the last test)
            tested = domain.intersect(var.eq_set(init_ext.add(
                isl.PwAff.val_on_domain(isl.Set.universe(init_ext.domain().get_space()), val(1))))) \
                .union(inner.domain)
            loop_cond = tested_cond
        if iterator_range is not None and (iterator_range[1] < 2 ** 31 - 1 or iterator_range[0] == 0):
            # a char, short or unsigned iterator wraps around instead of passing its
            # type's end (defined behaviour; a signed int's overflow is not)
            self.on_range(var, *iterator_range)
        self.assume_no_wrap(loop_cond, inner.iterators, tested)
        self.assume_in_range(tested)
        if not inner.domain.is_bounded():
            if iterator_range is not None and (iterator_range[1] < 2 ** 31 - 1 or iterator_range[0] == 0):
                raise self.error(node.cond, f"loop over '{name}' ends only when '{name}' wraps around past the end "
                                            f"of its type ({self.type_of(name)}): not supported")
            raise self.error(node.cond, f"loop over '{name}' is unbounded (the condition does not limit the iterator "
                                        f"in the direction it moves)")
        first = len(self.statements)
        self.continues_as_guards(node.stmt, inner)
        built = self.walk(node.stmt, inner)
        # a value left inside this loop is the last iteration's, not a function of
        # this loop's iterator: a loop at the same depth in a later nest over the same
        # name must not read it (for (j..) for (i = 0; ...); for (j..) for (; i < n; ...))
        self.exit_values = {k: v for k, v in self.exit_values.items() if len(v[0]) <= n}
        # ('for (i = n; i-- > 0;)' leaves an unsigned i at its largest value: not known)
        if not isinstance(node.init, c_ast.DeclList) and post_bound is None:   # 'for (int i ...)': another i after it
            self.exit_values[name] = (tuple(ctx.iterators), exit_value)
        if built is None:
            return None
        members = []
        for stmt in self.statements[first:]:
            dims = ", ".join(f"i{k}" for k in range(len(stmt.iterators)))
            expr = f"i{n}" if step > 0 else f"-i{n}"
            members.append(f"{stmt.name}[{dims}] -> [({expr})]")
        partial = isl.MultiUnionPwAff("[{ " + "; ".join(members) + " }]")
        return _Built(built.schedule.insert_partial_schedule(partial), built.statements)

    def not_equal_bound(self, cond: c_ast.Node, name: str, step: int, ctx: _Context,
                        init: isl.PwAff) -> c_ast.Node:
        """``cond`` itself, or for ``i != e`` (the whole condition, ``i`` stepping by
        ``±1``) the condition ``i < e`` (``i > e`` stepping down). The two run the same
        iterations exactly when the loop starts on the right side of ``e``, ``init <= e``
        at every outer iteration reaching it: recorded as an assumption on the
        parameters (checked at run time with the original as the fallback, like the
        unsigned ones). Otherwise ``!=`` runs until ``e`` wraps around, or forever."""
        if not (isinstance(cond, c_ast.BinaryOp) and cond.op == "!=" and abs(step) == 1):
            return cond
        left, right = cond.left, cond.right
        if isinstance(right, c_ast.ID) and right.name == name and not \
                (isinstance(left, c_ast.ID) and left.name == name):
            left, right = right, left
        if not (isinstance(left, c_ast.ID) and left.name == name) or \
                any(isinstance(n, c_ast.ID) and n.name == name for n in _walk_nodes(right)):
            return cond
        end = self.affine(ctx, right)
        wrong_side = end.lt_set(init) if step > 0 else end.gt_set(init)     # { outer : e < init }
        self.no_wrap.append(ctx.domain.intersect(wrong_side).params().complement())
        return c_ast.BinaryOp("<" if step > 0 else ">", left, right, cond.coord)

    def post_decrement_bound(self, node: c_ast.For, name: str, iterator_range: tuple[int, int] | None) \
            -> c_ast.Node | None:
        """``b`` for a loop ``for (i = e; i-- > b;)`` (no increment), and ``0`` for
        ``i--`` or ``i-- != 0`` as the condition of an unsigned ``i`` (a signed one
        would run on below 0); None for any other loop."""
        cond = node.cond
        if node.next is not None or node.init is None or cond is None:
            return None

        def is_post_decrement(n: c_ast.Node) -> bool:
            return isinstance(n, c_ast.UnaryOp) and n.op == "p--" and isinstance(n.expr, c_ast.ID) \
                and n.expr.name == name

        if isinstance(cond, c_ast.BinaryOp) and cond.op in (">", "!=") and is_post_decrement(cond.left):
            bound = cond.right
            if cond.op == "!=" and self.constant_int(bound) != 0:
                return None
        elif is_post_decrement(cond):
            bound = c_ast.Constant("int", "0", cond.coord)
        else:
            return None
        if any(isinstance(n, c_ast.ID) and n.name == name for n in _walk_nodes(bound)):
            return None
        if (cond.op if isinstance(cond, c_ast.BinaryOp) else "!=") == "!=" and \
                (iterator_range is None or iterator_range[0] != 0):
            raise self.error(cond, f"loop condition '{_GEN.visit(cond)}' on the signed iterator '{name}' never "
                                   f"ends if '{name}' starts below 0: write '{name}-- > 0'")
        self.check_not_modified(bound, name)
        return bound

    def fits(self, init: c_ast.Node, target: tuple[int, int]) -> bool:
        """Whether ``init`` certainly has a value of the range ``target``, so that no
        assumption is needed: a literal or a variable (or size macro) of a type within
        it; or, for a target that holds every ``int``, arithmetic on operands that C
        computes in ``int`` (its overflow is undefined in the original too). Anything
        else (casts, ``sizeof``, unsigned or wider operands) is checked."""
        int_range = (-2 ** 31, 2 ** 31 - 1)
        if target[0] <= int_range[0] and int_range[1] <= target[1] \
                and not isinstance(init, (c_ast.Constant, c_ast.ID)):
            return all(self.fits(n, int_range) and not (isinstance(n, c_ast.Constant)
                                                         and re.search(r"[uUlL]", n.value))
                       for n in _walk_nodes(init) if isinstance(n, (c_ast.Constant, c_ast.ID))) \
                and not any(isinstance(n, (c_ast.Cast, c_ast.FuncCall)) or
                            (isinstance(n, c_ast.UnaryOp) and n.op in SIZE_OPERATORS) for n in _walk_nodes(init))
        if isinstance(init, c_ast.Constant):
            value = int_literal_value(init.value)
        elif isinstance(init, c_ast.ID):
            declared = integer_range(self.type_of(init.name) or "")
            if declared is not None:
                return target[0] <= declared[0] and declared[1] <= target[1]
            value = self.macros.integer_value(init.name)
        else:
            return False
        return value is not None and target[0] <= value <= target[1]

    def loop_init(self, node: c_ast.For) -> tuple[str, c_ast.Node | None]:
        """The iterator and its start; no start for 'for (; i < n; i++)' (the iterator
        is the one the increment steps)."""
        init = node.init
        if init is None:
            nxt = node.next
            target = nxt.expr if isinstance(nxt, c_ast.UnaryOp) else nxt.lvalue if isinstance(nxt, c_ast.Assignment) \
                else None
            if isinstance(target, c_ast.ID) and target.name in self.all_iterators:
                return target.name, None
        if isinstance(init, c_ast.ExprList) and init.exprs:
            init = init.exprs[0]
        if isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
            return init.lvalue.name, init.rvalue
        if isinstance(init, c_ast.DeclList) and init.decls and init.decls[0].init is not None \
                and isinstance(init.decls[0].type, c_ast.TypeDecl):
            return init.decls[0].name, init.decls[0].init
        raise self.error(init or node, "loop initialisation must be 'i = expression' (or 'int i = expression')")

    def loop_step(self, node: c_ast.For, name: str) -> int:
        return self.step_of(node.next.exprs[0] if isinstance(node.next, c_ast.ExprList) else node.next, name, node)

    def step_of(self, nxt: c_ast.Node | None, name: str, node: c_ast.For) -> int:
        """The constant by which the increment ``nxt`` changes ``name``."""
        step = None
        if isinstance(nxt, c_ast.UnaryOp) and isinstance(nxt.expr, c_ast.ID) and nxt.expr.name == name:
            step = {"++": 1, "p++": 1, "--": -1, "p--": -1}.get(nxt.op)
        elif isinstance(nxt, c_ast.Assignment) and isinstance(nxt.lvalue, c_ast.ID) and nxt.lvalue.name == name:
            if nxt.op in ("+=", "-="):
                value = self.constant_int(nxt.rvalue)
                if value is not None:
                    step = value if nxt.op == "+=" else -value
            elif nxt.op == "=" and isinstance(nxt.rvalue, c_ast.BinaryOp) and nxt.rvalue.op in ("+", "-"):
                left, right = nxt.rvalue.left, nxt.rvalue.right
                if isinstance(left, c_ast.ID) and left.name == name:
                    value = self.constant_int(right)
                    if value is not None:
                        step = value if nxt.rvalue.op == "+" else -value
                elif isinstance(right, c_ast.ID) and right.name == name and nxt.rvalue.op == "+":
                    value = self.constant_int(left)
                    step = value
        if step is None:
            counter_type = self.type_of(name)
            if counter_type in FLOAT_TYPES:
                # (helper-80: 'for (float x = 0.0f; x < 1.0f; x += 0.25f)' was told that
                # its step must be a constant, which it is)
                raise self.error(node, f"loop counter '{name}' is a {counter_type}: loops of a SCoP count "
                                       f"with integers ('for (k = 0; k < 4; k++)' and 'x = k * 0.25f' inside)")
            raise self.error(nxt or node, f"loop increment must change '{name}' by a constant "
                                          f"('{name}++', '{name}--', '{name} += c', '{name} = {name} + c')")
        if step == 0:
            raise self.error(nxt, "loop step is zero")
        return step

    def constant_int(self, node: c_ast.Node) -> int | None:
        """Value of a constant integer expression (literals, integer macros), else None."""
        if isinstance(node, c_ast.Constant):
            return int_literal_value(node.value)
        if isinstance(node, c_ast.ID):
            value = self.macros.integer_value(node.name)
            if value is None:
                return self.enumerator(node.name)
            if value is not None:
                # a step or an array size read at this value (a -D can give another):
                # the model holds for it only, and the run-time check says so
                self.on_parameter(node.name, value)
                self.on_fixed(node.name, value)
            return value
        if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
            v = self.constant_int(node.expr)
            return None if v is None else (-v if node.op == "-" else v)
        if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*", "/"):
            a, b = self.constant_int(node.left), self.constant_int(node.right)
            if a is None or b is None:
                return None
            if node.op == "/":      # C truncates: floor only for these signs
                return a // b if a >= 0 and b > 0 else None
            return a + b if node.op == "+" else a - b if node.op == "-" else a * b
        return None

    def check_not_modified(self, body: c_ast.Node | None, name: str) -> None:
        for child in _walk_nodes(body):
            if isinstance(child, c_ast.For) and _loop_iterator_name(child) == name:
                raise self.error(child, f"loop iterator '{name}' shadows the iterator of an enclosing loop")
            target = assignment_target(child)
            if isinstance(target, c_ast.ID) and target.name == name:
                raise self.error(child, f"loop iterator '{name}' is modified in the loop body")

    # -- statements -----------------------------------------------------------------
    def statement(self, node: c_ast.Node, ctx: _Context, operand: bool = False) -> _Built:
        """``operand``: ``node`` is an operand of a comma expression (its text ends at
        the next ``,`` or ``;``)."""
        if isinstance(node, c_ast.Assignment) and isinstance(node.rvalue, c_ast.Assignment):
            return self.chained_assignment(node, ctx)
        name = f"S{len(self.statements)}"
        domain = ctx.domain.set_tuple_name(name)
        accesses: list[Access] = []
        self.start_reads()
        target = node.lvalue if isinstance(node, c_ast.Assignment) else node.expr
        target, site = self.expand_target(target)
        self.check_lvalue(target, site)
        if not isinstance(node, c_ast.Assignment) or node.op != "=":
            accesses.append(self.access(target, "read", ctx, domain, site))
        accesses.append(self.access(target, "write", ctx, domain, site))
        if isinstance(node, c_ast.Assignment):
            self.reads(node.rvalue, ctx, domain, accesses)
        body, line, col = self.statement_text(node, operand=operand)
        self.check_hidden_iterators(body, ctx.iterators, node)
        if self.renames_text():
            self.check_local_uses(body, node)
            body = self.local_text(body)
        stmt = Statement(name, list(ctx.iterators), domain, accesses, body, line, col, **self.read_facts())
        self.statements.append(stmt)
        schedule = isl.Schedule.from_domain(isl.UnionSet.from_set(domain))
        return _Built(schedule, [stmt])

    def continues_as_guards(self, body: c_ast.Node, ctx: _Context) -> None:
        """``if (i % 2 == 1) continue;`` among the statements of a loop's body: the rest
        of the body runs where the condition is false, as ``if (!(i % 2 == 1)) { rest }``
        (rewritten so in ``body``). Under an affine condition the statements keep their
        text. Under one that reads the data (``if (mask[i] == 0) continue;``) the new
        ``if`` is one statement (`conditional_statement`), when the rest is assignments
        and ``if``s only (no loop, declaration or other jump, `guard_problem`), whose
        text is the new ``if`` around the rest's own text (`guard_text`). A ``continue``
        anywhere else stays refused."""
        if not isinstance(body, c_ast.Compound):
            return
        items = body.block_items or []
        for k, item in enumerate(items):
            if not _jumps_alone(item, c_ast.Continue):
                continue
            after = items[k + 1:]           # (as written: the recursion below rewrites rest)
            rest = c_ast.Compound(list(after), coord=item.coord)
            guard = c_ast.If(c_ast.UnaryOp("!", item.cond, coord=item.cond.coord), rest, None, coord=item.coord)
            try:
                data = self.is_data_condition(ctx, item.cond)
            except ScopError:       # a variable the body declares before it: known in the walk
                data = True
            if data:
                if self.guard_problem(item, after) is not None:
                    return
            else:
                self.continues_as_guards(rest, ctx)         # (a second 'if (...) continue;')
            # (the walk decides again, knowing the body's own variables: 'double t =
            # A[i]; if (t > 0) continue;' reads the data, 'int k = 2 * i;' does not)
            self.continue_guards[id(guard)] = (guard, item, after)
            body.block_items = items[:k] + [guard]
            return

    @staticmethod
    def guard_problem(jump: c_ast.If, rest: list[c_ast.Node]) -> tuple[c_ast.Node, str] | None:
        """Where and why ``if (cond) continue;`` followed by ``rest`` cannot be one
        statement under a data-dependent test (or, for loops in ``rest``, be moved into
        them: data_test_over_loops), or None."""
        if rest and all(_runs_under_a_data_test(n) or _has_loop(n) for n in rest):
            return None
        then = jump.iftrue.block_items[0] if isinstance(jump.iftrue, c_ast.Compound) else jump.iftrue
        bad = next((m for n in rest if not _runs_under_a_data_test(n) and not _has_loop(n)
                    for m in _walk_nodes(n) if isinstance(m, _JUMPS)), None)
        if bad is None:
            return then, _unsupported(then)
        # (helper-81: told "'continue' inside a SCoP (control flow must be static)" of
        # the first 'continue', which may be where it is)
        return bad, f"{_jump_named(bad)} after 'if (...) continue;' under a condition that " \
                    f"reads the data: only assignments, declarations, 'if's and loops can follow it"

    def guard_text(self, test: str, rest: list[c_ast.Node], at: c_ast.Node) -> tuple[str, int, int, int]:
        """Text, line, column and offset of the last character of the statement that
        the statements ``rest`` become under the C condition ``test`` (``if (cond)
        continue;`` before them: ``!(cond)``), placed where ``at`` starts: ``if (test)
        {``, the rest's own text one step deeper, ``}``."""
        end = self.end_of(rest[-1])
        kept, _, col = self.statement_text(rest[0], end=end)
        line, at_col = line_col(self.starts, self.statement_span(at)[0])
        lines = kept.split("\n")
        lines = [" " * (col + 1) + lines[0]] + ["  " + text for text in lines[1:]]
        text = "\n".join([f"if ({test}) {{", *lines, " " * (at_col - 1) + "}"])
        return text, line, at_col, end

    def data_test_over_loops(self, node: c_ast.If, ctx: _Context) -> _Built | None:
        """``if (mask[i] != 0) for (j = 0; j < n; j++) A[i][j] = 0;`` (or ``if (mask[i]
        == 0) continue;`` before such a loop: continues_as_guards): a test that reads the
        data, around loops, moved down into them, ``for (j ...) if (mask[i] != 0) A[i][j]
        = 0;``, as pet does with its filters. Each run of assignments under it becomes
        one statement under the test (conditional_statement), reading what the test
        reads; an ``else`` runs under ``!(test)``. Exact when the test has one value at
        every statement it guards: nothing under the ``if`` writes a variable or array
        the test reads (pushdown_problem). The loops then always run, their statements
        skipped where the test fails: their iterators have no exit value after, nor a
        final value after the region unless nothing in the region writes what the test
        reads (the original loops with the statements left out, run after the region,
        set it: versioning.iterator_skeleton)."""
        problem = self.pushdown_problem(node)
        if problem is not None:
            raise self.error(*problem)
        parts = self.pushed_down(node.iftrue, node.cond)
        if node.iffalse is not None:
            parts += self.pushed_down(node.iffalse, c_ast.UnaryOp("!", node.cond, coord=node.cond.coord))
        loops = [n for n in _walk_nodes(node) if isinstance(n, c_ast.For)]
        built = self.walk(c_ast.Compound(parts, coord=node.coord), ctx)
        changing = {n.name for n in _walk_nodes(node.cond) if isinstance(n, c_ast.ID)} & self.region_writes()
        for loop in loops:
            for variable in _set_by(loop):
                self.exit_values.pop(variable, None)
                if changing:
                    self.set_under_data_tests.setdefault(variable, loop)
        return built

    def region_writes(self) -> set[str]:
        """Every name a statement of the region may change (_written_names: arrays,
        scalars, members) or declare, not counting the loops' own variables (the
        original loops, run again after the region without the statements, set those
        as they did; helper-79: not the starts that are statements, 'for (i = 0, lim =
        1.5; ...)', nor the body's 'double t = x[i];')."""
        if self._region_writes is None:
            self._region_writes = _names_written_under(
                [self.body], lambda loop: {part.lvalue.name for part in self.hoisted_starts(loop)})
        return self._region_writes

    def pushdown_problem(self, node: c_ast.If) -> tuple[c_ast.Node, str] | None:
        """Where and why the data-dependent test of ``node`` cannot be moved into the
        loops under it (data_test_over_loops), or None."""
        pending = [node.iftrue, node.iffalse]
        while pending:
            n = pending.pop()
            if n is None:
                continue
            if isinstance(n, c_ast.If) and id(n) not in self.pushed_guards and not _has_loop(n):
                # (all of it runs in one statement under the moved test, which the
                # conditional statement checks: its block's 'double tmp = ...' too)
                continue
            # (not a loop's initialisation: 'for (int j = 0; ...)' declares the loop's own)
            pending.extend([n.cond, n.next, n.stmt] if isinstance(n, c_ast.For) else [c for _, c in n.children()])
            if isinstance(n, c_ast.Compound):
                # 'for (j ...) { double t = A[i][j]; B[i][j] = t * t; }': the declaration
                # and the rest of its block run in one statement under the moved test
                # (pushed_down), whose own scalar it is, unless a loop splits the block
                items = n.block_items or []
                for k, item in enumerate(items):
                    if isinstance(item, c_ast.Decl) and any(isinstance(later, (c_ast.For, c_ast.Compound))
                                                            or isinstance(later, c_ast.If) and _has_loop(later)
                                                            for later in items[k + 1:]):
                        return item, f"loop under a condition that reads the data, after the declaration of " \
                                     f"'{item.name}' in its block: declare '{item.name}' before '#pragma scop'"
            if isinstance(n, _JUMPS):
                return n, f"loop under a condition that reads the data, with {_jump_named(n)} " \
                          f"under the condition: only loops, assignments and 'if's can run under such a test"
            hoisted = self.hoisted_starts(n) if isinstance(n, c_ast.For) else []
            if hoisted:
                # (helper-79: 'for (j = 0, s = 0.0; ...)' sets s before the loop, where the
                # moved test would not guard it)
                first = hoisted[0]
                return first, f"loop under a condition that reads the data, whose start sets " \
                              f"'{first.lvalue.name}': set it in a statement before the loop"
            if isinstance(n, c_ast.If) and (id(n) in self.pushed_guards or _has_loop(n) and any(
                    isinstance(m, (c_ast.ArrayRef, c_ast.StructRef, c_ast.FuncCall)) or
                    isinstance(m, c_ast.UnaryOp) and m.op == "*" for m in _walk_nodes(n.cond))):
                # (a test moved into the loops of another would lose the outer one)
                return n, "loop under two nested conditions that read the data: not supported"
        written = _names_written_under([node.iftrue, node.iffalse], _set_by)
        for n in _walk_nodes(node.cond):
            if isinstance(n, c_ast.ID) and n.name in written:
                return n, f"loop under a condition that reads '{n.name}', which the code under the condition " \
                          f"changes: the condition must keep its value while the loop runs"
        return None

    def pushed_down(self, part: c_ast.Node | None, test: c_ast.Node) -> list[c_ast.Node]:
        """The statements of ``part`` with ``test`` moved down (data_test_over_loops):
        each run of statements outside loops under a new ``if (test)`` (pushed_guards),
        the bodies of loops and of affine ``if``s around loops rewritten in place."""
        if part is None:
            return []
        items = part.block_items or [] if isinstance(part, c_ast.Compound) else [part]
        out: list[c_ast.Node] = []
        run: list[c_ast.Node] = []

        def flush():
            if run:
                guard = c_ast.If(test, c_ast.Compound(list(run), coord=run[0].coord), None, coord=run[0].coord)
                self.pushed_guards[id(guard)] = (guard, list(run))
                out.append(guard)
                run.clear()

        for item in items:
            if isinstance(item, c_ast.EmptyStatement):
                continue
            if isinstance(item, c_ast.For):
                flush()
                item.stmt = self.block_of(item.stmt, self.pushed_down(item.stmt, test))
                out.append(item)
            elif isinstance(item, c_ast.If) and _has_loop(item):
                flush()
                item.iftrue = self.block_of(item.iftrue, self.pushed_down(item.iftrue, test))
                if item.iffalse is not None:
                    item.iffalse = self.block_of(item.iffalse, self.pushed_down(item.iffalse, test))
                out.append(item)
            elif isinstance(item, c_ast.Compound):
                flush()
                out.extend(self.pushed_down(item, test))
            else:
                run.append(item)
        flush()
        return out

    @staticmethod
    def block_of(old: c_ast.Node, items: list[c_ast.Node]) -> c_ast.Compound:
        """``old`` (a loop's or an ``if``'s body) with the statements ``items``: the
        same block when it was one, its braces' place kept (end_of); else the one
        statement a single one becomes."""
        if isinstance(old, c_ast.Compound):
            old.block_items = items
            return old
        if len(items) == 1:
            return items[0]
        return c_ast.Compound(items, coord=old.coord) if items else old        # ('for (...) ;')

    def breaks_as_conditions(self, loop: c_ast.For) -> None:
        """``for (...; c; ...) { if (b) break; rest }``, ``b`` arithmetic and comparisons
        of values the region does not write: C tests ``c``, then ``b``, before ``rest``,
        so the loop is ``for (...; c && !(b); ...) { rest }`` (rewritten so in ``loop``;
        no condition, ``for (i = 0; ; i++)``, is ``!(b)``), the iterator ending where
        the break leaves it. Whether the polyhedral domain can hold it is the loop
        condition's test (monotone in the iterator: ``if (i >= m) break;`` is ``i < m``,
        ``if (i == 5) break;`` is refused). A ``break`` elsewhere stays refused."""
        def reads_no_data(cond: c_ast.Node) -> bool:
            return all(isinstance(n, (c_ast.ID, c_ast.Constant, c_ast.BinaryOp, c_ast.TernaryOp)) or (
                isinstance(n, c_ast.UnaryOp) and n.op in ("-", "+", "!", "~")) for n in _walk_nodes(cond)) \
                and not any(isinstance(n, c_ast.ID) and n.name in self.written for n in _walk_nodes(cond))

        while True:
            items = loop.stmt.block_items or [] if isinstance(loop.stmt, c_ast.Compound) else [loop.stmt]
            if not items or not _jumps_alone(items[0], c_ast.Break) or not reads_no_data(items[0].cond):
                return
            stop = c_ast.UnaryOp("!", items[0].cond, coord=items[0].cond.coord)
            self.folded_breaks.setdefault(id(loop), []).append(items[0])
            loop.cond = stop if loop.cond is None else c_ast.BinaryOp("&&", loop.cond, stop, coord=loop.cond.coord)
            loop.stmt = c_ast.Compound(items[1:], coord=items[0].coord)

    def is_data_condition(self, ctx: _Context, cond: c_ast.Node) -> bool:
        """Whether ``cond`` is no affine condition of the iterators and parameters (it
        reads the data, or multiplies them): the ``if`` is then one statement."""
        parameters, ranges = list(self.parameters), list(self.pending_ranges)
        try:
            self.converter(ctx).condition(cond)
            return False
        except NotAffine as err:
            # not these: the refusal says more than a statement would
            return not err.message.startswith(("the type of", "loop iterator"))
        finally:        # the conversion is tried, not kept: no parameter or range of it
            self.parameters[:], self.pending_ranges[:] = parameters, ranges

    def affine_guard(self, ctx: _Context, cond: c_ast.Node) -> isl.Set | None:
        """``x > 0 && A[x - 1] == 255``: the conjuncts of ``cond`` before the first one
        the model cannot express, as a set over ``ctx``'s iterators (None if there is
        none). C evaluates ``&&`` left to right and stops at the first false operand,
        so they guard every operand after them."""
        conjuncts = []
        while isinstance(cond, c_ast.BinaryOp) and cond.op == "&&":
            conjuncts.insert(0, cond.right)
            cond = cond.left
        conjuncts.insert(0, cond)
        guard = None
        for conjunct in itertools.takewhile(lambda c: not self.is_data_condition(ctx, c), conjuncts):
            part = self.condition(ctx, conjunct)
            self.assume_no_wrap(conjunct, ctx.iterators, ctx.domain)
            guard = part if guard is None else guard.intersect(part)
        return guard

    def names_another(self, name: str) -> bool:
        """Is ``name`` also a loop iterator, a macro or a variable of a block of the
        region? (The region's text is renamed textually: such a name is not one
        variable's alone.)"""
        return name in self.all_iterators or name in self.macros or any(name in scope for scope in self.scopes)

    def statement_local_problem(self, node: c_ast.Decl) -> str | None:
        """Why the declaration ``node``, in a branch of a data-dependent ``if``
        (conditional_statement), cannot be a variable of that statement alone, or None:
        a scalar whose name nothing else in the region or around it has (the text runs
        as written: a rename of another variable of that name would rename it too)."""
        name = node.name
        c_type = self.integer_type(type_text(node.type)) if isinstance(node.type, c_ast.TypeDecl) else ""
        if not (c_type in FLOAT_TYPES or integer_range(c_type) is not None) or node.bitsize is not None:
            why = "only scalars of arithmetic types can be declared there"
        elif set(node.storage) - {"auto", "register"}:
            why = f"a '{node.storage[0]}' variable lives across runs of the statement"
        elif name in self.visible.declarations or self.names_another(name):
            why = f"'{name}' also names another variable or macro here"
        else:
            return None
        return f"declaration of '{name}' under a condition that reads the data (the 'if' runs as one " \
               f"statement): {why}; declare it before '#pragma scop'"

    def conditional_statement(self, node: c_ast.If, ctx: _Context) -> _Built:
        """``if (A[i] > m) m = A[i];``, ``if (x[i] < 0) x[i] = 0; else y[i] = x[i];``: an
        ``if`` whose condition the model cannot express is one statement, run as written
        (its text is the whole ``if``). It reads what the condition and the branches
        read; the branches' writes are may-writes ``{ S[i] -> A[f(i)] }``, which never
        hide an earlier write from a later read. Only assignments and ``if``s are
        allowed inside: a loop under a data-dependent condition has no static domain.

        The affine conjuncts that start the condition (``x > 0 && A[x - 1] > 0``, see
        ``affine_guard``) bound where the rest of the condition and the ``then`` branch
        run, and without an ``else`` the statement's domain."""
        guard = self.affine_guard(ctx, node.cond)
        guarded = ctx if guard is None else _Context(ctx.iterators, ctx.domain.intersect(guard))
        if node.iffalse is None:
            ctx = guarded
        name = f"S{len(self.statements)}"
        accesses: list[Access] = []
        self.start_reads()

        def walk(part: c_ast.Node | None, ctx: _Context) -> None:
            domain = ctx.domain.set_tuple_name(name)
            if part is None or isinstance(part, c_ast.EmptyStatement):
                return
            if isinstance(part, c_ast.If):
                self.reads(part.cond, ctx, domain, accesses)
                walk(part.iftrue, ctx)
                walk(part.iffalse, ctx)
            elif isinstance(part, c_ast.Compound):
                for item in part.block_items or []:
                    walk(item, ctx)
            elif isinstance(part, c_ast.Assignment) or (isinstance(part, c_ast.UnaryOp)
                                                          and part.op in ("++", "--", "p++", "p--")):
                chain = [part]
                while isinstance(chain[-1], c_ast.Assignment) and isinstance(chain[-1].rvalue, c_ast.Assignment):
                    chain.append(chain[-1].rvalue)
                for step in reversed(chain):
                    target, site = self.expand_target(step.lvalue if isinstance(step, c_ast.Assignment)
                                                      else step.expr)
                    if not (isinstance(target, c_ast.ID) and target.name in self.statement_locals):
                        self.check_lvalue(target, site)
                        if not isinstance(step, c_ast.Assignment) or step.op != "=":
                            accesses.append(self.access(target, "read", ctx, domain, site))
                        accesses.append(self.access(target, "may_write", ctx, domain, site))
                    if isinstance(step, c_ast.Assignment) and not isinstance(step.rvalue, c_ast.Assignment):
                        self.reads(step.rvalue, ctx, domain, accesses)
                    elif step is not chain[-1]:
                        self.reads(chain[chain.index(step) + 1].lvalue, ctx, domain, accesses)
            elif isinstance(part, c_ast.ExprList):
                # ('if (x[i] > 0) t = A[i], A[i] = B[i], B[i] = t;': C evaluates them one
                # after the other; the text runs as written)
                for operand in part.exprs:
                    walk(operand, ctx)
            elif isinstance(part, c_ast.Continue):
                # (helper-81: 'if (m[i] == 0) continue; else { ... }' was told that control
                # flow must be static, which 'if (m[i] == 0) continue;' alone may be)
                raise self.error(part, "'continue' with an 'else' or other statements under a condition that reads "
                                       "the data: write 'if (...) continue;' alone, the rest of the body after it")
            elif isinstance(part, c_ast.For):
                raise self.error(part, "loop under a condition that reads the data or is not affine (the "
                                       "loop's iterations would not be known before the program runs)")
            elif isinstance(part, c_ast.Decl):
                # 'if (a[j] > a[j + 1]) { int t = a[j]; ... }': t lives in one run of the
                # statement, which sets it before any read (else C reads garbage): no
                # memory access of the model
                problem = self.statement_local_problem(part)
                if problem is not None:
                    raise ScopError(self.filename, *self.declaration_start(part), self.as_written(problem))
                if part.init is not None:
                    self.reads(part.init, ctx, domain, accesses)
                self.statement_locals.add(part.name)
            else:
                raise self.error(part, _unsupported(part))

        domain = ctx.domain.set_tuple_name(name)
        # (the guard's own conjuncts are affine: they read no memory; what follows them
        # is read only where they hold: conditional, as far as hoisting loads goes)
        self.conditional += guard is not None
        self.reads(node.cond, guarded, guarded.domain.set_tuple_name(name), accesses)
        self.conditional += guard is None          # the branches run or not: their reads are conditional
        try:
            walk(node.iftrue, guarded)
            walk(node.iffalse, ctx)
        finally:
            self.conditional -= 1
            self.statement_locals = set()
        guard = self.continue_guards.get(id(node))
        if guard is not None and guard[0] is node:      # 'if (...) continue;' and the rest
            problem = self.guard_problem(*guard[1:])
            if problem is not None:
                raise self.error(*problem)
            body, line, col, end = self.guard_text(f"!({self.as_written(_GEN.visit(guard[1].cond))})", guard[2],
                                                   at=guard[1])
        elif id(node) in self.pushed_guards:        # a data test moved into loops
            body, line, col, end = self.guard_text(self.as_written(_GEN.visit(node.cond)),
                                                   self.pushed_guards[id(node)][1], at=self.pushed_guards[id(node)][1][0])
        else:
            end = self.end_of(node)
            body, line, col = self.statement_text(node, end=end)
        self.check_hidden_iterators(body, ctx.iterators, node)
        if self.renames_text():
            self.check_local_uses(body, node)
            body = self.local_text(body)
        stmt = Statement(name, list(ctx.iterators), domain, accesses, body, line, col, source_end=end + 1,
                         **self.read_facts())
        self.statements.append(stmt)
        return _Built(isl.Schedule.from_domain(isl.UnionSet.from_set(domain)), [stmt])

    def merged_exit_values(self, after_then: dict, after_else: dict, cond: isl.Set, ctx: _Context) -> dict:
        """The exit values after ``if (cond) ... else ...``: those both branches left
        alone, and a variable both left at a known value here, ``cond`` deciding which
        (``if (m > 4) for (i = 1; i < m; i++) ...;`` after a loop over ``i`` leaves ``i``
        at ``m`` where ``m > 4``, else where that loop did); a loop in one branch only,
        where nothing before it set the variable, leaves it unknown."""
        merged = {}
        here = tuple(ctx.iterators)
        for name in after_then.keys() & after_else.keys():
            then, other = after_then[name], after_else[name]
            if then is other:
                merged[name] = then
            elif then[0] == other[0] == here:
                merged[name] = (here, then[1].intersect_domain(cond).union_add(
                    other[1].intersect_domain(cond.complement())).coalesce())
        return merged

    def end_of(self, node: c_ast.Node) -> int:
        """Offset of the last character of statement ``node`` (its ';' or '}')."""
        if isinstance(node, c_ast.If):
            return self.end_of(node.iffalse if node.iffalse is not None else node.iftrue)
        if isinstance(node, c_ast.Compound):
            items = node.block_items or []
            end = self.end_of(items[-1]) if items else offset_of(self.starts, *self.position(node))
            return self.plain.index("}", end + 1)       # comments are blank in plain
        if isinstance(node, c_ast.EmptyStatement):
            return self.plain.index(";", offset_of(self.starts, *self.position(node)))
        return self.statement_span(node)[1]

    def chained_assignment(self, node: c_ast.Assignment, ctx: _Context) -> _Built:
        """``a1 = a5 = e;`` as the statements ``a5 = e;`` then ``a1 = a5;`` (C gives the
        outer assignment the value of ``a5`` after the inner one: reading it back is
        the same value, converted to ``a5``'s type as C does)."""
        chain = [node]
        while isinstance(chain[-1].rvalue, c_ast.Assignment):
            chain.append(chain[-1].rvalue)
        parts = [self.statement(chain[-1], ctx)]
        for outer, inner in zip(reversed(chain[:-1]), reversed(chain[1:])):
            name = f"S{len(self.statements)}"
            domain = ctx.domain.set_tuple_name(name)
            accesses: list[Access] = []
            self.start_reads()
            target, site = self.expand_target(outer.lvalue)
            self.check_lvalue(target, site)
            if outer.op != "=":
                accesses.append(self.access(target, "read", ctx, domain, site))
            accesses.append(self.access(target, "write", ctx, domain, site))
            self.reads(inner.lvalue, ctx, domain, accesses)
            line, col = self.position(outer)
            body = f"{_GEN.visit(outer.lvalue)} {outer.op} {_GEN.visit(inner.lvalue)};"
            if self.renames_text():
                body = self.local_text(body)
            stmt = Statement(name, list(ctx.iterators), domain, accesses, body, line, col, **self.read_facts())
            self.statements.append(stmt)
            parts.append(_Built(isl.Schedule.from_domain(isl.UnionSet.from_set(domain)), [stmt]))
        return self.sequence(parts)

    def expand_target(self, node: c_ast.Node) -> tuple[c_ast.Node, c_ast.Node | None]:
        """An assignment target written through a macro (``A_(i, j) = ...``) expanded;
        returns the target and the region node errors should point at."""
        site, hide = None, frozenset()
        while True:
            expansion = self.macro_expansion(node, site or node, hide)
            if expansion is None:
                return node, site
            hide = hide | {self.macro_name(node)}
            site = site or node
            node = expansion

    @staticmethod
    def macro_name(node: c_ast.Node) -> str | None:
        if isinstance(node, c_ast.ID):
            return node.name
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
            return node.name.name
        return None

    def macro_expansion(self, node: c_ast.Node, site: c_ast.Node, hide: frozenset) -> c_ast.Node | None:
        """The parsed expansion of a macro use (``ID`` of an object-like macro that is
        not a size, or a call of a function-like macro), else None."""
        name = self.macro_name(node)
        macro = self.macros.get(name) if name else None
        if macro is None or name in hide:
            return None
        if isinstance(node, c_ast.ID):
            if macro.is_function_like:
                raise self.error(site, f"function-like macro '{name}' used without arguments")
            if self.macros.integer_value(name) is not None:
                return None
            text = macro.body
        else:
            args = [_GEN.visit(a) for a in (node.args.exprs if node.args else [])]
            if macro.is_function_like:
                text = self.macros.call_text(macro, args, True, hide)
            elif self.macros.integer_value(name) is None:
                # '-D SQRT_FUN=sqrt': the macro names the function (or macro) called
                text = f"{macro.body} ({', '.join(self.macros.expand(a, True, hide) for a in args)})"
            else:
                return None
        try:
            return self.parse_expression(text, site)
        except NotAffine:
            raise self.error(site, f"cannot interpret the expansion of macro '{name}' "
                                   f"('{text.strip()}') as an expression") from None

    def defined_functions(self) -> set[str]:
        """The functions the file and its own headers define, and its function pointers:
        a ``static double fmax(...) { ... }`` or a parameter ``double (*round)(double)``
        of the user's own is not <math.h>'s (probes counted their calls)."""
        if self._defined_functions is None:
            # (and those the user's own headers define: 'static inline double sq(double x)')
            code = self.plain + "\n" + blank_strings(self.macros.own_header_code)
            self._defined_functions = _function_definitions(code) \
                | set(re.findall(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)\s*\(", self.plain))   # (*round)(double)
        return self._defined_functions

    @property
    def errno_read(self) -> bool:
        """Whether the file's code (as compiled) reads ``errno`` (or prints it: perror)."""
        if self._errno_read is None:
            self._errno_read = bool(_ERRNO_READ.search(self.macros.main_code or self.plain))
        return self._errno_read

    def may_set_errno_read(self, name: str) -> bool:
        """Whether a call of library function ``name`` may set the ``errno`` this file reads."""
        return self.errno_read and name.removeprefix("__builtin_") not in ERRNO_FREE_FUNCTIONS

    @property
    def purity(self) -> PurityChecker:
        """Which functions of the file are pure (see pure.py), made on first use."""
        if self._purity is None:
            # the definitions as compiled: a pure copy under '#if 0' or a macro renaming a
            # call in the body (#define exp fast_exp) would make the file's text lie
            code = blank_strings(self.macros.main_code + "\n" + self.macros.own_header_code)
            self._purity = PurityChecker(code, self.typedefs, self.visible.typedef_types,
                                         self.visible.enumerators, lambda name: name in self.defined_functions(),
                                         lambda name: _is_pure_function(name) and not self.may_set_errno_read(name))
        return self._purity

    def check_lvalue(self, node: c_ast.Node, site: c_ast.Node | None = None) -> None:
        if isinstance(node, c_ast.ID) and node.name in self.macros:
            raise self.error(site or node, f"assignment to macro '{node.name}'")
        if not isinstance(node, (c_ast.ID, c_ast.ArrayRef)):
            raise self.error(site or node, f"assignment target '{_GEN.visit(node)}' is not an array element or a "
                                           "scalar (read: '*(p + e)' of a pointer the region does not change or "
                                           "of a one-dimensional array, and members of a struct defined in this "
                                           "file, one level deep; not unions)")

    def start_reads(self) -> None:
        """Forget what the previous statement read (reads, read_facts)."""
        self.used_locals = []
        self.floating = False
        self.float_types_read = set()

    def read_facts(self) -> dict:
        """What the statement's reads (since start_reads) tell its Statement:
        ``floating`` and ``float_type_read``."""
        floats = [t for t in FLOAT_TYPES if t in self.float_types_read]
        return {"floating": self.floating, "float_type_read": floats[-1] if floats else ""}

    def reads(self, node: c_ast.Node | None, ctx: _Context, domain: isl.Set, out: list[Access],
              site: c_ast.Node | None = None, hide: frozenset = frozenset()) -> None:
        """Read accesses of a right-hand side, in textual order. Inside a macro
        expansion, ``site`` is the macro use in the region (positions point there)."""
        where = site or node
        if isinstance(node, c_ast.Constant) and node.type in ("float", "double", "long double"):
            self.floating = True
            self.float_types_read.add(node.type)
        if node is None or isinstance(node, c_ast.Constant) \
                or isinstance(node, c_ast.ID) and node.name in self.statement_locals:
            return
        if isinstance(node, (c_ast.ID, c_ast.FuncCall)):
            # Macros are analysed through their expansion: a value macro may hide an
            # array reference ('#define A_(i) A[i]'), which must not be missed.
            expansion = self.macro_expansion(node, where, hide)
            if expansion is not None:
                self.reads(expansion, ctx, domain, out, where, hide | {self.macro_name(node)})
                return
        if isinstance(node, (c_ast.ID, c_ast.ArrayRef)):
            if isinstance(node, c_ast.ID):
                if node.name in ctx.iterators or self.macros.integer_value(node.name) is not None \
                        or self.enumerator(node.name) is not None \
                        or (node.name in self.visible.enumerator_names and self.resolve(node.name) is None):
                    return          # a value, not a memory access
                local = self.resolve(node.name)
                if local is not None and local.alias is not None:
                    return          # an affine function of the iterators: no memory access
                if node.name in self.all_iterators and local is None:
                    if self.exited_iterator(node.name) is not None:
                        return      # its value after its loop: no memory access
                    raise self.error(where, self.outside_its_loop(node.name))
            read = self.access(node, "read", ctx, domain, site)
            read.conditional = self.conditional > 0
            out.append(read)
            if read.array in self.arrays:
                self.float_types_read.add(self.integer_type(self.arrays[read.array].element_type))
            return
        if isinstance(node, c_ast.BinaryOp):
            # 'a + b + ... + z' nests to the left as deep as it is long: walk the spine
            # in a loop, so that thousands of terms do not exhaust Python's stack
            rights = []
            while isinstance(node, c_ast.BinaryOp):
                rights.append((node.op, node.right))
                node = node.left
            self.reads(node, ctx, domain, out, site, hide)
            for op, right in reversed(rights):
                shortcut = op in ("&&", "||")          # C may not evaluate the right side
                self.conditional += shortcut
                try:
                    self.reads(right, ctx, domain, out, site, hide)
                finally:
                    self.conditional -= shortcut
        elif isinstance(node, c_ast.TernaryOp):
            self.reads(node.cond, ctx, domain, out, site, hide)
            self.conditional += 1                      # one of the two is evaluated
            try:
                for part, evaluated in zip((node.iftrue, node.iffalse), self.arms_evaluated(ctx, node.cond)):
                    # an arm reads only where C evaluates it: 'j > 0 ? C[i][j - 1] : 0' never
                    # reads C[i][-1], and a run-time check that it does not leave its row
                    # never held (helper-52: the region was never optimized)
                    arm = domain if evaluated is ctx else \
                        domain.intersect(evaluated.domain.set_tuple_name(domain.get_tuple_name()))
                    self.reads(part, evaluated, arm, out, site, hide)
            finally:
                self.conditional -= 1
        elif isinstance(node, c_ast.Cast):
            to_type = _GEN.visit(node.to_type)
            if integer_range(to_type) is None:
                self.floating = True        # (double), (real_t): maybe not an integer
            outside = self.float_types_read
            self.float_types_read = set()
            self.reads(node.expr, ctx, domain, out, site, hide)
            # ((float) (a * b): a value of the cast's type, whatever it was computed in)
            self.float_types_read = outside | {self.integer_type(to_type)}
        elif isinstance(node, c_ast.UnaryOp):
            if node.op in ("-", "+", "!", "~"):
                self.reads(node.expr, ctx, domain, out, site, hide)
            elif node.op in SIZE_OPERATORS:
                return
            elif node.op == "*":
                raise self.error(where, "pointer dereference inside a SCoP (use array subscripts)")
            elif node.op == "&":
                raise self.error(where, "address-of operator '&' inside a SCoP")
            else:
                raise self.error(where, f"'{node.op.lstrip('p')}' inside an expression (side effect) is not supported")
        elif isinstance(node, c_ast.FuncCall):
            if not isinstance(node.name, c_ast.ID):
                raise self.error(where, "call through a function pointer inside a SCoP")
            fname = node.name.name
            if fname in self.visible.variables:
                raise self.error(where, f"call through '{fname}', a variable (a function pointer), inside a SCoP: "
                                        "what it calls is not known here")
            allowed = "(only pure functions of this file and its own headers, pure <math.h> functions and macros are " \
                      "allowed inside a SCoP)"
            if fname in self.defined_functions():
                problem = self.purity.problem(fname)
                if problem is not None:
                    origin = "this file" if fname in _function_definitions(self.plain) \
                        else "a header this file includes"
                    raise self.error(where, f"call of '{fname}', a function of {origin} that {problem} {allowed}")
            elif not _is_pure_function(fname):
                raise self.error(where, f"call of '{fname}', which may have side effects {allowed}")
            elif self.may_set_errno_read(fname):
                raise self.error(where, f"call of '{fname}', which may set errno, and this file reads errno "
                                        "(another order of the calls, or a thread's own errno, would change it)")
            if not _gives_integer(fname):
                self.floating = True
                # (sqrtf gives a float, sqrtl a long double; sqrt and this file's functions:
                # taken as double)
                narrow = fname[-1] in "fl" and _is_pure_function(fname[:-1])
                self.float_types_read.add({"f": "float", "l": "long double"}[fname[-1]] if narrow else "double")
            for arg in (node.args.exprs if node.args else []):
                self.reads(arg, ctx, domain, out, site, hide)
        elif isinstance(node, c_ast.Assignment):
            raise self.error(where, "assignment inside an expression is not supported")
        elif isinstance(node, c_ast.StructRef):
            raise self.error(where, f"struct member access '{_GEN.visit(node)}' is not supported (read: members of a struct "
                                    "defined in this file, one level deep, or of an array of them; not unions)")
        elif isinstance(node, c_ast.ExprList):
            raise self.error(where, "comma operator inside a SCoP is not supported")
        elif isinstance(node, c_ast.Compound):
            raise self.error(where, "GNU statement expression '({ ... })' inside a SCoP is not supported")
        else:
            raise self.error(where, f"unsupported expression '{_GEN.visit(node)}'")

    def arms_evaluated(self, ctx: _Context, cond: c_ast.Node) -> tuple[_Context, _Context]:
        """Where C evaluates each arm of ``cond ? a : b``: ``ctx`` with its domain cut to
        where an affine ``cond`` holds, and to where it does not (``i > 0 ? x[i - 1] : 0``
        with ``size_t i``: ``i - 1`` wraps only where it is never computed); ``ctx``
        twice for a condition on data, or one whose own values have ranges to keep (an
        unsigned ``i - 1 > 0``: its set would not be C's where it wraps, and assuming it
        does not would cost where nothing did). The reads of each arm are cut to its
        domain (`reads`)."""
        saved = list(self.pending_ranges)
        try:
            holds = self.converter(ctx).condition(cond)
        except NotAffine:
            holds = None
        ranges, self.pending_ranges = self.pending_ranges[len(saved):], saved
        if holds is None:
            return ctx, ctx
        if ranges:
            kept = in_range(ranges, ctx.domain)
            # (ranges the parameters' own types keep: an 'unsigned j' of 'j < m' compared
            # to 0 is in [0, 2**32) wherever 'unsigned m' is; helper-89: 'j > 0 ? b[j - 1]
            # : 1.0' assumed j - 1 >= 0 everywhere, and the model held for no m)
            if not self.within_parameter_types(kept.get_space()).is_subset(kept):
                return ctx, ctx
        return replace(ctx, domain=ctx.domain.intersect(holds)), replace(ctx, domain=ctx.domain.subtract(holds))

    def within_parameter_types(self, space: isl.Space) -> isl.Set:
        """``[params] -> { : ... }`` on ``space``: each parameter within the range of its
        integer C type, where known."""
        universe = isl.Set.universe(space)
        for k in range(space.dim(isl.dim_type.param)):
            bounds = integer_range(self.type_of(space.get_dim_name(isl.dim_type.param, k)) or "")
            if bounds is None:
                continue
            value = isl.PwAff.var_on_domain(isl.LocalSpace.from_space(space), isl.dim_type.param, k)
            zero = isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(space))
            universe = universe.intersect(value.ge_set(zero.add_constant_val(val(bounds[0])))) \
                .intersect(value.le_set(zero.add_constant_val(val(bounds[1]))))
        return universe

    def access(self, node: c_ast.Node, kind: str, ctx: _Context, domain: isl.Set,
               site: c_ast.Node | None = None) -> Access:
        """``{ S[i] -> A[f(i)] }`` for an array element or a scalar, intersected with the domain."""
        where = site or node
        subscripts: list[c_ast.Node] = []
        base = node
        while isinstance(base, c_ast.ArrayRef):
            subscripts.append(base.subscript)
            base = base.name
        subscripts.reverse()
        if isinstance(base, c_ast.StructRef):
            raise self.error(where, f"struct member access '{self.as_written(_GEN.visit(node))}' is not supported "
                                    "(read: members of a struct defined in this file, one level deep, or of an "
                                    "array of them; not unions)")
        if not isinstance(base, c_ast.ID):
            raise self.error(where, f"'{self.as_written(_GEN.visit(node))}' is not a plain array reference (pointer "
                                   "arithmetic or a computed base is not supported)")
        name = base.name
        if name in ctx.iterators or (name in self.all_iterators and self.resolve(name) is None):
            swapped = subscripts[0] if len(subscripts) == 1 else None
            array = self.visible.declarations.get(swapped.name) if isinstance(swapped, c_ast.ID) else None
            if array is not None and array.dims:        # i[b], which C reads as b[i]
                raise self.error(site or base, f"'{name}[{swapped.name}]' subscripts the loop iterator: write "
                                               f"'{swapped.name}[{name}]' (C reads both the same; the front end "
                                               "takes the array first)")
            raise self.error(site or base, f"loop iterator '{name}' cannot be subscripted or assigned")
        if name in self.macros:
            raise self.error(site or base, f"macro '{name}' used as an array")
        local = self.resolve(name)
        if local is not None:       # a scalar or an array declared inside the region
            if local.alias is not None or (subscripts and not local.decl.dims):
                raise self.error(where, f"'{name}' is a scalar but is accessed with {len(subscripts)} subscript(s)")
            name, decl = local.model, (local.decl if local.decl.dims else None)
            if kind != "read" and self.arrays[name].initializer:
                raise self.error(where, f"array '{local.name}' is declared with an initialiser inside a SCoP and "
                                        "written there (declare it without one and assign its elements in a loop)")
        else:
            decl = self.visible.declarations.get(name)
            if decl is None:
                self.check_declared(name, site or base)
        if decl is not None and decl.volatile:
            raise self.volatile_error(name, where)
        if decl is not None and len(decl.dims) != len(subscripts):
            if not decl.dims:
                raise self.error(where, f"'{name}' is a scalar but is accessed with {len(subscripts)} subscript(s)")
            if not subscripts and "" in decl.dims:
                raise self.error(where, f"'{name}' is a pointer used as a whole value here (assigned, "
                                        "swapped, compared or passed); a region reads and writes only the "
                                        "elements of its arrays (assign or compare pointers outside it)")
            if not subscripts:
                raise self.error(where, f"'{name}' is an array used without subscripts (as a pointer), "
                                        "which a region does not support")
            raise self.error(where, f"'{name}' has {len(decl.dims)} dimension(s) but is accessed with "
                                   f"{len(subscripts)} subscript(s) (a partial subscript or pointer "
                                   "arithmetic is not supported)")
        chain = self.linearized.get(name) if decl is not None and local is None else None
        pieces = []
        if chain is not None:
            pieces = self.delinearized(subscripts[0], chain, ctx, name, site)
        for sub in subscripts if chain is None else []:
            try:
                pieces.append(self.converter(ctx).pw_aff(sub))
                self.assume_in_range(ctx.domain)
            except NotAffine as err:
                array, text = self.as_written(name), self.as_written(_GEN.visit(sub))
                if isinstance(err.node, c_ast.ArrayRef):
                    root = array_root(err.node)
                    why = self.not_a_table(root) if root else ""
                    raise self.error(site or err.node, f"indirect access: subscript '{text}' of '{array}' reads "
                                               f"an array element{why}") from None
                wrapping = self.wrapping_subscripts.get(name)
                # (seed 34941: the subscript refused, 'i + j * n' in long, was not the one that wraps)
                wraps = "" if wrapping is None else \
                    f"; a subscript computed in 32-bit unsigned arithmetic wraps modulo 2**32 (here " \
                    f"'{array}[{self.as_written(_GEN.visit(wrapping))}]') and is not read as rows and columns " \
                    f"(one of 'size_t' or signed counters and sizes is)"
                if name in self.mixed_rows and not wraps:
                    sizes = " and ".join(f"'{self.as_written(size)}'" for size in self.mixed_rows[name])
                    wraps = (f"; '{array}' is read as rows of {sizes} in different subscripts, and one "
                             f"array is rows of one size (subscript it with one row size, or use one "
                             f"pointer per shape)")
                raise self.error(site or err.node, f"non-affine subscript '{text}' of '{array}': "
                                           f"{self.as_written(err.message)}{wraps}") from None
        known = self.arrays.get(name)
        if known is not None and len(known.dims) != len(pieces):
            raise self.error(where, f"'{name}' is accessed with {len(subscripts)} subscript(s) here and "
                                    f"{len(known.dims)} elsewhere")
        self.record_array(name, decl, len(subscripts), dimension_sizes(chain) if chain else None)
        space = domain.get_space()
        if pieces:
            relation = isl.Map.from_pw_aff(pieces[0])
            for piece in pieces[1:]:
                relation = relation.flat_range_product(isl.Map.from_pw_aff(piece))
        else:
            scalar_space = space.params().set_from_params()
            relation = isl.Map.universe(isl.Space.map_from_domain_and_range(space, scalar_space))
        relation = relation.set_tuple_name(isl.dim_type.in_, domain.get_tuple_name())
        relation = relation.set_tuple_name(isl.dim_type.out, name)
        relation = relation.intersect_domain(domain)
        line, col = self.position(where)
        return Access(name, kind, relation, line, col)

    def record_array(self, name: str, decl: Declaration | None, n_subscripts: int,
                     row_sizes: list[str] | None = None) -> None:
        """``row_sizes``: the inner sizes of a linearised array's view (``["n"]`` for
        ``A[i * n + j]``)."""
        if name in self.arrays:
            return
        if decl is None and name in self.macros.header_identifiers and name not in self.visible.enumerator_names:
            # a header's variable (extern double scale;): a global, whose address the
            # run-time check may take, of its declared type
            decl = header_declaration(self.macros, name, self.visible.typedefs)
        if decl is None:
            self.arrays[name] = Array(name, "", [""] * n_subscripts)
        else:
            # the rows' count is not declared; the sizes as C text (img->w, not img__w)
            dims = [""] + [self.c_texts.get(s, s) for s in row_sizes] if row_sizes else list(decl.dims)
            text = self.c_texts.get(name, "")
            member, member_after = self.members.get(name, ("", 0))
            self.arrays[name] = Array(name, decl.element_type, dims, decl.origin,
                                      decl.through_pointer or "->" in text or text.startswith("(*") or "[" in text,
                                      decl.restrict,
                                      linearized=bool(row_sizes), text=text, member=member,
                                      member_after=member_after)

    def check_hidden_iterators(self, body: str, iterators: list[str], node: c_ast.Node) -> None:
        """The emitted statement is its text with the iterators renamed: a macro that
        names an iterator in its body (``#define CUR A[i]``) would keep the old one. The
        front end expands those it can see (`macros_to_expand`); any left is refused."""
        for name in set(re.findall(r"[A-Za-z_]\w*", body)):
            macro = self.macros.get(name)
            if macro is None or self.macros.integer_value(name) is not None:
                continue
            hidden = self.macros.names_reached(name) & (set(iterators) - set(macro.params or ()))
            if hidden:
                raise self.error(node, f"macro '{name}' uses the loop iterator '{sorted(hidden)[0]}' without "
                                       f"taking it as an argument (pass it to the macro, or write the access out)")
            if macro.is_function_like and "#" in macro.body:
                for param, argument in _spelled_arguments(body, name, macro):
                    used = set(re.findall(r"[A-Za-z_]\w*", argument)) & set(iterators)
                    if used:
                        raise self.error(node, f"macro '{name}' turns its argument '{param}' into text (# or ##), "
                                               f"and the optimized code renames the iterator '{sorted(used)[0]}' in it")

    def statement_text(self, node: c_ast.Node, end: int | None = None, operand: bool = False) \
            -> tuple[str, int, int]:
        """The statement's source text (with its ';'), line and column; ``end``: the
        offset of its last character, when that is not the first ';' (an ``if``);
        ``operand``: an operand of a comma expression, whose ',' becomes a ';'."""
        start, found = self.statement_span(node, operand)
        end = found if end is None else end
        raw = self.text[start:end + 1]
        commented = raw != self.stripped[start:end + 1]
        if commented:                               # a comment inside: dropped
            raw = self.stripped[start:end + 1]
        if "\\" in raw:                             # backslash-newlines: join the lines
            raw = join_continuations(raw)
        if commented:
            raw = "\n".join(line.rstrip() for line in raw.split("\n") if line.strip())
        if operand and raw.endswith(","):
            raw = raw[:-1].rstrip() + ";"
        line, col = line_col(self.starts, start)
        return raw, line, col

    def statement_span(self, node: c_ast.Node, operand: bool = False) -> tuple[int, int]:
        """Offsets of the first and last characters (the ';') of statement ``node``
        (``operand``: or its ',' in a comma expression)."""
        coords = [n.coord for n in _walk_nodes(node) if n.coord is not None and n.coord.line]
        first = min(coords, key=lambda c: (c.line, c.column))
        line, col = self.position(c_ast.ID("", coord=first))
        start = offset_of(self.starts, line, col)
        # Prefix operators and parentheses are not the first node's coordinate.
        while True:
            k = start
            while k > self.region.start and self.plain[k - 1] in " \t\n":
                k -= 1
            if k - 2 >= self.region.start and self.plain[k - 2:k] in ("++", "--"):
                start = k - 2
            elif k - 1 >= self.region.start and self.plain[k - 1] in "(*":    # '*' only as *p = ...
                start = k - 1
            else:
                break
        end, depth = start, 0
        while end < self.region.end:
            c = self.plain[end]
            depth += c in "([{"
            depth -= c in ")]}"
            if (c == ";" or c == "," and operand) and depth <= 0:
                break
            end += 1
        return start, end

    # -- result ---------------------------------------------------------------------
    def integer_type(self, c_type: str) -> str:
        """``c_type`` with a typedef of a basic type resolved (``idx_t`` -> ``unsigned``),
        and an enumerated type as ``unsigned int``: gcc and clang give an enum without
        negative values that type, and read so, a signed one only adds no-wrap
        conditions to the run-time check (its negative differences run the original)."""
        c_type = self.visible.typedef_types.get(c_type, c_type)
        if self._enum_typedefs is None:
            self._enum_typedefs = set(_ENUM_TYPEDEF_RE.findall(
                " ".join((self.text, self.macros.main_code, self.macros.header_code))))
        if ("enum" in c_type.split() or c_type in self._enum_typedefs) and "*" not in c_type:
            return "unsigned int"
        return c_type

    def type_of(self, name: str) -> str | None:
        """The declared C type of a scalar variable (iterator or parameter), if known
        (`integer_type`); for an object-like macro, the unsigned type of its expansion
        (``#define M 10u``, ``#define S (sizeof(double) + 2)``), which C computes with in
        bounds."""
        if name in self.loop_scoped_types:
            return self.integer_type(self.loop_scoped_types[name])
        decl = self.visible.declarations.get(name)
        if decl is not None:
            return self.integer_type(decl.element_type) if not decl.dims else None
        macro = self.macros.get(name)
        if macro is None or macro.is_function_like or name in self._typing_macros:
            return None
        if name not in self._macro_types:       # asked for every name of every expression
            self._typing_macros.add(name)
            try:
                width = unsigned_width_of(self.parse_expression(macro.body, c_ast.ID(name)), self.type_of)
            except NotAffine:
                width = None
            finally:
                self._typing_macros.discard(name)
            self._macro_types[name] = {32: "unsigned int", 64: "unsigned long"}.get(width)
        return self._macro_types[name]

    def assume_no_wrap(self, cond: c_ast.Node, iterators: list[str], evaluated_on: isl.Set) -> None:
        """Record where the unsigned comparisons of ``cond`` (tested at the points of
        ``evaluated_on``) do not wrap: the model is exact only there (see unsigned.py)."""
        sides = []
        for left, right, width in unsigned_comparisons(cond, self.type_of):
            at = _Context(iterators, evaluated_on)
            sides += [(self.affine(at, left), width), (self.affine(at, right), width)]
        if sides:
            self.no_wrap.append(no_wrap(sides, evaluated_on))

    def assume_in_bounds(self) -> None:
        """Record where no subscript of a declared inner dimension is negative: the model
        takes ``A[i][j - 1]`` at ``j = 0`` for an element of its own, where the compiler
        reads ``A[i - 1][15]`` of ``double A[16][16]`` (helper-43: a dependence missed,
        wrong output). C leaves such a subscript undefined; the condition joins the
        run-time check, the original code runs where it fails. A subscript past the
        extent is not checked: gcc itself bounds a loop's trip count by the declared
        extents (-faggressive-loop-optimizations), so ``A[i][j + 1]`` up to ``j = 15``
        crashes compiled as written at -O3, and a check's fallback would be code that
        runs only where behaviour is undefined, which gcc -O2 compiled into a crash
        where the program as written had run (session 39)."""
        for stmt in self.statements:
            for access in stmt.accesses:
                array = self.arrays.get(access.array)
                if array is None or array.linearized or len(array.dims) < 2:
                    continue
                try:
                    # (defined on the access's instances: its relation is within the domain)
                    subscripts = isl.PwMultiAff.from_map(access.relation)
                except isl.Error:
                    continue        # not a function of the instance: nothing assumed
                for k in range(1, len(array.dims)):
                    try:
                        with isl_operation_cap(subscripts.get_ctx(), BOUNDS_OPERATIONS):
                            negative = subscripts.get_pw_aff(k).neg().pos_set()
                            allowed = None if negative.is_empty() else negative.params().complement()
                    except isl.Error:
                        # (fuzz v8 4475: the complement of where a wrapped `(short)(8192 * i)
                        # % 7` is negative ran for minutes) where the subscript's sign cannot
                        # be told, the optimized code never runs
                        allowed = isl.Set.empty(access.relation.get_space().params())
                    if allowed is not None:
                        self.no_wrap.append(allowed)

    def parameter_bindings(self) -> list[isl.Set]:
        """``[n, half] -> { : half = floor(n / 2) }`` for ``int half = n / 2;`` before the
        region: each parameter that is an ``int`` of the enclosing function assigned once
        there, with ``=``, an affine value of other parameters (a relation the model
        keeps: ``b[i]`` and ``b[n - 1 - i]`` for ``i < half`` never meet). Read from the text, and so assumed: the
        context holds it, and the run-time check tests it, so that a value the text does
        not show (a macro's or a pointer's write) runs the original code."""
        found: list[isl.Set] = []
        function = enclosing_function(self.plain, self.region.scop_offset)
        if function is None:
            return found
        # (in polysched's output, up to its whole region: its generated code is no write
        # of the function, and the original code it keeps is inside an 'else'; helper-89:
        # re-optimizing lost 'half = n / 2' and the parallel loop it allowed)
        before = self.plain[function.body_offset:(self.region.outer or (self.region.start,))[0]]
        for name in list(self.parameters):
            decl = self.visible.declarations.get(name)
            if decl is None or decl.origin != "local" or decl.dims or name in self.c_texts \
                    or integer_kind(decl.element_type) != (32, True):
                continue
            writes = list(re.finditer(rf"(?:\+\+|--|&)\s*\b{name}\b|\b{name}\s*(?:\+\+|--|(?:[-+*/%&|^]|<<|>>)?=(?!=))",
                                      before))
            if len(writes) != 1 or not writes[0].group(0).endswith("=") or not re.fullmatch(
                    rf"{name}\s*=", writes[0].group(0)):
                continue
            end = writes[0].end()
            depth, k = 0, end
            while k < len(before) and not (before[k] in ";," and depth == 0):
                depth += before[k] in "([{"
                depth -= before[k] in ")]}"
                k += 1
            words = set(IDENT_RE.findall(before, end, k))
            if k == len(before) or name in words or not words <= set(self.parameters) | set(self.macros.macros):
                continue
            parameters, ranges = list(self.parameters), list(self.pending_ranges)
            universe = isl.Set.universe(isl.Space.set_alloc(self.ctx, 0, 0))
            try:
                value = self.converter(_Context([], universe)).pw_aff(self.parse_expression(before[end:k], None))
            except (NotAffine, ScopError):
                continue
            finally:
                changed = self.parameters != parameters or self.pending_ranges != ranges
                self.parameters[:], self.pending_ranges[:] = parameters, ranges
            if changed:
                continue
            variable = isl.PwAff(f"[{name}] -> {{ [] -> [({name})] }}", context=self.ctx)
            variable, value = variable.align_params(value.get_space()), value.align_params(variable.get_space())
            found.append(variable.eq_set(value).params())
        return found

    def finish(self, schedule: isl.Schedule) -> Scop:
        self.assume_in_bounds()
        bindings = self.parameter_bindings()
        param_space = isl.Space.params_alloc(self.ctx, len(self.parameters))
        for k, name in enumerate(self.parameters):
            param_space = param_space.set_dim_name(isl.dim_type.param, k, name)
        for stmt in self.statements:
            stmt.domain = stmt.domain.align_params(param_space)
            for acc in stmt.accesses:
                acc.relation = acc.relation.align_params(param_space)
        # Sizes (a loop's upper bound) are >= 1, other parameters (a loop's start, an
        # offset in a subscript) >= 0: 'for (i = lo; i < hi; i++)' is most often run
        # with lo = 0, and under 'lo >= 1' the optimized code never ran for it. Sizes
        # stay >= 1: at 0 their loops are empty, and under '>= 0' isl's code would
        # split every nest on 'n >= 1' for nothing.
        sizes = self.sizes | size_parameters(stmt.domain for stmt in self.statements)
        context = parameters_at_least(param_space, 0).intersect(parameters_at_least(param_space, 1, sizes))
        for assumption in self.no_wrap:    # unsigned arithmetic: exact where nothing wraps
            context = context.intersect(assumption.align_params(param_space)).coalesce()
        for bound in bindings:
            context = context.intersect(bound.align_params(param_space)).coalesce()
        variable_types = self.variable_types()
        return Scop(
            filename=self.filename, source=self.text, region_start=self.region.start,
            region_end=self.region.end, start_line=self.region.scop_line, end_line=self.region.endscop_line,
            function=self.visible.function, parameters=list(self.parameters),
            parameter_values=dict(self.parameter_values), context=context, arrays=self.arrays,
            statements=self.statements, schedule=schedule,
            variable_types=variable_types, loop_scoped=frozenset(self.loop_scoped_types),
            replaced=self.region.outer, c_texts=dict(self.c_texts), products=tuple(self.products),
            preprocessor_guard=self.preprocessor_guard, types_from_headers=self.macros.user_headers,
            user_loop_pragmas=tuple(self.user_loop_pragmas),
            user_parallel_loops=tuple(self.user_parallel_loops),
            address_bounds=tuple((row.align_params(param_space), tuple(e.align_params(param_space) for e in extents))
                                 for row, extents in self.address_bounds),
            enumerators=dict(sorted(self.values_read().items())), typedefs=self.typedefs_read(variable_types),
            macro_expansions=self.macros.expansions_to_check(
                self.region_words | self.words_of(self.region_words & self.defined_functions())),
            plain_names=tuple(sorted(w for w in self.region_words if w not in self.macros and w not in C_WORDS
                                     and not w.startswith("__"))) if self.macros.user_headers else (),
        )

    def words_of(self, functions: set[str]) -> set[str]:
        """The identifiers of the file's definitions of ``functions``, as written (their
        macros by name: the model read them expanded)."""
        from .pure import function_definition
        words = set()
        for name in functions:
            words |= set(re.findall(r"[A-Za-z_]\w*", function_definition(self.plain, name) or ""))
        return words

    def values_read(self) -> dict[str, int]:
        """The enumeration constants the model read as values, and the integer macros of
        the functions it inlined (``return x * S;``, read with S's value: another ``-D``
        may give S another), each with its value: the emitted code checks them."""
        values = dict(self.enumerators_read)
        for name in self.words_of(self.inlined):
            value = self.macros.integer_value(name) if name in self.macros else None
            if value is not None:
                values[name] = value
        return values

    def typedefs_read(self, variable_types: dict[str, str]) -> dict[str, str]:
        """The typedef names the model's variables (``variable_types``) and arrays are
        declared with, and those its statements cast to (``(idx_t)v``: an integer or
        not, for their reductions), each with the basic type it stands for (``{"idx":
        "int"}``; a header's may be chosen by an ``#if``: the emitted code checks them)."""
        found = {}
        casts = re.findall(r"\(\s*(?:const\s+)?([A-Za-z_]\w*)\s*\)", " ".join(s.body for s in self.statements))
        for name in {*variable_types.values(), *(a.element_type for a in self.arrays.values()), *casts}:
            if not re.fullmatch(r"[A-Za-z_]\w*", name or "") or name in _TYPE_WORDS:
                continue
            basic = self.visible.typedef_types.get(name)
            if basic is None and name in self.macros.header_identifiers:
                basic = header_typedef(self.macros.header_code, name)
            if basic is not None:
                found[name] = basic
        return dict(sorted(found.items()))

    def variable_types(self) -> dict[str, str]:
        """Declared C type of each variable parameter and of each loop iterator."""
        types = {}
        for name in [*self.parameters, *sorted(self.all_iterators)]:
            decl = self.visible.declarations.get(name)
            if name in self.retyped:
                # (the statements have their own: this one decides the counters' type)
                types[name] = next((t for t in self.retyped[name]
                                    if (integer_range(t) or (0, 2 ** 63))[1] > 2 ** 31 - 1), self.retyped[name][0])
            elif name in self.loop_scoped_types:
                types[name] = self.loop_scoped_types[name]
            elif decl is not None and not decl.dims:
                types[name] = decl.element_type
        return types


def _cast_width(node: c_ast.Cast) -> int | None:
    """The width of the integer type ``node`` casts to, else None."""
    kind = integer_kind(_GEN.visit(node.to_type))
    return kind[0] if kind else None


def _widening_cast(node: c_ast.Cast) -> bool:
    """Is ``node`` a cast to a 64-bit integer type (``(size_t)``, ``(long)``,
    ``(int64_t)``)? A linearised subscript reads through it (delinearize.py: expand)."""
    bounds = integer_range(_GEN.visit(node.to_type))
    return bounds is not None and bounds[1] >= 2 ** 63 - 1


_REGION_DEFINE_RE = re.compile(r"^#\s*define\s+([A-Za-z_]\w*)(\(([^)]*)\))?(.*)$", re.S)
_PRAGMA_OPERATOR_RE = re.compile(r'\b_Pragma\s*\(\s*"((?:[^"\\]|\\.)*)"\s*\)')
_SKIPPED_DIRECTIVE_RE = re.compile(
    r"^#\s*(?:undef\b|line\b|\d|$|pragma\s+(?:omp\s+(?:parallel\s+)?(?:for|simd)\b|GCC\s+(?:ivdep|unroll)\b"
    r"|ivdep\b|unroll\b|simd\b|vector\b|clang\s+loop\b))")
def _definitions_guard(text: str, stripped: str, kept: frozenset[int], macros: MacroTable, regions: list[Region],
                       region: Region, builder: "_RegionBuilder", scop: Scop,
                       function, final: MacroTable) -> str | None:
    """The preprocessor condition under which the definitions the region's model was
    read with, outside it, are the ones the compiler takes: ``#if``/``#else`` branches
    (outside every region) that define a function-like or non-integer macro the region
    uses, a typedef, global or local declaration of its variables, or a function it
    calls (or hold a conditional inside that function). Compiled with other macros,
    ``PREV(i)`` may be ``i - 1`` and ``real`` float: the optimized code holds only
    where the branches read are taken (the emitted ``#if``); None when no such branch.

    Taken: a branch with a kept line of code (`MacroTable.kept_lines`), or whose
    ``#define`` of a used macro is the definition in force; a relevant group with no
    branch known taken gives ``0`` (the original code always runs).

    ``macros`` is the table at the region, ``final`` the file's whole: a group whose
    condition names a macro (or one its body reaches) that the file, a header included,
    defines between the group and the region, or defines twice or undefines anywhere,
    is tested at the region in vain (`changed_between`)."""
    from .declarations import _TYPEDEF_RE
    from .pure import function_definition

    lines = stripped.split("\n")
    raw_lines = text.split("\n")
    inside = {n - 1 for r in regions for n in range(r.scop_line, r.endscop_line + 1)}
    for start, end in pasted_header_spans(text):     # polysched's own header in its output
        inside.update(range(text.count("\n", 0, start), text.count("\n", 0, end) + 1))
    directives = []
    for k, line in enumerate(lines):
        if k in inside or not _CONDITIONAL_RE.match(line.strip()):
            continue
        last = _directive_end(lines, raw_lines, k)
        directives.append((k, last, join_continuations(" ".join(lines[k:last + 1]))))
    if not directives:
        return None
    try:
        groups = conditional_groups(directives)
    except UnbalancedConditional:
        return None
    words = set(builder.region_words)
    called = {w for w in words if w in builder.defined_functions()} - _C_KEYWORDS
    definitions = {name: function_definition(stripped, name) for name in called}
    called_words = set()
    for definition in definitions.values():      # the macros of the functions it calls count as its own
        called_words |= set(re.findall(r"[A-Za-z_]\w*", definition or ""))
    words |= called_words
    used_macros = set()
    for word in words & set(macros.macros):
        used_macros |= {word} | {n for n in macros.names_reached(word) if n in macros.macros}
    used_macros = {m for m in used_macros if macros.get(m).is_function_like or macros.integer_value(m) is None}
    reached = words | used_macros | {n for m in used_macros for n in macros.names_reached(m)}
    variables = {a for a in scop.arrays} | set(scop.parameters) | set(builder.all_iterators)
    top = top_level_text(blank_strings(stripped)).split("\n")
    first_own = stripped.count("\n", 0, function.header_offset) if function is not None else len(lines)
    relevant: set[int] = set()
    for k, line in enumerate(lines):
        m = re.match(r"\s*#\s*define\s+([A-Za-z_]\w*)", line)
        if m and m.group(1) in used_macros:
            relevant.add(k)
        if line.lstrip().startswith("#"):
            continue
        ids = set(re.findall(r"[A-Za-z_]\w*", line))
        if ids & variables and ((top[k].strip(" \t;") and "(" not in line)
                                or first_own <= k < region.scop_line - 1):
            # a declaration of its variables: global (not another function's header
            # naming its parameters alike), or in its own function
            relevant.add(k)
            reached |= ids        # (their types' typedefs too)
    for definition in definitions.values():      # the functions it calls, whole
        at = stripped.find(definition) if definition else -1
        if at >= 0:
            start, end = stripped.count("\n", 0, at), stripped.count("\n", 0, at + len(definition))
            while start < end and (not lines[start].strip() or lines[start].lstrip().startswith("#")):
                start += 1       # (the text starts after the declaration before it: not its lines)
            relevant.update(range(start, end + 1))
    for k, line in enumerate(lines):      # typedefs of the types read (reached grew above)
        typedef = _TYPEDEF_RE.search(line)
        if typedef and typedef.group(1) in reached:
            relevant.add(k)

    def taken(branch) -> bool | None:
        """Whether the compiler read the branch: one of its lines of code or #defines
        (nested ones too) is kept; None for a branch with neither."""
        marked = [j for j in range(branch[1], branch[2]) if lines[j].strip() and (
            not lines[j].lstrip().startswith("#") or re.match(r"\s*#\s*(?:define|undef)\b", lines[j]))]
        return any(j + 1 in kept for j in marked) if marked else None

    def changed_between(group) -> bool:
        """Whether a name of the group's conditions, or one their macros' bodies reach,
        is defined twice or undefined anywhere (``#ifdef SHIFT`` then ``#undef SHIFT``;
        ``#define LEVEL BASE`` then ``#undef BASE``), or defined once between the group
        and the region, in the file or a header it includes there (``#ifndef MIN`` then
        ``#define MIN``; a group after the region): tested at the region, the
        condition no longer tells which branch the compiler took."""
        names = set(re.findall(r"[A-Za-z_]\w*", " ".join(branch[0] for branch in group))) - {"defined"}
        for name in list(names):
            names |= final.names_reached(name)
        at = group[0][1] - 1
        low, high = min(at, region_at), max(at, region_at)
        # the file's own lines between them, branches not taken included (an #undef
        # there is in no table: the run that read the file did not take it)
        if any(m and m.group(1) in names
               for m in (re.match(r"\s*#\s*(?:define|undef)\s+([A-Za-z_]\w*)", lines[j])
                         for j in range(low, high))):
            return True
        for name in names:
            if name in final.redefined:
                return True
            macro = final.get(name)
            if macro is None or macro.origin in ("command-line", "builtin"):
                continue
            entries = [line - 1 for file, line in macro.site if file == "<stdin>"]
            if not entries or low <= entries[0] <= high:
                return True
        return False

    region_at = region.scop_line - 1
    terms, compared = [], set()
    if called_words & final.redefined:
        # a macro a called function uses is defined twice or undefined: the function
        # was compiled with a definition the region cannot compare (#undef SCALE after it)
        terms.append("0")
    for group in groups:
        start, end = group[0][1], group[-1][2]
        if not any(j in relevant for j in range(start, end)):
            continue
        if start <= region_at < end:
            continue            # the region is in one of its branches: compiled only under it
        if changed_between(group):
            defined = [re.match(r"\s*#\s*define\s+([A-Za-z_]\w*)", lines[j]) for j in range(start, end)
                       if j in relevant]
            if all(defined):
                # only macros the region uses: each one's expansion is compared at compile
                # time instead (MacroTable.expansions)
                compared |= {m.group(1) for m in defined}
            else:
                terms.append("0")
            continue
        enclosing = [b for g in groups if g is not group for b in g if b[1] <= start and end <= b[2]]
        if any(taken(b) is False for b in enclosing):
            continue            # inside a branch not read: its enclosing group decides
        known = [taken(b) for b in group]
        if True not in known and known.count(None) == 1:
            known[known.index(None)] = True     # the only branch with nothing to tell
        negated = []
        for branch, read in zip(group, known):
            if read:
                terms.append(_conjunction(negated + [branch[0]]))
                break
            negated.append(f"!{branch[0]}")
        else:
            terms.append(_conjunction(negated) if None not in known else "0")
    if compared:
        closure = set(compared)
        for name in compared:
            closure |= {n for n in macros.names_reached(name) if n in macros.macros}
        scop.macro_expansions = {**scop.macro_expansions, **macros.expansions(
            sorted(n for n in closure if n in macros.macros and macros.integer_value(n) is None))}
    # (an enclosing group holds the relevant lines too: its own term is among these)
    terms = [t for t in dict.fromkeys(terms) if t]
    return " && ".join(f"({t})" for t in terms) if terms else None


_C_KEYWORDS = frozenset("for while if switch return sizeof do else case".split())
# C's keywords, and the words of the pragmas a region may hold
C_WORDS = frozenset("""auto break case char const continue default do double else enum extern float for goto if
inline int long register restrict return short signed sizeof static struct switch typedef union unsigned void
volatile while _Bool _Complex _Atomic _Alignof _Generic _Noreturn _Static_assert pragma scop endscop omp
parallel simd GCC ivdep unroll""".split())
_ENUM_TYPEDEF_RE = re.compile(r"\btypedef\s+enum\b[^;]*?\b([A-Za-z_]\w*)\s*;")
_TYPE_WORDS = frozenset("long int short char signed unsigned".split())


def _conjunction(conditions: list[str]) -> str:
    """``a && b`` of preprocessor conditions, without the constant ones that hold
    (``!(0)``, ``(1)``); ``0`` when one does not (``!(1)``: no branch of an ``#if ...
    #else`` looked taken, as when the taken one expands to nothing: the optimized code
    then never runs, rather than under the negation of the branch that was taken)."""
    kept = []
    for c in conditions:
        m = re.fullmatch(r"(!?)\((\d+)\)", c)
        if m is None:
            kept.append(c)
        elif (int(m.group(2)) != 0) == bool(m.group(1)):
            return "0"
    return " && ".join(kept)


_CONDITIONAL_RE = re.compile(r"^#\s*(?:if|ifdef|ifndef|elif|else|endif)\b")
# ``#ifndef POLYSCHED_PARALLEL_MIN_WORK`` ... ``#endif``, in regions polysched wrote
_OWN_CONDITIONAL_RE = re.compile(r"^#\s*ifndef\s+POLYSCHED_[A-Z0-9_]+\s*$")
_BUILTIN_CONSTANTS = frozenset("inf inff infl huge_val huge_valf huge_vall nan nanf nanl".split())


def _original_code(text: str, region: Region, filename: str, line_map: LineMap) -> Region:
    """`original_of_output`, its errors at the presumed location (``#line``)."""
    try:
        return original_of_output(text, region, filename)
    except ScopError as err:
        raise line_map.relocate(err) from None


def _names_seen_by(text: str, k: int, regions: dict[int, Region]) -> frozenset[str]:
    """The identifiers of ``text`` (the file without generated code) that region ``k``'s
    new code must not take: all but those only inside the other regions, which the new
    output replaces and whose own loops' names are visible in no other region
    (re-optimized, a file with a region of generated loops, 'for (int c0 ...)', named
    the other regions' loops 'ps_c0' the second time). A name another region declares
    at its top level is visible after it; the new code takes no name this region uses,
    and declares its own inside blocks, where such a name is only hidden."""
    for j, region in regions.items():
        if j != k:
            start, end = region.outer or (region.start, region.end)
            text = text[:start] + " " * (end - start) + text[end:]
    return identifiers(text)


def _without_generated_code(text: str, regions: list[Region], pasted: list[tuple[int, int]]) -> str:
    """``text`` without the code an earlier polysched run generated around the original
    code it kept (`original_of_output`) and the headers it pasted: the output replaces
    both, so their names (``c0``, ``polysched_min``) are free again."""
    spans = list(pasted)
    for region in regions:
        if region.outer is not None:
            spans += [(region.outer[0], region.start), (region.end, region.outer[1])]
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def _spelled_arguments(body: str, name: str, macro: Macro) -> list[tuple[str, str]]:
    """``(parameter, argument text)`` for each argument of a call of the function-like
    ``macro`` in ``body`` that the macro stringizes (``#x``) or pastes (``x ## y``)."""
    params = list(macro.params or ())
    spelled = {p for p in params
               if re.search(rf"(?<!#)#\s*{p}\b|##\s*{p}\b|\b{p}\s*##", macro.body)}
    found = []
    for call in re.finditer(rf"\b{re.escape(name)}\s*\(", body):
        depth, args, current = 1, [], ""
        for ch in body[call.end():]:
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 or (ch == "," and depth == 1):
                args.append(current)
                current = ""
                if depth == 0:
                    break
                continue
            current += ch
        found += [(p, a) for p, a in zip(params, args) if p in spelled]
    return found


def _is_pure_function(name: str) -> bool:
    """Whitelisted <math.h> functions, and the ``__builtin_`` forms math macros expand to
    (``INFINITY`` is ``__builtin_inff()``)."""
    if _gives_integer(name):
        return True
    if name.startswith("__builtin_"):
        name = name[len("__builtin_"):]
        return name in MATH_FUNCTIONS or name in _BUILTIN_CONSTANTS
    return name in MATH_FUNCTIONS


def _gives_integer(name: str) -> bool:
    """Is ``name`` a pure function that gives an integer (`INTEGER_FUNCTIONS`), or the
    ``__builtin_`` form of one (``__builtin_abs``)?"""
    return name in INTEGER_FUNCTIONS or name.removeprefix("__builtin_") in INTEGER_FUNCTIONS


def _shift_map_text(n_dims: int, step: int) -> str:
    """``{ [i0, ..., ik] -> [i0, ..., ik + step] }`` (the last dimension moves by ``step``)."""
    names = [f"i{k}" for k in range(n_dims)]
    out = names[:-1] + [f"{names[-1]} + {step}" if step >= 0 else f"{names[-1]} - {-step}"]
    return f"{{ [{', '.join(names)}] -> [{', '.join(out)}] }}"


def declare_block_iterators_in_their_loops(body: c_ast.Node) -> None:
    """C89's ``{ int k; for (k = 0; k < n; k++) ...; }`` in a block of the region,
    rewritten in place as ``{ for (int k = 0; k < n; k++) ...; }`` when that means the
    same: ``k`` is an integer declared without a value (or with a literal one), and every
    use of it after its declaration in the block is inside a loop over it that starts by
    setting it (``k = e``), none inside another. Then no value of ``k`` crosses from one
    loop to what follows, so each loop may have its own (helper-29's message refused it:
    the variable is not the model's iterator)."""
    # (not the region's own top level: a variable declared there lives after the region)
    for block in [n for n in _walk_nodes(body) if isinstance(n, c_ast.Compound) and n is not body]:
        items = block.block_items or []
        for decl in list(items):
            if not (isinstance(decl, c_ast.Decl) and isinstance(decl.type, c_ast.TypeDecl)
                    and isinstance(decl.type.type, c_ast.IdentifierType)
                    and integer_kind(" ".join(decl.type.type.names)) is not None
                    and not decl.quals and not [s for s in decl.storage or [] if s not in ("auto", "register")]
                    and (decl.init is None or isinstance(decl.init, c_ast.Constant))):
                continue
            name = decl.name
            later = items[items.index(decl) + 1:]
            loops: list[c_ast.For] = []

            def uses_outside_loops(node: c_ast.Node, inside: c_ast.For | None) -> bool:
                """Does ``node`` use ``name`` other than as above (collecting the loops)?"""
                if isinstance(node, c_ast.Decl) and node.name == name:
                    return True                 # (hidden by a declaration: left alone)
                if isinstance(node, c_ast.ID) and node.name == name:
                    return inside is None
                if isinstance(node, c_ast.For) and _loop_variables(node) == [name] \
                        and isinstance(node.init, c_ast.Assignment) and node.init.op == "=":
                    if inside is not None or any(isinstance(n, c_ast.ID) and n.name == name
                                                 for n in _walk_nodes(node.init.rvalue)):
                        return True
                    loops.append(node)
                    inside = node
                return any(uses_outside_loops(child, inside) for _, child in node.children())

            if not any(uses_outside_loops(item, None) for item in later) and loops:
                for loop in loops:
                    declared = copy.deepcopy(decl)
                    declared.init = loop.init.rvalue
                    loop.init = c_ast.DeclList([declared], loop.init.coord)
                items.remove(decl)


def _function_definitions(code: str) -> set[str]:
    """The names of the functions that C code ``code`` defines (``double sq(double x) {``)."""
    return set(re.findall(r"\b([A-Za-z_]\w*)\s*\([^()]*\)\s*\{", code))


def _undeclared_inner_iterators(node: c_ast.Node, level: int = 1) -> list[tuple[int, str]]:
    """(nesting level, iterator) of the loops inside ``node`` (the loops of a loop's body
    are at level 1) that do not declare their iterator (``for (j = 0; ...)``)."""
    found = []
    for child in (node.stmt,) if isinstance(node, c_ast.For) else [c for _, c in node.children()]:
        if isinstance(child, c_ast.For):
            name = _loop_iterator_name(child)
            if name and not isinstance(child.init, c_ast.DeclList):
                found.append((level, name))
            found += _undeclared_inner_iterators(child, level + 1)
        elif child is not None:
            found += _undeclared_inner_iterators(child, level)
    return found


def _loop_iterator_name(node: c_ast.For) -> str | None:
    names = _loop_variables(node)
    return names[0] if names else None


def _counter_value(start: isl.PwAff, init: isl.PwAff, factor: int, iterator: isl.PwAff) -> isl.PwAff:
    """``start + (iterator - init) * factor``: a loop's second counter where its
    iterator is ``iterator`` (all on the loop's outer domain)."""
    return start.add(iterator.sub(init).scale_val(val(factor)))


def _set_by(loop: c_ast.For) -> set[str]:
    """The variables ``loop`` sets: in its initialisation and its increment."""
    return set(_loop_variables(loop)) | {x.name for x in _walk_nodes(loop.next) if isinstance(x, c_ast.ID)}


def _loop_variables(node: c_ast.For) -> list[str]:
    """The variables a loop's initialisation sets: ``[i]`` for ``i = 0``, ``[i, j]``
    for ``i = 0, j = n - 1`` or ``int i = 0, j = n - 1`` (the first is the iterator)."""
    init = node.init
    parts = init.exprs if isinstance(init, c_ast.ExprList) else [init]
    if isinstance(init, c_ast.DeclList):
        return [d.name for d in init.decls]
    return [p.lvalue.name for p in parts
            if isinstance(p, c_ast.Assignment) and isinstance(p.lvalue, c_ast.ID)] \
        if all(isinstance(p, c_ast.Assignment) for p in parts) else []


def _resolve_cast_types(node: c_ast.Node, typedef_types: dict[str, str]) -> c_ast.Node:
    """``node`` with every cast to a typedef name of a basic type (``(idx_t) n``,
    ``(uint_fast32_t) n``) made a cast to that type, which the affine conversion reads.
    (A statement's text is the source's: the output keeps the cast as written.)"""
    for child in _walk_nodes(node):
        if isinstance(child, c_ast.Cast) and isinstance(child.to_type, c_ast.Typename) \
                and isinstance(child.to_type.type, c_ast.TypeDecl) \
                and isinstance(child.to_type.type.type, c_ast.IdentifierType):
            names = child.to_type.type.type.names
            if len(names) == 1 and names[0] in typedef_types:
                child.to_type.type.type.names = typedef_types[names[0]].split()
    return node


def size_parameters(domains) -> set[str]:
    """The parameters that bound some iterator from above in one of ``domains``
    (``[n, lo] -> { S[i] : lo <= i < n }``: ``n``): a positive coefficient in an
    inequality where some iterator (or existential) has a negative one, or any
    coefficient in an equality with an iterator. Equalities with an existential are
    strides (``(i - lo) mod 2 = 0``), not bounds. A size empties every domain it
    appears in at 0 (the other parameters at 0 or more): ``n`` of ``n <= i < 2n`` is
    one, ``lo`` of ``lo <= i < lo + len`` is not, and it is 0 as often as not."""
    domains = list(domains)
    sizes: set[str] = set()
    for domain in domains:
        space = domain.get_space()
        names = [space.get_dim_name(isl.dim_type.param, k) for k in range(space.dim(isl.dim_type.param))]
        for piece in domain.get_basic_sets():
            for constraint in piece.get_constraints():
                equality = constraint.is_equality()
                if equality and constraint.involves_dims(isl.dim_type.div, 0, piece.dim(isl.dim_type.div)):
                    continue
                inner = [constraint.get_coefficient_val(kind, k)
                         for kind in (isl.dim_type.set, isl.dim_type.div) for k in range(piece.dim(kind))]
                if not any((not v.is_zero()) if equality else v.is_neg() for v in inner):
                    continue
                for k, name in enumerate(names):
                    v = constraint.get_coefficient_val(isl.dim_type.param, k)
                    if (not v.is_zero()) if equality else v.is_pos():
                        sizes.add(name)
    return {name for name in sizes if all(_empty_at_zero(domain, name) for domain in domains)}


def _empty_at_zero(domain: isl.Set, name: str) -> bool:
    """Whether ``domain`` is empty where parameter ``name`` is at most 0 and every
    other parameter at least 0 (or does not involve ``name``)."""
    k = domain.find_dim_by_name(isl.dim_type.param, name)
    if k < 0 or not domain.involves_dims(isl.dim_type.param, k, 1):
        return True
    at_zero = domain.upper_bound_val(isl.dim_type.param, k, isl.Val(0))
    for other in range(domain.dim(isl.dim_type.param)):
        if other != k:
            at_zero = at_zero.lower_bound_val(isl.dim_type.param, other, isl.Val(0))
    return at_zero.is_empty()


def _directive_end(lines: list[str], raw_lines: list[str], k: int) -> int:
    """The last line of the directive that starts on line ``k`` of ``lines`` (comments
    blanked; ``raw_lines``: the same lines with them): a backslash-newline continues it,
    and so does a block comment opened on its line ('#if defined(A) /* or' then
    '*/ || defined(B)'), up to the line that closes the comment."""
    while k + 1 < len(lines):
        raw = raw_lines[k] if k < len(raw_lines) else ""
        opened = raw.rfind("/*")
        if opened >= 0 and raw.find("*/", opened + 2) < 0 and raw[:opened].count('"') % 2 == 0:
            while k + 1 < len(lines) and "*/" not in raw_lines[k + 1]:
                k += 1
            k += 1
        elif lines[k].rstrip().endswith("\\"):
            k += 1
        else:
            break
    return k


def _plain_int(decl_type: c_ast.Node) -> bool:
    """An ``int`` (``const`` allowed): a parameter that receives an int argument unchanged."""
    return isinstance(decl_type, c_ast.TypeDecl) and isinstance(decl_type.type, c_ast.IdentifierType) \
        and decl_type.type.names in (["int"], ["signed", "int"], ["signed"]) \
        and set(decl_type.quals or ()) <= {"const"}


def _loop_start(loop: c_ast.For) -> c_ast.Node | None:
    """``e`` of a loop that starts its one variable with ``i = e`` or ``int i = e``."""
    init = loop.init
    if isinstance(init, c_ast.ExprList) and len(init.exprs) == 1:
        init = init.exprs[0]
    if isinstance(init, c_ast.DeclList):
        return init.decls[0].init if len(init.decls) == 1 else None
    return init.rvalue if isinstance(init, c_ast.Assignment) and init.op == "=" else None


def _written_names(target: c_ast.Node) -> set[str]:
    """The variables an assignment to ``target`` may change: ``A`` for ``A[i][j]``, ``s``
    and ``re`` for ``s.re`` or ``s->re``; every name of a computed target (``*(p + k)``)."""
    while isinstance(target, c_ast.ArrayRef):
        target = target.name
    if isinstance(target, c_ast.StructRef):
        return _written_names(target.name) | {target.field.name}
    if isinstance(target, c_ast.ID):
        return {target.name}
    return {n.name for n in _walk_nodes(target) if isinstance(n, c_ast.ID)}


def _has_loop(node: c_ast.Node) -> bool:
    """Whether a ``for`` loop is ``node`` or under it."""
    return any(isinstance(n, c_ast.For) for n in _walk_nodes(node))


def _names_written_under(roots: list[c_ast.Node | None], loop_writes) -> set[str]:
    """Every name the code under ``roots`` may change (_written_names of each
    assignment's and step's target) or declare; a loop's header is not walked, the
    loop counts as the names ``loop_writes(loop)`` gives."""
    written: set[str] = set()
    pending = list(roots)
    while pending:
        n = pending.pop()
        if n is None:
            continue
        if isinstance(n, c_ast.For):
            written |= loop_writes(n)
            pending.append(n.stmt)
            continue
        if isinstance(n, c_ast.Decl):
            written.add(n.name)
        target = assignment_target(n)
        if target is not None:
            written |= _written_names(target)
        pending.extend(child for _, child in n.children())
    return written


def _runs_under_a_data_test(node: c_ast.Node) -> bool:
    """Whether ``node``, after ``if (cond) continue;`` in a loop's body, is what
    `conditional_statement` runs under the data-dependent test: assignments,
    increments, declarations (the statement's own: their scope ends with the body, as
    the statement does), and blocks and ``if``s of them."""
    if isinstance(node, c_ast.Compound):
        return all(_runs_under_a_data_test(n) for n in node.block_items or [])
    if isinstance(node, c_ast.If):
        return all(branch is None or _runs_under_a_data_test(branch) for branch in (node.iftrue, node.iffalse))
    if isinstance(node, c_ast.ExprList):
        return all(_runs_under_a_data_test(n) for n in node.exprs)
    return isinstance(node, (c_ast.Assignment, c_ast.EmptyStatement, c_ast.Decl)) \
        or isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--")


def _jumps_alone(item: c_ast.Node, jump: type) -> bool:
    """Whether ``item`` is ``if (cond) jump;`` or ``if (cond) { jump; }``, no ``else``
    (``jump``: ``c_ast.Break`` or ``c_ast.Continue``)."""
    then = item.iftrue if isinstance(item, c_ast.If) and item.iffalse is None else None
    if isinstance(then, c_ast.Compound) and len(then.block_items or []) == 1:
        then = then.block_items[0]
    return isinstance(then, jump)


def _steps_by_one(step: c_ast.Node | None, name: str) -> bool:
    """``i++``, ``++i``, ``i += 1`` or ``i = i + 1``."""
    if isinstance(step, c_ast.UnaryOp):
        return step.op in ("++", "p++") and isinstance(step.expr, c_ast.ID) and step.expr.name == name
    return isinstance(step, c_ast.Assignment) and isinstance(step.lvalue, c_ast.ID) and step.lvalue.name == name \
        and (step.op == "+=" and _is_one(step.rvalue)
             or step.op == "=" and isinstance(step.rvalue, c_ast.BinaryOp) and step.rvalue.op == "+"
             and isinstance(step.rvalue.left, c_ast.ID) and step.rvalue.left.name == name
             and _is_one(step.rvalue.right))


def _is_one(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.Constant) and node.type == "int" and node.value == "1"


def _pointer_step(node: c_ast.Node) -> tuple[str, int, c_ast.Node] | None:
    """``(a, sign, e)`` of ``a += e;``, ``a -= e;``, ``a = a + e;``, ``a = a - e;``
    (``e`` not reading ``a``), ``a++``, ``++a``, ``a--``, ``--a``; else None."""
    one = c_ast.Constant("int", "1", coord=getattr(node, "coord", None))
    if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "p++", "--", "p--") and isinstance(node.expr, c_ast.ID):
        return node.expr.name, (1 if "++" in node.op else -1), one
    if not (isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID)):
        return None
    name, value = node.lvalue.name, node.rvalue
    if node.op in ("+=", "-="):
        sign = 1 if node.op == "+=" else -1
    elif node.op == "=" and isinstance(value, c_ast.BinaryOp) and value.op in ("+", "-") \
            and isinstance(value.left, c_ast.ID) and value.left.name == name:
        sign, value = (1 if value.op == "+" else -1), value.right
    else:
        return None
    if any(isinstance(n, c_ast.ID) and n.name == name for n in _walk_nodes(value)):
        return None
    return name, sign, value


def _integer_declarator(node: c_ast.Node) -> bool:
    """A parameter's or function's type (``Decl.type``, ``FuncDecl.type``) that is an
    integer type C converts the arguments or the returned value to (``long``,
    ``size_t``, ``const unsigned``; not a pointer, a ``_Bool``, which is not arithmetic
    modulo a power of two, nor a typedef it does not know)."""
    return isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType) \
        and set(node.quals or ()) <= {"const"} and integer_kind(type_text(node)) is not None


def _cast_to(c_type: str, expr: c_ast.Node) -> c_ast.Cast:
    """``(c_type) (expr)``: the conversion C applies to an argument or a returned value."""
    name = c_ast.TypeDecl(None, [], None, c_ast.IdentifierType(c_type.split()))
    return c_ast.Cast(c_ast.Typename(None, [], None, name), copy.deepcopy(expr), coord=expr.coord)


def _int_arithmetic_of(expr: c_ast.Node, names: list[str]) -> bool:
    """Whether ``expr`` is built of ``names``, int literals and operators only (no
    global or enumerator, whose value may differ where it is inlined)."""
    for node in _walk_nodes(expr):
        if isinstance(node, c_ast.ID) and node.name not in names:
            return False
        if not isinstance(node, (c_ast.ID, c_ast.Constant, c_ast.BinaryOp, c_ast.UnaryOp, c_ast.TernaryOp)) \
                or (isinstance(node, c_ast.Constant) and node.type != "int") \
                or (isinstance(node, c_ast.UnaryOp) and node.op not in ("-", "+", "!")):
            return False
    return True


def _with_arguments(expr: c_ast.Node, values: dict[str, c_ast.Node], coord) -> c_ast.Node:
    """A copy of a function's ``expr`` with its parameters replaced by the call's
    arguments (``values``), every node at the call's position ``coord`` (the function's
    own lines are elsewhere)."""
    holder = c_ast.Cast(None, copy.deepcopy(expr))     # so that a bare parameter can be replaced too
    for p in list(_walk_nodes(holder)):
        p.coord = coord
        for f, c in p.children():
            if isinstance(c, c_ast.ID) and c.name in values:
                _set_child(p, f, copy.deepcopy(values[c.name]))
    return holder.expr


def _affine_positions(node: c_ast.Node):
    """The loop headers, ``if`` conditions and array references in ``node``, where C
    expressions must be affine (not the values statements compute)."""
    for n in _walk_nodes(node):
        if isinstance(n, c_ast.For):
            yield from (part for part in (n.init, n.cond, n.next) if part is not None)
        elif isinstance(n, c_ast.If):
            yield n.cond
        elif isinstance(n, c_ast.ArrayRef):
            yield n             # (its subscript may be the whole expression: A[w * h])


def _written_there(parent: c_ast.Node, field: str) -> bool:
    """Whether ``parent`` writes its child named ``field``: an assignment's target, or
    the operand of ``++``/``--``."""
    return (isinstance(parent, c_ast.Assignment) and field == "lvalue") or \
        (isinstance(parent, c_ast.UnaryOp) and parent.op in ("++", "--", "p++", "p--"))


def _set_child(parent: c_ast.Node, field: str, child: c_ast.Node) -> None:
    """Replace ``parent``'s child named ``field`` (as ``children()`` names it:
    ``exprs[2]`` for a list's third) by ``child``."""
    key, _, index = field.partition("[")
    if index:
        getattr(parent, key)[int(index.rstrip("]"))] = child
    else:
        setattr(parent, key, child)


def _walk_nodes(node: c_ast.Node | None):
    if node is None:
        return
    stack = [node]
    while stack:
        cur = stack.pop()
        yield cur
        stack.extend(child for _, child in reversed(cur.children()))


# the statements that jump or loop other than by an affine 'for', refused where the
# control flow must be static; the message names the construct before " inside"
_JUMP_MESSAGES = {
    c_ast.While: "'while' loop inside a SCoP (only 'for' loops with affine bounds are supported)",
    c_ast.DoWhile: "'do'-'while' loop inside a SCoP (only 'for' loops with affine bounds are supported)",
    c_ast.Break: "'break' inside a SCoP (control flow must be static)",
    c_ast.Continue: "'continue' inside a SCoP (control flow must be static)",
    c_ast.Goto: "'goto' inside a SCoP (control flow must be static)",
    c_ast.Return: "'return' inside a SCoP (control flow must be static)",
    c_ast.Label: "label inside a SCoP (control flow must be static)",
    c_ast.Switch: "'switch' inside a SCoP (use affine 'if' conditions)",
    c_ast.Pragma: "pragma inside a SCoP region",
}
_JUMPS = tuple(_JUMP_MESSAGES)


def _jump_named(node: c_ast.Node) -> str:
    """``'break'``, ``'while' loop``: what `_unsupported` calls one of ``_JUMPS``."""
    return _unsupported(node).split(" inside")[0]


def _unsupported(node: c_ast.Node) -> str:
    for cls, message in _JUMP_MESSAGES.items():
        if isinstance(node, cls):
            return message
    if isinstance(node, (c_ast.Decl, c_ast.DeclList)):
        name = getattr(node, "name", None) or "a variable"
        return (f"declaration of '{name}' at the top level of a SCoP, where the code after the region may use it "
                "(declare it before '#pragma scop', or inside a block '{ ... }' of the region)")
    if isinstance(node, c_ast.FuncCall):
        name = _GEN.visit(node.name)
        return f"call statement '{name}(...)' inside a SCoP (only assignments are statements; calls may have side effects)"
    return f"'{_GEN.visit(node)}' is not an assignment, 'for' loop or 'if' statement"
