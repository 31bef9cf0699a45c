"""Executors: where candidates are measured.

One interface, :meth:`Executor.measure(jobs)`, yielding a ``Result`` per job in the
order of ``jobs`` (so the campaign records them as a prefix of its proposals):

- :class:`LocalExecutor` (default): a process pool compiles and verifies the batch in
  parallel; then, with the pool idle, the binaries are timed one at a time in this
  process.
- :class:`DaskExecutor`: ``dask.distributed`` (``--dask tcp://host:8786``, or a
  ``LocalCluster``). Each task prepares and times one candidate on one worker, so the
  binary is timed on the machine that built it; run one single-threaded worker per
  measurement machine (``dask worker --nthreads 1``) for one timing at a time.
- :class:`FunctionExecutor`: a plain function of the job (tests: a deterministic fake).
"""
from __future__ import annotations

import copy
import dataclasses
import multiprocessing
import signal
import threading
from abc import ABC, abstractmethod
from concurrent.futures import ProcessPoolExecutor, wait
from contextlib import contextmanager
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Iterator, Sequence

from .measure import Job, Result, cleanup, measure, prepare, time_prepared


class Executor(ABC):
    name = "executor"
    batch_size = 4

    @abstractmethod
    def measure(self, jobs: Sequence[Job]) -> Iterator[Result]:
        """Each job's result, as it completes."""

    def retime(self, jobs: Sequence[Job], rounds: int) -> list[list[Result]]:
        """Each job timed ``rounds`` times, the jobs in turn (a, b, a, b, ...), so that a
        drift of the machine's speed falls on all of them alike: per job, its results."""
        jobs = list(jobs)
        results: list[list[Result]] = [[] for _ in jobs]
        # (each copy in a directory of its own: two workers may build one job at once)
        copies = [dataclasses.replace(job, workdir=None) for _ in range(rounds) for job in jobs]
        for k, result in enumerate(self.measure(copies)):
            results[k % len(jobs)].append(result)
        return results

    def close(self) -> None:
        pass

    def abort(self) -> None:
        """Stop at once (a Ctrl-C): release what `close` releases, waiting for nothing."""
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


_BUSY = False     # in a pool worker: a job is running


def _on_interrupt(signum, frame):
    """A pool worker's Ctrl-C (the terminal sends it to the whole process group): a job
    stops (its KeyboardInterrupt goes back to the campaign, which stops too, and its
    programs are killed on the way out); an idle worker ignores it and ends when the
    pool shuts down, instead of printing a traceback from its queue (helper-46 F13)."""
    if _BUSY:
        raise KeyboardInterrupt


