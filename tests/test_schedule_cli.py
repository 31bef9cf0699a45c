"""``polysched schedule``: tree in isl notation, per-statement table, exit statuses."""
from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest

from polysched.cli import main

KERNELS = Path(__file__).resolve().parents[1] / "polysched" / "bench" / "kernels"


def run(capsys, *argv):
    status = main(["schedule", *map(str, argv)])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_jacobi_1d_table_and_tree(capsys):
    status, out, _ = run(capsys, KERNELS / "jacobi-1d.c", "-D", "MINI_DATASET")
    assert status == 0
    tree_line = next(line for line in out.splitlines() if line.startswith("{ domain:"))
    tree = isl.Schedule.read_from_str(isl.DEFAULT_CONTEXT, tree_line)  # valid isl notation
    assert tree.get_root().child(0).band_get_permutable()
    assert "S0: (t, 2t + i, 0)" in out
    assert "S1: (t, 1 + 2t + i, 1)" in out
    assert "band 0 [S0, S1] depth 0: permutable" in out
    assert "legal: yes" in out


@pytest.mark.parametrize("scheduler", ["isl", "identity"])
def test_peers_print_legal_schedules(capsys, scheduler):
    status, out, _ = run(capsys, KERNELS / "gemm.c", "--scheduler", scheduler, "--fuse", "max")
    assert status == 0 and "legal: yes" in out and f"scheduler {scheduler}" in out


def test_gemm_parallel_members(capsys):
    status, out, _ = run(capsys, KERNELS / "gemm.c", "--fuse", "max")
    assert status == 0
    assert "member 0: parallel" in out and "member 1: parallel" in out
    assert "member 2: sequential" in out


def test_reversal_uses_negative_coefficients_where_needed(capsys):
    """adi's backward sweeps (j counting down) have no non-negative schedule: like
    `optimize`, the command falls back to negative coefficients for them only."""
    status, out, _ = run(capsys, KERNELS / "adi.c")
    assert status == 0 and "legal: yes" in out
    assert "-j)" in out                     # the reversed backward sweep
    status, out, _ = run(capsys, KERNELS / "adi.c", "--negative")
    assert status == 0 and "legal: yes" in out


def test_bad_c_input_is_one_line_error(capsys, tmp_path):
    bad = tmp_path / "bad.c"
    bad.write_text("void f(int n, double A[10]) {\n#pragma scop\n  while (n) A[0] = 1;\n#pragma endscop\n}\n")
    status, _, err = run(capsys, bad)
    assert status == 2
    assert err.count("\n") == 1 and "error" in err


def test_bad_coefficient_bound(capsys):
    status, _, err = run(capsys, KERNELS / "gemm.c", "--coefficient-bound", "0")
    # (helper-87: it named the Python field, coefficient_bound)
    assert status == 2 and "--coefficient-bound must be at least 1, got 0" in err


def test_diamond_flags_and_fusion_policy(capsys):
    """The scheduler's options are optimize's: --diamond on jacobi-1d gives the
    concurrent-start pair; --no-diamond keeps heat-3d's wavefront band (t first)."""
    status, out, _ = run(capsys, KERNELS / "jacobi-1d.c", "--diamond")
    assert status == 0 and "S0: (2t - i, 2t + i)" in out and "legal: yes" in out
    status, out, _ = run(capsys, KERNELS / "heat-3d.c", "--no-diamond")
    assert status == 0 and "S0: (t, 2t + i, 2t + j, 2t + k" in out
    status, out, _ = run(capsys, KERNELS / "mvt.c", "--fuse", "smart")
    assert status == 0 and "fuse smart" in out and "S0: (i, j)\nS1: (i, j)\n" in out
    status, out, _ = run(capsys, KERNELS / "mvt.c")
    assert status == 0 and "fuse cost" in out and "sequence [S0 | S1]" in out


def test_flags_come_from_the_dependences_not_from_the_tree(capsys):
    """The identity schedule sets no coincident flag: gemm's `i` and `j` loops are still
    reported parallel and its `k` loop sequential (it carries S1's sum), as `check` says."""
    status, out, _ = run(capsys, KERNELS / "gemm.c", "--scheduler", "identity")
    assert status == 0
    bands = out[out.index("band 0"):].splitlines()
    assert bands[0] == "band 0 [S0, S1] depth 0: permutable"
    assert bands[1].split()[:3] == ["member", "0:", "parallel"]
    k_loop = bands.index("band 2 [S1] depth 2: permutable")
    assert bands[k_loop + 1].split()[:3] == ["member", "0:", "sequential"]
    assert bands[k_loop + 3].split()[:3] == ["member", "0:", "parallel"]
