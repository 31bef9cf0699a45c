"""``polysched extract``: text and JSON output, and clean errors (exit 2, one line)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import islpy as isl

from polysched.cli import main

DATA = Path(__file__).parent / "data" / "scop"
ROOT = Path(__file__).parent.parent


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "polysched", "extract", *args], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)


def test_json_output_round_trips_through_isl():
    proc = run_cli(str(DATA / "gemm.c"), "-D", "NI=12", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    scop = doc["scops"][0]
    assert scop["function"] == "kernel_gemm"
    assert scop["parameter_values"] == {"NI": 12, "NJ": 25, "NK": 30}
    s1 = scop["statements"][1]
    assert s1["body"] == "C[i][j] += alpha * A[i][k] * B[k][j];"
    assert isl.Set(s1["domain"]).is_equal(
        isl.Set("[NI, NJ, NK] -> { S1[i, k, j] : 0 <= i < NI and 0 <= k < NK and 0 <= j < NJ }"))
    assert sorted(isl.Map(r).range().get_tuple_name() for r in s1["reads"]) == ["A", "B", "C", "alpha"]
    assert isl.UnionMap(scop["schedule_map"]).is_equal(
        isl.UnionMap("[NI, NJ, NK] -> { S0[i, j] -> [i, 0, j, 0] : 0 <= i < NI and 0 <= j < NJ; "
                     "S1[i, k, j] -> [i, 1, k, j] : 0 <= i < NI and 0 <= k < NK and 0 <= j < NJ }"))


def test_text_output(capsys):
    assert main(["extract", str(DATA / "gemm.c")]) == 0
    out = capsys.readouterr().out
    assert "S1 (line 22): C[i][j] += alpha * A[i][k] * B[k][j];" in out
    assert "double C[NI][NJ]" in out


def test_bad_input_exits_2_with_one_line(tmp_path):
    bad = tmp_path / "bad.c"
    bad.write_text("void f(double *A, int *idx) {\n  int i;\n#pragma scop\n  for (i = 0; i < 10; i++)\n"
                   "    A[idx[i]] = 0;\n#pragma endscop\n}\n")
    proc = run_cli(str(bad))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"{bad}:5:7: error: indirect access")
    assert "Traceback" not in proc.stderr


def test_missing_file_exits_2(tmp_path):
    proc = run_cli(str(tmp_path / "nope.c"))
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1
