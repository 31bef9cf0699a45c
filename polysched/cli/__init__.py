"""The ``polysched`` command. Thin: each subcommand lives in its own module of this
package, exposing ``add_parser(subparsers)`` (which sets ``func``) and calls the
public API of the pipeline packages.

Exit statuses and what reaches stderr (no path prints a Python traceback):

- 0 success; 1 a negative answer (``verify``: differ; ``check``: illegal;
  ``optimize --verify``: the output did not verify, nothing written);
- 2 a user error (bad C input, bad option, missing or unwritable file): one line,
  ``file:line:col: error: ...`` when there is a location;
- 3 an internal failure (a polysched bug, e.g. a ``TilingError``: the tiler was
  given or produced an illegal schedule): one line ``polysched: internal error: ...``;
  the traceback only with the global ``--debug``;
- 130 interrupted (Ctrl-C).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback

from polysched.scop.model import ScopError

# One module per subcommand; a module that does not exist yet is skipped, so the
# pipeline stages can land independently.
SUBCOMMANDS = ["demo", "extract", "optimize", "verify", "deps", "check", "schedule", "bench", "report", "fuzz", "tensorize",
               "tune"]

EXIT_USAGE = 2
EXIT_INTERNAL = 3


class UsageError(Exception):
    """A user error outside the C input (bad option value, missing file): exit 2."""


class _SubcommandParser(argparse.ArgumentParser):
    """A subcommand's parser reports unknown arguments itself, with its own usage
    line (argparse leaves them to the top-level parser, whose usage says nothing
    about the subcommand's options)."""

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error("unrecognized arguments: " + " ".join(extras))
        return namespace, extras


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``only``, that subcommand's alone (each
    subcommand's module imports what it runs: ``bench`` and ``fuzz`` cost 0.25 s of
    every ``optimize``)."""
    parser = argparse.ArgumentParser(
        prog="polysched",
        description="Polyhedral scheduling and auto-tiling: C with #pragma scop in, verified C/OpenMP out.")
    from polysched import __version__
    parser.add_argument("--version", action="version", version=f"polysched {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="on an internal error, print the Python traceback (and do not "
                             "hide diagnostics of the libraries)")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND",
                                       parser_class=_SubcommandParser)
    subparsers.required = True
    for name in [only] if only in SUBCOMMANDS else SUBCOMMANDS:
        try:
            module = importlib.import_module(f"polysched.cli.{name}")
        except ModuleNotFoundError as err:
            if err.name == f"polysched.cli.{name}":
                continue
            raise
        module.add_parser(subparsers)
    return parser


def _one_line(text: str, limit: int = 400) -> str:
    """``text`` on one line (newlines folded), shortened to ``limit`` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[:limit - 3] + "..."


def _front_end_location(tb) -> tuple[str, int, int] | None:
    """When a traceback went through the C front end (polysched/scop/), the innermost
    place of the input it was working on: (file, line, col) of the C node being
    converted when the front end can say, else of the region's ``#pragma scop``;
    ("", 0, 0) when nothing is known. None when the front end is not involved."""
    from polysched.scop import source as scop_source

    scop_dir = os.path.dirname(os.path.abspath(scop_source.__file__))
    frames = [frame for frame, _ in traceback.walk_tb(tb)]
    if not any(os.path.dirname(os.path.abspath(f.f_code.co_filename)) == scop_dir for f in frames):
        return None
    try:
        from pycparser import c_ast
    except ImportError:  # pragma: no cover
        c_ast = None
    fallback = None
    for frame in reversed(frames):
        owner = frame.f_locals.get("self")
        filename = getattr(owner, "filename", None)
        if not isinstance(filename, str):
            continue
        position = getattr(owner, "position", None)
        if callable(position) and c_ast is not None:
            for value in frame.f_locals.values():
                if isinstance(value, c_ast.Node) and getattr(value, "coord", None) is not None:
                    try:
                        line, col = position(value)
                        return filename, int(line), int(col)
                    except Exception:  # noqa: BLE001 -- best effort only
                        break
        region = getattr(owner, "region", None)
        if fallback is None and isinstance(region, scop_source.Region):
            fallback = (filename, region.scop_line, 1)
    return fallback or ("", 0, 0)


