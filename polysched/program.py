"""``Program``: one SCoP, its dependences, the current schedule tree and the trace of
the primitives that made it, as an immutable value.

    import polysched as ps
    p = ps.Program.from_file("gemm.c")
    q = (p.auto_schedule("pluto")                 # the automatic stages are steps too
          .tile("S1", [32, 64, 128])              # loops 0-2: tiles of (i, j, k); 3-5: points
          .interchange("S1", 4, 5)                # point order (i, k, j)
          .parallel("S1", 0).vectorize("S1", 5))
    q.verify()                                    # compile both, run at MINI, compare: equal
    q.show()                                      # the C of the region
    r = ps.Program.from_file("gemm.c").replay(q.trace)      # same tree, same C

Every method that transforms returns a new ``Program`` and leaves ``self`` alone.
Each checks its result against the exact dependences and raises
:class:`polysched.TransformError` naming the violated dependence with a witness
(source and sink instances, their times in the new schedule, parameter values);
a misuse (unknown statement, loop out of range, wrong number of sizes) raises it with
one sentence. Loops are named ``(stmt, depth)``; see ``polysched.transform.loops``.
"""
from __future__ import annotations

import hashlib
import inspect
import json
import os
import tempfile
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Sequence

import islpy as isl

from polysched.arguments import (DefaultDataset, as_list, check_bool, check_int, compile_options, dataset_name,
                                 defines_dict, fields_of, plain, reduction_pairs, refusal, source_options, tile_sizes)
from polysched.dependence import (Dependences, Legality, ScheduleError, analyze, check, is_integer_type,
                                  parse_schedule, reduced_cell, unsupported_nodes)
from polysched.errors import MarkError, PolyschedError, TransformError
from polysched.islutil import sets_of
from polysched.limits import MAX_CACHE, MAX_JAM, MAX_THREADS
from polysched.marks import MARK_TYPES, REDUCTION_OPERATORS, Mark, Parallel, Simd, Tensorize, Unroll, parse_mark
from polysched.scop import Scop, ScopError, extract
from polysched.textio import ENCODING, ERRORS
from polysched.transform import apply, describe_loops, primitives, statement_loops

TRACE_VERSION = 1


class TraceWarning(UserWarning):
    """A trace replayed on a region whose text is not the one it was recorded on."""


def region_digest(scop: Scop) -> str:
    """A digest of the region's text as written (line endings aside): what a trace
    records of the program it was made on."""
    text = scop.source[scop.region_start:scop.region_end].replace("\r\n", "\n")
    return hashlib.sha256(text.encode(ENCODING, ERRORS)).hexdigest()[:16]


class Trace:
    """The primitives applied to a program, in order: ``[{"op": "tile", "args": {...}}, ...]``.

    ``str(trace)`` / ``trace.to_json()`` is the JSON document
    ``{"polysched_trace": 1, "source": ..., "region": 0, "steps": [...]}``;
    ``Trace.from_json`` reads it back (also a bare list of steps, or a file path)."""

    def __init__(self, steps: Sequence[dict] = (), source: str | None = None, region: int = 0,
                 region_recorded: bool = True, region_digest: str | None = None):
        # (stored as JSON text: a program's trace is part of its value, and a step
        # handed out and edited must not edit it; helper-49: trace[0]["args"] did)
        set_attribute = super().__setattr__
        set_attribute("_steps", tuple(json.dumps(_plain_json(_step(k, step))) for k, step in enumerate(steps)))
        set_attribute("source", source)
        set_attribute("region", check_int(region, "the trace", "region", 0))
        set_attribute("region_recorded", region_recorded)
        # the region's text it was recorded on (`region_digest`): a replay on another
        # text applies the steps to the statements of that name, and says so
        set_attribute("region_digest", region_digest)

    def __setattr__(self, name, value):
        raise AttributeError(f"a Trace does not change (its {name!r} cannot be set): build another")

    @property
    def steps(self) -> tuple[dict, ...]:
        """The steps, as fresh copies: editing one leaves the trace as it is."""
        return tuple(json.loads(step) for step in self._steps)

    def to_dict(self) -> dict:
        digest = {"region_digest": self.region_digest} if self.region_digest else {}
        return {"polysched_trace": TRACE_VERSION, "source": self.source, "region": self.region, **digest,
                "steps": [dict(step) for step in self.steps]}

    def to_json(self, indent: int | None = 1) -> str:
        """The JSON document; with ``indent`` (default), one step per line."""
        if indent is None:
            return json.dumps(self.to_dict())
        head = {k: v for k, v in self.to_dict().items() if k != "steps"}
        lines = [json.dumps(step) for step in self.steps]
        body = ",\n".join(" " * indent + line for line in lines)
        return json.dumps(head)[:-1] + ', "steps": [' + (f"\n{body}\n" if lines else "") + "]}"

    @classmethod
    def from_json(cls, value, region: int | None = None) -> "Trace":
        """A trace from its JSON text, a parsed document, a list of steps, a path to a
        JSON file, or a ``Trace``. ``region``: from a list of traces, one per region (as
        ``optimize --save-trace`` writes them for a file of several regions), that
        region's."""
        if isinstance(value, Trace):
            return value
        if isinstance(value, str) and value.strip() and not value.lstrip().startswith(("{", "[")) \
                and not Path(value).is_file():
            try:        # JSON that is no trace ('null', '3'): said so below, not "no such file"
                value = json.loads(value)
            except json.JSONDecodeError:
                pass
            else:
                if isinstance(value, str):
                    raise TransformError("a trace is a JSON object with a 'steps' list")
        if isinstance(value, Path) or (isinstance(value, str) and value.strip()
                                       and not value.lstrip().startswith(("{", "["))):
            try:
                value = Path(value).read_text()
            except OSError as err:
                # (a string: a path, or JSON text that did not parse)
                text = " (nor is it JSON text)" if isinstance(value, str) and isinstance(err, FileNotFoundError) else ""
                raise TransformError(f"cannot read trace {value}: {err.strerror or err}{text}") from None
            except UnicodeDecodeError:
                raise TransformError(f"cannot read trace {value}: not a UTF-8 text file") from None
        if isinstance(value, str) and value.strip():
            try:
                value = json.loads(value)
            except json.JSONDecodeError as err:
                raise TransformError(f"the trace is not JSON: {err}") from None
        if isinstance(value, (list, tuple)) and value and all(isinstance(v, dict) and "steps" in v for v in value):
            # (helper-90: read as a list of steps, "trace step 0: {the whole first trace}")
            if region is None or not 0 <= region < len(value):
                raise TransformError(f"this is a list of {len(value)} traces, one per region of a file (as "
                                     "optimize --save-trace writes them): "
                                     + ("give one" if region is None else f"it has none for region {region}"))
            value = value[region]
        if isinstance(value, (list, tuple)):
            value = {"steps": list(value)}
        if not isinstance(value, dict) or not isinstance(value.get("steps"), list):
            raise TransformError("a trace is a JSON object with a 'steps' list")
        version = value.get("polysched_trace", TRACE_VERSION)
        if type(version) is not int or version != TRACE_VERSION:     # (True == 1 in Python)
            raise TransformError(f"this polysched reads traces of version {TRACE_VERSION}, not "
                                 f"{value['polysched_trace']!r}")
        # (a bare list of steps names no region)
        digest = value.get("region_digest")
        return cls(value["steps"], value.get("source"), value.get("region") or 0, "region" in value,
                   digest if isinstance(digest, str) else None)

    def __iter__(self):
        return iter(self.steps)

    def __len__(self) -> int:
        return len(self.steps)

    def __getitem__(self, k):
        return self.steps[k]

    def __eq__(self, other) -> bool:
        if isinstance(other, Trace):
            return self.steps == other.steps
        return NotImplemented

    def __hash__(self):
        return hash(json.dumps(self.steps, sort_keys=True))

    def __str__(self) -> str:
        return self.to_json()

    def __repr__(self) -> str:
        return self.to_json()

    def _repr_html_(self) -> str:
        from polysched.display import escape
        return f"<pre>{escape(self.to_json())}</pre>"

    def calls(self) -> list[str]:
        """``["tile('S1', [32, 64, 128])", ...]``: the steps as Python calls."""
        out = []
        for step in self.steps:
            args = step.get("args", {})
            out.append(f"{step['op']}(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")")
        return out


