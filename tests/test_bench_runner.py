"""run_benchmarks on tiny kernels (verified, timed, failures recorded) and report/plot
on a synthetic results dict."""
from __future__ import annotations

import csv
import io
import json
import math
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from polysched.bench import (Variant, geometric_mean, load_results, plot, report, run_benchmarks,
                             save_results, speedup, summary)

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")

PROGRAM = r"""
#include <stdio.h>
#include <signal.h>
#if defined(MINI_DATASET)
#define N 8
#elif defined(SMALL_DATASET)
#define N 40
#else
#define N 100
#endif
static double A[N][N];
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = ((i * 5 + j * 3) % 13) / 13.0;
  /* KERNEL */
#ifdef POLYSCHED_DUMP
  printf("== A ==\n");
  for (int i = 0; i < N; i++) { for (int j = 0; j < N; j++) printf("%.10g ", A[i][j]); printf("\n"); }
#else
  double sum = 0;
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) sum += A[i][j];
  fprintf(stderr, "polysched-checksum: %.10g\n", sum);
#endif
  fprintf(stderr, "polysched-time: %g\n", 0.001 * (1 + SLOWNESS));
  return 0;
}
"""
KERNEL = "for (int i = 1; i < N; i++) for (int j = 0; j < N; j++) A[i][j] += 0.5 * A[i-1][j];"
INTERCHANGED = "for (int j = 0; j < N; j++) for (int i = 1; i < N; i++) A[i][j] += 0.5 * A[i-1][j];"
REVERSED = "for (int i = N - 1; i >= 1; i--) for (int j = 0; j < N; j++) A[i][j] += 0.5 * A[i-1][j];"


def program(kernel: str, slowness: int = 0, extra: str = "") -> str:
    return PROGRAM.replace("/* KERNEL */", extra + kernel).replace("SLOWNESS", str(slowness))


@dataclass
class TinyKernel:
    """Duck-typed like polysched.bench.suite.Kernel: name, path, flops(dataset)."""
    name: str
    path: Path

    def flops(self, dataset: str) -> float:
        n = {"MINI": 8, "SMALL": 40}.get(dataset, 100)
        return 2.0 * (n - 1) * n


def source_maker(text: str):
    def make_source(kernel, workdir: Path) -> Path:
        path = workdir / f"{kernel.name}.c"
        path.write_text(text)
        return path
    return make_source


def failing_maker(kernel, workdir):
    raise RuntimeError("scheduler exploded")


