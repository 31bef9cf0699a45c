"""Option helpers shared by the subcommands."""
from __future__ import annotations

import argparse
from pathlib import Path

from polysched.budget import DEFAULT_RUN_BUDGET, RunBudget


def add_preprocessor_args(parser: argparse.ArgumentParser) -> None:
    """``-D NAME[=VALUE]`` and ``-I DIR``, as the C compiler takes them."""
    parser.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                        help="define a macro, as for the C compiler (repeatable)")
    parser.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                        help="add an include directory, as for the C compiler (repeatable)")


def add_schedule_args(parser: argparse.ArgumentParser) -> None:
    """The scheduler's options, the same for ``schedule`` and ``optimize``."""
    parser.add_argument("--scheduler", choices=["pluto", "isl", "identity"], default="pluto")
    parser.add_argument("--fuse", choices=["cost", "smart", "max", "no"], default="cost",
                        help="fusion policy (default cost: smart, but no fusion that loses a tiled, "
                             "parallel or stride-1 loop, and non-neighbouring nests of one depth that "
                             "share data fused)")
    parser.add_argument("--negative", action="store_true",
                        help="allow negative schedule coefficients everywhere (Pluto+-style); by default "
                             "they are tried only when no non-negative schedule exists")
    diamond = parser.add_mutually_exclusive_group()
    diamond.add_argument("--diamond", dest="diamond", action="store_const", const=True, default=None,
                         help="diamond (concurrent-start) hyperplanes for every outermost band with no "
                              "parallel member (stencils); by default only for bands of 4 or more members, "
                              "where they measured faster than a wavefront of tiles")
    diamond.add_argument("--no-diamond", dest="diamond", action="store_const", const=False,
                         help="never diamond tiles: a wavefront of tiles instead")


def parse_defines(items: list[str]) -> dict[str, str | None]:
    """``["N=100", "MINI_DATASET"]`` -> ``{"N": "100", "MINI_DATASET": None}``."""
    from polysched.arguments import MACRO_NAME
    from polysched.cli import UsageError

    defines: dict[str, str | None] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not MACRO_NAME.fullmatch(name):
            raise UsageError(f"-D {item}: expected NAME, NAME=VALUE or NAME(ARGS)=BODY")
        defines[name] = value if sep else None
    return defines


def default_dataset(*paths: Path) -> str | None:
    """MINI when one of the files mentions MINI_DATASET (suite-style files default to a
    large preset: verification runs at the smallest), else no dataset define."""
    for path in paths:
        if "MINI_DATASET" in Path(path).read_text(errors="replace"):
            return "MINI"
    return None


def extract_regions(args) -> list:
    """The SCoPs of ``args.file`` under its ``-D``/``-I`` options; a file without a
    ``#pragma scop`` region is an error at ``file:1:1`` (exit 2), as for every command."""
    from polysched.scop import ScopError, extract

    # a Path: a file name is never taken for C text
    scops = extract(Path(args.file), defines=parse_defines(args.defines), include_dirs=args.include_dirs)
    if not scops:
        raise ScopError(str(args.file), 1, 1, "no '#pragma scop' ... '#pragma endscop' region")
    return scops


# --------------------------------------------------------------------------- output files

