"""polysched verify ORIG.c NEW.c: compile both with identical flags (plus
-ffp-contract=off, and -DPOLYSCHED_DUMP so that suite-style programs print their
arrays), run both (at 1 and 2 threads when OpenMP is used), and compare everything
they print on stdout and stderr: numbers under the tolerance, other text exactly
(kernel timing lines 'polysched-time: ...' excluded). Exit 0 equal, 1 differ (or NEW.c
does not build, crashes or times out where ORIG.c runs: as optimize --verify), 2 error
(ORIG.c itself does not build or run, or a bad option)."""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from polysched.cli import UsageError
from polysched.cli.common import (add_preprocessor_args, check_compiler, check_directory_argument, default_dataset,
                                  parse_defines, path_argument)


def add_parser(subparsers) -> None:
    from polysched.bench import DEFAULT_ATOL, DEFAULT_CC, DEFAULT_CFLAGS, DEFAULT_RTOL
    parser = subparsers.add_parser(
        "verify", help="check that a transformed C file computes what the original computes",
        description=__doc__)
    parser.add_argument("original", metavar="ORIG.c", help="reference C file")
    parser.add_argument("transformed", metavar="NEW.c", help="transformed C file")
    parser.add_argument("--cc", default=DEFAULT_CC, help="C compiler (default: %(default)s)")
    parser.add_argument("--cflags", default=" ".join(DEFAULT_CFLAGS),
                        help="compiler flags, shell-quoted; write --cflags=-O2 for a single flag "
                             "(default: %(default)r)")
    parser.add_argument("--extra-source", dest="extra_sources", action="append", default=[],
                        metavar="FILE", help="another C file compiled and linked into both programs "
                                             "(repeatable), e.g. a benchmark's utilities file")
    parser.add_argument("--no-dump", dest="dump", action="store_false",
                        help="do not define POLYSCHED_DUMP (by default it is defined for both)")
    add_preprocessor_args(parser)
    parser.add_argument("--dataset", default=None,
                        help="dataset size: MINI, SMALL, ... adds -D<DATASET>_DATASET; 'none' for "
                             "no define (default: MINI if a file mentions MINI_DATASET)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds allowed for each run (default: %(default)s)")
    parser.add_argument("--threads", type=int, default=None,
                        help="OMP_NUM_THREADS for both runs (default: with OpenMP, 1 and then 2)")
    parser.add_argument("--rtol", type=float, default=DEFAULT_RTOL,
                        help="relative tolerance (default: %(default)g)")
    parser.add_argument("--atol", type=float, default=DEFAULT_ATOL,
                        help="absolute tolerance (default: %(default)g)")
    parser.add_argument("--workdir", type=path_argument, default=None,
                        help="keep the binaries in this directory (default: a temporary one)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print the compile commands and compiler/program diagnostics")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from polysched.bench import dataset_define, verify
    original, transformed = Path(args.original), Path(args.transformed)
    extras = [Path(extra) for extra in args.extra_sources]
    for path in (original, transformed, *extras):
        if not path.exists():
            raise UsageError(f"{path}: no such file")
        if not path.is_file():
            raise UsageError(f"{path}: not a regular file")
    check_compiler(args.cc)
    check_directory_argument(args.workdir, "--workdir")
    try:
        cflags = shlex.split(args.cflags)
    except ValueError as err:
        raise UsageError(f"--cflags: {err}") from None
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    for name in ("rtol", "atol"):
        if not getattr(args, name) >= 0:   # also rejects nan
            raise UsageError(f"--{name} must be non-negative")
    if args.threads is not None and args.threads < 1:
        raise UsageError("--threads must be at least 1")
    defines = parse_defines(args.defines)
    if args.dataset is None and any(name.endswith("_DATASET") for name in defines):
        dataset = None          # -D SMALL_DATASET chose it (MINI as well would mean MINI)
    elif args.dataset is None:
        dataset = default_dataset(original, transformed)
    elif args.dataset.lower() == "none":
        dataset = None
    else:
        dataset = args.dataset.upper()
        if not dataset.replace("_", "").isalnum():
            raise UsageError(f"--dataset {args.dataset}: expected a name such as MINI or LARGE")
        _check_dataset_is_used(args.dataset, dataset, (original, transformed, *extras), args.include_dirs)
    defines = {**dataset_define(dataset), **defines}

    result = verify(original, transformed, cc=args.cc, cflags=cflags, defines=defines,
                    include_dirs=args.include_dirs, timeout=args.timeout, threads=args.threads,
                    workdir=args.workdir, rtol=args.rtol, atol=args.atol,
                    extra_sources=extras, dump=args.dump)
    if args.verbose:
        _print_details(result)
    if result.status == "equal":
        print(f"equal: {result.reason}")
        return 0
    if result.status == "differ":
        print(f"differ: {result.reason}")
        return 1
    print(f"polysched verify: error: {result.reason}", file=sys.stderr)
    # (helper-46: a script reading 2 as "could not check" accepted a transformation that crashes)
    return 1 if result.failed == "transformed" else 2


def _check_dataset_is_used(given: str, dataset: str, files, include_dirs) -> None:
    """A dataset name other than PolyBench's must be one the program tests
    (``#ifdef HUGE_DATASET`` in a file or a header it includes with quotes): otherwise
    the define changes nothing and the run would silently be at the default size."""
    from polysched.bench.harness import dataset_is_tested
    from polysched.bench.suite import DATASETS
    if dataset_is_tested(dataset, files, include_dirs):
        return
    if dataset not in DATASETS:
        raise UsageError(f"--dataset {given}: the program never tests {dataset}_DATASET; choose one of "
                         f"{', '.join(DATASETS)}, a dataset the program defines, or none")
    # (helper-46 F15: "equal" without a word that the size asked for was not the one run)
    print(f"polysched verify: warning: the program never tests {dataset}_DATASET: compared at the sizes it "
          "is written with", file=sys.stderr)


def _print_details(result) -> None:
    for role in ("original", "transformed"):
        build = getattr(result, f"{role}_compile")
        if build is not None:
            print(f"[{role}] $ {build.command_line}  ({build.seconds:.2f} s)", file=sys.stderr)
            if build.stderr.strip():
                print(build.stderr.rstrip(), file=sys.stderr)
        execution = getattr(result, f"{role}_run")
        if execution is not None:
            kernel = (f", kernel {execution.kernel_seconds:.6g} s"
                      if execution.kernel_seconds is not None else "")
            print(f"[{role}] ran in {execution.seconds:.3f} s{kernel}"
                  f"{'' if execution.ok else ': ' + execution.reason}", file=sys.stderr)
