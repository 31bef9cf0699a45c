"""polysched fuzz: differential fuzzing. Random C programs with SCoPs go through
every mode of polysched; each output is compiled and run next to the original
(gcc -O2 -fopenmp -ffp-contract=off, 1 and 2 threads when OpenMP is used) and must
print exactly the same. Failures (wrong, crash, hang) are shrunk to minimal C files
in --out. Exit 0 when nothing failed, 1 otherwise."""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from polysched.cli.common import check_directory_argument, path_argument

from polysched.cli import UsageError


def add_parser(subparsers) -> None:
    from polysched.fuzz.runner import DEFAULT_MODES, FIXED_CFLAGS, MODES, WALL_FACTOR
    parser = subparsers.add_parser(
        "fuzz", help="differential fuzzing: random SCoPs through every mode, outputs compared",
        description=__doc__)
    parser.add_argument("--programs", type=int, default=100, metavar="N",
                        help="number of programs (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=1, metavar="S",
                        help="batch seed; (seed, index) names a program (default: %(default)s)")
    parser.add_argument("--start", type=int, default=0, metavar="I",
                        help="index of the first program (default: %(default)s)")
    parser.add_argument("--modes", nargs="+", default=list(DEFAULT_MODES), metavar="MODE",
                        help=f"modes to run (default: all of {' '.join(DEFAULT_MODES)}; "
                             f"also known: {' '.join(m for m in MODES if m not in DEFAULT_MODES)}); "
                             "comma-separated lists are accepted")
    parser.add_argument("--jobs", "-j", type=int, default=1, metavar="J",
                        help="programs fuzzed in parallel (default: %(default)s)")
    parser.add_argument("--out", type=path_argument, default=Path("fuzz-out"), metavar="DIR",
                        help="where failing programs and their shrunk repros go (default: %(default)s)")
    parser.add_argument("--timeout", type=float, default=20.0, metavar="T",
                        help="seconds allowed for each optimize (CPU seconds, and %(wall)s times as "
                             "many wall seconds), compile and run (default: %(default)s)".replace("%(wall)s", str(WALL_FACTOR)))
    parser.add_argument("--no-shrink", dest="shrink", action="store_false",
                        help="write failing programs without shrinking them")
    parser.add_argument("--shrink-evaluations", type=int, default=250, metavar="K",
                        help="at most K test runs per shrink (default: %(default)s)")
    parser.add_argument("--shrink-seconds", type=float, default=240.0, metavar="T",
                        help="at most T seconds per shrink (default: %(default)s)")
    parser.add_argument("--shrink-limit", type=int, default=2, metavar="K",
                        help="shrink at most K failures of each class (kind, detail, input "
                             "classes of issue 8) over the run; 0: every failure (default: %(default)s)")
    parser.add_argument("--generator", type=int, choices=(5, 6, 7, 8, 9), default=5, metavar="V",
                        help="generator version: 5, 6 (v5's programs with scalars private to a "
                             "loop iteration added: the loops scalar expansion targets; the programs "
                             "of 5 stay what they are), 7 (v6's programs with arrays declared in the "
                             "region added: temporaries of a loop body, accumulators 'double acc[4] = "
                             "{0.0};', tables of constants, arrays carrying values across iterations; "
                             "the programs of 6 stay what they are) or 8 (v7's programs with the "
                             "kernel's scalars declared at the top of its first region and the arrays "
                             "of a region's top declared without a block around the region) "
                             "or 9 (v8's programs with nests whose loop bodies name partial results in "
                             "temporaries: 'double t = A[i - 1][j] + A[i + 1][j]; B[i][j] = 0.5 * t;', "
                             "the scalars forward substitution targets, and what must keep one where it "
                             "is; the programs of 8 stay what they are) (default: %(default)s)")
    parser.add_argument("--cflags", metavar="CFLAGS",
                        help="flags the original and every output are compiled with, shell-quoted "
                             f"('{' '.join(FIXED_CFLAGS)}' are always added; "
                             "write --cflags=-O3 for a single flag; default: -O2)")
    parser.add_argument("--show", type=int, metavar="INDEX",
                        help="print program INDEX of the batch (with its features) and exit")
    parser.add_argument("-q", "--quiet", action="store_true", help="only the summary line")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from polysched.fuzz.generator import features, generate, render
    from polysched.fuzz.runner import FAILURES, FIXED_CFLAGS, MODES, FuzzConfig, distinct_failures, run_fuzz

    for option, value in (("--show", args.show), ("--start", args.start)):
        if value is not None and value < 0:       # (programs are numbered from 0)
            raise UsageError(f"{option} {value}: programs are numbered from 0")
    if args.show is not None:
        program = generate(args.seed, args.show, v6=args.generator >= 6, v7=args.generator >= 7,
                           v8=args.generator >= 8, v9=args.generator == 9)
        sys.stdout.write(render(program))
        print(f"/* features: {' '.join(sorted(features(program)))} */")
        return 0
    modes = [m for item in args.modes for m in item.split(",") if m]
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        raise UsageError(f"--modes: unknown mode(s) {', '.join(unknown)} (known: {', '.join(MODES)})")
    if not modes:          # (it ran every program in no mode and reported "0 wrong")
        raise UsageError(f"--modes: no mode given (known: {', '.join(MODES)})")
    if args.programs < 0 or args.jobs < 1 or args.timeout <= 0:
        raise UsageError("--programs must be >= 0, --jobs >= 1 and --timeout > 0")
    check_directory_argument(args.out, "--out")
    config = FuzzConfig(seed=args.seed, programs=args.programs, start=args.start,
                        modes=tuple(modes), jobs=args.jobs, out=args.out, timeout=args.timeout,
                        shrink=args.shrink, shrink_evaluations=args.shrink_evaluations,
                        shrink_seconds=args.shrink_seconds, shrink_limit=args.shrink_limit,
                        v6=args.generator >= 6, v7=args.generator >= 7, v8=args.generator >= 8,
                        v9=args.generator == 9)
    if args.cflags is not None:
        try:
            config.cflags = (*shlex.split(args.cflags), *FIXED_CFLAGS)
        except ValueError as err:       # (helper-87: an unbalanced quote was an internal error)
            raise UsageError(f"--cflags: {err}") from None
    done = 0

    def progress(result) -> None:
        nonlocal done
        done += 1
        if args.quiet:
            return
        bad = [m for m in result.results if m.kind in FAILURES]
        if result.invalid:
            print(f"[{done}/{args.programs}] program {result.index}: INVALID {result.invalid}",
                  file=sys.stderr, flush=True)
        for m in bad:
            print(f"[{done}/{args.programs}] program {result.index}: {m.kind} in {m.mode}: {m.detail}",
                  file=sys.stderr, flush=True)
        for s in result.shrunk:
            print(f"    shrunk ({s.kind}, {s.mode}) to {s.lines} lines: {s.path}", file=sys.stderr, flush=True)
        if not bad and not result.invalid and done % 10 == 0:
            print(f"[{done}/{args.programs}] ...", file=sys.stderr, flush=True)

    summary = run_fuzz(config, progress)
    if not args.quiet:
        for line in distinct_failures(summary):
            print(line)
    print(summary.line())
    return 1 if summary.failed else 0