@needs_gcc
def test_run_benchmarks_verifies_times_and_records_failures(tmp_path, capsys):
    original = tmp_path / "colsum.c"
    original.write_text(program(KERNEL))
    kernel = TinyKernel("colsum", original)
    fast = ["-O1"]
    variants = [
        Variant("orig", None, cflags=fast),
        # Kernel-time reported twice as large: a "slower" legal variant.
        Variant("interchanged", source_maker(program(INTERCHANGED, slowness=1)), cflags=fast),
        Variant("wrong", source_maker(program(REVERSED)), cflags=fast),
        Variant("broken", failing_maker, cflags=fast),
        Variant("crashes_big", source_maker(program(KERNEL, extra="\n#ifndef MINI_DATASET\n"
                                                    "raise(SIGSEGV);\n#endif\n")), cflags=fast),
        Variant("hangs_big", source_maker(program(KERNEL, extra="\n#ifndef MINI_DATASET\n"
                                                  "for (volatile int k = 0; ; k++);\n#endif\n")),
                cflags=fast),
    ]
    results = run_benchmarks([kernel], variants, dataset="SMALL", threads=1, repeat=3,
                             verify_dataset="MINI", progress=True, timeout=1,
                             workdir=tmp_path / "work")
    json.dumps(results)   # JSON-able
    by_variant = {record["variant"]: record for record in results["results"]}
    assert list(by_variant) == ["orig", "interchanged", "wrong", "broken", "crashes_big", "hangs_big"]

    orig = by_variant["orig"]
    assert orig["status"] == "OK" and orig["verify"] is None
    assert orig["times"] == [0.001] * 3 and orig["median_seconds"] == 0.001
    assert orig["time_source"] == "kernel"

    good = by_variant["interchanged"]
    assert good["status"] == "OK" and good["verify"] == "equal"
    assert good["median_seconds"] == 0.002 and len(good["times"]) == 3
    assert good["checksum_agrees"] is True
    assert "-DSMALL_DATASET" in good["compile_command"]

    wrong = by_variant["wrong"]
    assert wrong["status"] == "FAILED" and wrong["verify"] == "differ"
    assert wrong["times"] == [] and wrong["median_seconds"] is None
    assert "A[" in wrong["reason"]

    assert by_variant["broken"]["status"] == "ERROR"
    assert "scheduler exploded" in by_variant["broken"]["reason"]
    assert by_variant["crashes_big"]["status"] == "RUN_ERROR"
    assert "SIGSEGV" in by_variant["crashes_big"]["reason"]
    assert by_variant["hangs_big"]["status"] == "TIMEOUT"

    assert results["kernels"]["colsum"]["flops"] == 2.0 * 39 * 40
    assert results["machine"]["cores_logical"] >= 1
    assert results["config"]["dataset"] == "SMALL"

    progress = capsys.readouterr().err.splitlines()
    assert len([line for line in progress if line.startswith("[")]) == 6
    assert any("colsum/interchanged: OK" in line and "0.50x vs orig" in line for line in progress)
    assert any("colsum/wrong: FAILED" in line for line in progress)

    text = report(results)
    assert "| colsum | interchanged | OK | 0.002 | 0.50 ! |" in text
    assert "FAILED" in text


@needs_gcc
def test_orig_variant_added_when_missing(tmp_path):
    original = tmp_path / "k.c"
    original.write_text(program(KERNEL))
    results = run_benchmarks([TinyKernel("k", original)],
                             [Variant("copy", source_maker(program(KERNEL)), cflags=["-O1"])],
                             dataset="MINI", repeat=1, progress=False)
    assert [record["variant"] for record in results["results"]] == ["orig", "copy"]
    assert all(record["status"] == "OK" for record in results["results"])
    with pytest.raises(ValueError):
        run_benchmarks([], [Variant("a"), Variant("a")], progress=False)


# ----------------------------------------------------------------- report

def synthetic_results() -> dict:
    def record(kernel, variant, median, status="OK", reason=""):
        return {"kernel": kernel, "variant": variant, "status": status, "reason": reason,
                "times": [median] * 3 if median else [], "median_seconds": median}
    return {
        "schema": "polysched-bench/1",
        "machine": {"cpu_model": "Test CPU", "cores_logical": 2, "compiler_version": "gcc 12",
                    "polysched_version": "0.1.0", "git_commit": "0123456789abcdef", "git_dirty": True},
        "config": {"dataset": "LARGE", "threads": 2, "repeat": 3, "verify_dataset": "MINI"},
        "variants": [{"name": "orig", "cflags": ["-O3"], "openmp": False},
                     {"name": "tiled", "cflags": ["-O3"], "openmp": True},
                     {"name": "bad", "cflags": ["-O3"], "openmp": False}],
        "kernels": {"gemm": {"flops": 2e9}, "jacobi": {"flops": None}},
        "results": [record("gemm", "orig", 2.0), record("gemm", "tiled", 0.5),
                    record("gemm", "bad", None, "FAILED", "output differs at MINI: A[3]"),
                    record("jacobi", "orig", 1.0), record("jacobi", "tiled", 2.0),
                    record("jacobi", "bad", 0.8)],
        "started": "2026-11-21T00:00:00+00:00",
    }


