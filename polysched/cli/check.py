"""``polysched check FILE.c --schedule "<isl schedule tree or map>"``: is the schedule
legal for the SCoP? Exit 0 legal, 1 illegal (with a witness), 2 error."""
from __future__ import annotations

import json
from pathlib import Path

from polysched.cli import UsageError
from polysched.cli.common import add_preprocessor_args, parse_defines


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("check", help="check a schedule's legality against the dependences")
    p.add_argument("file", type=Path, help="C file with #pragma scop regions")
    p.add_argument("--schedule", required=True,
                   help='isl schedule tree or map, e.g. "[N] -> { S0[i, j] -> [j, i] }", or a file '
                        "holding one (as optimize --save-schedule writes it; the line of region --scop)")
    p.add_argument("--scop", type=int, default=0, metavar="K",
                   help="which SCoP of the file (0-based, default 0)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_preprocessor_args(p)
    p.set_defaults(func=run)


def run(args) -> int:
    import islpy as isl

    from polysched.dependence import ScheduleError, analyze, check, parse_schedule
    from polysched.scop import extract

    scops = extract(args.file, defines=parse_defines(args.defines), include_dirs=args.include_dirs)
    if not scops:
        raise UsageError(f"{args.file}: no #pragma scop region")
    if not 0 <= args.scop < len(scops):
        raise UsageError(f"--scop {args.scop}: the file has {len(scops)} SCoP(s)")
    scop = scops[args.scop]
    text = args.schedule
    if "{" not in text and Path(text).is_file():      # a file, like optimize --schedule
        lines = [line for line in Path(text).read_text(errors="replace").splitlines()
                 if line.strip() and not line.lstrip().startswith("#")]
        if len(lines) != len(scops):
            raise UsageError(f"--schedule {text}: {len(lines)} schedule line(s) for {len(scops)} SCoP(s)")
        text = lines[args.scop]
    try:
        schedule = parse_schedule(text, scop.context.get_ctx())
        deps = analyze(scop)
        result = check(scop, deps, schedule)
    except ScheduleError as err:
        raise UsageError(f"--schedule: {err}") from None
    except isl.Error as err:
        message = str(err).strip().splitlines()[0] if str(err).strip() else "isl error"
        raise UsageError(f"--schedule: {message}") from None
    if args.json:
        print(json.dumps(result.to_json(), indent=1))
        return 0 if result.legal else 1
    print("legal" if result.legal else "illegal")
    for v in result.violations:
        if v.kind == "mark":
            print(f"  {v}")
            continue
        print(f"  {v.kind} dependence {v.source} -> {v.sink}: {v.relation}")
        print(f"    violated on: {v.violated}")
        print(f"    witness: {v.witness}")
    for band in result.bands:
        members = ", ".join("parallel" if p else "sequential" for p in band.parallel)
        print(f"  band {list(band.path)} {band.partial_schedule}: "
              f"{'permutable' if band.permutable else 'not permutable'}; members: {members}")
        for msg in band.mismatches:
            print(f"    warning: {msg}")
    return 0 if result.legal else 1