def _step(k: int, step) -> dict:
    """Trace step ``k``, checked: ``{"op": name, "args": {name: value}}``."""
    if not isinstance(step, dict) or not isinstance(step.get("op"), str):
        raise TransformError(f"trace step {k}: {step!r} is not a step {{\"op\": name, \"args\": {{...}}}}")
    if not isinstance(step.get("args", {}), dict):
        raise refusal(f"trace step {k} ({step['op']})", "args", "an object {name: value}", step["args"])
    return dict(step)


def _plain_json(value):
    """``value`` as plain JSON data (tuples to lists), so traces compare after a round trip."""
    return json.loads(json.dumps(value))


# primitives a trace may name, with their argument names in call order
_STEP_ARGS = {
    "interchange": ("stmt", "d1", "d2"),
    "permute": ("stmt", "order"),
    "skew": ("stmt", "depth", "by_depth", "factor"),
    "shift": ("stmt", "depth", "amount"),
    "reverse": ("stmt", "depth"),
    "fuse": ("stmts", "depth"),
    "distribute": ("stmt", "depth"),
    "split_band": ("stmt", "depth"),
    "tile": ("stmt", "sizes", "depth"),
    "strip_mine": ("stmt", "depth", "size"),
    "unroll_and_jam": ("stmt", "depth", "factor"),
    "wavefront": ("stmt", "depth"),
    "separate": ("stmt", "depth"),
    "sink": ("stmt", "depth"),
    "parallel": ("stmt", "depth", "private", "reductions", "reassociate", "schedule"),
    "vectorize": ("stmt", "depth"),
    "unroll": ("stmt", "depth", "factor"),
    "mark": ("stmt", "depth", "mark"),
    "unmark": ("stmt", "depth"),
    "auto_schedule": ("scheduler", "fuse", "negative_coefficients", "diamond", "reassociate"),
    "auto_tile": ("tile", "sizes", "parallel", "l2tile", "simd", "unroll", "reassociate",
                  "wavefront", "intra_tile_reorder", "tile_depth1", "caches", "register_tile",
                  "point_wavefront", "threads"),
    "set_schedule": ("schedule",),
    "tensorize": ("stmt", "intrinsic", "match", "parallel"),
    "substitute_scalars": (),
    "expand_scalars": ("scalars",),
    "privatize_arrays": (),
    "transpose_arrays": (),
}
# the steps that change the model rather than the schedule: only first, in this order
MODEL_STEPS = ("substitute_scalars", "expand_scalars", "privatize_arrays", "transpose_arrays")