def _start_forkserver() -> None:
    """Start Python's forkserver with Ctrl-C ignored. It is a fresh interpreter that
    only ignores SIGINT once its imports are done: a Ctrl-C to the group in that
    second printed its KeyboardInterrupt traceback (~1 run in 4 of the Ctrl-C test).
    An ignored signal stays ignored across exec, and the pool's workers set their own
    handler (_worker_start). A Ctrl-C during the spawn itself (milliseconds) is lost."""
    from multiprocessing import forkserver

    if threading.current_thread() is not threading.main_thread():
        forkserver.ensure_running()
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        forkserver.ensure_running()
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def _interrupt_deferred():
    """Hold a Ctrl-C (in the main thread) until the block ends, then raise it. Starting
    the pool's processes is such a block: a process the pool had begun to start, but
    did not know yet, was left behind by the interrupt, and once the campaign had
    ended and its semaphores were gone it printed a FileNotFoundError traceback."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def _worker_start() -> None:
    from polysched.schedule.isolated import end_with_parent
    signal.signal(signal.SIGINT, _on_interrupt)
    end_with_parent()           # the campaign's process, even after kill -9


def _prepare_in_worker(job: Job) -> Result:
    global _BUSY
    _BUSY = True
    try:
        return prepare(job)
    finally:
        _BUSY = False


class LocalExecutor(Executor):
    """Prepare in a pool of ``jobs`` processes, then time serially here."""

    name = "local"

    def __init__(self, jobs: int = 2):
        self.jobs = max(1, int(jobs))
        self.batch_size = 2 * self.jobs
        self._pool = None

    def _get_pool(self):
        if self._pool is None:
            _start_forkserver()
            self._pool = ProcessPoolExecutor(max_workers=self.jobs, initializer=_worker_start,
                                             mp_context=multiprocessing.get_context("forkserver"))
        return self._pool

    def measure(self, jobs):
        jobs = list(jobs)
        if not jobs:
            return
        for job, result in zip(jobs, self._prepare(jobs)):
            try:
                yield time_prepared(result, job)
            finally:
                cleanup(result)
                result.binary = None

    def _prepare(self, jobs: list[Job]) -> list[Result]:
        """The jobs prepared (replayed, verified, compiled) in the pool, in order."""
        try:
            with _interrupt_deferred():     # (submitting starts the pool's processes)
                pool = self._get_pool()
                futures = [pool.submit(_prepare_in_worker, job) for job in jobs]
            wait(futures)               # nothing compiles while we time
            return [future.result() for future in futures]
        except BrokenProcessPool as err:
            # the pool, not the candidate, failed: record nothing, let the caller stop
            self._pool = None
            raise RuntimeError(f"a measurement process died ({err}); a script using the local "
                               "executor needs an `if __name__ == '__main__':` guard") from None

    def retime(self, jobs, rounds):
        """As `Executor.retime`, each program built once."""
        jobs = list(jobs)
        prepared = self._prepare(jobs)
        results: list[list[Result]] = [[] for _ in jobs]
        try:
            for _ in range(rounds):
                for k, (job, built) in enumerate(zip(jobs, prepared)):
                    result = built
                    if built.ok:
                        result = copy.copy(built)
                        result.samples = []
                        result = time_prepared(result, job)
                    results[k].append(result)
        finally:
            for result in prepared:
                cleanup(result)
                result.binary = None
        return results

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def abort(self) -> None:
        """Kill the pool's processes and shut it down without waiting. (A second Ctrl-C
        inside a waiting shutdown left the pool's manager thread waiting for work that
        never came, and Python waits for that thread at exit: the run hung, helper-56.)
        Killed workers make the manager thread see a broken pool and end."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            try:
                process.kill()
            except (OSError, ValueError):
                pass
        pool.shutdown(wait=False, cancel_futures=True)


class DaskExecutor(Executor):
    """Measure on a Dask distributed cluster: ``address`` ("tcp://host:8786"), or an
    existing ``distributed.Client``."""

    name = "dask"

    def __init__(self, address=None, client=None):
        try:
            from distributed import Client
        except ImportError:
            raise RuntimeError("the Dask executor needs dask[distributed] (pip install 'polysched[tune]')") from None
        self._owns = client is None
        try:
            self.client = client if client is not None else Client(address, timeout="10s")
        except (OSError, TimeoutError, ValueError) as err:     # (ValueError: 'missing port number')
            raise RuntimeError(f"cannot reach the Dask scheduler at {address}: {err}") from None
        workers = self.client.scheduler_info().get("workers", {})
        self.batch_size = max(2, 2 * len(workers))

    def measure(self, jobs):
        jobs = list(jobs)
        futures = [self.client.submit(measure, job, pure=False) for job in jobs]
        for job, future in zip(jobs, futures):
            try:
                yield future.result()
            except Exception as err:  # noqa: BLE001
                yield Result(job.index, "error", f"dask task failed: {type(err).__name__}: {err}")

    def close(self) -> None:
        if self._owns:
            self.client.close()


class FunctionExecutor(Executor):
    """``function(job) -> Result`` called in this process (tests)."""

    name = "function"

    def __init__(self, function: Callable[[Job], Result], batch_size: int = 4):
        self.function = function
        self.batch_size = batch_size

    def measure(self, jobs):
        for job in jobs:
            yield self.function(job)


__all__ = ["DaskExecutor", "Executor", "FunctionExecutor", "LocalExecutor"]
