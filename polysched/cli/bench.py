"""``polysched bench``: verify and time suite kernels (or C files) under each variant."""
from __future__ import annotations

import shlex
import sys
from pathlib import Path

from polysched.cli import UsageError
from polysched.cli.common import (check_compiler, check_directory_argument, path_argument, same_file, unknown_name,
                                  write_output)


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("bench", help="verify and time suite kernels or C files under each variant")
    p.add_argument("kernels", nargs="*",
                   help="suite kernels (default: all; see --list) or C files with a '#pragma scop' "
                        "region (their orig is the file itself)")
    p.add_argument("--list", action="store_true", help="list the suite kernels and variants")
    p.add_argument("--classic", action="store_true", help="only the 30 classic kernels")
    p.add_argument("--dataset", default="LARGE",
                   help="dataset to time: MINI, SMALL, MEDIUM, LARGE or EXTRALARGE, any case "
                        "(default LARGE: every suite kernel takes >= 0.1 s there)")
    p.add_argument("--verify-dataset", default="MINI", help="dataset for verification (default MINI)")
    p.add_argument("--variants", action="append", default=None, metavar="NAME[:KEY=VALUE...],...",
                   help="comma-separated variants (default: isl/pluto x sched/tile/tile-par, "
                        "plus polly and polly-par when clang with Polly is installed); parameters: "
                        "pluto-tile:sizes=32,32,32, pluto-tile-par:threads=1, and for polysched's variants "
                        "fuse=no|smart|max|cost, tensorize=no, pointwave=no (repeatable)")
    p.add_argument("--no-polly", action="store_true", help="do not add the Polly peers")
    p.add_argument("--threads", type=int, default=None,
                   help="OpenMP threads (default: OMP_NUM_THREADS, else the CPUs this process may run on)")
    p.add_argument("--repeat", type=int, default=5, help="timed runs per variant; the median is kept")
    p.add_argument("--timeout", type=float, default=600, help="seconds per run")
    p.add_argument("--cc", default="gcc")
    p.add_argument("--cflags", default="-O3 -march=native")
    p.add_argument("-o", "--output", type=path_argument, default=Path("results.json"),
                   help="results: OUT.jsonl is the log every measurement is appended to as it is "
                        "taken; OUT.json (default results.json) also gets the whole results at the "
                        "end, with the log beside it as OUT.jsonl")
    p.add_argument("--resume", action="store_true",
                   help="continue the log of an interrupted run: what it records is not measured again")
    p.add_argument("--overwrite", action="store_true", help="start over when the log already exists")
    p.add_argument("--workdir", type=path_argument, help="keep generated sources and binaries here")
    p.set_defaults(func=run)


def log_path(output: Path) -> Path:
    """The JSON Lines log of ``-o OUTPUT``: the path itself when it ends in .jsonl,
    else the same name with .jsonl."""
    return output if output.suffix == ".jsonl" else output.with_suffix(".jsonl")


def _kernels(names: list[str], classic: bool) -> list:
    """Suite kernels and C files (``.c`` or an existing file), in the order given."""
    from polysched.bench import kernels
    from polysched.bench.runner import FileKernel, kernel_of

    if not names:
        return kernels(classic)
    selected, seen = [], {}
    for name in names:
        try:
            kernel = kernel_of(name)
        except ValueError as err:
            raise UsageError(str(err)) from None
        except KeyError:
            known = [kernel.name for kernel in kernels()]
            raise UsageError(unknown_name("kernel", name, known) + " (or give a C file)") from None
        if kernel.name in seen:
            raise UsageError(f"{name}: two kernels named {kernel.name!r} ({seen[kernel.name]} and {name})")
        if isinstance(kernel, FileKernel):
            _refuse_a_syntax_error(kernel.path)
        seen[kernel.name] = name
        selected.append(kernel)
    return selected


def _refuse_a_syntax_error(path) -> None:
    """A C file that does not parse is bad input (file:line:col, exit 2), as for the other
    commands (helper-92: bench recorded its compile errors and exited 1). Any other
    refusal of the front end is the optimizing variants' to record: ``orig`` still runs."""
    from polysched.scop import ScopError, extract
    try:
        extract(path)
    except ScopError as err:
        if err.message.startswith("syntax error"):
            raise