class Program:
    """An immutable SCoP + dependences + schedule tree + trace. See the module docstring."""

    __slots__ = ("_scops", "_region", "_deps", "_schedule", "_trace", "_origin", "_shared", "_cache")

    def __init__(self, scop: Scop, deps: Dependences | None = None, schedule: isl.Schedule | None = None,
                 trace: Trace | Sequence[dict] = (), *, scops: Sequence[Scop] | None = None,
                 region: int = 0, origin: dict | None = None, _shared: dict | None = None):
        self._scops = tuple(scops) if scops is not None else (scop,)
        self._region = region if scops is not None else 0
        if self._scops[self._region] is not scop:
            raise ValueError("scops[region] must be scop")
        self._deps = deps if deps is not None else analyze(scop)
        self._schedule = schedule if schedule is not None else scop.schedule
        self._origin = dict(origin or {"path": scop.filename, "region": self._region})
        if not isinstance(trace, Trace):
            trace = Trace(trace, self._origin.get("path"), self._region, region_digest=region_digest(scop))
        self._trace = trace
        self._shared = _shared if _shared is not None else {}
        self._cache: dict = {}

    # -- constructors ----------------------------------------------------------------

    @classmethod
    def from_file(cls, path, region: int = 0, defines=None, include_dirs=None) -> "Program":
        """The SCoP number ``region`` (0-based, in file order) of the C file ``path``.
        ``defines``: ``{"N": "100"}`` or ``["N=100"]`` (like ``-D``); ``include_dirs``
        like ``-I``."""
        if not isinstance(path, (str, os.PathLike)):
            raise refusal("from_file", "path", "a file name (str or Path)", path)
        what = f"from_file({os.fspath(path)!r})"
        region, defines, include_dirs = source_options(what, region, defines, include_dirs)
        try:
            text = Path(path).read_bytes().decode(ENCODING, ERRORS)
            scops = extract(Path(path), defines=defines, include_dirs=include_dirs)
        except OSError as err:
            raise TransformError(f"{what}: cannot read {err.filename or path}: {err.strerror or err}") from None
        # (the text too: a pickle holds the program read, not what the file holds when
        # it is loaded; helper-86 edited the file in between and loaded another program)
        return cls._of(scops, region, {"path": str(path), "region": region,
                                       "defines": defines_dict(defines),
                                       "include_dirs": [str(d) for d in include_dirs or []],
                                       "text": text, "source_dir": str(Path(path).absolute().parent)})

    @classmethod
    def from_source(cls, text: str, region: int = 0, defines=None, include_dirs=None,
                    filename: str = "input.c") -> "Program":
        """Like :meth:`from_file`, from C source text (``filename`` names it in errors;
        bytes are read as :meth:`from_file` reads a file: UTF-8, other bytes kept)."""
        if isinstance(text, bytes):
            text = text.decode(ENCODING, ERRORS)
        if not isinstance(text, str):
            raise refusal("from_source", "text", "C source text (str or bytes; from_file reads a path)", text)
        region, defines, include_dirs = source_options("from_source", region, defines, include_dirs)
        if "\n" not in text:
            text += "\n"
        scops = extract(text, defines=defines, include_dirs=include_dirs, filename=filename)
        # where extraction found its #include "..." files: verify compiles a copy elsewhere
        return cls._of(scops, region, {"path": None, "filename": filename, "source": text,
                                       "region": region, "defines": defines_dict(defines),
                                       "include_dirs": [str(d) for d in include_dirs or []],
                                       "source_dir": str(Path(filename).absolute().parent)})

    @classmethod
    def _of(cls, scops, region, origin) -> "Program":
        if not scops:
            where = origin.get("path") or origin.get("filename")
            raise ScopError(str(where), 1, 1, "no '#pragma scop' ... '#pragma endscop' region")
        if not 0 <= region < len(scops):
            raise TransformError(f"region {region} does not exist: the file has {len(scops)} "
                                 f"scop region{'s' if len(scops) > 1 else ''} (0..{len(scops) - 1})")
        return cls(scops[region], scops=scops, region=region, origin=origin)

    def _original_text(self) -> str:
        """The text this program was read from (kept: the file may have changed since)."""
        if self._origin.get("path") is not None and self._origin.get("text") is None:
            return Path(self._origin["path"]).read_bytes().decode(ENCODING, ERRORS)
        return self._origin["text"] if self._origin.get("path") is not None else self._origin["source"]

    def _include_dirs(self) -> list[str]:
        """The include path of a compilation in another directory: the given one, then
        the source's own directory (where ``#include "..."`` looked first)."""
        own = str(Path(self._origin["path"]).resolve().parent) if self._origin.get("path") \
            else self._origin.get("source_dir")
        return list(self._origin.get("include_dirs") or []) + ([own] if own else [])

    def _intrinsic_dirs(self) -> list[str]:
        """Where the headers of the intrinsics the trace calls are: the shipped header's
        directory, and each description's own (a user's ``myintr.h`` beside it; helper-92:
        verify failed on "myintr.h: No such file", where ``optimize --tensorize DIR``
        passes ``-I DIR``)."""
        used = [step["args"]["intrinsic"] for step in self._trace if step.get("op") == "tensorize"]
        if not used:
            return []
        from polysched.tensorize import INCLUDE_DIR      # polysched_intrinsics.h
        from polysched.tensorize.intrinsic import lookup
        dirs = [str(INCLUDE_DIR)]
        for name in used:
            beside = str(Path(lookup(name).path).resolve().parent)
            if beside not in dirs:
                dirs.append(beside)
        return dirs

    # -- the value ----------------------------------------------------------------------

    @property
    def scop(self) -> Scop:
        return self._scops[self._region]

    @property
    def deps(self) -> Dependences:
        return self._deps

    @property
    def schedule(self) -> isl.Schedule:
        """The current schedule tree (an ``isl.Schedule``)."""
        return self._schedule

    @property
    def trace(self) -> Trace:
        """The steps applied since the program was loaded (JSON: ``str(p.trace)``)."""
        return self._trace

    @property
    def statements(self) -> list[str]:
        return [s.name for s in self.scop.statements]

    @property
    def region(self) -> int:
        return self._region

    def loops(self, stmt: str) -> list[tuple[int, str]]:
        """``[(depth, schedule expression), ...]``: the loops of ``stmt`` now."""
        if not isinstance(stmt, str) or stmt not in self.statements:
            raise TransformError(f"loops({stmt!r}): no statement {stmt!r} (statements: "
                                 f"{', '.join(s.name for s in self.scop.statements)})")
        return describe_loops(self.scop, self._schedule, stmt, f"loops({stmt!r})")

    @property
    def tree(self):
        """A displayable view of the schedule tree (per-statement hyperplanes, flags, marks)."""
        from polysched.display import ScheduleView
        return ScheduleView(self._schedule, self.scop, self._deps)

    # immutable: a copy is the program itself; a pickle is its origin and trace, read
    # again and replayed where it is loaded (isl's objects do not pickle)
    def __copy__(self) -> "Program":
        return self

    def __deepcopy__(self, memo) -> "Program":
        return self

    def __reduce__(self):
        return _replayed, (dict(self._origin), self._trace.to_json(indent=None))

    def _derive(self, schedule: isl.Schedule, step: dict) -> "Program":
        trace = Trace(self._trace.steps + (step,), self._trace.source, self._trace.region,
                      region_digest=self._trace.region_digest)
        return Program(self.scop, self._deps, schedule, trace, scops=self._scops, region=self._region,
                       origin=self._origin, _shared=self._shared)

    # -- checking and output ----------------------------------------------------------------

    def check(self) -> Legality:
        """Legality of the current schedule (dependences, ``set`` nodes, marks)."""
        if "check" not in self._cache:
            self._cache["check"] = check(self.scop, self._deps, self._schedule)
        return self._cache["check"]

    def region_code(self, options=None) -> str:
        """The C text that replaces the region (see ``emit_c.generate``). ``options``:
        an ``emit_c.EmitOptions`` or a dict of its fields (``{"versioning": False}``)."""
        from polysched.emit_c import generate
        options = _emit_options(options, "region_code")
        return _within_codegen_budget(lambda: generate(self.scop, self._schedule, options=options, deps=self._deps))

    def c_code(self, options=None) -> str:
        """The whole C file with this region regenerated (other regions as they were);
        ``options`` as for :meth:`region_code`."""
        key = ("c_code", id(options))
        if options is None and key in self._cache:
            return self._cache[key]
        from polysched.emit_c import emit_file
        options = _emit_options(options, "c_code")
        schedules = [None] * len(self._scops)
        schedules[self._region] = self._schedule
        deps = [None] * len(self._scops)
        deps[self._region] = self._deps
        text = _within_codegen_budget(lambda: emit_file(self._scops, schedules, options=options, deps=deps))
        if options is None:
            self._cache[key] = text
        return text

    def write(self, path) -> Path:
        """Write :meth:`c_code` to ``path`` (atomically); returns the path."""
        from polysched.textio import write_atomic
        if not isinstance(path, (str, os.PathLike)):
            raise refusal("write", "path", "a file name (str or Path)", path)
        what = f"write({os.fspath(path)!r})"
        if not Path(path).parent.is_dir():
            raise TransformError(f"{what}: no such directory {str(Path(path).parent)!r}")
        text = self.c_code()
        try:
            write_atomic(path, text)
        except OSError as err:
            raise TransformError(f"{what}: cannot write {err.filename or path}: {err.strerror or err}") from None
        return Path(path)

    def verify(self, dataset: str | None = DefaultDataset("MINI"), **options):
        """Compile the original and this program with the same flags, run both at
        ``dataset`` (the suite's ``-D<DATASET>_DATASET``; MINI by default, like the CLI)
        and compare what they print: a ``polysched.bench.VerifyResult`` (``.ok``,
        ``.status`` "equal" / "differ" / "error"). ``options`` go to
        ``polysched.bench.verify`` (``cc``, ``cflags``, ``threads``, ``defines``, ``rtol``,
        ...). Bit for bit unless a step reorders a floating-point sum or rounds otherwise
        (``reassociate``, a ``reduction`` clause, ``tensorize`` with an intrinsic that is
        not exact: `reassociates`): then within ``polysched.bench``'s default tolerance."""
        from polysched.bench import verify
        known = [name for name in inspect.signature(verify).parameters
                 if name not in ("original", "transformed", "dataset")]
        unknown = [name for name in options if name not in known]
        if unknown:
            raise TransformError(f"verify: unknown option{'s' if len(unknown) > 1 else ''} "
                                 f"{', '.join(unknown)} (the options are {', '.join(known)})")
        if "rtol" not in options and "atol" not in options and not self.reassociates():
            # bit for bit, as `optimize --verify`: only a reordered floating-point sum
            # may differ in its last bits
            options.update(rtol=0, atol=0)
        if options.get("threads") is not None:      # (libgomp would only complain on stderr)
            options["threads"] = check_int(options["threads"], "verify", "threads", 1, MAX_THREADS)
        options = compile_options("verify", options)
        extra_defines = options.pop("defines", None) or {}
        includes = self._include_dirs() + list(options.pop("include_dirs", [])) + self._intrinsic_dirs()
        with tempfile.TemporaryDirectory(prefix="polysched-program-") as tmp:
            original = self._origin.get("path")
            if original is None or not _file_holds(original, self._original_text()):
                # (the program's own text, not the file edited since)
                original = Path(tmp) / "original" / Path(original or self._origin.get("filename") or "input.c").name
                original.parent.mkdir()
                original.write_bytes(self._original_text().encode(ENCODING, ERRORS))
            dataset = dataset_name(dataset, "verify", [original], includes, shown=self._shown_name())
            defines = {**self._defines_at(dataset), **extra_defines}
            name = Path(original).name
            candidate = Path(tmp) / name
            self.write(candidate)
            if Path(original).parent.resolve() != Path(tmp).resolve():
                includes.append(str(Path(original).resolve().parent))
            return verify(original, candidate, defines=defines, dataset=dataset,
                          include_dirs=includes, **options)

    def _shown_name(self) -> str:
        """The source file as the user named it (the file name of ``from_source``)."""
        return str(self._origin.get("path") or self._origin.get("filename") or "input.c")

    def reassociates(self) -> bool:
        """Whether a step asked for reordered reductions (``reassociate=True``, a
        hand-written ``reduction`` clause, an intrinsic that is not bit-identical: one
        that sums in its own order, or rounds otherwise; helper-58: the exact ones were
        compared with a tolerance, which would miss an error in their last bit)."""
        from polysched.tensorize.intrinsic import IntrinsicError, lookup

        def inexact(name) -> bool:
            try:
                return not lookup(str(name)).exact
            except IntrinsicError:      # a description no longer loaded: not trusted bit for bit
                return True

        text = self._trace.to_json(indent=None)
        return any(step.get("args", {}).get("reassociate") for step in self._trace) or "reduction=" in text \
            or any(step.get("op") == "tensorize" and inexact(step.get("args", {}).get("intrinsic"))
                   for step in self._trace)

    def _defines_at(self, dataset: str | None) -> dict:
        """The defines the program was read with, less a ``*_DATASET`` one when a run
        asks for a dataset: that one chooses the sizes (a program read at the sizes a
        tuning campaign timed, ``Target.program("MEDIUM")``, verified at MINI)."""
        defines = dict(self._origin.get("defines") or {})
        if dataset is not None:
            defines = {k: v for k, v in defines.items() if not k.upper().endswith("_DATASET")}
        return defines

    def time(self, dataset: str | None = DefaultDataset("MEDIUM"), *, repeat: int = 3, threads: int | None = None,
             original: bool = False, cc: str | None = None, cflags: Sequence[str] | None = None) -> float:
        """Median kernel time in seconds of ``repeat`` runs at ``dataset`` (the
        program's own ``polysched-time:`` figure when it prints one, else wall time):
        this program's C, or with ``original=True`` the file as it was. Compiled with
        ``-fopenmp`` when the code has OpenMP pragmas. A comparison of two variants is
        a ratio of two calls on the same machine, not an absolute figure."""
        import statistics

        from polysched.bench import DEFAULT_CC, DEFAULT_CFLAGS, compile_c, dataset_define, run_binary
        repeat = check_int(repeat, "time", "repeat", 1)
        if threads is not None:
            threads = check_int(threads, "time", "threads", 1, MAX_THREADS)
        checked = compile_options("time", {"cc": cc, "cflags": cflags})
        cc, cflags = checked["cc"], checked["cflags"]
        with tempfile.TemporaryDirectory(prefix="polysched-time-") as tmp:
            source = Path(tmp) / (Path(self._origin.get("path") or self._origin.get("filename") or "input.c").name)
            text = self._original_text() if original else self.c_code()
            source.write_text(text, errors="surrogateescape")
            includes = self._include_dirs() + (self._intrinsic_dirs() if not original else [])
            dataset = dataset_name(dataset, "time", [source], includes, shown=self._shown_name())
            defines = {**self._defines_at(dataset), **dataset_define(dataset)}
            built = compile_c(source, Path(tmp) / "program", cc=cc or DEFAULT_CC,
                              cflags=list(cflags) if cflags is not None else DEFAULT_CFLAGS,
                              defines=defines, include_dirs=includes, openmp="#pragma omp" in text)
            if not built.ok:
                raise TransformError(f"time: {built.reason}")
            samples = []
            for _ in range(repeat):
                run = run_binary(built.output or Path(tmp) / "program", threads=threads, timeout=600, timed=True)
                if not run.ok:
                    raise TransformError(f"time: {run.reason}")
                samples.append(run.kernel_seconds if run.kernel_seconds is not None else run.seconds)
            return statistics.median(samples)

    def show(self, whole_file: bool = False) -> None:
        """Print the generated C (of the region, or of the whole file), highlighted
        where possible (a notebook shows HTML, a terminal gets colours)."""
        from polysched.display import show_c
        show_c(self.c_code() if whole_file else self.region_code())

    # -- replay -----------------------------------------------------------------------------

    def replay(self, trace) -> "Program":
        """Apply the steps of ``trace`` (a :class:`Trace`, its JSON text, a list of
        steps or a path) to this program, in order. A trace recorded on another region
        of its file is refused; one recorded on another text of this region (its
        ``region_digest``) applies its steps by the statements' names, with a
        `TraceWarning`."""
        program = self
        trace = Trace.from_json(trace, region=self._region)
        if trace.region_recorded and trace.region != self._region:
            # (the statements of two regions are both named S0, S1...: the steps would apply)
            raise TransformError(f"the trace was recorded on region {trace.region}"
                                 f"{f' of {trace.source}' if trace.source else ''}, and this program is "
                                 f"region {self._region} (Program.from_file(path, region={trace.region}))")
        if trace.region_digest and trace.region_digest != self._trace.region_digest:
            # (helper-86: a loop nest added at the top of the region, the recorded fusion
            # of S0 and S1 fused the new statement and the old S0, without a word)
            warnings.warn(TraceWarning(
                f"the trace was recorded on another text of region {trace.region}"
                f"{f' of {trace.source}' if trace.source else ''}: its steps apply to the statements and "
                f"loops of this one by their names ({', '.join(self.statements)})"), stacklevel=2)
        for k, step in enumerate(trace):
            op = step["op"]
            if op not in _STEP_ARGS:
                raise TransformError(f"trace step {k}: unknown primitive {op!r}")
            args = dict(step.get("args", {}))
            unknown = set(args) - set(_STEP_ARGS[op])
            if unknown:
                raise TransformError(f"trace step {k} ({op}): unknown argument(s) {', '.join(sorted(unknown))}")
            method = getattr(program, op)
            if op == "unmark":      # (a trace may hold an unmark of a loop without marks)
                method = lambda stmt, depth, _program=program: _program._unmark(stmt, depth, strict=False)  # noqa: E731
            try:
                inspect.signature(method).bind(**args)
            except TypeError as err:        # a missing argument
                raise TransformError(f"trace step {k} ({op}): {err}") from None
            try:
                program = method(**args)
            except PolyschedError as err:
                if getattr(err, "violation", None) is not None:     # illegal: keep the witness
                    err.args = (f"trace step {k} ({op}): {err}",) + err.args[1:]
                    raise
                raise TransformError(f"trace step {k} ({op}): {err}") from None
        return program

    # -- primitives ---------------------------------------------------------------------------

    def _apply(self, op: str, args: dict, build, *build_args, hint: str = "") -> "Program":
        args, build_args = plain(args), plain(build_args)
        # the call as written: an argument with a default as a keyword (a tester:
        # 'parallel('S0', 1, True)' read as private=True)
        params = inspect.signature(getattr(Program, op)).parameters
        what = f"{op}(" + ", ".join(
            repr(v) if k not in params or params[k].default is inspect.Parameter.empty else f"{k}={v!r}"
            for k, v in args.items()) + ")"
        schedule = apply(self.scop, self._deps, what, build, self.scop, self._schedule, *build_args, hint=hint)
        return self._derive(schedule, {"op": op, "args": args})

    def interchange(self, stmt: str, d1: int, d2: int) -> "Program":
        """Swap loops ``d1`` and ``d2`` of ``stmt`` (one band; directly nested bands are
        merged). Legal iff no dependence ends up running backwards."""
        return self._apply("interchange", {"stmt": stmt, "d1": d1, "d2": d2},
                           primitives.interchange, stmt, d1, d2)

    def permute(self, stmt: str, order: Sequence[int]) -> "Program":
        """Reorder consecutive loops: new depth ``min(order) + k`` is old loop ``order[k]``."""
        order = as_list(order, f"permute({stmt!r}, {order!r})", "order", "a non-empty list of loop depths",
                        nonempty=True)
        return self._apply("permute", {"stmt": stmt, "order": order}, primitives.permute, stmt, order)

    def skew(self, stmt: str, depth: int, by_depth: int, factor: int) -> "Program":
        """Loop ``depth`` becomes ``loop(depth) + factor * loop(by_depth)`` (for every
        statement sharing it)."""
        return self._apply("skew", {"stmt": stmt, "depth": depth, "by_depth": by_depth, "factor": factor},
                           primitives.skew, stmt, depth, by_depth, factor)

    def shift(self, stmt: str, depth: int, amount: int) -> "Program":
        """``stmt`` alone moves by ``amount`` iterations of loop ``depth``."""
        return self._apply("shift", {"stmt": stmt, "depth": depth, "amount": amount},
                           primitives.shift, stmt, depth, amount)

    def reverse(self, stmt: str, depth: int) -> "Program":
        """Loop ``depth`` runs backwards."""
        return self._apply("reverse", {"stmt": stmt, "depth": depth}, primitives.reverse, stmt, depth)

    def fuse(self, stmts: Sequence[str], depth: int) -> "Program":
        """Fuse the loops at ``depth`` of ``stmts`` (branches of one sequence below
        ``depth`` shared loops) into one loop."""
        stmts = as_list(stmts, f"fuse({stmts!r}, {depth!r})", "stmts",
                        "a list of statement names", item=str, single=str)
        return self._apply("fuse", {"stmts": stmts, "depth": depth}, primitives.fuse, stmts, depth)

    def distribute(self, stmt: str, depth: int) -> "Program":
        """Split loop ``depth`` (and the loops inside it) so ``stmt``'s branch gets its
        own copy, apart from the statements before and after it."""
        return self._apply("distribute", {"stmt": stmt, "depth": depth}, primitives.distribute, stmt, depth)

    def split_band(self, stmt: str, depth: int) -> "Program":
        """Loop ``depth`` starts a band of its own (order unchanged)."""
        return self._apply("split_band", {"stmt": stmt, "depth": depth}, primitives.split_band, stmt, depth)

    def tile(self, stmt: str, sizes: Sequence[int], depth: int = 0) -> "Program":
        """Tile loops ``depth .. depth + len(sizes) - 1`` of ``stmt`` (one permutable
        band): tile loops at those depths, point loops right after them."""
        sizes = as_list(sizes, f"tile({stmt!r}, {sizes!r})", "tile sizes", "an int or a list of ints",
                        single=int)
        return self._apply("tile", {"stmt": stmt, "sizes": sizes, "depth": depth}, primitives.tile,
                           stmt, sizes, depth,
                           hint=" (rectangular tiles need permutable loops: skew them first)")

    def strip_mine(self, stmt: str, depth: int, size: int) -> "Program":
        """Loop ``depth`` becomes ``floor(b / size)`` and ``b`` (order unchanged)."""
        return self._apply("strip_mine", {"stmt": stmt, "depth": depth, "size": size},
                           primitives.strip_mine, stmt, depth, size)

    def unroll_and_jam(self, stmt: str, depth: int, factor: int) -> "Program":
        """Unroll loop ``depth`` by ``factor`` and jam the copies into the innermost
        body (isl's AST generator replicates the statements)."""
        return self._apply("unroll_and_jam", {"stmt": stmt, "depth": depth, "factor": factor},
                           primitives.unroll_and_jam, stmt, depth, factor)

    def wavefront(self, stmt: str, depth: int) -> "Program":
        """Loops ``depth, depth + 1`` become ``b_d + b_{d+1}`` and ``b_{d+1}``; the
        second is then parallel when the band was permutable."""
        return self._apply("wavefront", {"stmt": stmt, "depth": depth}, primitives.wavefront, stmt, depth)

    def sink(self, stmt: str, depth: int) -> "Program":
        """Move loop ``(stmt, depth)`` below all other loops of its statements (the
        others keep their order). Legal iff no dependence is reversed."""
        return self._apply("sink", {"stmt": stmt, "depth": depth}, primitives.sink, stmt, depth)

    def separate(self, stmt: str, depth: int) -> "Program":
        """Generate loop ``(stmt, depth)`` as separate full and partial loops (isl's
        ``separate`` option): no guards in the full loop, so it vectorizes. Always
        legal: the order of the instances does not change."""
        return self._apply("separate", {"stmt": stmt, "depth": depth}, primitives.separate, stmt, depth)

    def mark(self, stmt: str, depth: int, mark) -> "Program":
        """Put a :mod:`polysched.marks` value (or its text) on loop ``(stmt, depth)``."""
        try:
            value = parse_mark(mark) if isinstance(mark, (str, isl.Id)) else mark
        except MarkError as err:      # a misuse of this primitive, as replay calls it
            raise TransformError(f"mark({stmt!r}, {depth!r}, {mark!r}): {err}") from None
        if not isinstance(value, MARK_TYPES):
            raise TransformError(f"mark({stmt!r}, {depth!r}, {mark!r}): a mark is a polysched.marks value "
                                 f"or its text (e.g. \"parallel\"), got {type(mark).__name__}")
        what = f"mark({stmt!r}, {depth!r}, {value.text()!r})"
        if isinstance(value, Tensorize):      # the call needs the blocked loop nest tensorize builds
            raise TransformError(f"{what}: a tensorize mark is placed by Program.tensorize(stmt, intrinsic), "
                                 "which also blocks the loops to the intrinsic's shape")
        return self._mark_step("mark", {"stmt": stmt, "depth": depth, "mark": value.text()}, value, what)

    def _loop_marks(self, stmt: str, depth: int, what: str) -> list:
        """The marks on loop ``(stmt, depth)`` now, the nearest to the loop first (a
        mark is on the first loop of the band right below it; other text as it is)."""
        from polysched.marks import try_parse_mark
        from polysched.transform.loops import loop, node_at
        lp = loop(self.scop, self._schedule, stmt, depth, what)
        if lp.member != 0:
            return []
        node, found = node_at(self._schedule, lp.path), []
        while node.has_parent() and node.parent().get_type() == isl.schedule_node_type.mark:
            node = node.parent()
            name = node.mark_get_id().get_name()
            found.append(try_parse_mark(name) or name)
        return found

    def _mark_step(self, op: str, args: dict, value: Mark, what: str, hint: str = "") -> "Program":
        """The step ``op`` putting ``value`` on loop ``(args["stmt"], args["depth"])``;
        refused when the loop would carry both an ``Unroll`` mark and an OpenMP one
        (``Parallel``/``Simd``): gcc rejects ``#pragma GCC unroll`` next to an OpenMP
        loop pragma, so emit_c would drop the unroll (the comment it leaves then is the
        backstop for trees built otherwise)."""
        stmt, depth = args["stmt"], args["depth"]
        others = [m for m in self._loop_marks(stmt, depth, what) if type(m) is not type(value)]
        openmp = (Parallel, Simd)
        if isinstance(value, Unroll):
            clash = next((m for m in others if isinstance(m, openmp)), None)
            advice = "unroll another loop"
        elif isinstance(value, openmp):
            clash = next((m for m in others if isinstance(m, Unroll)), None)
            advice = f"unmark({stmt!r}, {depth!r}) first, or unroll another loop"
        else:
            clash = None
        if clash is not None:
            raise TransformError(f"{what}: loop {depth} of {stmt} is marked '{clash.text()}', and gcc cannot "
                                 f"unroll a loop that carries an OpenMP pragma (it rejects '#pragma GCC "
                                 f"unroll' next to one): {advice}")
        return self._apply(op, args, primitives.mark, stmt, depth, value, what, hint=hint)

    def unmark(self, stmt: str, depth: int) -> "Program":
        """Remove every mark on loop ``(stmt, depth)``; a :class:`TransformError` when
        it has none (the step would do nothing)."""
        return self._unmark(stmt, depth)

    def _unmark(self, stmt: str, depth: int, strict: bool = True) -> "Program":
        """`unmark`; ``strict=False`` (replay) records a step that finds no mark, as
        traces made before it was refused hold them."""
        what = f"unmark({stmt!r}, {depth!r})"
        if strict and not self._loop_marks(stmt, depth, what):
            raise TransformError(f"{what}: loop {depth} of {stmt} has no mark")
        return self._apply("unmark", {"stmt": stmt, "depth": depth}, primitives.unmark, stmt, depth)

    def parallel(self, stmt: str, depth: int, private: Sequence[str] | None = None,
                 reductions=None, reassociate: bool = False, schedule: str | None = None,
                 lastprivate: Sequence[str] | None = None) -> "Program":
        """Run loop ``(stmt, depth)`` in parallel (a ``Parallel`` mark; OpenMP
        ``parallel for``). Legal iff the loop carries no dependence, except on scalars
        that are private or reductions: by default these are found from the scalars'
        dataflow (floating-point reductions only with ``reassociate=True``); given
        ``private``/``reductions`` are checked (a floating-point one, too, needs
        ``reassociate=True``). A hand-written ``mark(..., "parallel(reduction=+:s)")``
        is itself the request to reassociate. ``schedule``: how the iterations go to the
        threads, as OpenMP's clause (``"dynamic"``, ``"dynamic,4"``, ``"guided"``...;
        `polysched.marks.Parallel`); it changes no result of a loop without reductions.
        ``lastprivate``: private scalars whose value after the region is read, which
        keep the value of their last write (checked: the loop must visit their writes in
        the original order; found from the dataflow by default)."""
        args = {"stmt": stmt, "depth": depth}
        what = f"parallel({stmt!r}, {depth!r})"
        check_bool(reassociate, what, "reassociate")
        if schedule is not None:
            try:
                schedule = Parallel(schedule=schedule).schedule
            except MarkError as error:
                raise TransformError(f"{what}: {error}") from None
            if schedule:
                args["schedule"] = schedule
        if private is not None:          # one name, not its letters
            private = as_list(private, what, "private", "a scalar name or a list of names", item=str, single=str)
            args["private"] = private = [self._model_name(name, what) for name in private]
        if lastprivate is not None:
            lastprivate = as_list(lastprivate, what, "lastprivate", "a scalar name or a list of names", item=str,
                                  single=str)
            args["lastprivate"] = lastprivate = [self._model_name(name, what) for name in lastprivate]
        if reductions is not None:
            args["reductions"] = [[op, self._model_name(name, what) if isinstance(name, str) else name]
                                  for op, name in reduction_pairs(reductions, what)]
            for op, name in args["reductions"]:
                array = self.scop.arrays.get(name)
                # (helper-49: '%' on an array was refused as "a floating-point reduction")
                if op not in REDUCTION_OPERATORS:
                    raise TransformError(f"{what}: {op!r} is no reduction operator (OpenMP's: "
                                         f"{' '.join(REDUCTION_OPERATORS)})")
                if array is not None and array.dims and not reduced_cell(self.scop, name):
                    raise TransformError(f"{what}: '{name}' is an array: a reduction is into a scalar "
                                         f"(or into the one element of an out-parameter, '*{name} += e')")
                if array is not None and not reassociate and not is_integer_type(array.element_type):
                    raise TransformError(f"{what}: '{name}' is a floating-point reduction, whose sum the "
                                         "threads reorder: pass reassociate=True to allow it")
        if reassociate:
            args["reassociate"] = True
        note = ""
        if private is None and reductions is None and lastprivate is None:
            value, blocking = self._scalar_clauses(stmt, depth, reassociate)
            if blocking:
                note = " (" + "; ".join(f"scalar {n}: {r}" for n, r in blocking.items()) + ")"
        else:
            try:
                value = Parallel(tuple(private or ()), tuple(tuple(r) for r in args.get("reductions", [])),
                                 lastprivate=tuple(lastprivate or ()))
            except MarkError as error:
                raise TransformError(f"{what}: {error}") from None
        value = replace(value, schedule=args.get("schedule", ""))
        return self._mark_step("parallel", args, value, what, hint=note)

    def _model_name(self, name: str, what: str) -> str:
        """The model's name of the variable ``name``: the name itself, or that of the
        variable of the region's block declared as ``name`` (renamed, as ``tmp_1``)."""
        renamed = self.scop.variables_named(name)
        if len(renamed) > 1:
            raise TransformError(f"{what}: '{name}' names several variables of the region's blocks "
                                 f"({', '.join(renamed)}): give the one meant")
        return renamed[0] if renamed else name

    def _scalar_clauses(self, stmt: str, depth: int, reassociate: bool):
        """The ``Parallel`` mark for loop ``(stmt, depth)`` with the private and
        reduction scalars the dataflow allows, and the scalars that block it."""
        from polysched.dependence import ScopAccesses, classify_scalars, mupa_rows, rows
        from polysched.transform.loops import loop, node_at
        lp = loop(self.scop, self._schedule, stmt, depth, f"parallel({stmt!r}, {depth!r})")
        node = node_at(self._schedule, lp.path)
        domain = node.get_domain()
        prefix = node.get_prefix_schedule_union_map().intersect_domain(domain)
        members = mupa_rows(node.band_get_partial_schedule(), list(range(lp.member + 1)))
        if "accesses" not in self._shared:
            self._shared["accesses"] = ScopAccesses(self.scop)
        verdict = classify_scalars(self.scop, self._shared["accesses"], domain, rows(prefix, members),
                                   reassociate=reassociate, asked="reassociate=True")
        reductions = tuple((op, name) for name, op in verdict.reductions)
        return Parallel(tuple(verdict.private), reductions, lastprivate=tuple(verdict.lastprivate)), \
            dict(verdict.blocking)

    def vectorize(self, stmt: str, depth: int) -> "Program":
        """Run loop ``(stmt, depth)`` in SIMD lanes (a ``Simd`` mark; ``omp simd``).
        Legal iff the loop carries no dependence at all."""
        return self._mark_step("vectorize", {"stmt": stmt, "depth": depth}, Simd(),
                               f"vectorize({stmt!r}, {depth!r})")

    def tensorize(self, stmt: str, intrinsic, match=None, parallel: bool = False) -> "Program":
        """Run ``stmt``'s full blocks as calls of ``intrinsic`` (a name, e.g.
        ``"dgemm_4x8"``, or a ``polysched.tensorize.Intrinsic``): the mapped loops are
        tiled to the intrinsic's shape and sunk innermost under a ``Tensorize`` mark,
        remainder tiles keep the statement (see polysched/tensorize/apply.py).
        ``match``: None (the best legal one), an index in
        ``polysched.tensorize.match_statement``'s order, or ``{intrinsic loop: program
        loop}``. ``parallel``: also mark the outermost block loop that carries no
        dependence ``Parallel`` (OpenMP threads over blocks; the other primitives cannot
        name ``stmt``'s loops any more: its instances are split into full and remainder
        blocks). The trace records the chosen loop mapping. An intrinsic with an init
        statement (``dgemm_packed_beta_scaled``: ``C *= beta`` then the product) also
        takes the program statement that initialises ``stmt``'s output (gemm's S0), found
        by matching: one call runs both (see polysched/tensorize/problem.py)."""
        from polysched.tensorize.apply import BLOCKINGS, parallel_variants, resolve, tensorized_tree
        from polysched.tensorize.match import Match
        if isinstance(match, bool) or not isinstance(match, (type(None), int, dict, Match)):
            raise refusal(f"tensorize({stmt!r}, {intrinsic!r}, match={match!r})", "match",
                          "None, an index of polysched.tensorize.match_statement's matches or "
                          "{intrinsic loop: program loop}", match)
        check_bool(parallel, f"tensorize({stmt!r}, {intrinsic!r})", "parallel")
        problem, loop_map, chosen = resolve(self.scop, stmt, intrinsic, match, self._deps)
        args = {"stmt": stmt, "intrinsic": chosen.intrinsic, "match": dict(chosen.loops)}
        if parallel:
            args["parallel"] = True
        error = None
        for blocked, kc in BLOCKINGS:     # the fastest loop order that is legal
            try:
                tree = tensorized_tree(problem, loop_map, self._schedule, dict(chosen.arrays), blocked, kc)
            except TransformError as err:
                error = error or err
                continue
            for variant in (parallel_variants(tree, problem, loop_map, self._schedule) if parallel else [tree]):
                try:
                    return self._apply("tensorize", args, lambda _scop, _schedule: variant)
                except TransformError as err:
                    error = error or err
            if parallel and error is None:
                error = TransformError(f"tensorize({stmt!r}, parallel=True): no block loop of {stmt} "
                                       "takes more than one value")
        raise error

    def unroll(self, stmt: str, depth: int, factor: int) -> "Program":
        """Ask the C compiler to unroll loop ``(stmt, depth)`` by ``factor`` (an
        ``Unroll`` mark; always legal: the order is unchanged)."""
        try:
            value = Unroll(factor)
        except Exception as err:
            raise TransformError(f"unroll({stmt!r}, {depth!r}, {factor!r}): {err}") from None
        return self._mark_step("unroll", {"stmt": stmt, "depth": depth, "factor": factor}, value,
                               f"unroll({stmt!r}, {depth!r}, {factor!r})")

    def expand_scalars(self, scalars: Sequence[str] | None = None) -> "Program":
        """The program whose scalars private to a loop that walks arrays across rows are
        arrays indexed by that loop (or live in the element they are copied to at the end
        of each iteration), as ``optimize`` does before scheduling: see
        `polysched.transform.expand`. Its model differs (new arrays, bodies, maybe one
        statement fewer), so only `substitute_scalars` may come before it: the schedule
        must still be the source's. This program itself (no step in the trace) when nothing is worth expanding.

        ``scalars``: expand these, wherever they are private to a loop (a temporary
        ``t = A[i][j] * 2; B[i][j] = t * t;`` orders every iteration after the one
        before, through its one storage: expanded, interchange and tiling are legal);
        a :class:`TransformError` for one that is no scalar the region writes, or is
        private to no loop."""
        from polysched.transform.expand import expand, expansion_plan
        what = "expand_scalars()" if scalars is None else f"expand_scalars({scalars!r})"
        self._model_step_in_order(what, "expand_scalars")
        if scalars is not None:
            scalars = as_list(scalars, what, "scalars", "a list of scalar names", item=str, single=str,
                              nonempty=True)
            for name in scalars:
                array = self.scop.arrays.get(name)
                if array is None or not array.is_scalar or array.text:
                    raise TransformError(f"{what}: {name!r} is not a scalar variable of the region")
        why_not: dict[str, str] = {}
        plan = expansion_plan(self.scop, None if scalars is None else set(scalars), why_not)
        missing = [name for name in scalars or [] if all(e.scalar != name for e in plan)]
        if missing:
            # (helper-54: a scalar printed after the region got the general reason only)
            raise TransformError(f"{what}: " + "; ".join(
                f"{name!r} cannot be expanded {why_not[name]}" if name in why_not else
                f"{name!r} cannot be expanded: not written and then read within each iteration of a loop "
                "whose other dependences leave the iterations free, or the loop's extent is not affine "
                "in the parameters" for name in missing))
        if not plan:
            return self
        return self._remodelled(expand(self.scop, plan), "expand_scalars",
                                {} if scalars is None else {"scalars": list(scalars)})

    def _remodelled(self, scop: Scop, op: str, args: dict | None = None) -> "Program":
        """The program on ``scop`` (a model step ``op`` of `MODEL_STEPS` changed the
        statements), its own schedule and dependences, ``op`` added to the trace."""
        scops = self._scops[:self._region] + (scop,) + self._scops[self._region + 1:]
        trace = Trace(tuple(self._trace.steps) + ({"op": op, "args": dict(args or {})},), self._trace.source,
                      self._trace.region, region_digest=self._trace.region_digest)
        return Program(scop, analyze(scop), scop.schedule, trace, scops=scops, region=self._region,
                       origin=self._origin)

    def privatize_arrays(self) -> "Program":
        """The program whose temporary arrays, filled anew by every iteration of a loop
        that is parallel but for them, have a copy per iteration (the last one copied
        back last), as ``optimize`` does before scheduling: see
        `polysched.transform.privatize`. A model step like `expand_scalars`, which may
        come before it. This program itself (no step in the trace) when no array is
        worth it."""
        from polysched.transform.privatize import privatization_plan, privatize
        self._model_step_in_order("privatize_arrays()", "privatize_arrays")
        plan = privatization_plan(self.scop)
        return self._remodelled(privatize(self.scop, plan), "privatize_arrays") if plan else self

    def transpose_arrays(self) -> "Program":
        """The program whose matrices walked down their columns by a recurrence inside a
        parallel loop work on transposed copies (copied in first and out last), as
        ``optimize`` does before scheduling: see `polysched.transform.layout`. Like
        `expand_scalars` it changes the model, so only `substitute_scalars`,
        `expand_scalars` and `privatize_arrays` may come before it. This program itself
        (no step in the trace) when no array is worth it."""
        from polysched.transform.layout import transpose, transposition_plan
        self._model_step_in_order("transpose_arrays()", "transpose_arrays")
        plan = transposition_plan(self.scop)
        return self._remodelled(transpose(self.scop, plan), "transpose_arrays") if plan else self

    def _model_step_in_order(self, what: str, op: str) -> None:
        """A :class:`TransformError` unless every step so far is a model step that comes
        before ``op`` in `MODEL_STEPS` (each changes the statements the later ones see)."""
        before = MODEL_STEPS[:MODEL_STEPS.index(op)]
        if any(step["op"] not in before for step in self._trace.steps):
            names = [f"{name}()" for name in before]
            allowed = " or ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " or " + names[-1]
            raise TransformError(f"{what} changes the statements: only {allowed} may come before it "
                                 f"(this program has {len(self._trace.steps)} steps already)" if before else
                                 f"{what} changes the statements: it must be the first step "
                                 f"(this program has {len(self._trace.steps)} already)")

    def substitute_scalars(self) -> "Program":
        """The program whose temporaries private to an iteration (``double s = A[i][j-1]
        + A[i][j+1]; B[i][j] = s / 2;``) are written into the statements that read them,
        as ``optimize`` does before scheduling: see `polysched.transform.substitute`. One
        statement fewer per scalar, so it is a first step, and the results stay
        bit-identical. This program itself (no step in the trace) when there is none."""
        from polysched.transform.substitute import substitute, substitution_plan
        self._model_step_in_order("substitute_scalars()", "substitute_scalars")
        plan = substitution_plan(self.scop)
        return self._remodelled(substitute(self.scop, plan), "substitute_scalars") if plan else self

    def prepared(self) -> "Program":
        """``substitute_scalars()``, ``expand_scalars()``, ``privatize_arrays()`` then
        ``transpose_arrays()``: the model ``optimize`` schedules (this program when none
        applies)."""
        return self.substitute_scalars().expand_scalars().privatize_arrays().transpose_arrays()

    def auto_schedule(self, scheduler: str = "pluto", fuse: str = "cost",
                      negative_coefficients: bool = False, diamond: bool | None = None,
                      reassociate: bool | Sequence[str] = False) -> "Program":
        """Replace the schedule by the automatic scheduler's (``"pluto"``, ``"isl"``
        or ``"identity"``; fusion ``"cost"``, ``"smart"``, ``"max"``, ``"no"``), as ``optimize``
        does (negative coefficients are tried when no non-negative schedule exists).
        ``diamond``: concurrent-start hyperplanes for a stencil's time band (None: where
        they measured faster; see `polysched.schedule.ScheduleOptions`). ``reassociate``:
        the floating-point reductions ``auto_tile(reassociate=...)`` will make parallel
        (True: all; or scalar names): the ``"cost"`` fusion counts their loops as parallel."""
        from polysched.schedule import ScheduleError as AutoScheduleError
        from polysched.schedule import ScheduleOptions, compute
        check_bool(negative_coefficients, "auto_schedule", "negative_coefficients")
        if diamond is not None:
            check_bool(diamond, "auto_schedule", "diamond")
        args = {"scheduler": scheduler, "fuse": fuse}
        if negative_coefficients:
            args["negative_coefficients"] = True
        if diamond is not None:
            args["diamond"] = bool(diamond)
        reassociate = self._reassociation(reassociate, "auto_schedule")
        if reassociate:
            from polysched.tiling.options import reassociation_arg
            args["reassociate"] = reassociation_arg(reassociate)
        options = ScheduleOptions(scheduler=scheduler, fuse=fuse, diamond=diamond,
                                  negative_coefficients=negative_coefficients, negative_fallback=True,
                                  reassociate=reassociate)
        try:
            schedule = compute(self.scop, self._deps, options)
        except AutoScheduleError as err:
            raise TransformError(f"auto_schedule({scheduler!r}, fuse={fuse!r}): {err}") from None
        what = f"auto_schedule({scheduler!r}, fuse={fuse!r})"
        schedule = apply(self.scop, self._deps, what, lambda: schedule)
        return self._derive(schedule, {"op": "auto_schedule", "args": args})

    def stride_order(self) -> "Program":
        """What ``optimize`` does after the scheduler when no tiling stage runs: in each
        innermost permutable band whose innermost member walks some array across rows, a
        member that can be the vector loop and walks none across rows goes innermost
        (`polysched.tiling.stride_one_order`), as ``permute`` steps of the trace."""
        from polysched.tiling import stride_one_order
        _, steps, _ = stride_one_order(self.scop, self._deps, self.schedule)
        program = self
        for step in steps:
            program = program.permute(**step["args"])
        return program

    def _reassociation(self, reassociate, what: str) -> bool | tuple[str, ...]:
        """``reassociate`` checked: a bool, or the names of scalars of the program (whose
        floating-point reductions may be reordered) as a tuple."""
        if isinstance(reassociate, bool):
            return reassociate
        scalars = [n for n, a in self.scop.arrays.items() if a.is_scalar]
        # (a string is no list of names: reassociate="false" would read as a name)
        if not isinstance(reassociate, (list, tuple)) or not all(n in scalars for n in reassociate):
            raise TransformError(f"{what}: reassociate must be True or False, or a list of the program's "
                                 f"scalars ({', '.join(scalars) or 'it has none'}), got {reassociate!r}")
        return tuple(reassociate)

    def auto_tile(self, tile: bool = True, sizes: Sequence[int] | dict[str, Sequence[int]] | None = None,
                  parallel: bool = True,
                  l2tile: bool = False, simd: bool = True, unroll: int | None = None,
                  reassociate: bool | Sequence[str] = False, wavefront: bool = True,
                  intra_tile_reorder: bool = True, tile_depth1: bool = False, caches: dict | None = None,
                  register_tile: int = 4, point_wavefront: bool = True,
                  threads: int | None = None) -> "Program":
        """The default tiling policy (``optimize --tile --parallel``) on the current
        schedule: tile permutable bands (sizes from the cache model unless given, for
        every band or per statement: ``{"S1": [32, 64, 128]}`` for S1's band),
        order point loops for stride 1, mark parallel / simd / unroll loops. The cache
        sizes and the threads it made the code for (``threads``; default: as many as an
        OpenMP program started here would get, `polysched.tiling.openmp_threads`) are
        recorded in the trace, so a replay elsewhere decides the same.
        ``reassociate``: True lets parallel loops reorder every floating-point reduction,
        a list of scalar names those only (a region's own ``reduction(+:s)`` clause).
        ``register_tile``, ``point_wavefront``: see `polysched.tiling.TileOptions`."""
        from polysched.tiling import TileOptions, TilingError, cache_sizes, tile_with_report
        if any(step["op"] == "auto_tile" for step in self.trace.steps):
            # (helper-94: a second call re-marked the jammed copies of the first, and the
            # result was "illegal: mark 'simd' is on a loop that carries a dependence")
            raise TransformError("auto_tile: this schedule is already the policy's (an earlier auto_tile "
                                 "tiled and marked it); call auto_tile once, on the schedule before it")
        for name, value in (("tile", tile), ("parallel", parallel), ("l2tile", l2tile), ("simd", simd),
                            ("wavefront", wavefront),
                            ("intra_tile_reorder", intra_tile_reorder), ("tile_depth1", tile_depth1),
                            ("point_wavefront", point_wavefront)):
            check_bool(value, "auto_tile", name)
        used = fields_of(caches, cache_sizes(), "auto_tile", "caches", "polysched.tiling.CacheSizes")
        for level, size in vars(used).items():
            check_int(size, "auto_tile", f"caches[{level!r}]", 1, MAX_CACHE)
        if isinstance(sizes, dict):     # per statement: {"S1": [32, 64, 128]}
            for name in sizes:
                if name not in self.statements:
                    raise TransformError(f"auto_tile: sizes names no statement {name!r} "
                                         f"(statements: {', '.join(self.statements)})")
            sizes = {name: tile_sizes(v, "auto_tile", f"sizes[{name!r}]") for name, v in sizes.items()}
        elif sizes is not None:
            sizes = tile_sizes(sizes, "auto_tile", "sizes")
        if unroll is not None:
            check_int(unroll, "auto_tile", "unroll", 1, MAX_JAM)
        check_int(register_tile, "auto_tile", "register_tile", 0, MAX_JAM)
        reassociate = self._reassociation(reassociate, "auto_tile")
        if threads is not None:
            check_int(threads, "auto_tile", "threads", 1, MAX_THREADS)
        try:
            options = TileOptions(tile=tile, sizes=sizes, l2tile=l2tile, parallel=parallel,
                                  wavefront=wavefront, simd=simd, unroll=unroll, tile_depth1=tile_depth1,
                                  intra_tile_reorder=intra_tile_reorder, reassociate=reassociate,
                                  register_tile=register_tile, point_wavefront=point_wavefront,
                                  threads=threads)
            schedule, report = tile_with_report(self.scop, self._deps, self._schedule, options, used)
        except (ValueError, TilingError) as err:
            raise TransformError(f"auto_tile: {err}") from None
        if tile and sizes is not None:        # sizes that would be silently ignored or cut
            given = sizes.items() if isinstance(sizes, dict) else [(None, sizes)]
            for name, wanted in given:
                bands = [b for b in report.bands if name is None or name in _band_statements(b)]
                tiled = [b for b in bands if b.tiled]
                what = f"sizes {wanted}" if name is None else f"sizes[{name!r}] = {wanted}"
                if not tiled:
                    why = "; ".join(b.summary() for b in bands) or "the schedule has no band"
                    hint = "auto_schedule() makes permutable bands" + (
                        "; tile_depth1=True tiles a band of one loop" if not tile_depth1 and any(
                            b.permutable and b.members == 1 for b in bands) else "")
                    raise TransformError(f"auto_tile: {what} given, but no band {'' if name is None else f'of {name} '}"
                                         f"can be tiled ({why}); {hint}")
                deepest = max(len(b.sizes) for b in tiled)
                if len(wanted) > deepest:
                    raise TransformError(f"auto_tile: {len(wanted)} sizes given{'' if name is None else f' for {name}'}"
                                         f", but the tiled bands{'' if name is None else f' of {name}'} have at "
                                         f"most {deepest} loops")
        args = options.auto_tile_args(used)
        schedule = apply(self.scop, self._deps, "auto_tile()", lambda: schedule)
        result = self._derive(schedule, {"op": "auto_tile", "args": args})
        result._cache["tiling_report"] = report
        return result

    def set_schedule(self, schedule) -> "Program":
        """Any schedule: an ``isl.Schedule``, a schedule map ``{ S[i, j] -> [t0, ...] }``
        or the isl text of either (as ``--save-schedule`` writes it). Checked like every
        primitive."""
        from polysched.emit_c.tensorize import tensorize_mark_problem
        try:
            tree = to_tree(self.scop, schedule)
            unsupported = unsupported_nodes(tree)
            if unsupported:
                raise TransformError(f"set_schedule(...): the tree has {' and '.join(unsupported)} nodes, which "
                                     "the C printer does not take (bands, sequences, sets, filters and marks "
                                     "only)")
            # a saved schedule keeps Program.tensorize's marks whole; one written by
            # hand (`tensorize(dgemm_4x8)`) names no statement, loops or operands
            problem = tensorize_mark_problem(self.scop, tree)
            if problem is not None:
                raise TransformError(f"set_schedule(...): {problem}; tensorize marks are placed by "
                                     "Program.tensorize(stmt, intrinsic) or --tensorize")
            text = str(tree)
            # the tree read back from the text the trace records: isl's text is not a fixed
            # point (a tree and its text can give different, equivalent, code), and the
            # replay of the trace must give this program's code byte for byte
            tree = isl.Schedule.read_from_str(self.scop.domain.get_ctx(), text)
            checked = apply(self.scop, self._deps, "set_schedule(...)", lambda: tree)
        except isl.Error as err:     # a tree over other statements' spaces, extension nodes, ...
            why = str(err).split(" in /", 1)[0].removeprefix("call to ")
            raise TransformError(f"set_schedule(...): isl cannot use this schedule ({why})") from None
        except (ScheduleError, MarkError) as err:    # instances left out, a mark outside the vocabulary
            raise TransformError(f"set_schedule(...): {err}") from None
        return self._derive(checked, {"op": "set_schedule", "args": {"schedule": text}})

    with_schedule = set_schedule

    @property
    def tiling_report(self):
        """What the last ``auto_tile`` decided (sizes, point order, parallel loops), if
        this program is its direct result."""
        return self._cache.get("tiling_report")

    # -- display ------------------------------------------------------------------------------

    def __repr__(self) -> str:
        from polysched.display import program_summary
        return program_summary(self)

    def _repr_html_(self) -> str:
        from polysched.display import program_html
        return program_html(self)

    def _value(self) -> tuple:
        """What a program is: its region of the source as read (text, place, -D) and its
        schedule tree; a pickle, a replay and another load of the file have the same
        (helper-49: equality was identity, which none of them kept)."""
        scop = self.scop
        return (scop.source, scop.region_start, scop.region_end,
                json.dumps(self._origin.get("defines") or {}, sort_keys=True), str(self._schedule))

    def __eq__(self, other) -> bool:
        if not isinstance(other, Program):
            return NotImplemented
        return self is other or self._value() == other._value()

    def __hash__(self):
        return hash(self._value())


