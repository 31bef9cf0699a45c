"""Option helpers shared by the subcommands."""
from __future__ import annotations

import argparse
from pathlib import Path


def add_preprocessor_args(parser: argparse.ArgumentParser) -> None:
    """``-D NAME[=VALUE]`` and ``-I DIR``, as the C compiler takes them."""
    parser.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                        help="define a macro, as for the C compiler (repeatable)")
    parser.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                        help="add an include directory, as for the C compiler (repeatable)")


def parse_defines(items: list[str]) -> dict[str, str | None]:
    """``["N=100", "MINI_DATASET"]`` -> ``{"N": "100", "MINI_DATASET": None}``."""
    from polysched.cli import UsageError

    defines: dict[str, str | None] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not name.isidentifier():
            raise UsageError(f"-D {item}: expected NAME or NAME=VALUE")
        defines[name] = value if sep else None
    return defines


def default_dataset(*paths: Path) -> str | None:
    """MINI when one of the files mentions MINI_DATASET (suite-style files default to a
    large preset: verification runs at the smallest), else no dataset define."""
    for path in paths:
        if "MINI_DATASET" in Path(path).read_text(errors="replace"):
            return "MINI"
    return None