def run(args) -> int:
    import json

    from polysched.bench import kernels, report, run_benchmarks
    from polysched.bench.suite import normalize_dataset
    from polysched.bench.variants import (DEFAULT_VARIANTS, all_variant_names, find_polly_clang,
                                          make_variants, split_variant_list)
    from polysched.tiling.cache import openmp_threads

    if args.list:
        for kernel in kernels():
            print(f"{kernel.name:16s} {kernel.category:15s} {'classic' if kernel.classic else ''}")
        print("variants: " + ", ".join(all_variant_names()) +
              " (parameters: NAME:sizes=32,32,32 for tile variants, NAME:threads=N; polysched's "
              "variants: NAME:fuse=no|smart|max|cost, NAME:tensorize=no, NAME:pointwave=no)")
        return 0
    datasets = []
    for option, value in (("--dataset", args.dataset), ("--verify-dataset", args.verify_dataset)):
        try:
            datasets.append(normalize_dataset(value))
        except ValueError as err:
            raise UsageError(f"{option}: {err}") from None
    dataset, verify_dataset = datasets
    selected = _kernels(args.kernels, args.classic)
    if args.repeat < 1:
        raise UsageError("--repeat must be at least 1")
    if args.threads is not None and args.threads < 1:
        raise UsageError("--threads must be at least 1")
    if not args.timeout > 0:
        raise UsageError("--timeout must be positive")
    try:
        cflags = tuple(shlex.split(args.cflags))
    except ValueError as err:
        raise UsageError(f"--cflags: {err}") from None
    if str(args.output) == "-":
        # (helper-46 F23: '-o -' wrote files named '-' and '-.jsonl')
        raise UsageError("-o -: bench writes a results file and its log beside it; give a path "
                         "(`polysched report OUT.json` prints the table)")
    if args.output.is_dir():
        raise UsageError(f"-o {args.output}: is a directory")
    check_directory_argument(args.workdir, "--workdir")
    for written in (args.output, log_path(args.output)):      # results, then its log
        for kernel in selected:
            if same_file(written, kernel.path):
                raise UsageError(f"-o {args.output}: {written} is the input file {kernel.path}; "
                                 "choose another output path")
    if args.output.suffix.lower() not in (".json", ".jsonl"):
        # (helper-46 F5: '-o x.csv' got JSON)
        raise UsageError(f"-o {args.output}: results are JSON; name the file .json or .jsonl "
                         f"(`polysched report OUT.json --format csv` writes CSV)")
    check_compiler(args.cc)
    if args.variants:
        names = [name for text in args.variants for name in split_variant_list(text)]
        if not names:
            raise UsageError(f"--variants {' '.join(args.variants)!r}: no variant named (see --list)")
    else:
        names = list(DEFAULT_VARIANTS)
        if not args.no_polly and find_polly_clang():
            names += ["polly", "polly-par"]
    try:
        variants = make_variants(names, args.cc, cflags)
    except ValueError as err:
        raise UsageError(str(err)) from None
    seen = set()
    for variant in variants:
        if variant.name in seen:
            raise UsageError(f"--variants: {variant.name!r} given twice")
        seen.add(variant.name)
    # the earlier run's log is removed only once every option is known good
    if args.resume and args.overwrite:
        raise UsageError("--resume and --overwrite exclude each other")
    log = log_path(args.output)
    if log.is_dir():
        raise UsageError(f"-o {args.output}: its log {log} is a directory")
    if log.exists() and log.stat().st_size > 0 and not args.resume:
        if not args.overwrite:
            raise UsageError(f"-o {args.output}: the log {log} of an earlier run exists "
                             "(--resume continues it, --overwrite starts over)")
        log.unlink()
    has_log = log.exists() and log.stat().st_size > 0
    if log != args.output and args.output.exists() and not args.overwrite and not (args.resume and has_log):
        # (helper-46 F23: results whose log was moved away were replaced without a word;
        # helper-56: with --resume too, which had no log to continue)
        raise UsageError(f"-o {args.output}: the file exists" + (f" and there is no log {log} to resume"
                                                                 if args.resume else "")
                         + " (--overwrite replaces it)")
    if args.resume and not has_log:
        print(f"polysched bench: note: --resume: no log {log} of an earlier run; starting one", file=sys.stderr)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    threads = args.threads or openmp_threads()
    try:
        results = run_benchmarks(selected, variants, dataset=dataset, threads=threads,
                                 repeat=args.repeat, verify_dataset=verify_dataset,
                                 timeout=args.timeout, workdir=args.workdir, log=log,
                                 resume=args.resume)
    except ValueError as err:         # a log that cannot be resumed (other settings, machine)
        raise UsageError(str(err)) from None
    except KeyboardInterrupt:
        print(f"\ninterrupted: every finished run is in {log}; `--resume` continues "
              f"(`polysched report {log}` shows it so far)", file=sys.stderr)
        return 130
    if log != args.output:
        write_output(args.output, json.dumps(results, indent=1, sort_keys=False) + "\n")
    print(report(results, "md"))
    print(f"results written to {args.output}" + (f" (log: {log})" if log != args.output else ""))
    return _exit_status(results)


def _exit_status(results: dict) -> int:
    """0 when every (kernel, variant) ran and verified; 1, with a line on stderr naming
    them, when some did not (helper-46 F12: scripts could not tell an all-failed run
    from a good one). Wrong output is named first."""
    from collections import Counter

    from polysched.bench.runner import FAILED, OK

    failed = [record for record in results["results"] if record.get("status") != OK]
    if not failed:
        return 0
    counts = Counter(record.get("status") for record in failed)
    listed = sorted(failed, key=lambda record: record.get("status") != FAILED)
    names = ", ".join(f"{record.get('kernel')}/{record.get('variant')}" for record in listed[:6])
    more = f" and {len(listed) - 6} more" if len(listed) > 6 else ""
    print(f"polysched bench: {len(failed)} of {len(results['results'])} runs did not end OK "
          f"({', '.join(f'{status} {n}' for status, n in counts.most_common())}): {names}{more}",
          file=sys.stderr)
    return 1
