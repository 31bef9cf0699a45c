"""``polysched schedule FILE.c [-D N=V]... [--scheduler pluto|isl|identity] [--fuse
cost|smart|max|no] [--negative] [--diamond|--no-diamond]``: the schedule of every SCoP as
an isl schedule tree, then a per-statement table of hyperplanes with permutable bands,
parallel members and the dependences each dimension satisfies."""
from __future__ import annotations

import time
from pathlib import Path

from polysched.cli import UsageError
from polysched.cli.common import (add_budget_arg, add_preprocessor_args, add_schedule_args, budget_of,
                                  check_schedule_options, extract_regions, path_argument, within_budget)


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("schedule", help="compute and print the schedule of each SCoP")
    p.add_argument("file", type=path_argument, help="C file with #pragma scop regions")
    add_schedule_args(p)
    p.add_argument("--coefficient-bound", type=int, default=None, metavar="B",
                   help="bound of the iterator coefficients (default 4)")
    add_budget_arg(p)
    add_preprocessor_args(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from polysched.schedule import ScheduleOptions

    # the same policy as `polysched optimize` (pipeline.py): negative coefficients
    # only when no non-negative schedule exists
    options = ScheduleOptions(scheduler=args.scheduler, fuse=args.fuse, diamond=args.diamond,
                              negative_coefficients=args.negative, negative_fallback=True)
    if args.coefficient_bound is not None:
        if args.coefficient_bound < 1:      # (helper-87: the message named the Python field)
            raise UsageError(f"--coefficient-bound must be at least 1, got {args.coefficient_bound}")
        options.coefficient_bound = args.coefficient_bound
    check_schedule_options(options)
    budget = budget_of(args)
    scops = extract_regions(args)
    status = 0
    for scop in scops:
        print(f"# {scop.filename}:{scop.start_line}-{scop.end_line} ({scop.function}), "
              f"scheduler {options.scheduler}, fuse {options.fuse}"
              + (", negative coefficients" if options.negative_coefficients else ""), flush=True)
        text, legal = within_budget(budget, lambda scop=scop: _report(scop, options),
                                    f"{scop.filename}:{scop.start_line}", "scheduling")
        print(text)
        status = status if legal else 1
        print()
    return status


def _report(scop, options) -> tuple[str, bool]:
    """The schedule of ``scop`` with its table and legality, as printed; and whether it
    is legal."""
    from polysched.dependence import analyze, check
    from polysched.schedule import ScheduleError, compute, describe_schedule

    deps = analyze(scop)
    start = time.perf_counter()
    try:
        schedule = compute(scop, deps, options)
    except ScheduleError as err:
        raise UsageError(f"{scop.filename}:{scop.start_line}: {err}") from None
    elapsed = time.perf_counter() - start
    lines = [str(schedule), describe_schedule(schedule, deps, {s.name: s.iterators for s in scop.statements})]
    verdict = check(scop, deps, schedule)
    lines.append(f"legal: {'yes' if verdict.legal else 'NO'}   time: {elapsed * 1e3:.0f} ms")
    if not verdict.legal:
        lines.append(str(verdict))
    return "\n".join(lines), verdict.legal
