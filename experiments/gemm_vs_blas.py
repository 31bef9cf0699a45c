"""gemm at LARGE: polysched `pluto tile+par` against numpy/OpenBLAS dgemm, same threads.

Usage: .venv/bin/python experiments/gemm_vs_blas.py [--threads 2] [--repeat 5] [--dataset LARGE]

Prints GFLOP/s (medians) of: orig (gcc -O3 -march=native), polysched pluto tile+par,
numpy's dgemm (C = alpha*A@B + beta*C, same sizes), the ratio polysched / dgemm, and
the machine's double-precision peak with the assumptions it rests on.

numpy runs in a subprocess with OPENBLAS_NUM_THREADS set and OPENBLAS_CORETYPE /
OPENBLAS_L2_SIZE unset (they pin an older, slower kernel on this machine; see the
workplace notes); threadpoolctl-free: the subprocess reports which core type OpenBLAS
picked via numpy's config.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from polysched.bench import compile_c, get, run_binary
from polysched.pipeline import OptimizeOptions, optimize

NUMPY_TIMER = r"""
import json, sys, time
import numpy as np
ni, nj, nk, repeat = map(int, sys.argv[1:5])
rng = np.random.default_rng(0)
A = rng.random((ni, nk)); B = rng.random((nk, nj)); C0 = rng.random((ni, nj))
times = []
for _ in range(repeat + 1):
    C = C0.copy()
    t = time.perf_counter()
    C *= 1.2
    C += 1.5 * (A @ B)
    times.append(time.perf_counter() - t)
cfg = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
print(json.dumps({"times": times[1:], "blas": cfg.get("openblas configuration", cfg.get("name"))}))
"""


def peak_gflops(cores: int) -> tuple[float, str]:
    """cores x FMA pipes x doubles per vector x 2 flops x GHz, with stated assumptions."""
    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    mhz = [float(line.split(":")[1]) for line in flags.splitlines() if line.startswith("cpu MHz")]
    ghz = (max(mhz) / 1000) if mhz else 2.5
    lanes = 8 if " avx512f" in flags else 4 if " avx2" in flags else 2
    fma_units = 2
    peak = cores * fma_units * lanes * 2 * ghz
    why = (f"{cores} cores x {fma_units} FMA pipes x {lanes} doubles/vector x 2 flops x {ghz:.2f} GHz "
           f"(nominal clock from /proc/cpuinfo; assumes full-width {lanes * 64}-bit FMA pipes, "
           f"no turbo)")
    return peak, why


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dataset", default="LARGE")
    args = parser.parse_args()

    kernel = get("gemm")
    sizes = kernel.sizes[args.dataset]
    flops = kernel.flops(args.dataset)
    results = {}
    with tempfile.TemporaryDirectory(prefix="gemm-blas-") as tmp:
        tmp = Path(tmp)
        out = tmp / "gemm.pluto-tile-par.c"
        out.write_text(optimize(kernel.path, OptimizeOptions.from_flags(tile=True, parallel=True)).text)
        for label, source in (("orig", kernel.path), ("polysched pluto tile+par", out)):
            binary = tmp / label.split()[0]
            built = compile_c(source, binary, defines={f"{args.dataset}_DATASET": None},
                              include_dirs=[kernel.path.parent], openmp=True)
            if not built.ok:
                print(f"{label}: compile failed: {built.reason}")
                return 1
            times = []
            for _ in range(args.repeat):
                run = run_binary(binary, threads=args.threads, timeout=600)
                if not run.ok:
                    print(f"{label}: {run.reason}")
                    return 1
                times.append(run.kernel_seconds)
            results[label] = statistics.median(times)
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENBLAS_")}
        env["OPENBLAS_NUM_THREADS"] = str(args.threads)
        proc = subprocess.run([sys.executable, "-c", NUMPY_TIMER, str(sizes["NI"]), str(sizes["NJ"]),
                               str(sizes["NK"]), str(args.repeat)],
                              capture_output=True, text=True, env=env, timeout=600)
        if proc.returncode != 0:
            print(f"numpy: failed: {proc.stderr.strip().splitlines()[-1:]}")
            return 1
        numpy_run = json.loads(proc.stdout)
        results["numpy/OpenBLAS dgemm"] = statistics.median(numpy_run["times"])

    peak, why = peak_gflops(args.threads)
    print(f"gemm {args.dataset} ({sizes}), {args.threads} threads, median of {args.repeat}")
    for label, seconds in results.items():
        print(f"  {label:28s} {seconds:9.4f} s  {flops / seconds / 1e9:7.2f} GFLOP/s")
    ours = flops / results["polysched pluto tile+par"]
    blas = flops / results["numpy/OpenBLAS dgemm"]
    print(f"  polysched / dgemm: {ours / blas:.1%}   (OpenBLAS build config: {numpy_run['blas']})")
    print(f"  DP peak: {peak:.1f} GFLOP/s = {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