def _replayed(origin: dict, trace: str) -> Program:
    """The program a pickle holds (`Program.__reduce__`): its source read again (the
    file while it still holds the text the program was read from, else that text as
    kept, from any directory), the trace replayed."""
    options = dict(region=origin.get("region", 0), defines=origin.get("defines") or None,
                   include_dirs=origin.get("include_dirs") or None)
    path, text = origin.get("path"), origin.get("text")
    if path is not None and (text is None or _file_holds(path, text)):
        program = Program.from_file(path, **options)
    elif path is not None:
        # (its #include "..." files are looked for where the file was)
        options["include_dirs"] = list(options["include_dirs"] or []) + [origin["source_dir"]]
        program = Program.from_source(text, filename=path, **options)
    else:
        program = Program.from_source(origin["source"], filename=origin.get("filename") or "input.c", **options)
    return program.replay(Trace.from_json(trace))


def _file_holds(path: str, text: str) -> bool:
    try:
        return Path(path).read_bytes().decode(ENCODING, ERRORS) == text
    except OSError:
        return False


def to_tree(scop: Scop, schedule) -> isl.Schedule:
    """An ``isl.Schedule`` over ``scop.domain`` from a tree, a schedule map, or isl text
    of either (see ``polysched.transform.forms``); a :class:`TransformError` if unusable."""
    from polysched.dependence import ScheduleError
    from polysched.transform.forms import as_tree
    try:
        return as_tree(scop, schedule)
    except ScheduleError as err:
        raise TransformError(str(err)) from None