def test_speedups_and_geomean():
    results = synthetic_results()
    assert speedup(results, "gemm", "tiled") == 4.0
    assert speedup(results, "jacobi", "tiled") == 0.5
    assert speedup(results, "gemm", "bad") is None
    assert geometric_mean([4.0, 0.5]) == pytest.approx(math.sqrt(2))
    rows = {row["variant"]: row for row in summary(results)}
    assert rows["tiled"]["geomean_speedup"] == pytest.approx(math.sqrt(2))
    assert rows["tiled"]["slower"] == 1
    assert rows["bad"]["geomean_speedup"] == pytest.approx(1.25)
    assert rows["bad"]["kernels_not_ok"] == 1
    assert rows["orig"]["geomean_speedup"] == pytest.approx(1.0)


def test_markdown_report():
    text = report(synthetic_results(), format="md")
    assert "| gemm | tiled | OK | 0.5 | 4.00 | 4.00 |" in text          # 2e9 flop / 0.5 s
    assert "| jacobi | tiled | OK | 2 | 0.50 ! | - |" in text            # slower: flagged
    assert "| gemm | bad | FAILED: output differs at MINI: A[3] | - | - | - |" in text
    assert "| tiled | 1.41 | 2 | 0 | 1 | -O3 -fopenmp |" in text
    assert "Test CPU" in text and "0123456789ab+dirty" in text
    # Overview: one row per kernel, orig's time then each variant's speedup or status.
    assert "| gemm | 2 | 4.00x | FAILED |" in text
    assert "| jacobi | 1 | 0.50x ! | 1.25x |" in text


def test_the_same_program_as_orig_is_not_called_slower():
    """A variant whose source polysched kept as written, built with orig's compiler and
    flags (-fopenmp aside), is the same program: 0.99x is noise, flagged '=', not '!'.
    The same source under another compiler (Polly) is another program."""
    results = synthetic_results()
    records = {(r["kernel"], r["variant"]): r for r in results["results"]}
    for variant, flags, command in (("orig", ["-O3"], "gcc -O3 j.c"), ("tiled", ["-O3", "-fopenmp"], "gcc -O3 j.c"),
                                    ("bad", ["-O3"], "clang -O3 j.c")):
        records[("jacobi", variant)].update(source_sha256="ab12", flags=flags, compile_command=command)
    records[("jacobi", "bad")]["median_seconds"] = 1.5
    text = report(results, format="md")
    assert "| jacobi | 1 | 0.50x = | 0.67x ! |" in text
    rows = {row["variant"]: row for row in summary(results)}
    assert rows["tiled"]["slower"] == 0 and rows["bad"]["slower"] == 1


def test_csv_report():
    rows = list(csv.DictReader(io.StringIO(report(synthetic_results(), format="csv"))))
    gemm_tiled = next(r for r in rows if r["kernel"] == "gemm" and r["variant"] == "tiled")
    assert float(gemm_tiled["speedup"]) == 4.0 and float(gemm_tiled["gflops"]) == 4.0
    assert gemm_tiled["slower_than_orig"] == "0"
    jacobi_tiled = next(r for r in rows if r["kernel"] == "jacobi" and r["variant"] == "tiled")
    assert jacobi_tiled["slower_than_orig"] == "1" and jacobi_tiled["gflops"] == ""
    geomean = next(r for r in rows if r["kernel"] == "GEOMEAN" and r["variant"] == "tiled")
    assert float(geomean["speedup"]) == pytest.approx(math.sqrt(2), rel=1e-3)
    with pytest.raises(ValueError):
        report(synthetic_results(), format="html")


def test_results_round_trip(tmp_path):
    path = save_results(synthetic_results(), tmp_path / "out" / "results.json")
    assert load_results(path) == synthetic_results()
    (tmp_path / "other.json").write_text('{"a": 1}')
    with pytest.raises(ValueError):
        load_results(tmp_path / "other.json")


def test_plot_writes_png(tmp_path):
    path = plot(synthetic_results(), tmp_path / "speedups.png")
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 1000


