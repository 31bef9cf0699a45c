"""``polysched optimize FILE.c -o OUT.c``: the main job.

The output is written atomically and only when everything succeeded: with
``--verify``, only when the output verified; otherwise nothing is written at ``-o``
(an existing file is left untouched), the candidate goes to ``OUT.c.unverified`` and
the exit status is 1."""
from __future__ import annotations

import shlex
import sys
import warnings
from pathlib import Path

from polysched.budget import DEFAULT_RUN_BUDGET
from polysched.cli import UsageError
from polysched.cli.common import (add_preprocessor_args, add_schedule_args, check_budget, check_compiler,
                                  check_input_file, check_output_path, check_schedule_options, default_dataset,
                                  is_stdout, output_file, parse_defines, path_argument, same_file, write_output)
from polysched.limits import MAX_JAM, MAX_SIZE, MAX_THREADS


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("optimize", help="schedule, tile and parallelize the SCoPs of a C file",
                              description=__doc__)
    p.add_argument("file", type=path_argument, help="C file with #pragma scop regions")
    p.add_argument("-o", "--output", type=output_file, required=True,
                   help="where to write the new C file (-: the standard output)")
    p.add_argument("--identity", action="store_true",
                   help="keep the original schedule (same as --scheduler identity, no tiling)")
    add_schedule_args(p)
    p.add_argument("--tile", action="store_true", help="tile permutable bands")
    p.add_argument("--tile-sizes", help="comma-separated sizes per band member, e.g. 32,32,32, for every band; "
                        "or per statement: S1=32,64,128;S0=16,16")
    p.add_argument("--tile-sizes-file", type=path_argument,
                   help="file with tile sizes (one per line or comma-separated)")
    p.add_argument("--l2tile", action="store_true", help="second level of tiling")
    p.add_argument("--parallel", action="store_true", help="OpenMP parallel loops (with wavefronts)")
    p.add_argument("--reassociate", action="store_true",
                   help="allow parallel floating-point reductions (results then differ in rounding, "
                        "like -ffast-math; integer reductions are exact, always allowed: signed sums and "
                        "products are computed in an unsigned copy, which cannot overflow). With --tensorize: "
                        "FMA kernels, and cblas_dgemm/sgemm calls when a CBLAS is found "
                        "(POLYSCHED_CBLAS=path|none overrides the search)")
    p.add_argument("--threads", type=int, metavar="T",
                   help="the OpenMP threads to make the code for: each parallel loop gets at least 2 "
                        "iterations per thread, parallel tiles come in full rounds of T (the code is "
                        "correct at any thread count; default: OMP_NUM_THREADS, else the CPUs this "
                        "process may run on). Needs --parallel")
    p.add_argument("--unroll", type=int, metavar="N",
                   help=f"unroll-and-jam the point loops by N (1..{MAX_JAM})")
    p.add_argument("--register-tile", type=int, metavar="N", default=4,
                   help="when the stride-1 innermost loop carries a reduction chain and the SIMD "
                        "alternative walks arrays by columns, unroll-and-jam the parallel loop by N "
                        "(register tiling; default 4, 0 = off: the SIMD loop goes innermost)")
    p.add_argument("--no-point-wavefront", action="store_true",
                   help="keep chains of updates (each iteration reading what the one before wrote) in "
                        "the innermost point loop; by default a parallel loop goes innermost (adi), or "
                        "without one the point loops run in wavefronts (seidel-2d)")
    p.add_argument("--no-expand", action="store_true",
                   help="keep scalars scalars. By default a scalar private to a loop that walks arrays "
                        "across rows (a column-wise recurrence, s = 0; for (k) s += A[i][k] * B[k][j]) "
                        "becomes an array indexed by that loop, on the heap, so that the scheduler may "
                        "interchange the loop, and a temporary private to each iteration (double t = "
                        "A[i][j] * 2; B[i][j] = t + 1;) is written into the statements that read it, so "
                        "that the loops may be tiled; with --parallel, a temporary array that every "
                        "iteration of a loop fills before it reads it (doitgen's sum[p]) gets a copy per "
                        "iteration, on the heap, the last copied back after the region, so that the loop "
                        "runs in parallel (not with --identity)")
    p.add_argument("--no-transpose", action="store_true",
                   help="keep every array's layout. By default a matrix walked down its columns by a "
                        "recurrence inside a parallel loop, many times over (adi's p and q), is worked on "
                        "in a transposed copy on the heap, copied in before the region and out after it "
                        "(not with --identity)")
    p.add_argument("--tensorize", nargs="?", const="auto", metavar="auto|NAME[,NAME]|DIR",
                   help="run each statement's best legal match of the shipped intrinsics (auto), of "
                        "the named ones or of the descriptions in DIR as calls (polysched "
                        "tensorize), tiled for the intrinsic, with --parallel over blocks; the "
                        "other statements keep their loops (without any match: the usual "
                        "pipeline)")
    p.add_argument("--no-tensorize", action="store_true",
                   help="never call micro-kernels. By default --tile runs a region's matrix products "
                        "as calls of the shipped bit-identical micro-kernels this CPU runs natively "
                        "(their code is pasted into the output), when its other statements are "
                        "shallower; not with --scheduler isl|identity, --tile-sizes or --unroll")
    p.add_argument("--verify", action="store_true",
                   help="compile and run original and output at a small size and compare; "
                        "on a difference nothing is written at -o (the candidate goes to "
                        "OUT.unverified) and the exit status is 1; 2 when the input "
                        "program itself does not build or run")
    v = p.add_argument_group("verification (with --verify)")
    v.add_argument("--extra-source", dest="extra_sources", action="append", default=[], type=path_argument,
                   metavar="FILE", help="another C file to compile and link with both programs "
                                        "(repeatable), e.g. a utilities file")
    v.add_argument("--cc", default=None, help="C compiler for --verify (default: gcc)")
    v.add_argument("--rtol", type=float, default=None,
                   help="relative tolerance, where outputs may round otherwise (--reassociate, inexact "
                        "intrinsics named; a float sum of 24 terms in another order: a few 1e-6) "
                        "(default: 1e-6; without them the comparison is exact, every bit)")
    v.add_argument("--atol", type=float, default=None, help="absolute tolerance, as --rtol (default: 1e-9)")
    v.add_argument("--cflags", default=None,
                   help="compiler flags for --verify, shell-quoted; write --cflags=-O2 for a "
                        "single flag (default: '-O3 -march=native')")
    t = p.add_argument_group("schedules and traces in and out")
    t.add_argument("--save-trace", type=path_argument, metavar="T.json",
                   help="write the steps that made each region's schedule (a polysched.Program trace, JSON)")
    t.add_argument("--trace", type=path_argument, metavar="T.json",
                   help="replay a saved trace instead of scheduling and tiling (every step is checked)")
    t.add_argument("--from-db", type=path_argument, metavar="DB",
                   help="apply each region's best verified record on this machine from a "
                        "polysched tune database (its trace replayed; a region without one is kept "
                        "as written); exit 2 when no region has one")
    t.add_argument("--db-dataset", metavar="D",
                   help="with --from-db: the records timed at this dataset (default: the dataset of "
                        "the region's latest campaign with a verified record)")
    t.add_argument("--db-threads", type=int, metavar="T",
                   help="with --from-db: the records timed with this many threads (default: as "
                        "--db-dataset)")
    t.add_argument("--save-schedule", type=path_argument, metavar="S.txt",
                   help="write each region's final schedule tree in isl notation, one line per region")
    t.add_argument("--schedule", metavar="S.txt",
                   help="use this schedule (isl tree text or a union map, one line per region) "
                        "instead of scheduling; checked for legality. Text with braces is the schedule "
                        "itself (a file with one region), as in check")
    p.add_argument("--budget", type=float, metavar="S", default=DEFAULT_RUN_BUDGET,
                   help="CPU seconds the whole run may take; a region reached with nothing left "
                        f"is kept as written, with a notice (default: {DEFAULT_RUN_BUDGET:g}; 0: no limit)")
    add_preprocessor_args(p)
    p.set_defaults(func=run)


