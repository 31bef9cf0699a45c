"""Option helpers shared by the subcommands."""
from __future__ import annotations

import argparse


def add_preprocessor_args(parser: argparse.ArgumentParser) -> None:
    """``-D NAME[=VALUE]`` and ``-I DIR``, as the C compiler takes them."""
    parser.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                        help="define a macro for preprocessing (repeatable)")
    parser.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                        help="add an include directory (repeatable)")


def parse_defines(items: list[str]) -> dict[str, str | None]:
    """``["N=100", "MINI_DATASET"]`` -> ``{"N": "100", "MINI_DATASET": None}``."""
    defines: dict[str, str | None] = {}
    for item in items:
        name, sep, value = item.partition("=")
        defines[name] = value if sep else None
    return defines