def path_argument(text: str) -> Path:
    """A path argument (argparse ``type``). An empty one is refused: ``Path("")`` is the
    current directory, which the checks after it would misreport as ``.``."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path")
    return Path(text)


def output_file(text: str) -> Path:
    """An ``-o`` argument (argparse ``type``): ``-`` is the standard output, as for the
    C compiler."""
    return Path("/dev/stdout") if text == "-" else path_argument(text)


def same_file(a: Path | str, b: Path | str) -> bool:
    """Whether two paths name the same file (following links; False if one is missing)."""
    import os
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


def check_input_file(path: Path | str) -> None:
    """An input that is missing or not a regular file: ``file: error: ...``, exit 2."""
    import errno
    import os

    path = Path(path)
    if not path.exists():
        if not path.suffix and path.name == str(path):
            # (helper-94: tune and bench take suite names, this command a file)
            from polysched.bench import get
            from polysched.cli import UsageError
            try:
                kernel = get(path.name)
            except KeyError:
                kernel = None
            if kernel is not None:
                raise UsageError(f"{path}: no such file; this command takes a C file, and the suite kernel "
                                 f"{path.name} is {kernel.path}")
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(path))
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))


def check_output_path(output: Path | str, *inputs: Path | str, option: str = "-o") -> None:
    """Refuse an output path that is one of the inputs (the input would be lost), a
    directory, or in a directory that does not exist: before any work is done."""
    from polysched.cli import UsageError

    output = Path(output)
    for source in inputs:
        if source is not None and same_file(output, source):
            raise UsageError(f"{option} {output}: this is the input file {source}; "
                             "choose another output path")
    if output.is_dir():
        raise UsageError(f"{option} {output}: is a directory")
    if not output.parent.is_dir():
        raise UsageError(f"{option} {output}: no such directory {output.parent}")


def check_directory_argument(path: Path | None, option: str) -> None:
    """A directory the command writes into (``--out-dir``, ``--workdir``, ``--out``): it
    may be new, but not a file, and its parent must exist (a typo made ``/nonexist/x``
    and every missing directory above it, as root)."""
    from polysched.cli import UsageError
    if path is None:
        return
    if path.exists() and not path.is_dir():
        raise UsageError(f"{option} {path}: is a file, not a directory")
    if not path.exists() and not path.absolute().parent.is_dir():
        raise UsageError(f"{option} {path}: no such directory {path.absolute().parent}")


def check_schedule_options(options) -> None:
    """`ScheduleOptions.validate`'s refusals (an unknown policy, ``--diamond`` with a
    scheduler that places no diamond hyperplanes) as usage errors, before any work."""
    from polysched.cli import UsageError
    from polysched.schedule import ScheduleError
    try:
        options.validate()
    except ScheduleError as err:
        raise UsageError(str(err)) from None


def check_compiler(cc: str, option: str = "--cc") -> None:
    """A C compiler that is not there: one line, exit 2, before any work is done."""
    import shutil

    from polysched.cli import UsageError
    if shutil.which(cc) is None:
        raise UsageError(f"{option} {cc}: no such compiler")


def is_stdout(path: Path | str) -> bool:
    """Whether ``path`` is a special file (not a regular file) that is our stdout,
    e.g. ``-o /dev/stdout``: status messages then go to stderr."""
    import os
    import stat
    try:
        st, out = os.stat(path), os.fstat(1)
    except (OSError, ValueError):
        return False
    return not stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino)


def write_output(path: Path | str, text: str) -> None:
    """Write ``text`` to ``path`` byte-exactly and atomically (temp file in the same
    directory, then rename): an existing file is replaced by a complete one or not at
    all. A failure is one line (:class:`~polysched.cli.UsageError`), exit 2."""
    from polysched.cli import UsageError
    from polysched.textio import write_atomic

    try:
        write_atomic(path, text)
    except BrokenPipeError:
        raise
    except OSError as err:
        where = ""
        if err.filename and Path(err.filename).name != Path(path).name:
            where = f" (a temporary file in {Path(path).parent}: the output must be a regular " \
                    f"file in a writable directory)"
        raise UsageError(f"{path}: cannot write: {err.strerror or err}{where}") from None


def write_output_bytes(path: Path | str, data: bytes) -> None:
    """:func:`write_output` for bytes."""
    from polysched.textio import ERRORS, ENCODING
    write_output(path, data.decode(ENCODING, ERRORS))


# --------------------------------------------------------------------------- names

def unknown_name(kind: str, name: str, known: list[str]) -> str:
    """``no kernel named 'gemmm'; did you mean: gemm, gemver?`` (or the list of names
    when nothing is close)."""
    import difflib
    close = difflib.get_close_matches(name, known, n=4, cutoff=0.6)
    if close:
        return f"no {kind} named {name!r}; did you mean: {', '.join(close)}?"
    return f"no {kind} named {name!r}; known: {', '.join(sorted(known))}"


# --------------------------------------------------------------------------- diagnostics

ISLPY_CALLBACK_WARNING = b"[islpy warning] A Python exception occurred in a call back function"


class _FdFilter:
    """File descriptor ``fd`` goes through a pipe to a thread that copies every line
    to the original file except islpy's callback warning lines. When the original's
    reader goes away (EPIPE), the thread closes the pipe so that the next write to
    ``fd`` raises BrokenPipeError in the writer, as it would have without the filter."""

    def __init__(self, fd: int):
        import os
        import threading

        self.fd = fd
        self.saved = os.dup(fd)
        try:
            read_end, write_end = os.pipe()
        except OSError:
            os.close(self.saved)
            raise
        os.dup2(write_end, fd)
        os.close(write_end)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._pump, args=(read_end,),
                                       name=f"polysched-fd{fd}-filter", daemon=True)
        self.thread.start()

    def _pump(self, read_end: int) -> None:
        import os
        import select

        pending = b""
        try:
            while True:
                # a child started while the filter was on (a process pool's forkserver)
                # keeps the pipe's write end open past close(): no end of file comes,
                # so once stopping, what is written is drained and the pump ends
                # (`polysched tune` waited 10 s after its last line for that EOF)
                if not select.select([read_end], [], [], 0.05)[0]:
                    # stopping is set after the last write: looked at first, whatever
                    # was written before it is in the pipe for the second look
                    if self.stopping.is_set() and not select.select([read_end], [], [], 0)[0]:
                        break
                    continue
                chunk = os.read(read_end, 65536)
                if not chunk:
                    break
                pending += chunk
                *lines, pending = pending.split(b"\n")
                out = b"".join(line + b"\n" for line in lines
                               if not line.startswith(ISLPY_CALLBACK_WARNING))
                # an unfinished line that cannot be islpy's (a prompt, progress): now
                if pending and not ISLPY_CALLBACK_WARNING.startswith(pending[:len(ISLPY_CALLBACK_WARNING)]):
                    out, pending = out + pending, b""
                if out:
                    self._write(out)
            if pending and not pending.startswith(ISLPY_CALLBACK_WARNING):
                self._write(pending)
        except OSError:
            pass   # the reader went away: closing our end passes EPIPE on to the writer
        finally:
            os.close(read_end)

    def _write(self, data: bytes) -> None:
        import os
        view = memoryview(data)
        while view:
            written = os.write(self.saved, view)
            view = view[written:]

    def close(self) -> None:
        import os
        os.dup2(self.saved, self.fd)   # closes our write end of the pipe
        self.stopping.set()
        self.thread.join(timeout=5)
        os.close(self.saved)


class hide_callback_tracebacks:
    """While active, exceptions raised inside isl callbacks print nothing. islpy
    catches such an exception, prints a traceback through ``sys.excepthook`` and an
    ``[islpy warning] ...`` line straight on file descriptor 1 (from C++), then
    returns an error that the caller handles: the excepthook is silenced, and file
    descriptors 1 and 2 go through filter threads that drop islpy's warning line.
    Everything else passes through unchanged. ``enabled=False`` (``--debug``) keeps
    everything."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self._filters: list[_FdFilter] = []
        self._saved_hook = None

    def __enter__(self):
        import sys

        if not self.enabled:
            return self
        self._saved_hook = sys.excepthook
        sys.excepthook = lambda *exc: None
        for fd, stream in ((1, sys.stdout), (2, sys.stderr)):
            try:
                if stream is not None:
                    stream.flush()
                self._filters.append(_FdFilter(fd))
            except (OSError, ValueError, AttributeError):
                continue
        return self

    def __exit__(self, *exc):
        import sys

        if not self.enabled:
            return False
        for stream in (sys.stdout, sys.stderr):
            try:
                if stream is not None:
                    stream.flush()
            except (OSError, ValueError, AttributeError):
                pass   # BrokenPipeError on stdout: main() has handled it or will
        while self._filters:
            self._filters.pop().close()
        if self._saved_hook is not None:
            sys.excepthook = self._saved_hook
        return False


