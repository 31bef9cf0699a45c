"""``polysched deps`` and ``polysched check`` end to end (in process)."""
from __future__ import annotations

import json

import pytest
from pathlib import Path

from polysched.cli import main

KERNELS = Path(__file__).parent.parent / "polysched" / "bench" / "kernels"


def test_deps_seidel_prints_mixed_vectors(capsys):
    assert main(["deps", str(KERNELS / "seidel-2d.c"), "--kind", "flow"]) == 0
    out = capsys.readouterr().out
    assert "flow S0 -> S0  carried at: loop 1, loop 2, loop 3" in out
    assert "(1, -1, *)" in out and "(0, 0, 1)" in out
    assert "raw" not in out.split("SCCs")[0].replace("flow", "")


def test_deps_gemm_json(capsys):
    assert main(["deps", str(KERNELS / "gemm.c"), "--json"]) == 0
    (scop,) = json.loads(capsys.readouterr().out)
    flow = {(r["source"], r["sink"]): r for r in scop["dependences"]["flow"]}
    assert flow[("S1", "S1")]["distance"] == [0, 1, 0]
    assert flow[("S1", "S1")]["levels"] == [2]
    assert flow[("S0", "S1")]["levels"] == [0]
    assert scop["sccs"] == [["S0"], ["S1"]]
    assert set(scop["dependences"]) == {"flow", "raw", "war", "waw"}


def test_deps_defines_and_rar(capsys):
    assert main(["deps", str(KERNELS / "gemm.c"), "-D", "NI=10", "--kind", "rar"]) == 0
    out = capsys.readouterr().out
    assert "rar S1 -> S1" in out


def test_check_exit_codes(capsys):
    gemm = str(KERNELS / "gemm.c")
    good = "[NI, NJ, NK] -> { S0[i, j] -> [0, i, j, 0]; S1[i, k, j] -> [1, i, j, k] }"
    bad = "[NI, NJ, NK] -> { S0[i, j] -> [1, i, j, 0]; S1[i, k, j] -> [0, i, j, k] }"
    assert main(["check", gemm, "--schedule", good]) == 0
    assert capsys.readouterr().out.startswith("legal")
    assert main(["check", gemm, "--schedule", bad]) == 1
    out = capsys.readouterr().out
    assert out.startswith("illegal") and "witness: S0[0, 0] at time [1, 0, 0, 0]" in out
    assert main(["check", gemm, "--schedule", "{ S0[i, j] -> [i"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "cannot parse" in err
    assert main(["check", gemm, "--schedule", "[NI] -> { S0[i, j] -> [i, j] }"]) == 2
    assert "does not give a time" in capsys.readouterr().err
    # a map's statement the region does not have, or of another arity, was dropped by
    # intersecting with the domain: a typo (S2 for S1) was called "legal"
    for schedule, message in [
            (good[:-2] + "; S2[i] -> [2, i, 0, 0] }", "the schedule names S2, which the region does not have "
                                                      "(its statements: S0, S1)"),
            ("[NI, NJ, NK] -> { S0[i, j] -> [0, i, j, 0]; S1[i, j] -> [1, i, j, 0] }",
             "the schedule's S1 has 2 dimension(s); the region's S1 has 3 (its loops)"),
            # a parameter the region lacks, used (ni for NI): "legal", where optimize refused it
            ("[ni, NJ, NK] -> { S0[i, j] -> [0, i + ni, j, 0]; S1[i, k, j] -> [1, i + ni, j, k] }",
             "the schedule uses parameter ni, which the region does not have (its parameters: NI, NJ, NK)"),
            # (helper-93: isl stops reading at the closing brace; this was "legal")
            (good + " garbage here", "unexpected text after the schedule's closing brace: 'garbage here'"),
            ("{ domain: \"[NI, NJ, NK] -> { S0[i, j] }\" } }", "unexpected text after the schedule's closing "
                                                               "brace: '}'")]:
        assert main(["check", gemm, "--schedule", schedule]) == 2
        assert capsys.readouterr().err.strip() == f"polysched: error: --schedule: {message}"
    # not isl text: a file, which must exist (helper-43: "cannot parse 'nofile.txt'")
    assert main(["check", gemm, "--schedule", "no-such-schedule.txt"]) == 2
    assert capsys.readouterr().err.strip() == "polysched: error: --schedule no-such-schedule.txt: No such file or directory"


def test_check_json_witness(capsys):
    src = str(KERNELS / "jacobi-1d.c")
    sched = "[tsteps, n] -> { S0[t, i] -> [-t, 0, i]; S1[t, i] -> [-t, 1, i] }"
    assert main(["check", src, "--schedule", sched, "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert not result["legal"]
    w = result["violations"][0]["witness"]
    assert w["source"]["time"] >= w["sink"]["time"]


# helper-31: four `i % k` in one subscript kept the dependence analysis busy for minutes,
# and deps, schedule and check had no budget (optimize keeps such a region as written)
SLOW_ANALYSIS = """int A[64];
void f(int n) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i % 2 + i % 3 + i % 5 + i % 7] += i;
#pragma endscop
}
"""


@pytest.mark.parametrize("command", [["deps"], ["schedule"], ["check", "--schedule", "[n] -> { S0[i] -> [i] }"]])
def test_the_analysis_commands_stop_at_their_budget(capsys, tmp_path, command):
    src = tmp_path / "slow.c"
    src.write_text(SLOW_ANALYSIS)
    status = main([command[0], str(src), "--budget", "1", *command[1:]])
    err = capsys.readouterr().err.strip()
    assert status == (2 if command[0] == "check" else 1), err
    assert len(err.splitlines()) == 1 and "slow.c:4:" in err and "budget of 1 CPU seconds" in err, err


def test_a_negative_budget_is_a_usage_error(capsys):
    assert main(["deps", str(KERNELS / "gemm.c"), "--budget", "-1"]) == 2
    assert "--budget -1" in capsys.readouterr().err
