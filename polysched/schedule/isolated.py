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
import time

from .options import Budget


class IsolatedTimeout(Exception):
    """The child ran past its limit and was killed."""


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
        try:
            answer = ("ok", fn())
        except BaseException as exc:  # noqa: BLE001 - reported to the parent
            answer = ("error", exc)
        try:
            # the round trip here: an exception that pickles but does not unpickle
            # (a custom __init__) would otherwise fail in the parent's recv()
            pickle.loads(pickle.dumps(answer))
        except Exception:  # noqa: BLE001
            answer = ("error", RuntimeError(f"{type(answer[1]).__name__}: {answer[1]}"))
        send.send(answer)

    process = multiprocessing.get_context("fork").Process(target=child, daemon=True)
    process.start()
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
            raise IsolatedTimeout("the scheduler's process died") from None
    finally:
        receive.close()
        if process.is_alive():
            process.kill()
        process.join()
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
