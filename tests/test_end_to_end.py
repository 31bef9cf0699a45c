"""The correctness gate: every suite kernel, every mode, verified by execution.

For each kernel: optimize the file with polysched, compile original and result with
identical flags, run both at the MINI dataset and compare every printed output value.
The oracle is execution of the unmodified kernel, not polysched's own analysis.
"""
from __future__ import annotations

import pytest

from polysched.bench import kernels, verify
from polysched.pipeline import OptimizeOptions, optimize

MODES = {
    "identity": OptimizeOptions.from_flags(scheduler="identity"),
    "isl": OptimizeOptions.from_flags(scheduler="isl"),
    "pluto": OptimizeOptions.from_flags(scheduler="pluto"),
    "isl-tile": OptimizeOptions.from_flags(scheduler="isl", tile=True),
    "pluto-tile": OptimizeOptions.from_flags(scheduler="pluto", tile=True),
    "isl-tile-par": OptimizeOptions.from_flags(scheduler="isl", tile=True, parallel=True),
    "pluto-tile-par": OptimizeOptions.from_flags(scheduler="pluto", tile=True, parallel=True),
}

KERNELS = [k.name for k in kernels()]


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("name", KERNELS)
def test_kernel_mode_matches_original(name, mode, tmp_path):
    from polysched.bench import get

    kernel = get(name)
    result = optimize(kernel.path, MODES[mode])
    out = tmp_path / f"{name}.{mode}.c"
    out.write_text(result.text)
    verdict = verify(kernel.path, out, defines={"MINI_DATASET": None}, workdir=tmp_path)
    assert verdict.ok, f"{name} [{mode}]: {verdict.status}: {verdict.reason}"
