"""``polysched check FILE.c --schedule "<isl schedule tree or map>"``: is the schedule
legal for the SCoP? Exit 0 legal, 1 illegal (with a witness), 2 error."""
from __future__ import annotations

import json
from pathlib import Path

from polysched.cli import UsageError
from polysched.cli.common import (OutOfBudget, add_budget_arg, add_preprocessor_args, budget_of,
                                  extract_regions, path_argument, within_budget)
from polysched.errors import MarkError


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("check", help="check a schedule's legality against the dependences")
    p.add_argument("file", type=path_argument, help="C file with #pragma scop regions")
    p.add_argument("--schedule", required=True,
                   help='isl schedule tree or map, e.g. "[N] -> { S0[i, j] -> [j, i] }", or a file '
                        "holding one (as optimize --save-schedule writes it; the line of region --scop)")
    p.add_argument("--scop", type=int, default=0, metavar="K",
                   help="which SCoP of the file (0-based, default 0), counted as optimize's summary "
                        "and --save-schedule count them: a region polysched cannot read (its note says "
                        "so) takes no number")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_budget_arg(p)
    add_preprocessor_args(p)
    p.set_defaults(func=run)


def run(args) -> int:
    import islpy as isl

    from polysched.dependence import ScheduleError, analyze, check, parse_schedule
    from polysched.dependence.legality import check_parameters

    scops = extract_regions(args)
    if not 0 <= args.scop < len(scops):
        raise UsageError(f"--scop {args.scop}: the file has {len(scops)} SCoP(s)")
    scop = scops[args.scop]
    text = args.schedule
    if not text.strip():        # (Path("") is the current directory: "--schedule : Is a directory")
        raise UsageError("--schedule: an empty schedule")
    if "{" not in text:      # not isl text (a tree or map has braces): a file, like optimize --schedule
        try:
            saved = Path(text).read_text(errors="replace")
        except OSError as err:
            raise UsageError(f"--schedule {text}: {err.strerror or err}") from None
        lines = [line for line in saved.splitlines() if line.strip() and not line.lstrip().startswith("#")]
        if len(lines) != len(scops):
            raise UsageError(f"--schedule {text}: {len(lines)} schedule line(s) for {len(scops)} SCoP(s)")
        text = lines[args.scop]

    def checked() -> tuple[bool, str]:
        schedule = parse_schedule(text, scop.context.get_ctx())
        _refuse_unreadable_marks(schedule)
        check_parameters(scop, schedule.get_map() if isinstance(schedule, isl.Schedule) else schedule,
                         involved_only=True)
        result = check(scop, analyze(scop), schedule)
        return result.legal, json.dumps(result.to_json(), indent=1) if args.json else _described(result)

    budget = budget_of(args)
    try:
        legal, report = within_budget(budget, checked, f"{scop.filename}:{scop.start_line}", "the legality check")
    except OutOfBudget as err:           # undecided: an error (exit 2), not "illegal"
        raise UsageError(str(err)) from None
    except (ScheduleError, MarkError) as err:
        raise UsageError(f"--schedule: {err}") from None
    except isl.Error as err:
        message = str(err).strip().splitlines()[0] if str(err).strip() else "isl error"
        raise UsageError(f"--schedule: {message}") from None
    print(report)
    return 0 if legal else 1


def _refuse_unreadable_marks(schedule) -> None:
    """A mark outside the vocabulary is a schedule that cannot be read (exit 2, as
    optimize --schedule), not a claim found false (exit 1)."""
    import islpy as isl

    from polysched.marks import parse_mark

    if not isinstance(schedule, isl.Schedule):
        return

    def visit(node: isl.ScheduleNode) -> None:
        if node.get_type() == isl.schedule_node_type.mark:
            parse_mark(node.mark_get_id())
        for k in range(node.n_children()):
            visit(node.child(k))

    visit(schedule.get_root())


def _described(result) -> str:
    """The verdict of `polysched.dependence.check` as printed."""
    lines = ["legal" if result.legal else "illegal"]
    for v in result.violations:
        if v.kind == "mark":
            lines.append(f"  {v}")
            continue
        lines.append(f"  {v.kind} dependence {v.source} -> {v.sink}: {v.relation}")
        lines.append(f"    violated on: {v.violated}")
        lines.append(f"    witness: {v.witness}")
    for band in result.bands:
        members = ", ".join("parallel" if p else "sequential" for p in band.parallel)
        lines.append(f"  band {list(band.path)} {band.partial_schedule}: "
                     f"{'permutable' if band.permutable else 'not permutable'}; members: {members}")
        lines.extend(f"    warning: {msg}" for msg in band.mismatches)
    return "\n".join(lines)
