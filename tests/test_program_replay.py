"""Every suite kernel: the default policy as Program steps (auto_schedule, auto_tile
with parallel marks) replays from its JSON trace to the same schedule tree and the
same C text, and matches what ``optimize --tile --parallel`` writes."""
from __future__ import annotations

import pytest

import polysched as ps
from polysched.bench import kernels
from polysched.pipeline import OptimizeOptions, optimize

NAMES = [k.name for k in kernels()]


@pytest.mark.parametrize("name", NAMES)
def test_default_policy_trace_replays(name):
    kernel = {k.name: k for k in kernels()}[name]
    q = ps.Program.from_file(kernel.path).auto_schedule("pluto").auto_tile(parallel=True)
    assert q.check().legal
    replayed = ps.Program.from_file(kernel.path).replay(str(q.trace))
    assert str(replayed.schedule) == str(q.schedule)
    assert replayed.c_code() == q.c_code()
    if name in ("gemm", "jacobi-2d", "lu"):
        # the pipeline without its one step beyond auto_schedule + auto_tile (the
        # micro-kernel calls: tests/test_default_tensorize.py)
        options = OptimizeOptions.from_flags(tile=True, parallel=True, tensorize=False)
        assert optimize(kernel.path, options).text == q.c_code()
