"""The CPU-time budget of a whole ``optimize`` run (`RunBudget`).

Each stage that can run long has its own limit (the scheduler, code generation); this
one bounds their sum over all the regions of a file, so a file of many hard regions
ends too. Kept free of heavy imports: the command line reads its default.
"""
from __future__ import annotations

import time

# The whole run's CPU seconds (`OptimizeOptions.budget`): every suite kernel takes under
# 2 s; a fuzzed file of two regions with offsets of 3e9 took 19 s (5 s scheduling,
# 6 s of isl's AST generation and its validation).
DEFAULT_RUN_BUDGET = 60.0


class RunBudget:
    """The CPU seconds left of a run's budget: this process's and its reaped children's
    (the forked scheduler and code generator), from when it was made."""

    def __init__(self, seconds: float | None):
        self.seconds = seconds
        self._start = self._used()

    @staticmethod
    def _used() -> float:
        try:
            import resource
            children = resource.getrusage(resource.RUSAGE_CHILDREN)
            return time.process_time() + children.ru_utime + children.ru_stime
        except ImportError:      # not Unix: this process only
            return time.process_time()

    def left(self) -> float:
        if self.seconds is None:
            return float("inf")
        return self.seconds - (self._used() - self._start)

    def used_up(self) -> bool:
        return self.left() <= 0

    def why(self) -> str:
        return f"the run's budget of {self.seconds:g} CPU seconds was used up"
