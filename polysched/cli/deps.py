"""``polysched deps FILE.c [-D N=V]... [--json] [--kind K]``: the dependences of every
SCoP, per statement pair: the relation in isl notation, the loop levels that carry it
and its distance or direction vectors."""
from __future__ import annotations

import json
from pathlib import Path

from polysched.cli.common import (add_budget_arg, add_preprocessor_args, budget_of, extract_regions,
                                  path_argument, within_budget)

KIND_CHOICES = ["flow", "raw", "war", "waw", "rar"]


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("deps", help="print the exact dependences of each SCoP")
    p.add_argument("file", type=path_argument, help="C file with #pragma scop regions")
    p.add_argument("--kind", choices=KIND_CHOICES, action="append",
                   help="only this kind (repeatable; default: flow, raw, war, waw)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_budget_arg(p)
    add_preprocessor_args(p)
    p.set_defaults(func=run)


def _vector(vec) -> str:
    return "(" + ", ".join(str(c) for c in vec) + ")"


def _levels(levels: list[int]) -> str:
    return ", ".join("loop-independent" if lvl == 0 else f"loop {lvl}" for lvl in levels)


def format_pair(rec, deps) -> list[str]:
    head = f"{rec.kind} {rec.source} -> {rec.sink}"
    if rec.common_loops == 0:
        head += "  no common loop (statement order)"
    else:
        head += f"  carried at: {_levels(rec.levels)}"
        if rec.distance is not None:
            head += f"  distance {_vector(rec.distance)}"
        else:
            head += f"  direction {_vector(rec.direction)}"
            if rec.vectors:
                head += "  vectors " + " ".join(_vector(v) for v in rec.vectors)
    return [head, f"    {deps.display(rec.relation)}"]


def run(args) -> int:
    kinds = args.kind or ["flow", "raw", "war", "waw"]
    budget = budget_of(args)
    scops = extract_regions(args)
    out = []
    for scop in scops:
        where = f"{scop.filename}:{scop.start_line}"
        report = within_budget(budget, lambda scop=scop: _report(scop, kinds, args.json), where,
                               "the dependence analysis")
        if args.json:
            out.append(report)
        else:
            print(report)
    if args.json:
        print(json.dumps(out, indent=1))
    return 0


def _report(scop, kinds: list[str], as_json: bool):
    """The dependences of ``scop``: a JSON object, or the text printed."""
    from polysched.dependence import analyze

    deps = analyze(scop)
    if as_json:
        return {
            "scop": f"{scop.filename}:{scop.start_line}-{scop.end_line}",
            "function": scop.function,
            "parameters": scop.parameters,
            "sccs": deps.sccs(),
            "dependences": {k: [r.to_json() for r in deps.pairs(k)] for k in kinds},
        }
    lines = [f"scop {scop.filename}:{scop.start_line}-{scop.end_line} in {scop.function}()"
             f"  statements: {', '.join(s.name for s in scop.statements)}"]
    for kind in kinds:
        records = deps.pairs(kind)
        if not records:
            lines.append(f"{kind}: none")
        for rec in records:
            lines.extend(format_pair(rec, deps))
    lines.append("SCCs (topological order): " + " ".join("{" + ", ".join(c) + "}" for c in deps.sccs()))
    return "\n".join(lines)
