"""``polysched extract FILE.c [-D N=V]... [-I DIR]... [--json]``: print the SCoPs."""
from __future__ import annotations

import json

from polysched.cli.common import add_preprocessor_args, extract_regions
from polysched.scop import scop_to_dict


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("extract", help="print the polyhedral model of each #pragma scop region",
                                   description=__doc__)
    parser.add_argument("file", help="C source file")
    add_preprocessor_args(parser)
    parser.add_argument("--json", action="store_true", help="print a JSON document instead of text")
    parser.set_defaults(func=run)


def run(args) -> int:
    scops = extract_regions(args)
    if args.json:
        print(json.dumps({"file": args.file, "scops": [scop_to_dict(s) for s in scops]}, indent=2))
    else:
        print("\n\n".join(str(s) for s in scops))
    return 0