def _band_statements(band) -> set[str]:
    """The statements a `polysched.tiling.BandReport`'s partial schedule schedules
    (``[{ S0[i, j] -> [(i)]; S1[i] -> [(i)] }, ...]``, as isl printed it)."""
    return {piece.get_tuple_name() for piece in sets_of(isl.MultiUnionPwAff(band.schedule).domain())}


def _emit_options(options, what: str):
    """``options`` of :meth:`Program.c_code` / ``region_code``: None, an ``EmitOptions``
    or a dict of its fields."""
    if options is None:
        return None
    from polysched.emit_c import EmitOptions
    return fields_of(options, EmitOptions(), f"{what}(options={options!r})", "options",
                     "polysched.emit_c.EmitOptions")


def _within_codegen_budget(generate):
    """``generate()`` (C text from isl's AST generator) in a child process killed past
    the pipeline's ``CODEGEN_BUDGET`` of CPU time: a schedule of many skews and tiles
    can keep isl busy for minutes, and isl cannot be interrupted."""
    from polysched.emit_c import CodegenError
    from polysched.pipeline import CODEGEN_BUDGET
    from polysched.schedule.isolated import IsolatedTimeout, run_isolated
    try:
        return run_isolated(generate, CODEGEN_BUDGET)
    except IsolatedTimeout:
        raise CodegenError(f"code generation ran past {CODEGEN_BUDGET:g} s of CPU time on this schedule "
                           "(isl's AST generator; a simpler tree generates faster: fewer tile levels, "
                           "wavefronts, skews or jams, as `optimize` itself falls back to)") from None


__all__ = ["Program", "Trace", "to_tree"]