def parse_tile_sizes(text: str, origin: str) -> list[int] | dict[str, list[int]]:
    """``32,32,32`` (every band), or per statement ``S1=32,64,128; S0=16,16`` (``;`` or
    newlines between statements)."""
    def numbers(part: str) -> list[int]:
        tokens = [tok.strip() for tok in part.strip().replace("\n", ",").split(",")]
        try:
            sizes = [int(tok) for tok in tokens]
        except ValueError:
            sizes = []
        if not sizes or any(not 1 <= s <= MAX_SIZE for s in sizes):
            raise UsageError(f"{origin}: tile sizes must be integers from 1 to {MAX_SIZE}, "
                             f"got {part.strip()!r}")
        return sizes

    if "=" not in text:
        return numbers(text)
    per_statement: dict[str, list[int]] = {}
    for entry in text.replace("\n", ";").split(";"):
        if not entry.strip():
            continue
        name, eq, sizes = entry.partition("=")
        if not eq or not name.strip().isidentifier():
            raise UsageError(f"{origin}: expected STATEMENT=SIZES (e.g. S1=32,64,128), got {entry.strip()!r}")
        if name.strip() in per_statement:
            raise UsageError(f"{origin}: sizes for {name.strip()} given twice")
        per_statement[name.strip()] = numbers(sizes)
    return per_statement


