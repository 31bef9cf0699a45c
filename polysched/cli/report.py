"""``polysched report results.json``: tables and a speedup chart from a bench run."""
from __future__ import annotations

from pathlib import Path

from polysched.cli import UsageError


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("report", help="tables (md/csv) and a speedup chart from bench results")
    p.add_argument("results", type=Path, help="results JSON written by polysched bench")
    p.add_argument("--format", choices=["md", "csv"], default="md")
    p.add_argument("--plot", type=Path, metavar="OUT.png", help="write a bar chart of speedups")
    p.set_defaults(func=run)


def run(args) -> int:
    from polysched.bench import load_results, plot, report

    try:
        results = load_results(args.results)
    except ValueError as err:
        raise UsageError(str(err))
    print(report(results, args.format))
    if args.plot:
        plot(results, args.plot)
        print(f"plot written to {args.plot}")
    return 0
