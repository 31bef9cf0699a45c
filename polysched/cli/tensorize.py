"""``polysched tensorize FILE.c [--intrinsics NAME[,NAME]|FILE|DIR] [--json] [--oracle]``:
every match of every intrinsic in every statement: the loop and array mappings,
remainders, legality (or why not, with a witness) and the estimated gain.

``polysched tensorize FILE.c --apply -o OUT.c [--intrinsics ...] [--reassociate]``: the
file with each statement's best legal match applied (in every region; the shipped header
is pasted in, so it compiles as it is); ``--reassociate`` admits the intrinsics whose sums
round differently (FMA kernels, a CBLAS call when one is found)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from polysched.budget import DEFAULT_RUN_BUDGET
from polysched.cli import UsageError
from polysched.cli.common import (add_preprocessor_args, check_budget, check_input_file, extract_regions, is_stdout,
                                  output_file, path_argument)


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("tensorize", help="list the matches of intrinsics in each statement")
    p.add_argument("file", type=path_argument, help="C file with #pragma scop regions")
    p.add_argument("--intrinsics", metavar="NAME|FILE|DIR",
                   help="shipped intrinsic names (comma-separated), a description file, or a "
                        "directory of them (default: every shipped intrinsic)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--oracle", action="store_true",
                   help="also run the brute-force matcher and report whether it agrees")
    p.add_argument("--apply", action="store_true",
                   help="apply each statement's best legal match and write the C file (-o)")
    p.add_argument("-o", "--output", type=output_file, help="output C file for --apply (-: the standard output)")
    p.add_argument("--reassociate", action="store_true",
                   help="with --apply: also the intrinsics whose floating-point sums round "
                        "differently (FMA kernels; cblas_dgemm/sgemm when a CBLAS is found)")
    p.add_argument("--budget", type=float, metavar="S", default=DEFAULT_RUN_BUDGET,
                   help="with --apply: CPU seconds the whole run may take; a region not done "
                        f"within it is kept as written, with a notice (default: {DEFAULT_RUN_BUDGET:g}; "
                        "0: no limit)")
    add_preprocessor_args(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from polysched.dependence import analyze
    from polysched.tensorize import load_intrinsics, match_statement

    check_input_file(args.file)
    intrinsics = load_intrinsics(args.intrinsics)
    if args.apply or args.output:
        return _apply(args, intrinsics)
    if args.reassociate:    # (the matches listed are the same with it or without)
        raise UsageError("--reassociate chooses among the intrinsics --apply applies: it needs --apply")
    scops = extract_regions(args)
    out, disagreements = [], 0
    for scop in scops:
        deps = analyze(scop)
        if not args.json:
            print(f"scop {scop.filename}:{scop.start_line}-{scop.end_line} in {scop.function}()")
        for stmt in scop.statements:
            reports = match_statement(scop, stmt, intrinsics, deps)
            oracle = {}
            if args.oracle:
                for rep in match_statement(scop, stmt, intrinsics, deps, method="brute"):
                    oracle[rep.intrinsic] = {m.key for m in rep.matches}
            entry = {"statement": stmt.name, "line": scop.line_as_written(stmt.line), "body": stmt.body, "intrinsics": []}
            for rep in reports:
                agree = None
                if args.oracle:
                    agree = {m.key for m in rep.matches} == oracle[rep.intrinsic]
                    disagreements += not agree
                entry["intrinsics"].append({
                    "intrinsic": rep.intrinsic, "seconds": round(rep.seconds, 6),
                    "unmatchable": rep.unmatchable, "why_none": rep.why_none, "oracle_agrees": agree,
                    "matches": [m.to_json() for m in rep.matches]})
            out.append(entry)
            if not args.json:
                _print_statement(stmt, reports, entry)
    if args.json:
        print(json.dumps(out, indent=1))
    return 1 if disagreements else 0


def _print_statement(stmt, reports, entry) -> None:
    """Every match of the statement, legal ones first by decreasing gain (the ranking
    across intrinsics), then the intrinsics without a match."""
    print(f"{stmt.name} (line {entry['line']}): {stmt.body}")
    if reports and reports[0].unmatchable:
        print(f"  not matchable: {reports[0].unmatchable}")
        return
    rows, why = [], {}
    for rep, info in zip(reports, entry["intrinsics"]):
        note = f"{rep.seconds * 1000:.1f} ms"
        if info["oracle_agrees"] is not None:
            note += "; oracle agrees" if info["oracle_agrees"] else "; ORACLE DISAGREES"
        if not rep.matches:
            name = rep.intrinsic + ("" if info["oracle_agrees"] in (None, True) else " (ORACLE DISAGREES)")
            why.setdefault(rep.why_none, []).append(name)
        rows += [(m, note) for m in rep.matches]
    rows.sort(key=lambda row: (not row[0].legal, -row[0].cost.get("gain", 0)))
    for m, note in rows:
        print(f"  {m.describe()}  [{note}]")
    for reason, names in why.items():
        print(f"  no match: {', '.join(names)}: {reason}")


def _apply(args, intrinsics) -> int:
    from polysched import Program, emit_c
    from polysched.budget import RunBudget
    from polysched.schedule.isolated import IsolatedTimeout, run_isolated, stop_reason
    from polysched.cli.common import check_output_path, write_output
    from polysched.dependence import analyze
    from polysched.tensorize import auto_tensorize

    if not (args.apply and args.output):
        raise UsageError("--apply and -o OUT.c go together")
    check_budget(args.budget)
    check_output_path(args.output, args.file)
    scops = extract_regions(args)
    budget = RunBudget(args.budget or None)
    # with -o -, the standard output is the C file: the messages go to stderr, as
    # optimize's do (helper-92: the summary was pasted above the code, which then failed)
    messages = sys.stderr if is_stdout(args.output) else sys.stdout
    texts = []
    for k, scop in enumerate(scops):
        def applied(k=k, scop=scop):
            program, report = auto_tensorize(Program(scop, analyze(scop), scops=scops, region=k), intrinsics,
                                             reassociate=args.reassociate)
            # a region with nothing applied is kept as written
            code = program.region_code() if any(item.applied for item in report) else None
            lines = [item.describe() for item in report]
            kept = emit_c.versioning_plan(program.scop, schedule=program.schedule).never if code else []
            if kept:        # (helper-64: "applied", and the file ran the original code)
                lines = [line + ", but the original code is kept (below)" if line.endswith("applied") else line
                         for line in lines] + [f"original code kept: {reason}" for reason in kept]
            return lines, code

        original = scop.source[scop.region_start:scop.region_end]
        where = "" if len(scops) == 1 else f"region {k}: "
        try:
            if budget.used_up():
                raise IsolatedTimeout(budget.why())
            lines, code = run_isolated(applied, budget.left() if budget.seconds else None)
        except IsolatedTimeout as stop:
            why = stop_reason(stop, budget.why())
            print(f"polysched: {scop.filename}:{scop.start_line}: notice: tensorization stopped: {why}; "
                  "the region is kept as written", file=sys.stderr)
            lines, code = [], None
        for line in lines:
            print(where + line, file=messages)
        texts.append(code if code is not None else original)
    write_output(args.output, emit_c.assemble(scops, texts))
    if not is_stdout(args.output):
        print(f"wrote {args.output}")
    return 0