def _read_tile_sizes_file(path: Path) -> list[int] | dict[str, list[int]]:
    try:
        text = path.read_text(errors="replace")
    except OSError as err:
        raise UsageError(f"--tile-sizes-file {path}: {err.strerror or err}") from None
    return parse_tile_sizes(text, str(path))


def _verify_flags(args) -> tuple[str | None, list[str] | None]:
    cflags = None
    if args.cflags is not None:
        try:
            cflags = shlex.split(args.cflags)
        except ValueError as err:
            raise UsageError(f"--cflags: {err}") from None
    for source in args.extra_sources:
        if not source.is_file():
            raise UsageError(f"--extra-source {source}: no such file")
    if not args.verify and (args.extra_sources or args.cflags is not None or args.cc is not None):
        raise UsageError("--extra-source, --cc and --cflags are for --verify")
    for name in ("rtol", "atol"):
        value = getattr(args, name)
        if value is not None and not args.verify:
            raise UsageError(f"--{name} is for --verify")
        if value is not None and not value >= 0:    # also rejects nan
            raise UsageError(f"--{name} must be non-negative")
    if args.cc is not None:
        check_compiler(args.cc)
    return args.cc, cflags


def _check_combinations(args) -> None:
    """Flags that contradict each other, or that would have no effect: refused, so
    that a run never silently does something else than what was asked."""
    given = lambda *flags: [f for f in flags if getattr(args, f.lstrip("-").replace("-", "_"))]
    if args.tile_sizes and args.tile_sizes_file:
        raise UsageError("--tile-sizes and --tile-sizes-file are alternatives: give one")
    if args.identity:
        extra = given("--tile", "--parallel", "--l2tile", "--unroll", "--tensorize", "--diamond", "--negative",
                      "--no-expand", "--no-transpose")
        extra += [f"--fuse {args.fuse}"] if args.fuse != "cost" else []
        if args.scheduler != "pluto":
            extra.insert(0, f"--scheduler {args.scheduler}")
        if extra:
            raise UsageError(f"--identity keeps the original schedule, without transformations: "
                             f"it does not combine with {extra[0]}")
    if not args.tile:
        needs_tile = given("--tile-sizes", "--tile-sizes-file", "--l2tile")
        if needs_tile:
            raise UsageError(f"{needs_tile[0]} needs --tile")
    if args.threads is not None and not args.parallel:
        raise UsageError("--threads makes the code for that many threads: it needs --parallel")
    if args.tensorize is not None and not args.tensorize.strip():
        raise UsageError("--tensorize: an empty list of intrinsics (give auto, names, a file or a directory)")
    if args.tensorize and args.no_tensorize:
        raise UsageError("--tensorize and --no-tensorize contradict each other: give one")
    if args.from_db is None and given("--db-dataset", "--db-threads"):
        raise UsageError(f"{given('--db-dataset', '--db-threads')[0]} chooses among --from-db's records: "
                         "give --from-db DB")
    source = next((flag for flag in ("--schedule", "--trace", "--from-db") if given(flag)), None)
    if source is not None:
        # the file gives the whole schedule (tiles, marks and all): these would do nothing
        extra = given("--identity", "--tile", "--parallel", "--threads", "--unroll", "--negative", "--no-point-wavefront",
                      "--no-expand", "--no-transpose", "--no-tensorize")
        extra += [f"--scheduler {args.scheduler}"] if args.scheduler != "pluto" else []
        extra += [f"--fuse {args.fuse}"] if args.fuse != "cost" else []
        extra += ["--diamond" if args.diamond else "--no-diamond"] if args.diamond is not None else []
        extra += ["--register-tile"] if args.register_tile != 4 else []
        if extra:
            raise UsageError(f"{source} gives the whole schedule: {extra[0]} would have no effect")
        return
    # choices of the tiling stage (intra-tile order, register tiles, micro-kernels),
    # which runs with --tile, --parallel or --unroll
    stage = given("--no-point-wavefront") + (["--register-tile"] if args.register_tile != 4 else [])
    if stage and not (args.tile or args.parallel or args.unroll):
        raise UsageError(f"{stage[0]} chooses how the tiling stage orders the point loops: "
                         "it needs --tile, --parallel or --unroll")
    if args.no_tensorize and not args.tile:
        raise UsageError("--no-tensorize turns off the micro-kernel calls --tile makes by default: "
                         "it needs --tile")
    if args.reassociate and not (args.parallel or args.tile or args.tensorize):
        raise UsageError("--reassociate allows parallel reductions and reassociating "
                         "micro-kernels: it needs --parallel, --tile or --tensorize")
    if args.reassociate and args.no_tensorize and not args.parallel:
        raise UsageError("--reassociate with --no-tensorize allows only parallel reductions: "
                         "it needs --parallel")


