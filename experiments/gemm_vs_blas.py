"""gemm against numpy/OpenBLAS dgemm, same threads: polysched `pluto tile+par` and the
tensorized programs (the packed micro-kernel path, not a BLAS call).

Usage: .venv/bin/python experiments/gemm_vs_blas.py [--threads 1 2] [--repeat 5]
           [--dataset LARGE] [--size 2000]

Prints GFLOP/s (medians of ``--repeat`` runs, the variants' runs interleaved numpy's too, so
that the load of a shared machine hits them alike) of:

- orig: the kernel file, gcc -O3 -march=native;
- polysched pluto tile+par;
- tensorize exact: ``Program.tensorize("S1", "dgemm_packed_scaled", parallel=True)``
  (packed panels, register-blocked micro-kernel, separate multiply and add: bit-identical
  to the original compiled with -ffp-contract=off; checked here at MINI);
- tensorize fma (opt-in): the same with ``dgemm_packed_fma_scaled`` (fused multiply-adds,
  not bit-identical);
- numpy's dgemm (C = alpha*A@B + beta*C, same sizes),

the ratios to dgemm, and the machine's double-precision peak with its assumptions.
``--size N``: NI = NJ = NK = N instead of the dataset's sizes.

numpy runs in a subprocess with OPENBLAS_NUM_THREADS set and OPENBLAS_CORETYPE /
OPENBLAS_L2_SIZE unset (they pin an older, slower kernel on this machine; see the
workplace notes).
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

import polysched as ps
from polysched.bench import compile_c, get, run_binary
from polysched.pipeline import OptimizeOptions, optimize
from polysched.tensorize import INCLUDE_DIR

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
BLAS = "numpy/OpenBLAS dgemm"


def peak_gflops(cores: int) -> tuple[float, float, str]:
    """(FMA peak, peak without FMA, assumptions): cores x 2 FMA pipes x doubles per
    vector x 2 flops x GHz. Without FMA, a multiply and an add are two instructions: on
    Intel cores they share the same two pipes (ports 0 and 5), half the peak; AMD Zen
    cores have two add pipes beside the two multiply-add pipes, the same peak. The
    clock is /proc/cpuinfo's nominal one: with turbo a run can beat this "peak"."""
    text = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    mhz = [float(line.split(":")[1]) for line in text.splitlines() if line.startswith("cpu MHz")]
    ghz = (max(mhz) / 1000) if mhz else 2.5
    lanes = 8 if " avx512f" in text else 4 if " avx2" in text else 2
    fma_units = 2
    peak = cores * fma_units * lanes * 2 * ghz
    amd = "AuthenticAMD" in text
    why = (f"{cores} cores x {fma_units} FMA pipes x {lanes} doubles/vector x 2 flops x {ghz:.2f} GHz "
           f"(nominal clock from /proc/cpuinfo, turbo not counted; full-width {lanes * 64}-bit FMA pipes; "
           + ("separate multiply + add: the same, on Zen's add pipes)" if amd else
              "separate multiply + add: half of it)"))
    return peak, peak if amd else peak / 2, why


def sources(kernel, tmp: Path) -> dict[str, tuple[Path, bool]]:
    """label -> (C file, needs the intrinsics header)"""
    out = tmp / "gemm.pluto-tile-par.c"
    out.write_text(optimize(kernel.path, OptimizeOptions.from_flags(tile=True, parallel=True)).text)
    result = {"orig": (kernel.path, False), "polysched pluto tile+par": (out, False)}
    program = ps.Program.from_file(kernel.path)
    for label, intrinsic in (("tensorize exact", "dgemm_packed_scaled"),
                             ("tensorize fma (opt-in)", "dgemm_packed_fma_scaled")):
        tensorized = program.tensorize("S1", intrinsic, parallel=True)
        if label == "tensorize exact":
            check = tensorized.verify()
            if check.status != "equal":
                raise SystemExit(f"{label}: verify: {check}")
        path = tmp / f"gemm.{intrinsic}.c"
        tensorized.write(path)
        result[label] = (path, True)
    return result


def main() -> int:
    from polysched.bench.suite import dataset_arg
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, nargs="+", default=[os.cpu_count()])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dataset", default="LARGE", type=dataset_arg,
                        help="MINI ... EXTRALARGE, any case (default LARGE)")
    parser.add_argument("--size", type=int, help="NI = NJ = NK = SIZE")
    args = parser.parse_args()
    from polysched.bench.machine import provenance, provenance_line
    print(provenance_line(provenance(**vars(args))), flush=True)

    kernel = get("gemm")
    sizes = dict(kernel.sizes[args.dataset])
    defines = {f"{args.dataset}_DATASET": None}
    if args.size:
        sizes = {"NI": args.size, "NJ": args.size, "NK": args.size}
        defines.update({k: str(v) for k, v in sizes.items()})
    flops = 2.0 * sizes["NI"] * sizes["NJ"] * sizes["NK"] + sizes["NI"] * sizes["NJ"]
    print(f"gemm {sizes}, median of {args.repeat} (runs interleaved); load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="gemm-blas-") as tmp:
        tmp = Path(tmp)
        binaries = {}
        for label, (source, header) in sources(kernel, tmp).items():
            binary = tmp / label.replace(" ", "_").replace("/", "_").replace("(", "").replace(")", "")
            includes = [kernel.path.parent] + ([INCLUDE_DIR] if header else [])
            built = compile_c(source, binary, defines=defines, include_dirs=includes, openmp=True)
            if not built.ok:
                print(f"{label}: compile failed: {built.reason}")
                return 1
            binaries[label] = binary
        for threads in args.threads:
            env = {k: v for k, v in os.environ.items() if not k.startswith("OPENBLAS_")}
            env["OPENBLAS_NUM_THREADS"] = str(threads)
            times: dict[str, list[float]] = {label: [] for label in [*binaries, BLAS]}
            config = ""
            for _ in range(args.repeat):
                for label, binary in binaries.items():
                    run = run_binary(binary, threads=threads, timeout=900)
                    if not run.ok:
                        print(f"{label}: {run.reason}")
                        return 1
                    times[label].append(run.kernel_seconds)
                proc = subprocess.run([sys.executable, "-c", NUMPY_TIMER, str(sizes["NI"]), str(sizes["NJ"]),
                                       str(sizes["NK"]), "1"],
                                      capture_output=True, text=True, env=env, timeout=900)
                if proc.returncode != 0:
                    print(f"numpy: failed: {proc.stderr.strip().splitlines()[-1:]}")
                    return 1
                numpy_run = json.loads(proc.stdout)
                times[BLAS] += numpy_run["times"]
                config = numpy_run["blas"]
            results = {label: statistics.median(t) for label, t in times.items()}
            blas = flops / results[BLAS]
            peak, peak_nofma, why = peak_gflops(threads)
            print(f"\n{threads} thread(s); load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
            print(f"  {'variant':28s} {'seconds':>9s}  {'GFLOP/s':>7s}  {'% of dgemm':>10s}  {'x orig':>6s}")
            for label, seconds in results.items():
                rate = flops / seconds / 1e9
                print(f"  {label:28s} {seconds:9.4f}  {rate:7.2f}  {rate * 1e9 / blas:10.1%}  "
                      f"{results['orig'] / seconds:6.2f}")
            print(f"  OpenBLAS build config: {config}")
            print(f"  DP peak: {peak:.1f} GFLOP/s (without FMA {peak_nofma:.1f}) = {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