def add_budget_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--budget", type=float, metavar="S", default=DEFAULT_RUN_BUDGET,
                        help="CPU seconds the analysis may take; past it the command stops with "
                             f"exit status 1 (default: {DEFAULT_RUN_BUDGET:g}; 0: no limit)")


class OutOfBudget(Exception):
    """A region's analysis ran past ``--budget``: reported in one line, exit status 1."""


def check_budget(seconds: float) -> None:
    """A usage error unless ``--budget`` is 0 (no limit) or positive (NaN is neither)."""
    if not seconds >= 0:
        from polysched.cli import UsageError
        raise UsageError(f"--budget {seconds:g}: the budget must be 0 (no limit) or positive")


def budget_of(args) -> RunBudget:
    """The run's budget from ``--budget`` (checked by `check_budget`)."""
    check_budget(args.budget)
    return RunBudget(args.budget or None)


def within_budget(budget: RunBudget, compute, where: str, what: str):
    """``compute()`` (its result picklable) in a child stopped when ``budget`` is used up
    (isl cannot be interrupted: a subscript summing four ``i % k`` kept the dependence
    analysis busy for minutes); `OutOfBudget` then, naming ``where`` and ``what``."""
    from polysched.schedule.isolated import IsolatedTimeout, run_isolated, stop_reason

    # (helper-87: '--budget 0', no limit, formatted None: an internal error)
    within = "did not finish" if budget.seconds is None else \
        f"did not finish within the budget of {budget.seconds:g} CPU seconds (--budget)"
    if budget.used_up():
        raise OutOfBudget(f"{where}: {what} {within}")
    try:
        return run_isolated(compute, budget.left() if budget.seconds else None)
    except IsolatedTimeout as stop:
        raise OutOfBudget(f"{where}: {what} {stop_reason(stop, within)}") from None


def interrupted(err: BaseException) -> bool:
    """Whether ``err`` comes of a Ctrl-C: a C extension interrupted while it loads turns
    the KeyboardInterrupt into "ImportError: initialization failed", which was reported
    as an internal error (exit 3) where Ctrl-C means exit 130."""
    seen = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, KeyboardInterrupt):
            return True
        seen.add(id(err))
        err = err.__cause__ or err.__context__
    return False