def run(args) -> int:
    from polysched.pipeline import OptimizeOptions, optimize

    check_input_file(args.file)
    check_output_path(args.output, args.file)
    written = [("-o", args.output)]
    for option in ("save_trace", "save_schedule"):
        path, flag = getattr(args, option, None), "--" + option.replace("_", "-")
        if path is not None:
            check_output_path(path, args.file, option=flag)
            for other_flag, other in written:    # one output would overwrite the other
                if same_file(path, other):
                    raise UsageError(f"{flag} {path}: also the path of {other_flag}; choose another path")
            written.append((flag, path))
    sizes = None
    if args.tile_sizes is not None:         # '--tile-sizes ""' too: refused, not ignored
        sizes = parse_tile_sizes(args.tile_sizes, "--tile-sizes")
    elif args.tile_sizes_file:
        sizes = _read_tile_sizes_file(args.tile_sizes_file)
    # (a value out of range first: '--register-tile -3' alone was told it needs --tile)
    if args.unroll is not None and not 1 <= args.unroll <= MAX_JAM:
        raise UsageError(f"--unroll {args.unroll}: the unroll factor must be between 1 and {MAX_JAM}")
    if args.threads is not None and not 1 <= args.threads <= MAX_THREADS:
        raise UsageError(f"--threads {args.threads}: the thread count must be between 1 and {MAX_THREADS}")
    if not 0 <= args.register_tile <= MAX_JAM:
        raise UsageError(f"--register-tile {args.register_tile}: the factor must be between 0 and {MAX_JAM}")
    _check_combinations(args)
    cc, cflags = _verify_flags(args)
    options = OptimizeOptions.from_flags(
        scheduler="identity" if args.identity else args.scheduler,
        fuse=args.fuse, negative_coefficients=args.negative, diamond=args.diamond,
        tile=args.tile, tile_sizes=sizes, l2tile=args.l2tile,
        parallel=args.parallel, threads=args.threads, unroll=args.unroll,
        reassociate=args.reassociate, register_tile=args.register_tile,
        point_wavefront=not args.no_point_wavefront,
        tensorize=False if args.no_tensorize or args.tensorize else None,
        expand_scalars=not args.no_expand,
        transpose_arrays=not args.no_transpose,
        defines=parse_defines(args.defines), include_dirs=args.include_dirs,
    )
    check_schedule_options(options.schedule)
    check_budget(args.budget)
    options.budget = args.budget or None
    result = None
    if args.from_db is not None:
        result = _from_db(args, options)
        if result is None:
            return 2
        _schedules_out(args, options, result)     # (helper-56: they were silently not written)
    elif args.tensorize:
        _ask_for_intrinsics(args, options)
    if result is None:
        result = _schedules_in(args, options) or optimize(args.file, options)
        _schedules_out(args, options, result)
    # Messages go to stdout, unless the C file itself does (-o /dev/stdout).
    messages = sys.stderr if is_stdout(args.output) else sys.stdout

    verdict_line = None
    if args.verify:
        verdict = _verify(args, options, result, cc, cflags)
        verdict_line = f"verify: {verdict.status}" + (f" ({verdict.reason})" if verdict.reason else "")
        if verdict.failed == "original":
            # the input program itself does not build or run (no main(), a crash): the
            # user's to fix, not a verdict on the output
            raise UsageError(f"{args.file}: --verify: the program as written cannot be verified: "
                             f"{verdict.reason}")
        if not verdict.ok:
            print(result.summary(), file=messages)
            print(verdict_line, file=messages)
            print(_unverified(args.output, result.text, verdict.status), file=sys.stderr)
            return 1
    # Write only after everything succeeded: a failed run leaves no output file behind.
    write_output(args.output, result.text)
    print(f"wrote {args.output}", file=messages)
    print(result.summary(), file=messages)
    if verdict_line:
        print(verdict_line, file=messages)
    return 0