LOGGING_PROGRAM = r"""
#include <stdio.h>
int main(void) {
#ifdef POLYSCHED_DUMP
  printf("== X ==\n1\n");
#else
  FILE *log = fopen(LOGFILE, "a");
  fputs(TAG, log);
  fclose(log);
#endif
  fprintf(stderr, "polysched-time: 0.5\n");
  return 0;
}
"""


@needs_gcc
def test_timed_runs_are_interleaved(tmp_path):
    """orig, v, orig, v, ...: a load change on the shared machine hits both alike."""
    original = tmp_path / "logger.c"
    original.write_text(LOGGING_PROGRAM)
    log = tmp_path / "order.log"
    common = {"LOGFILE": f'"{log}"'}
    variants = [Variant("orig", None, cflags=["-O0"], defines={**common, "TAG": '"o"'}),
                Variant("v", source_maker(LOGGING_PROGRAM), cflags=["-O0"],
                        defines={**common, "TAG": '"v"'})]
    results = run_benchmarks([TinyKernel("logger", original)], variants, dataset=None,
                             repeat=3, progress=False)
    assert [record["status"] for record in results["results"]] == ["OK", "OK"]
    assert log.read_text() == "ovovov"


def test_polyscheds_variants_make_their_code_for_the_threads_they_run_with(tmp_path):
    """bench's runs set OMP_NUM_THREADS; the tile-par variant's code was made for the
    threads of the machine polysched ran on (its tile counts come in full rounds of
    them). It is now made for the threads the runs have: trmm's parallel tiles at 8
    threads are other sizes than at 2, and the build records the count."""
    from polysched.bench import get
    from polysched.bench.variants import make_variants

    sizes = {}
    for threads in (2, 8):
        results = run_benchmarks([get("trmm")], make_variants(["pluto-tile-par"]), dataset="MINI", threads=threads,
                                 repeat=1, verify_dataset="MINI", progress=False, workdir=tmp_path / str(threads))
        record = results["results"][1]
        assert record["status"] == "OK" and record["verify"] == "equal", record["reason"]
        assert record["build"]["options"]["threads"] == threads
        [region] = record["build"]["regions"]
        sizes[threads] = region["tile_sizes"]
    assert sizes[2] != sizes[8], sizes


def test_the_tensorize_variants_fallback_is_made_for_the_threads_it_runs_with(tmp_path):
    """pluto-tensorize's code for a kernel no micro-kernel matches (trmm) is optimize's
    --tile --parallel, which was made for this machine's threads whatever the run's."""
    from polysched.bench import get
    from polysched.bench.variants import tensorize_variant
    from polysched.pipeline import OptimizeOptions, optimize

    trmm = get("trmm")
    made = {threads: tensorize_variant().make_source(trmm, tmp_path / str(threads), threads=threads)[0].read_text()
            for threads in (2, 8)}
    assert made[2] != made[8]
    assert made[8] == optimize(trmm.path, OptimizeOptions.from_flags(tile=True, parallel=True, threads=8)).text


def test_the_records_of_tensorized_code_say_what_was_built(tmp_path):
    """helper-92: pluto-tensorize's record had "build": null, and pluto-tile-par's, whose
    gemm runs as micro-kernel calls in parallel blocks, an empty list of parallel loops."""
    from polysched.bench import get
    from polysched.bench.variants import make_variants
    from polysched.tensorize import builtin_intrinsics
    from polysched.tensorize.cost import native_path

    if not any(native_path(i) for i in builtin_intrinsics() if i.name == "dgemm_packed_beta_scaled"):
        pytest.skip("gemm's micro-kernel needs AVX2 or AVX-512 here")
    gemm = get("gemm")
    for variant in make_variants(["pluto-tensorize", "pluto-tile-par"])[1:]:
        out, build = variant.make_source(gemm, tmp_path / variant.name, threads=2)
        [region] = build["regions"]
        calls = [line for line in region["tensorize"] if line.endswith("applied")]
        assert calls and build["options"]["parallel"] is True, build
        assert "parallel" in region["parallel"][0] and "#pragma omp parallel for" in out.read_text(), region