def _describe(err: BaseException) -> str:
    if isinstance(err, RecursionError):
        return "expression or nest too deeply nested (Python recursion limit reached)"
    lines = [line for line in str(err).splitlines() if line.strip()]
    text = _one_line(lines[0] if lines else "", limit=200)
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _report(err: BaseException, debug: bool, files: list[str]) -> int:
    """The one line for an exception escaping a subcommand, and the exit status."""
    from polysched.schedule import ScheduleError
    from polysched.tiling import TilingError
    try:
        from polysched.errors import PolyschedError
    except ImportError:  # pragma: no cover
        PolyschedError = ()  # noqa: N806

    try:
        import islpy as isl
        isl_error = isl.Error
    except ImportError:  # pragma: no cover
        isl_error = ()
    if isinstance(err, ScopError):
        print(_one_line(str(err)), file=sys.stderr)
        return EXIT_USAGE
    from polysched.cli.common import OutOfBudget
    if isinstance(err, OutOfBudget):
        print(f"polysched: {_one_line(str(err))}", file=sys.stderr)
        return 1
    if isinstance(err, UsageError):
        print(f"polysched: error: {_one_line(str(err))}", file=sys.stderr)
        return EXIT_USAGE
    if isinstance(err, ScheduleError):
        # no legal schedule in the search space the options allow: the user can widen it
        print(f"polysched: error: cannot schedule: {_one_line(str(err))} "
              "(try --negative, --scheduler isl or --identity)", file=sys.stderr)
        return EXIT_USAGE
    if isinstance(err, PolyschedError) and not isinstance(err, TilingError):
        # raised on purpose: an illegal or misused request (a TransformError, a
        # MarkError, a schedule given by the user that cannot be used)
        print(f"polysched: error: {_one_line(str(err))}", file=sys.stderr)
        return EXIT_USAGE
    if isinstance(err, OSError) and not isinstance(err, BrokenPipeError):
        where = err.filename or "polysched"
        print(f"{where}: error: {_one_line(err.strerror or str(err))}", file=sys.stderr)
        return EXIT_USAGE
    if debug:
        traceback.print_exception(err, file=sys.stderr)
    # A failure inside the C front end on an input it should have refused with a
    # ScopError: the input is what it cannot handle, so report it there (exit 2).
    location = None if isinstance(err, (MemoryError, isl_error)) else _front_end_location(err.__traceback__)
    if location is not None:
        filename, line, col = location
        if not filename:
            filename, line, col = (files[0] if files else "polysched"), 1, 1
        print(f"{filename}:{line}:{col}: error: cannot handle this input "
              f"(C front end failure: {_describe(err)})", file=sys.stderr)
        return EXIT_USAGE
    hint = "" if debug else " (run with --debug for the traceback)"
    print(f"polysched: internal error: {_describe(err)}{hint}", file=sys.stderr)
    return EXIT_INTERNAL


def _quiet_broken_pipe() -> int:
    """stdout's reader went away (``polysched ... | head``): stop quietly. As the
    Python documentation recommends, point stdout at /dev/null so that the flush at
    interpreter exit does not raise again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    return 1


def main(argv: list[str] | None = None) -> int:
    from polysched.cli.common import hide_callback_tracebacks, interrupted

    given = sys.argv[1:] if argv is None else argv
    if "--debug" in given[1:] and given[0] != "--debug":
        # `polysched optimize ... --debug`, as the internal-error line suggests it
        given = ["--debug"] + [arg for arg in given if arg != "--debug"]
    # `--tile-sizes -4,8`: argparse takes the value for an option and prints the usage;
    # joined, the value reaches the flag's own one-line check
    joined: list[str] = []
    for arg in given:
        if joined and joined[-1] == "--tile-sizes" and arg[:1] == "-" and arg[1:2].isdigit():
            joined[-1] = f"--tile-sizes={arg}"
        else:
            joined.append(arg)
    given = joined
    command = next((arg for arg in given if not arg.startswith("-")), None)
    parser = build_parser(only=command)
    args = parser.parse_args(given)
    debug = bool(getattr(args, "debug", False))
    files = [str(getattr(args, name)) for name in ("file", "original", "results")
             if getattr(args, name, None) is not None]
    try:
        with hide_callback_tracebacks(enabled=not debug):
            try:
                status = int(args.func(args) or 0)
                sys.stdout.flush()
                return status
            except BrokenPipeError:
                return _quiet_broken_pipe()
            except KeyboardInterrupt:
                return 130
            except SystemExit:
                raise
            except BaseException as err:  # noqa: BLE001 -- every failure becomes one line
                if interrupted(err):
                    return 130
                return _report(err, debug, files)
    except BrokenPipeError:
        return _quiet_broken_pipe()


if __name__ == "__main__":
    sys.exit(main())