def _from_db(args, options):
    """``--from-db DB``: each region's best verified record on this machine (kernel
    fingerprint: region text and defines; ``--db-dataset``/``--db-threads`` choose among
    records timed at several sizes), its trace replayed; a region without one is kept as
    written, with a line saying so. None (after one line on stderr) when no region has one."""
    import contextlib
    import io
    import sqlite3
    import time

    from polysched import emit_c
    from polysched.pipeline import OptimizeResult, ScopResult, generate_region
    from polysched.scop import extract
    from polysched.tune import Target, best_program

    if args.trace or args.schedule or args.tensorize:
        raise UsageError("--from-db does not combine with --trace, --schedule or --tensorize")
    if not args.from_db.is_file():
        raise UsageError(f"--from-db {args.from_db}: no such file")
    if args.db_threads is not None and args.db_threads < 1:
        raise UsageError("--db-threads must be at least 1")
    start = time.perf_counter()
    scops = extract(args.file, defines=options.source.defines, include_dirs=options.source.include_dirs)
    regions, lines = [], []
    for k, scop in enumerate(scops):
        # (helper-46 F22: only region 0 was looked up; region 1's records were ignored)
        target = Target(args.file, args.file.stem, k, dict(options.source.defines or {}),
                        list(options.source.include_dirs or []))
        try:
            # (the file is read again for each region: its notes were printed by the
            # extract above, once)
            with contextlib.redirect_stderr(io.StringIO()):
                program, row = best_program(args.from_db, target, cc=args.cc or "gcc",
                                            dataset=args.db_dataset, threads=args.db_threads)
        except ValueError as err:
            raise UsageError(f"--from-db {args.from_db}: {err}") from None
        except sqlite3.DatabaseError as err:     # damaged past its header (helper-56: exit 3)
            raise UsageError(f"--from-db {args.from_db}: the database is damaged ({err})") from None
        where = f"region {k} ({scop.function}, lines {scop.start_line}-{scop.end_line})"
        if program is None:
            regions.append(ScopResult(scop, None, scop.schedule, kept_as_written=True,
                                      fallback="the source as written (no tuning record)", trace_steps=[]))
            lines.append(f"{where}: no verified tuning record{_db_selection(args)}: kept as written")
            continue
        regions.append(ScopResult(program.scop, program.deps, program.schedule, program.tiling_report,
                                  trace_steps=[dict(step) for step in program.trace.steps],
                                  reassociates=program.reassociates()))
        lines.append(f"{where}: campaign {row.campaign_id} trial {row.seq}, median {row.median:.4g} s "
                     f"{_timed_at(row.dataset, row.threads)} ({len(row.samples)} runs, verified)"
                     + _retimed(args.from_db, row))
    if all(region.kept_as_written for region in regions):
        known = ""
        if args.db_dataset:      # (helper-56: a typo read as a dataset without records)
            from polysched.tune import TuneDB
            with TuneDB(args.from_db, create=False) as store:
                known = f" (its records are at {', '.join(store.datasets()) or 'no dataset'})"
        print(f"polysched optimize: no verified tuning record{_db_selection(args)} for {args.file} on this "
              f"machine in {args.from_db}{known}", file=sys.stderr)
        return None
    built = time.perf_counter()
    text = emit_c.assemble([region.scop for region in regions], [generate_region(region) for region in regions])
    result = OptimizeResult(args.file, text, regions,
                            {"load": built - start, "codegen": time.perf_counter() - built})
    return _Replayed(text, [f"from {args.from_db}:", *("  " + line for line in lines), result.summary()], regions)


