"""Every suite kernel: the default policy as Program steps (auto_schedule, auto_tile
with parallel marks) replays from its JSON trace to the same schedule tree and the
same C text, and matches what ``optimize --tile --parallel`` writes."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import polysched as ps
from polysched.bench import get as get_kernel, kernels
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


def test_a_trace_of_another_region_is_refused(tmp_path):
    """helper-19: a trace recorded on region 1 applied to region 0 without a word (both
    have a statement S0). A bare list of steps names no region and applies anywhere."""
    path = tmp_path / "two.c"
    path.write_text("double A[100], B[100];\nvoid f(int n) {\n  int i;\n#pragma scop\n"
                    "  for (i = 0; i < n; i++)\n    A[i] = A[i] + 1.0;\n#pragma endscop\n#pragma scop\n"
                    "  for (i = 0; i < n; i++)\n    B[i] = B[i] * 2.0;\n#pragma endscop\n}\n")
    second = ps.Program.from_file(path, region=1).tile("S0", [8], 0)
    with pytest.raises(ps.TransformError, match="recorded on region 1 .* this program is region 0"):
        ps.Program.from_file(path).replay(second.trace.to_json())
    replayed = ps.Program.from_file(path, region=1).replay(second.trace.to_json())
    assert replayed.region_code() == second.region_code()
    assert "A[" in ps.Program.from_file(path).replay(list(second.trace)).region_code()


CHOLESKY = r"""#include <math.h>
#define N 8
double A[N][N];
void kernel(void) {
#pragma scop
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[j][k];
      A[i][j] /= A[j][j];
    }
    for (int k = 0; k < i; k++)
      A[i][i] -= A[i][k] * A[i][k];
    A[i][i] = sqrt(A[i][i]);
  }
#pragma endscop
}
"""


def test_one_sequence_gives_one_text(tmp_path):
    """helper-19: built again in one process, this sequence gave one of two texts (a
    scalar-replacement load guard simplified against a set that isl's coalescing wrote
    as (N) mod 6 = 5 in one call and (-5 + N) mod 6 = 0 in the next), so a replay could
    differ from the program it was recorded from."""
    path = tmp_path / "cholesky.c"
    path.write_text(CHOLESKY)
    texts = set()
    for _ in range(6):
        q = (ps.Program.from_file(path).auto_schedule("pluto").interchange("S1", 2, 1).split_band("S1", 2)
             .unroll_and_jam("S2", 0, 3).tile("S0", [8, 4, 2], 1))
        texts.add(q.region_code())
    assert "A_r0" in texts.pop() and not texts


def test_a_step_handed_out_and_edited_leaves_the_trace_alone():
    """helper-49: ``q.trace[0]["args"]["sizes"][0] = 99`` edited the program's trace,
    so its pickle and a replay gave 99x4 tiles where it has 4x4; ``q.trace.steps = ()``
    was accepted."""
    import pickle
    q = ps.Program.from_file(next(k.path for k in kernels() if k.name == "gemm")).tile("S1", [4, 4], depth=1)
    before = q.c_code()
    q.trace[0]["args"]["sizes"][0] = 99
    for step in q.trace:
        step["args"]["stmt"] = "S0"
    assert q.trace[0]["args"] == {"stmt": "S1", "sizes": [4, 4], "depth": 1}
    assert pickle.loads(pickle.dumps(q)).c_code() == before
    with pytest.raises(AttributeError, match="does not change"):
        q.trace.steps = ()
    assert len(q.trace) == 1


def test_programs_are_equal_when_their_source_and_schedule_are():
    """``==`` and ``hash`` by value (helper-49: by identity, so a pickle, a replay or
    another load of the file was never equal, contrary to the README)."""
    import pickle
    path = next(k.path for k in kernels() if k.name == "gemm")
    p = ps.Program.from_file(path)
    q = p.tile("S1", [4, 4], depth=1)
    again = ps.Program.from_file(path)
    assert again == p and hash(again) == hash(p) and again is not p
    assert again.replay(q.trace) == q and pickle.loads(pickle.dumps(q)) == q
    assert {q: 1}[pickle.loads(pickle.dumps(q))] == 1
    assert q != p and p.tile("S1", [8, 4], depth=1) != q
    assert ps.Program.from_file(path, defines={"NI": "64"}) != p


README_BLOCKS = re.findall(r"```python\n(.*?)```", (Path(__file__).parents[1] / "README.md").read_text(), re.S)


@pytest.mark.parametrize("k", range(len(README_BLOCKS)))
def test_each_python_block_of_the_readme_runs_as_written(k):
    """Each ``python`` block of the README, alone, from the repository's root (helper-49:
    two failed with NameError, one on a file that is not there)."""
    root = Path(__file__).parents[1]
    run = subprocess.run([sys.executable, "-c", README_BLOCKS[k]], cwd=root, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]


def test_a_trace_replayed_on_another_text_of_its_region_says_so(tmp_path):
    """helper-86: a loop nest added at the top of a region, the recorded trace applied
    its steps to the statements now bearing those names (its fusion fused the new one)
    without a word. A trace holds a digest of the region's text; a replay on the same
    text is silent, on another one it warns (a TraceWarning naming the statements), and
    optimize --trace prints it once as a notice."""
    import json
    import warnings

    from polysched.program import TraceWarning
    source = tmp_path / "mvt.c"
    text = Path(get_kernel("mvt").path).read_text()
    source.write_text(text)
    q = ps.Program.from_file(source).auto_schedule("pluto", "max").auto_tile(parallel=True)
    document = json.loads(str(q.trace))
    assert len(document["region_digest"]) == 16
    with warnings.catch_warnings():
        warnings.simplefilter("error", TraceWarning)
        assert ps.Program.from_file(source).replay(str(q.trace)).c_code() == q.c_code()
    edited = tmp_path / "edited.c"
    edited.write_text(text.replace("#pragma scop\n", "#pragma scop\n  for (i = 0; i < n; i++)\n    x1[i] = 2 * x1[i];\n", 1))
    with pytest.warns(TraceWarning, match=r"recorded on another text of region 0 .*by their names \(S0, S1, S2\)"):
        ps.Program.from_file(edited).replay(str(q.trace))
    saved = tmp_path / "t.json"
    saved.write_text(str(q.trace))
    done = subprocess.run([sys.executable, "-m", "polysched", "optimize", str(edited), "-o", str(tmp_path / "o.c"),
                           "--trace", str(saved)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("notice: the trace was recorded on another text of region 0") == 1, done.stderr
