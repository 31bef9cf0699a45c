"""The ``polysched`` command. Thin: each subcommand lives in its own module of this
package, exposing ``add_parser(subparsers)`` (which sets ``func``) and calls the
public API of the pipeline packages.

Errors the user can fix (bad C input, bad options, missing files) exit with status 2
and one line ``file:line:col: error: ...`` on stderr: never a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from polysched.scop.model import ScopError

# One module per subcommand; a module that does not exist yet is skipped, so the
# pipeline stages can land independently.
SUBCOMMANDS = ["demo", "extract", "optimize", "verify", "deps", "check", "schedule", "bench", "report"]


class UsageError(Exception):
    """A user error outside the C input (bad option value, missing file): exit 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="polysched",
        description="Polyhedral scheduling and auto-tiling: C with #pragma scop in, verified C/OpenMP out.")
    from polysched import __version__
    parser.add_argument("--version", action="version", version=f"polysched {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"polysched.cli.{name}")
        except ModuleNotFoundError as err:
            if err.name == f"polysched.cli.{name}":
                continue
            raise
        module.add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except ScopError as err:
        print(err, file=sys.stderr)
        return 2
    except UsageError as err:
        print(f"polysched: error: {err}", file=sys.stderr)
        return 2
    except (FileNotFoundError, IsADirectoryError, PermissionError) as err:
        print(f"{err.filename or 'polysched'}: error: {err.strerror or err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