def _timed_at(dataset: str | None, threads: int | None) -> str:
    """"at SMALL with 2 threads" (helper-94: "at None" for a campaign run from Python at
    the file's own sizes, and "1 threads")."""
    return (f"at {dataset}" if dataset else "at the file's own sizes") + \
        (f" {_with_threads(threads)}" if threads else "")


def _with_threads(threads: int) -> str:
    return f"with {threads} thread{'s' if threads != 1 else ''}"


def _db_selection(args) -> str:
    """" at SMALL with 2 threads", as --db-dataset / --db-threads asked ("" if neither)."""
    from polysched.bench.suite import dataset_spelling
    parts = [f"at {dataset_spelling(args.db_dataset)}" if args.db_dataset else "",
             _with_threads(args.db_threads) if args.db_threads else ""]
    return "".join(" " + part for part in parts if part)


def _schedules_in(args, options):
    """``--trace`` / ``--schedule``: each region's schedule from a file, through
    ``polysched.Program`` (replayed or set, and checked); None when neither is given."""
    if args.trace is None and args.schedule is None:
        return None
    if args.trace is not None and args.schedule is not None:
        raise UsageError("--trace and --schedule are alternatives: give one")
    import time

    from polysched import emit_c
    from polysched.errors import TransformError
    from polysched.pipeline import OptimizeResult, ScopResult, generate_region
    from polysched.program import Program, Trace, TraceWarning
    from polysched.scop import extract

    start = time.perf_counter()
    flag, path = ("--trace", args.trace) if args.trace is not None else ("--schedule", args.schedule)
    if args.trace is None and "{" in args.schedule:     # isl text, as check --schedule takes it
        text, where = args.schedule, flag
    else:
        path = Path(path)
        where = f"{flag} {path}"
        try:
            text = path.read_text()
        except OSError as err:
            raise UsageError(f"{where}: {err.strerror or err}") from None
        except UnicodeDecodeError:
            raise UsageError(f"{where}: not a UTF-8 text file") from None
    scops = extract(args.file, defines=options.source.defines, include_dirs=options.source.include_dirs)
    if args.trace is not None:
        import json
        try:
            document = json.loads(text)
        except json.JSONDecodeError as err:
            raise UsageError(f"--trace {path}: not JSON: {err}") from None
        # a list of traces, one per region (`[]`: none), or the one trace of a one-region file
        # (a list of steps is a trace too: {"op": ...} items)
        items = document if isinstance(document, list) and not any(
            isinstance(item, dict) and "op" in item for item in document) else [document]
        recorded = document.get("region") if isinstance(document, dict) else None
        if len(scops) > 1 and type(recorded) is int and 0 <= recorded < len(scops):
            # the trace of one region, as a Program's trace (Program.trace.to_json()): that region
            # replays it, the others are kept as written (None)
            items = [document if k == recorded else None for k in range(len(scops))]
    else:
        items = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if len(items) != len(scops):
        raise UsageError(f"{where}: {len(items)} entr{'y' if len(items) == 1 else 'ies'} for "
                         f"{len(scops)} scop region{'s' if len(scops) != 1 else ''}")

    def programs(notify: bool = True) -> list:
        found = []
        for k, item in enumerate(items):
            program = Program.from_file(args.file, region=k, defines=options.source.defines,
                                        include_dirs=options.source.include_dirs)
            if args.trace is not None and isinstance(item, dict) and item.get("region", k) != k:
                raise UsageError(f"--trace {path}: entry {k} is the trace of region {item.get('region')!r}; "
                                 f"the entries go in the order of the file's regions (0 to {len(scops) - 1})")
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", TraceWarning)
                try:
                    if item is not None:
                        program = program.replay(Trace.from_json(item)) if args.trace is not None \
                            else _set_schedule(program, item)
                except TransformError as err:
                    raise UsageError(f"{where}: region {k}: {err}") from None
                finally:        # (also before a refused step: the edit may be why)
                    for warning in caught if notify else ():
                        print(f"polysched: {args.file}: notice: {warning.message}", file=sys.stderr)
            found.append(program)
        return found

    if options.budget is not None:
        # the legality checks of a long trace grow fast (a trace of repeated tilings
        # and wavefronts took minutes): tried first in a child under the budget, whose
        # programs (isl objects) cannot come back, then done here
        from polysched.schedule.isolated import IsolatedTimeout, run_isolated, stop_reason
        try:
            # (its notices are the run's: the programs are built again here, quietly)
            run_isolated(lambda: bool(programs()), options.budget)
        except IsolatedTimeout as stop:
            within = f"did not finish within the budget of {options.budget:g} CPU seconds (--budget)"
            raise UsageError(f"{where}: applying it {stop_reason(stop, within)}") from None
    regions = [ScopResult(program.scop, program.deps, program.schedule, program.tiling_report,
                          reassociates=program.reassociates(),
                          kept_as_written=item is None or _kept_by_the_policy(program))
               for item, program in zip(items, programs(notify=options.budget is None))]
    built = time.perf_counter()
    text = emit_c.assemble([r.scop for r in regions], [generate_region(r) for r in regions])
    return OptimizeResult(args.file, text, regions,
                          {"load": built - start, "codegen": time.perf_counter() - built})


