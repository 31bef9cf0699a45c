"""Identity emission of every suite kernel: extract -> emit_file -> compile -> same output.

Each kernel in polysched/bench/kernels/*.c is compiled as written and with every
scop region regenerated from its original schedule (-DMINI_DATASET -DPOLYSCHED_DUMP),
and the dumped arrays must match (exact text expected; 1e-9 relative tolerance
accepted for floating-point values).
"""
from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path

import pytest

import polysched.scop as scop_pkg
from polysched.emit_c import emit_file

KERNELS = sorted((Path(__file__).resolve().parent.parent / "polysched" / "bench" / "kernels").glob("*.c"))
GCC = shutil.which("gcc")
FLAGS = ["-std=gnu11", "-O1", "-DMINI_DATASET", "-DPOLYSCHED_DUMP"]
# the emitted code must not depend on the preset: also a second, different size
OTHER_FLAGS = ["-std=gnu11", "-O1", "-DSMALL_DATASET", "-DPOLYSCHED_DUMP"]

pytestmark = [
    pytest.mark.skipif(GCC is None, reason="gcc not available"),
    pytest.mark.skipif(not hasattr(scop_pkg, "extract"), reason="polysched.scop.extract not available yet"),
]


def run_c(source: str, tmp_path: Path, name: str, flags: list[str]) -> str:
    c_file, exe = tmp_path / f"{name}.c", tmp_path / name
    c_file.write_text(source)
    result = subprocess.run([GCC, *flags, str(c_file), "-o", str(exe), "-lm"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"gcc failed:\n{result.stderr}\n--- source ---\n{source}"
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stdout


def same_numbers(expected: str, got: str, rtol: float = 1e-9) -> bool:
    """Token-wise equality, numbers compared with a relative tolerance."""
    a, b = expected.split(), got.split()
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x == y:
            continue
        try:
            fx, fy = float(x), float(y)
        except ValueError:
            return False
        if not math.isclose(fx, fy, rel_tol=rtol, abs_tol=1e-300):
            return False
    return True


@pytest.mark.parametrize("kernel", KERNELS, ids=[k.stem for k in KERNELS])
def test_identity_emission_of_suite_kernel(kernel, tmp_path):
    source = kernel.read_text()
    scops = scop_pkg.extract(str(kernel))
    assert scops, f"no scop found in {kernel.name}"
    new_source = emit_file(scops)
    for flags in (FLAGS, OTHER_FLAGS):
        expected = run_c(source, tmp_path, "orig", flags)
        got = run_c(new_source, tmp_path, "identity", flags)
        assert expected.strip(), "the kernel printed nothing with -DPOLYSCHED_DUMP"
        assert got == expected or same_numbers(expected, got), f"{kernel.name} {flags}: outputs differ"
