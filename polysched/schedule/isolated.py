"""Run a scheduler in a forked child process that is killed when its time is up.

isl cannot be interrupted from Python: its operation cap (``isl_ctx_set_max_operations``)
does not count every step (the LPs of isl's scheduler; ``isl_basic_set_coefficients`` on
some 7-deep nests ran for minutes under a 20 M operation cap). A child process can be
killed, so a scheduler run this way never hangs whatever isl does.

    result = run_isolated(fn, seconds)    # fn() -> picklable value, in a forked child

The limit is the child's CPU time (the same verdict on a loaded machine), with a wall
clock backstop of ``Budget.WALL_FACTOR x seconds + Budget.WALL_EXTRA``. Where ``fork`` is
not available, or in a daemonic process (a pool's worker), ``fn`` runs in this process.
"""
from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import threading
import time

from .options import Budget


class IsolatedTimeout(Exception):
    """The child ran past its limit and was killed."""


class IsolatedOutOfMemory(IsolatedTimeout):
    """The child ran out of the memory it may add (`memory_limit`): an allocation in
    isl or Python failed there, not in the whole run."""


def stop_reason(stop: IsolatedTimeout, timed_out: str) -> str:
    """Why a child stopped: ``timed_out`` when its time ran out, else what ended it (its
    memory limit, a signal)."""
    return timed_out if type(stop) is IsolatedTimeout else str(stop)


class IsolatedDied(IsolatedTimeout):
    """The child died without answering: killed (the kernel's OOM killer), or aborted
    (a C++ allocation failing under `memory_limit`, an assertion in isl)."""


def _death(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            import signal
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        hint = " (out of memory?)" if name in ("SIGKILL", "SIGABRT", "SIGSEGV") else ""
        return f"its process died of {name}{hint}"
    return f"its process died (exit status {exitcode})"


# Bytes of address space a child may add to what it inherits: POLYSCHED_MEMORY_GB, else
# half of the machine's memory. A fuzzed guarded nest had isl take 24 GB and the whole
# run killed by the kernel; with a limit, isl's allocation fails in the child only.
MEMORY_ENV = "POLYSCHED_MEMORY_GB"


def memory_limit() -> int | None:
    """The address space (bytes) a child may add, or None where it cannot be known."""
    text = os.environ.get(MEMORY_ENV, "").strip()
    if text:
        try:
            gigabytes = float(text)
        except ValueError:
            gigabytes = 0.0
        if gigabytes > 0:
            return int(gigabytes * 2**30)
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (ValueError, OSError, AttributeError):
        return None


def _limit_memory() -> None:
    """Caps this (child) process's address space at what it has now plus `memory_limit`."""
    extra = memory_limit()
    if extra is None:
        return
    try:
        import resource
        with open("/proc/self/status") as f:
            now = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        soft = now + extra if hard == resource.RLIM_INFINITY else min(now + extra, hard)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    except (ImportError, OSError, ValueError, StopIteration):
        pass       # not Linux: no limit


def _out_of_memory(exc: BaseException) -> bool:
    """isl's failed allocation, Python's, or a module that could not be mapped (a lazy
    import in the child)."""
    return isinstance(exc, MemoryError) or any(
        text in str(exc) for text in ("allocation failure", "failed to map segment", "Cannot allocate memory"))


def end_with_parent() -> None:
    """In a child process: end (``os._exit``) when the process that started it ends, even
    by ``kill -9``. Without it a child computing for a tune worker that was killed with
    its campaign kept the process group alive (and a pool worker kept Python's
    forkserver alive, reparented to init: helper-46 F21)."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        _killed_with_parent(parent.pid)
        threading.Thread(target=_exit_after, args=(parent,), name="polysched-end-with-parent",
                         daemon=True).start()


def _killed_with_parent(parent_pid: int | None) -> None:
    """Linux: the kernel sends this process SIGKILL when its parent ends. The thread of
    `end_with_parent` needs the GIL, which a long isl call holds: a tiling child whose
    `optimize` was killed with -9 kept computing at full CPU for minutes (helper-82).
    Only for a child forked by that parent itself (a forkserver's child has the server
    as its parent process)."""
    if parent_pid is None or os.getppid() != parent_pid:
        return
    try:
        import ctypes
        import signal
        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            return
    except (OSError, AttributeError, ImportError):
        return      # not Linux: the thread alone
    if os.getppid() != parent_pid:
        os._exit(1)             # the parent ended before the request was made


def _exit_after(parent) -> None:
    parent.join()               # its sentinel closes when that process ends
    os._exit(1)


def run_isolated(fn, seconds: float | None):
    """``fn()`` in a forked child; its return value, or its exception raised again here
    (as ``RuntimeError`` when the exception cannot be pickled). Raises `IsolatedTimeout`
    past ``seconds`` of the child's CPU time, or when the child dies without answering."""
    # (a daemonic process, e.g. a process pool's worker, may not start children)
    if seconds is None or "fork" not in multiprocessing.get_all_start_methods() \
            or multiprocessing.current_process().daemon:
        return fn()
    receive, send = multiprocessing.Pipe(duplex=False)

    def child():
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        end_with_parent()
        _limit_memory()
        try:
            answer = ("ok", fn())
        except BaseException as exc:  # noqa: BLE001 - reported to the parent
            answer = ("memory", None) if _out_of_memory(exc) else ("error", exc)
        try:
            # the round trip here: an exception that pickles but does not unpickle
            # (a custom __init__) would otherwise fail in the parent's recv()
            pickle.loads(pickle.dumps(answer))
        except Exception:  # noqa: BLE001
            answer = ("error", RuntimeError(f"{type(answer[1]).__name__}: {answer[1]}"))
        send.send(answer)

    process = multiprocessing.get_context("fork").Process(target=child, daemon=True)
    # a Ctrl-C inside the fork's own hooks (logging's lock released after it) printed
    # "Exception ignored in: <function _releaseLock ...>" with a traceback (a tune
    # stopped by two Ctrl-Cs): it waits until the fork is done, then interrupts here
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        process.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    send.close()
    start = time.monotonic()
    wall_end = start + Budget.WALL_FACTOR * seconds + Budget.WALL_EXTRA
    wait = 0.002
    try:
        while not receive.poll(wait):
            wait = min(2 * wait, 0.05)
            now = time.monotonic()
            cpu = cpu_seconds(process.pid)
            if (cpu if cpu is not None else now - start) > seconds or now > wall_end:
                raise IsolatedTimeout(f"did not finish within {seconds:.3g} s")
        try:
            status, value = receive.recv()
        except EOFError:
            process.join(1.0)
            raise IsolatedDied(_death(process.exitcode)) from None
    finally:
        receive.close()
        if process.is_alive():
            process.kill()
        process.join()
    if status == "memory":
        raise IsolatedOutOfMemory(f"ran out of memory past its limit of {memory_limit() / 2**30:.3g} GB "
                                  f"({MEMORY_ENV})")
    if status != "ok":
        raise value
    return value


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` (Linux ``/proc``), else None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None