def _retimed(db, row) -> str:
    """What the record's campaign says of re-timing it against the default: nothing
    when its confirmation chose it; else that it never was (helper-86: a campaign
    stopped before its confirmation, or run with --confirm 0, was applied silently)."""
    from polysched.tune import TuneDB
    if row.seq == 0:
        return ""
    with TuneDB(db, create=False) as store:
        stored = store.confirmation(row.campaign_id)
    if stored is not None and stored["chosen_seq"] == row.seq:
        return ""
    return "; not re-timed against the default (the campaign stopped before it, ran with --confirm 0, " \
           "or found it since)"


def _kept_by_the_policy(program) -> bool:
    """Whether optimize keeps this program's region as written: its trace ends the
    policy's way (``auto_tile`` after a scheduler other than the identity) with the
    original order and no mark, which `pipeline._checked` asks of such a run. The
    replay of a saved trace then writes the same file (ludcmp's wrote the loops
    regenerated, where optimize had kept the source)."""
    from polysched.dependence import runs_in_original_order
    steps = program.trace.steps
    policy = bool(steps) and steps[-1]["op"] == "auto_tile" and all(
        step["args"].get("scheduler") != "identity" for step in steps if step["op"] == "auto_schedule")
    return policy and runs_in_original_order(program.scop, program.schedule)


def _set_schedule(program, text: str):
    """``program`` with the schedule ``text`` (``--schedule``): a schedule saved by a run
    that expanded scalars, privatized or transposed arrays names that program's
    statements, so it is tried when the source's refuses it (and the one without the
    privatization, which only a parallel run does)."""
    from polysched.errors import PolyschedError
    try:
        return program.set_schedule(text)
    except PolyschedError as error:
        for prepared in (program.prepared,
                         lambda: program.substitute_scalars().expand_scalars().transpose_arrays()):
            remodelled = prepared()
            if remodelled.scop is not program.scop:
                try:
                    return remodelled.set_schedule(text)
                except PolyschedError:
                    pass
        raise error from None


def _schedules_out(args, options, result) -> None:
    """``--save-trace`` / ``--save-schedule``: what made each region's schedule."""
    if args.save_trace is not None:
        import json

        from polysched.program import Trace, region_digest
        from polysched.tiling import cache_sizes
        if args.trace is not None:
            documents = json.loads(args.trace.read_text())
            documents = documents if isinstance(documents, list) and documents and \
                isinstance(documents[0], dict) and "steps" in documents[0] else [documents]
            documents = [Trace.from_json(d).to_dict() for d in documents]
        else:
            documents = []
            for k, region in enumerate(result.regions):
                if args.schedule is not None:
                    steps = [{"op": "set_schedule", "args": {"schedule": str(region.schedule)}}]
                elif region.trace_steps is not None:
                    steps = region.trace_steps
                else:
                    steps = options.trace_steps(cache_sizes())
                done = {step["op"] for step in steps}
                steps = [{"op": op, "args": {}} for op in region.model_steps if op not in done] + list(steps)
                documents.append(Trace(steps, str(args.file), k, region_digest=region_digest(region.scop)).to_dict())
        text = "\n".join(Trace.from_json(d).to_json() for d in documents) if len(documents) == 1 \
            else "[\n" + ",\n".join(Trace.from_json(d).to_json() for d in documents) + "\n]"
        write_output(args.save_trace, text + "\n")
    if args.save_schedule is not None:
        write_output(args.save_schedule, "".join(f"{region.schedule}\n" for region in result.regions))


