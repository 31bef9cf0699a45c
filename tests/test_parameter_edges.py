"""Every suite kernel at parameter edges, and bit-identical at 1 and 2 threads.

The generated code keeps sizes symbolic and guards what it assumes (see
emit_c/versioning.py), so one output file must compute exactly what the original
computes at *any* size it is compiled with: here every size macro at 0 (one at a
time, the others at MINI), all at 1, and all at MINI. No floating-point reduction is
reassociated without ``--reassociate`` and FMA contraction is off on both sides, so the
outputs must be bit-identical (compared as text), at 1 thread and at 2.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from polysched.bench import compile_c, get, kernels, run_binary
from polysched.pipeline import OptimizeOptions, optimize

MODES = {
    "identity": OptimizeOptions.from_flags(scheduler="identity"),
    "pluto-tile-par": OptimizeOptions.from_flags(tile=True, parallel=True),
    "isl-tile-par": OptimizeOptions.from_flags(scheduler="isl", tile=True, parallel=True),
}
CFLAGS = ["-O0", "-ffp-contract=off", "-DPOLYSCHED_PARALLEL_MIN_WORK=0"]   # parallel loops fork at any size


def _settings(kernel) -> list[dict[str, str | None]]:
    base = {"MINI_DATASET": None, "POLYSCHED_DUMP": None}
    macros = sorted(kernel.sizes["MINI"])
    settings = [dict(base), {**base, **{macro: "1" for macro in macros}}]
    settings += [{**base, macro: "0"} for macro in macros]
    return settings


def _outputs(source: Path, tmp: Path, tag: str, defines, include: Path, may_fail=False) -> list[str] | None:
    """stdout at 1 and 2 threads; None when ``may_fail`` and the program fails (the
    original at a size its own code does not accept, e.g. a division by a zero size)."""
    binary = tmp / tag
    built = compile_c(source, binary, cflags=CFLAGS, defines=defines, openmp=True, include_dirs=[include])
    assert built.ok, f"{tag}: {built.reason}"
    results = []
    for threads in (1, 2):
        run = run_binary(binary, threads=threads, timeout=60)
        if not run.ok and may_fail:
            return None
        assert run.ok, f"{tag} at {threads} threads: {run.reason}"
        results.append(run.stdout)
    return results


@pytest.mark.parametrize("name", [k.name for k in kernels()])
def test_kernel_at_parameter_edges(name, tmp_path):
    kernel = get(name)
    outputs = {}
    for mode, options in MODES.items():
        out = tmp_path / f"{mode}.c"
        out.write_text(optimize(kernel.path, options).text)
        outputs[mode] = out
    for k, defines in enumerate(_settings(kernel)):
        expected = _outputs(kernel.path, tmp_path, f"orig{k}", defines, kernel.path.parent, may_fail=k > 0)
        if expected is None:
            continue    # the original itself does not accept this size
        assert expected[0] == expected[1]
        for mode, out in outputs.items():
            got = _outputs(out, tmp_path, f"{mode}{k}", defines, kernel.path.parent)
            label = " ".join(f"-D{m}" + (f"={v}" if v else "") for m, v in defines.items())
            assert got == expected, f"{name} [{mode}] {label}: output differs from the original"
