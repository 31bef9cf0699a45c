"""``polysched report results.json``: tables and a speedup chart from a bench run."""
from __future__ import annotations

from pathlib import Path

from polysched.cli.common import path_argument

from polysched.cli import UsageError


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("report", help="tables (md/csv) and a speedup chart from bench results")
    p.add_argument("results", type=path_argument,
                   help="results written by polysched bench: OUT.json, or the log OUT.jsonl "
                        "(also of a run still going or interrupted)")
    p.add_argument("--format", choices=["md", "csv"], default="md")
    p.add_argument("--plot", type=path_argument, metavar="OUT.png",
                   help="write a bar chart of speedups (format from the extension: png, pdf, svg, ...)")
    p.set_defaults(func=run)


def run(args) -> int:
    from polysched.bench import load_results, report
    from polysched.bench.report import check_plot_path, plot

    # Everything that can fail is checked before the table is printed.
    if args.plot:
        try:
            check_plot_path(args.plot)
        except ValueError as err:
            raise UsageError(f"--plot {args.plot}: {err}") from None
    if not args.results.exists():
        log = args.results.with_suffix(".jsonl")
        hint = f" (the log of an unfinished run is {log})" if log.is_file() and log != args.results else ""
        raise UsageError(f"{args.results}: no such file{hint}")
    try:
        results = load_results(args.results)
        table = report(results, args.format)
    except ValueError as err:
        message = str(err)
        raise UsageError(message if str(args.results) in message
                         else f"{args.results}: not a JSON results file ({message})") from None
    except (KeyError, TypeError, AttributeError) as err:
        raise UsageError(f"{args.results}: not a valid polysched results file "
                         f"({type(err).__name__}: {err})") from None
    print(table)
    if args.plot:
        try:
            plot(results, args.plot)
        except OSError as err:
            raise UsageError(f"--plot {args.plot}: cannot write: {err.strerror or err}") from None
        print(f"plot written to {args.plot}")
    return 0