class _Replayed:
    """What ``optimize --from-db`` produced: the text and a summary like the pipeline's."""

    def __init__(self, text: str, lines: list[str], regions: list):
        self.text = text
        self.lines = lines
        self.regions = regions          # (--save-trace, --save-schedule)

    def summary(self) -> str:
        return "\n".join(self.lines)


def _ask_for_intrinsics(args, options) -> None:
    """``--tensorize [auto|NAME,...|DIR]``: every region's statements with a best legal
    match among these intrinsics run as calls (`OptimizeOptions.tensorize_intrinsics`)."""
    from polysched.tensorize import load_intrinsics

    if args.trace or args.schedule or args.save_trace or args.save_schedule:
        raise UsageError("--tensorize does not combine with --trace, --schedule, --save-trace or --save-schedule")
    options.tensorize = True
    options.tensorize_intrinsics = load_intrinsics(None if args.tensorize == "auto" else args.tensorize)
    options.tensorize_reassociate = args.reassociate
    if Path(args.tensorize).is_dir():      # descriptions of the user's own, maybe with their header
        options.source.include_dirs = [*options.source.include_dirs, args.tensorize]


def _verify(args, options, result, cc: str | None, cflags: list[str] | None):
    """Verify the candidate text against the input, from a temporary copy named like
    the output (so nothing appears at -o before the verdict)."""
    import tempfile

    from polysched.bench import DEFAULT_CC, DEFAULT_CFLAGS, verify
    from polysched.cli.common import write_output

    chosen = any(name.endswith("_DATASET") for name in options.source.defines)
    with tempfile.TemporaryDirectory(prefix="polysched-candidate-") as tmp:
        name = args.output.name if args.output.suffix == ".c" else "candidate.c"
        candidate = Path(tmp) / name
        write_output(candidate, result.text)
        return verify(args.file, candidate, cc=cc or DEFAULT_CC,
                      cflags=DEFAULT_CFLAGS if cflags is None else cflags,
                      defines=options.source.defines,
                      dataset=None if chosen else default_dataset(args.file),
                      include_dirs=[*options.source.include_dirs, str(args.output.resolve().parent)],
                      extra_sources=args.extra_sources,
                      # without --reassociate every output is bit-identical: any difference
                      # in the last bit is a wrong result, not rounding; but intrinsics named
                      # that are all inexact are used (the request), and round otherwise, and
                      # so do the sums the region's own reduction clauses let us reorder
                      **(_tolerances(args) if args.reassociate or _inexact_intrinsics_named(options)
                         or any(region.reassociates for region in result.regions)
                         else {"rtol": 0, "atol": 0}))


def _tolerances(args) -> dict[str, float]:
    """``--rtol``/``--atol`` given, for a comparison that allows rounding."""
    return {name: getattr(args, name) for name in ("rtol", "atol") if getattr(args, name) is not None}


def _inexact_intrinsics_named(options) -> bool:
    """Whether ``--tensorize`` named intrinsics that are all not bit-identical (used
    then without ``--reassociate``: `polysched.tensorize.auto_tensorize`)."""
    intrinsics = options.tensorize_intrinsics if options.tensorize else None
    return bool(intrinsics) and not any(i.exact for i in intrinsics)


def _unverified(output: Path, text: str, status: str) -> str:
    """Keep the candidate next to the output as OUT.unverified (when that is an
    ordinary path); the one line that says what happened."""
    what = "differs from the input" if status == "differ" else "could not be verified"
    head = f"polysched: verify: the output {what}; nothing written to {output}"
    target = Path(f"{output}.unverified")
    if is_stdout(output) or (output.exists() and not output.is_file()):
        return head
    try:
        write_output(target, text)
    except UsageError:
        return head
    return f"{head}; the unverified candidate is in {target}"
