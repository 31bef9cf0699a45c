"""Intrinsic descriptions: a tiny C file per intrinsic, read by our own front end.

A description is a C function holding one ``#pragma scop`` statement (the semantics,
over the intrinsic's operands) and a comment block of ``key: value`` metadata::

    /* polysched intrinsic
     * name: dgemm_4x8
     * features: avx2 fma              (alternatives separated by "|"; empty = portable)
     * header: polysched_intrinsics.h
     * function: polysched_dgemm_4x8
     * call: polysched_dgemm_4x8(K, base(A), rs(A), cs(A), base(B), rs(B), base(C), rs(C))
     * stride1: B[1] C[1]              (operand dimensions that must be the last, unit-stride
     *                                  dimension of the program's array)
     * remainder: i j                  (fixed-size loops whose leftover iterations an
     *                                  epilogue may run; other fixed loops need multiples)
     * packing: A B                    (optional: operands the implementation copies into
     *                                  packed panels itself; the cost model counts it)
     * affine: A B                     (optional: input operands the implementation reads
     *                                  through one stride per loop, st(A, k), so the
     *                                  program's access may be any affine function of
     *                                  the mapped loops: in[c][h + r][w + s] as B[k1][k2][k3][j])
     * library: cblas                   (optional: the implementation calls a shared library
     *                                  found at run time, see tensorize/library.py; the
     *                                  intrinsic is chosen automatically only when
     *                                  polysched finds one here)
     * numerics: exact                 (optional, default exact: bit-identical to the
     *                                  semantics compiled with -ffp-contract=off; any
     *                                  other word, e.g. "fma" or "bf16", says how the
     *                                  results differ, and such an intrinsic is applied
     *                                  automatically only when the caller opts in:
     *                                  auto_tensorize(..., reassociate=True))
     * doc: one line
     */
    void dgemm_4x8(int K, double C[4][8], double A[4][K], double B[K][8])
    { int i, j, k;
    #pragma scop
      for (k = 0; k < K; k++) for (i = 0; i < 4; i++) for (j = 0; j < 8; j++)
            C[i][j] += A[i][k] * B[k][j];
    #pragma endscop
    }

Loops whose extent is a constant are the intrinsic's shape (``i: 4``, ``j: 8``); loops
bounded by a parameter (``k < K``) take any program extent. The element types are the
declared ones; the output operand is the assigned array. ``call`` is the C call
template emit_c fills in: ``base(X)`` the address of the block's first element,
``rs(X)``/``cs(X)`` the strides (in elements) of operand dimensions 0/1, ``st(X, l)``
the stride (in elements) of X's address along intrinsic loop ``l`` (for ``affine:``
operands), ``epoch(X)`` for an input array operand the region run's epoch when the region
never writes X's array, else ``0UL`` (an implementation may then keep X's packed panels
from one call to the next within that run: see ``polysched_pk_cache`` in
polysched_intrinsics.h, whose ``polysched_pk_next_epoch`` gives the number), a loop's
parameter (``K``) its extent, a scalar operand its value.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import islpy as isl

from polysched.errors import ArgumentError, PolyschedError
from polysched.scop import extract
from polysched.textio import read_source

from .library import LOCATORS

# CPU features a ``features:`` line may name: the flags of /proc/cpuinfo on x86-64 and
# aarch64 (with ``avx512vnni``, ``avxvnni``, ``avx512bf16`` spelled as gcc's
# __builtin_cpu_supports spells them). A name outside it is a typo that would make the
# host never match (the intrinsic silently counted as portable-only).
KNOWN_FEATURES = frozenset("""
    mmx sse sse2 sse3 ssse3 sse4_1 sse4_2 sse4a popcnt aes pclmul f16c fma fma4 bmi bmi2
    avx avx2 avxvnni avx_vnni avxvnniint8 avxifma avxneconvert
    avx512f avx512cd avx512dq avx512bw avx512vl avx512ifma avx512vbmi avx512vbmi2
    avx512vnni avx512_vnni avx512bitalg avx512vpopcntdq avx512bf16 avx512_bf16 avx512fp16
    avx512_fp16 amx_tile amx_int8 amx_bf16 amx_fp16
    neon asimd asimddp asimdhp asimdfhm fp fphp sve sve2 i8mm bf16 sme
