"""``polysched extract FILE.c [-D N=V]... [-I DIR]... [--json]``: print the SCoPs."""
from __future__ import annotations

import json
from pathlib import Path

from polysched.cli.common import add_preprocessor_args, parse_defines
from polysched.scop import extract, scop_to_dict


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("extract", help="print the polyhedral model of each #pragma scop region",
                                   description=__doc__)
    parser.add_argument("file", help="C source file")
    add_preprocessor_args(parser)
    parser.add_argument("--json", action="store_true", help="print a JSON document instead of text")
    parser.set_defaults(func=run)


def run(args) -> int:
    # a Path: a one-line file's text must never be taken for a path
    scops = extract(Path(args.file), defines=parse_defines(args.defines), include_dirs=args.include_dirs)
    if args.json:
        print(json.dumps({"file": args.file, "scops": [scop_to_dict(s) for s in scops]}, indent=2))
    else:
        if not scops:
            print(f"{args.file}: no '#pragma scop' region")
        print("\n\n".join(str(s) for s in scops))
    return 0