""".split())
from .pattern import Pattern, statement_pattern

INTRINSICS_DIR = Path(__file__).parent / "intrinsics"
INCLUDE_DIR = Path(__file__).parent / "include"
_KEYS = ("name", "features", "header", "function", "call", "stride1", "remainder", "packing",
         "affine", "library", "numerics", "doc")


class IntrinsicError(PolyschedError):
    """A malformed intrinsic description (``file: message``)."""


@dataclass
class Intrinsic:
    """One intrinsic: its semantics as a :class:`Pattern` plus metadata.

    ``extents[l]``: the fixed extent of loop ``l`` (``pattern.loops[l]``), or None
    when the loop takes any extent. ``stride1``: ``{operand: {dim, ...}}``.
    ``output``: the assigned operand. ``features``: alternatives, each a tuple of CPU
    feature names (``(("avx512vnni", "avx512vl"), ("avx2",))``).
    """

    name: str
    path: str
    pattern: Pattern
    extents: list[int | None]
    output: str
    features: tuple[tuple[str, ...], ...] = ()
    header: str = "polysched_intrinsics.h"
    function: str = ""
    call: str = ""
    stride1: dict[str, set[int]] = field(default_factory=dict)
    remainder: frozenset[str] = frozenset()
    doc: str = ""
    extent_params: dict[str, str] = field(default_factory=dict)   # free loop -> its parameter
    packing: frozenset[str] = frozenset()
    affine: frozenset[str] = frozenset()
    numerics: str = "exact"
    library: str = ""
    # a second statement before the main one, inside its outermost loops, that initialises
    # the output (``C[i][j] *= beta;`` then ``C[i][j] += alpha * A[i][k] * B[k][j];``):
    # a match then covers a band of two program statements (see problem.InitBinding)
    init: Pattern | None = None

    @property
    def exact(self) -> bool:
        """Bit-identical to the semantics (compiled with -ffp-contract=off)? Integer
        intrinsics are exact whatever order they sum in."""
        return self.numerics == "exact"

    @property
    def loops(self) -> list[str]:
        return self.pattern.loops

    @property
    def operands(self) -> list[str]:
        """Operand names in order of first reference, output first."""
        names = [self.output]
        for ref in self.pattern.refs:
            if ref.array not in names:
                names.append(ref.array)
        return names

    @property
    def init_operands(self) -> list[str]:
        """Operands only the init statement reads (scalars: ``beta``)."""
        if self.init is None:
            return []
        return [r.array for r in self.init.refs if r.array not in self.operands]

    def init_part(self) -> "Intrinsic":
        """The init statement as an intrinsic of its own (its loops keep their extents),
        for matching it in another program statement."""
        import dataclasses
        extents = [self.extents[self.loops.index(loop)] for loop in self.init.loops]
        return dataclasses.replace(self, pattern=self.init, extents=extents, init=None,
                                   remainder=self.remainder & frozenset(self.init.loops))

    def shape(self) -> dict[str, int | None]:
        return dict(zip(self.loops, self.extents))

    def to_json(self) -> dict:
        return {"name": self.name, "path": self.path, "loops": self.shape(),
                "output": self.output, "operands": {o: self.pattern.types[o] for o in self.operands},
                "features": [list(f) for f in self.features], "function": self.function,
                "header": self.header, "call": self.call,
                "stride1": {k: sorted(v) for k, v in self.stride1.items()},
                "remainder": sorted(self.remainder), "packing": sorted(self.packing),
                "affine": sorted(self.affine),
                "library": self.library, "numerics": self.numerics, "doc": self.doc,
                "init_loops": self.init.loops if self.init is not None else None}


def _metadata(text: str, path: str) -> tuple[dict[str, str], dict[str, str]]:
    """The comment block's ``key: value`` lines, and where each key is (``path:line:1``),
    for the errors about its value."""
    match = re.search(r"/\*\s*polysched intrinsic\b(.*?)\*/", text, re.S)
    if not match:
        raise IntrinsicError(f"{path}: no '/* polysched intrinsic ... */' comment block")
    meta: dict[str, str] = {}
    where: dict[str, str] = {}
    first_line = text.count("\n", 0, match.start(1)) + 1
    for number, line in enumerate(match.group(1).splitlines(), start=first_line):
        line = line.strip().lstrip("*").strip()
        if not line:
            continue
        key, sep, value = line.partition(":")
        key = key.strip()
        if not sep or key not in _KEYS:
            raise IntrinsicError(f"{path}:{number}:1: cannot read metadata line {line!r} "
                                 f"(keys: {', '.join(_KEYS)})")
        meta[key] = value.strip()
        where[key] = f"{path}:{number}:1"
    return meta, where


def _extent(domain: isl.Set, dim: int) -> int | None:
    """The constant number of values of set dimension ``dim`` (0 for an empty set), or
    None if it depends on a parameter."""
    if domain.is_empty():
        return 0
    n = domain.dim(isl.dim_type.set)
    proj = domain.project_out(isl.dim_type.set, dim + 1, n - dim - 1).project_out(isl.dim_type.set, 0, dim)
    lo, hi = proj.dim_min(0), proj.dim_max(0)
    if not (lo.is_cst() and hi.is_cst()):
        return None
    lo_v = lo.get_pieces()[0][1].get_constant_val().to_python()
    hi_v = hi.get_pieces()[0][1].get_constant_val().to_python()
    return int(hi_v - lo_v + 1)


def load_intrinsic(path: str | Path) -> Intrinsic:
    """Read one description file (see the module doc). A description read before, by
    this version of the front end, comes from the on-disk cache (`_cached`)."""
    path = Path(path)
    text = read_source(path)            # any bytes: a binary file fails in _metadata, not here
    intrinsic = _cached(path, text, lambda: _read(path, text))
    if path.resolve().parent != INTRINSICS_DIR.resolve() and intrinsic.name in {i.name for i in _shipped()}:
        # lookup() by name (traces, Program.tensorize) must not find another one later
        raise IntrinsicError(f"{path}: {intrinsic.name!r} is the name of a shipped intrinsic; "
                             "give the description its own 'name:'")
    _LOADED[intrinsic.name] = intrinsic
    return intrinsic


def _cache_dir() -> Path | None:
    """``$POLYSCHED_CACHE_DIR``, else ``$XDG_CACHE_HOME/polysched`` or
    ``~/.cache/polysched``; ``POLYSCHED_CACHE_DIR=none`` (or an empty value): no cache."""
    import os
    chosen = os.environ.get("POLYSCHED_CACHE_DIR")
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "none") else Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "polysched"


@functools.lru_cache(maxsize=1)
def _code_fingerprint() -> str:
    """A hash of the code that turns a description into an Intrinsic (the C front end
    and this package): a cached one is only used by the code that made it."""
    import hashlib
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for source in sorted([*(root / "scop").glob("*.py"), *(root / "tensorize").glob("*.py")]):
        digest.update(source.name.encode() + source.read_bytes())
    return digest.hexdigest()


def _cached(path: Path, text: str, read) -> Intrinsic:
    """``read()``, kept in the cache directory under a key of the file's path and text
    and the code's fingerprint: reading the 20 shipped descriptions runs the C front
    end (and ``gcc -E``) 20 times, about a second per ``optimize``. A cache that cannot
    be read or written is ignored."""
    import hashlib
    import pickle

    from polysched.textio import encode_source, write_atomic
    directory = _cache_dir()
    if directory is None:
        return read()
    key = hashlib.sha256(b"\0".join([str(path.resolve()).encode(), encode_source(text),
                                      _code_fingerprint().encode()])).hexdigest()
    entry = directory / f"intrinsic-{key[:40]}.pickle"
    try:
        with open(entry, "rb") as f:
            cached = pickle.load(f)
        if isinstance(cached, Intrinsic):
            return cached
    except Exception:  # noqa: BLE001 -- missing, unreadable or stale: read the file again
        pass
    intrinsic = read()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        write_atomic(entry, pickle.dumps(intrinsic))
    except (OSError, TypeError, pickle.PicklingError):
        pass
    return intrinsic


def _read(path: Path, text: str) -> Intrinsic:
    meta, where = _metadata(text, str(path))

    def at(key: str) -> str:
        return where.get(key, str(path))

    scops = extract(text, filename=str(path))        # a ScopError says file:line:col
    if len(scops) != 1 or len(scops[0].statements) not in (1, 2):
        raise IntrinsicError(f"{path}: the semantics must be one '#pragma scop' region with one statement "
                             "(or an init statement and one statement)")
    scop = scops[0]
    stmt = scop.statements[-1]
    pattern = statement_pattern(scop, stmt, description=True)
    if pattern.error:
        raise IntrinsicError(f"{path}: {pattern.error}")
    if not pattern.loops:
        raise IntrinsicError(f"{path}: the semantics' statement must be inside at least one loop")
    extents = [_extent(stmt.domain, d) for d in range(len(pattern.loops))]
    for loop, extent in zip(pattern.loops, extents):
        if extent is not None and extent < 1:
            raise IntrinsicError(f"{path}: loop {loop!r} of the semantics runs no iteration")
    output = pattern.refs[pattern.tree[1][1]].array
    init = _init_pattern(path, scop, pattern, extents, output) if len(scop.statements) == 2 else None
    stride1: dict[str, set[int]] = {}
    for item in meta.get("stride1", "").split():
        m = re.fullmatch(r"([A-Za-z_]\w*)\[(\d+)\]", item)
        if not m or m.group(1) not in pattern.ranks or int(m.group(2)) >= pattern.ranks[m.group(1)]:
            raise IntrinsicError(f"{at('stride1')}: stride1 item {item!r} is not OPERAND[dim] of an operand")
        stride1.setdefault(m.group(1), set()).add(int(m.group(2)))
    remainder = frozenset(meta.get("remainder", "").split())
    for loop in remainder:
        if loop not in pattern.loops:
            raise IntrinsicError(f"{at('remainder')}: remainder loop {loop!r} is not a loop of the semantics")
    extent_params = {}
    for param in scop.parameters:
        pos = stmt.domain.find_dim_by_name(isl.dim_type.param, param)
        fixed = stmt.domain.fix_val(isl.dim_type.param, pos, isl.Val(7919))
        for d, loop in enumerate(pattern.loops):
            if extents[d] is None and _extent(fixed, d) == 7919:
                extent_params[loop] = param
    packing = frozenset(meta.get("packing", "").split())
    for operand in packing:
        if operand not in pattern.ranks or not pattern.ranks[operand]:
            raise IntrinsicError(f"{at('packing')}: packing operand {operand!r} is not an array operand")
    affine = frozenset(meta.get("affine", "").split())
    for operand in affine:
        if operand not in pattern.ranks or not pattern.ranks[operand] or operand == output:
            raise IntrinsicError(f"{at('affine')}: affine operand {operand!r} is not an input array operand")
    numerics = meta.get("numerics", "exact").strip() or "exact"
    if len(numerics.split()) != 1:
        raise IntrinsicError(f"{at('numerics')}: numerics must be one word (exact, fma, bf16, ...), not {numerics!r}")
    features = tuple(tuple(alt.split()) for alt in meta.get("features", "").split("|") if alt.split())
    for feature in sorted({f for alt in features for f in alt} - KNOWN_FEATURES):
        raise IntrinsicError(f"{at('features')}: unknown CPU feature {feature!r} (a name of /proc/cpuinfo's "
                             "flags, e.g. avx2, fma, avx512f, avx512vnni, neon)")
    library = meta.get("library", "").strip()
    if library and library not in LOCATORS:
        raise IntrinsicError(f"{at('library')}: unknown library {library!r} (known: {', '.join(sorted(LOCATORS))})")
    call = meta.get("call", "").strip()
    if not call:
        raise IntrinsicError(f"{path}: no 'call:' line (the C call that replaces a matched block)")
    for m in re.finditer(r"\b(base|rs|cs|st|epoch)\(\s*([^,)\s]*)\s*(?:,\s*([^)\s]*)\s*)?\)", call):
        kind, operand, loop = m.groups()
        if kind == "epoch" and (operand not in pattern.ranks or not pattern.ranks[operand] or operand == output):
            raise IntrinsicError(f"{at('call')}: call: {m.group(0)} does not name an input array operand of the semantics")
        if operand not in pattern.ranks or (kind != "base" and not pattern.ranks[operand]):
            raise IntrinsicError(f"{at('call')}: call: {m.group(0)} does not name an "
                                 f"{'operand' if kind == 'base' else 'array operand'} of the semantics")
        if (kind == "st") != (loop is not None) or (loop is not None and loop not in pattern.loops):
            raise IntrinsicError(f"{at('call')}: call: {m.group(0)}: st(X, l) takes an operand and a loop "
                                 f"of the semantics, the others an operand only")
    _check_call_names(at("call"), call, pattern, extent_params)
    name = meta.get("name") or path.stem
    intrinsic = Intrinsic(name=name, path=str(path), pattern=pattern, extents=extents, output=output,
                     features=features, header=meta.get("header", "polysched_intrinsics.h"),
                     function=meta.get("function", ""), call=call,
                     stride1=stride1, remainder=remainder, doc=meta.get("doc", ""),
                     extent_params=extent_params, packing=packing, affine=affine, numerics=numerics,
                     library=library, init=init)
    return intrinsic


_TEMPLATE_WORDS = ("base", "rs", "cs", "st", "epoch")


def _check_call_names(path: str, call: str, pattern: Pattern, extent_params: dict[str, str]) -> None:
    """``call`` is ``function(arguments)`` whose names are the template words (checked
    by the caller), scalar operands and loop extent parameters: emit_c substitutes those
    and pastes everything else as written, where any other name would bind to whatever
    the program has by that name (a typo such as ``alpha`` for the operand ``a``
    compiles against the program's own ``alpha``)."""
    from pycparser import c_ast, c_parser

    try:
        tree = c_parser.CParser().parse(f"void polysched_call_template(void) {{ {call}; }}")
        [statement] = tree.ext[0].body.block_items
    except Exception:  # noqa: BLE001 -- pycparser raises ParseError and AssertionError alike
        statement = None
    if not isinstance(statement, c_ast.FuncCall) or not isinstance(statement.name, c_ast.ID):
        raise IntrinsicError(f"{path}: call: {call!r} is not a C call 'function(arguments)'")
    allowed = {name for name, rank in pattern.ranks.items() if rank == 0} | set(extent_params.values())

    class Names(c_ast.NodeVisitor):
        def visit_FuncCall(self, node):
            if isinstance(node.name, c_ast.ID) and node.name.name in _TEMPLATE_WORDS:
                return          # its operand and loop: checked with the template words
            self.generic_visit(node)

        def visit_ID(self, node):
            if node.name not in allowed:
                raise IntrinsicError(
                    f"{path}: call: {node.name!r} is neither a scalar operand nor a loop's extent "
                    f"parameter of the semantics ({', '.join(sorted(allowed)) or 'there are none'}); "
                    "a loop 'for (k = 0; k < K; k++)' makes K its extent")

    for argument in statement.args.exprs if statement.args is not None else []:
        Names().visit(argument)


def _init_pattern(path: Path, scop, main: Pattern, extents: list[int | None], output: str) -> Pattern:
    """The pattern of a description's first statement, the init of ``main``'s output
    (see ``Intrinsic.init``), checked: it assigns the output inside the main statement's
    outermost loops, a loop it lacks takes any extent (a call must cover that loop
    whole: tiles of it would initialise once per tile), and every operand only it reads
    is a scalar (a call takes it by value)."""
    stmt = scop.statements[0]
    init = statement_pattern(scop, stmt, description=True)
    if init.error:
        raise IntrinsicError(f"{path}: the init statement: {init.error}")
    if init.refs[init.tree[1][1]].array != output:
        raise IntrinsicError(f"{path}: the first statement must initialise the output {output!r}")
    if init.loops != main.loops[:len(init.loops)]:
        raise IntrinsicError(f"{path}: the init statement's loops must be the main statement's outermost "
                             "loops (for i, j { C[i][j] = 0; for k C[i][j] += ...; })")
    for d, loop in enumerate(main.loops):
        if loop not in init.loops and extents[d] is not None:
            raise IntrinsicError(f"{path}: loop {loop!r}, which the init statement lacks, must take any extent")
    main_arrays = {r.array for r in main.refs}
    for ref in init.refs:
        if ref.array not in main_arrays and ref.rows:
            raise IntrinsicError(f"{path}: {ref.array!r}, read by the init statement only, must be a scalar")
    return init


_LOADED: dict[str, Intrinsic] = {}


def lookup(name: str) -> Intrinsic:
    """The intrinsic ``name``: the last one loaded under that name in this process
    (``--intrinsics DIR`` descriptions included), else the shipped one."""
    if name not in _LOADED:
        builtin_intrinsics()
    if name not in _LOADED:
        raise IntrinsicError(f"unknown intrinsic {name!r} (known: {', '.join(sorted(_LOADED))})")
    return _LOADED[name]


def as_intrinsics(value, what: str) -> list[Intrinsic]:
    """The intrinsics ``value`` names: an :class:`Intrinsic`, a name, comma-separated
    names, a description file or directory (:func:`load_intrinsics`), or a list of
    these (helper-92: a name where a list of Intrinsic objects was expected was an
    AttributeError from inside the matcher)."""
    items = value if isinstance(value, (list, tuple)) else [value]
    found: list[Intrinsic] = []
    for item in items:
        if isinstance(item, Intrinsic):
            found.append(item)
        elif isinstance(item, (str, Path)):
            found += load_intrinsics(item)
        else:
            raise ArgumentError(f"{what}: intrinsics must be Intrinsic objects, names, description files or "
                                f"directories (or a list of them), got {item!r}")
    return found


def builtin_intrinsics() -> list[Intrinsic]:
    """Every description shipped in ``polysched/tensorize/intrinsics``."""
    return list(_shipped())


@functools.lru_cache(maxsize=1)
def _shipped() -> tuple[Intrinsic, ...]:
    # read once per process: the default pipeline looks for matches in every region
    return tuple(load_intrinsics(INTRINSICS_DIR))


def load_intrinsics(spec: str | Path | None = None) -> list[Intrinsic]:
    """``None``: the shipped ones; a directory: its ``*.c`` files; a file: that one; a
    name or comma-separated names: those among the shipped ones."""
    if isinstance(spec, (list, tuple)):        # (helper-92: a TypeError)
        return as_intrinsics(spec, "load_intrinsics")
    if spec is None:
        spec = INTRINSICS_DIR
    if not str(spec).strip():       # (Path("") is the current directory)
        raise IntrinsicError("no intrinsic named: an empty name (give names, a file or a directory)")
    path = Path(spec)
    if path.is_dir():
        loaded = [load_intrinsic(p) for p in sorted(path.glob("*.c"))]
        if not loaded:
            raise IntrinsicError(f"{path}: no intrinsic description (*.c) in this directory")
        first: dict[str, str] = {}
        for intrinsic in loaded:
            if intrinsic.name in first:
                raise IntrinsicError(f"{intrinsic.path}: intrinsic {intrinsic.name!r} is described in "
                                     f"{first[intrinsic.name]} too")
            first[intrinsic.name] = intrinsic.path
        return loaded
    if path.is_file():
        return [load_intrinsic(path)]
    if "/" in str(spec) or str(spec).endswith(".c"):
        raise IntrinsicError(f"{spec}: no such file or directory")
    shipped = {i.name: i for i in builtin_intrinsics()}
    out = []
    for name in str(spec).split(","):
        name = name.strip()
        if name not in shipped:
            raise IntrinsicError(f"unknown intrinsic {name!r} (shipped: {', '.join(sorted(shipped))};"
                                 " or give a description file or directory)")
        out.append(shipped[name])
    return out
