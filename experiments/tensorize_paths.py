"""Kernel time of the original against the tensorized program on each ISA path of
polysched_intrinsics.h, forced with its -D switches on one machine (the AVX2-only path
is what an AVX2-only Zen 3 runs; the original is always compiled -O3 -march=native for
this machine, so the AVX2 ratios are conservative).

    .venv/bin/python experiments/tensorize_paths.py [--dataset LARGE] [--repeat 5]
        [--threads 1] [--reassociate] [KERNEL...]

Runs are interleaved (original, path 1, path 2, ...) and the medians compared: on a
shared machine quote the ratios, not the times. The tensorized program is
``auto_tensorize(..., parallel=True)`` (exact intrinsics only unless --reassociate),
verified at MINI on the native path first.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

import polysched as ps
from polysched.bench import compile_c, get, run_binary
from polysched.bench.harness import DEFAULT_CFLAGS
from polysched.tensorize import INCLUDE_DIR, auto_tensorize, builtin_intrinsics

PATHS = {
    "native": [],
    "no-avx512 (AVX-VNNI / AVX2)": ["-DPOLYSCHED_NO_AVX512"],
    "avx2 only": ["-DPOLYSCHED_NO_AVX512", "-DPOLYSCHED_NO_AVXVNNI"],
    "portable": ["-DPOLYSCHED_FORCE_PORTABLE"],
}


def main() -> int:
    from polysched.bench.suite import dataset_arg
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kernels", nargs="*", default=["matmul-int8", "gemm"])
    parser.add_argument("--dataset", default="LARGE", type=dataset_arg,
                        help="MINI ... EXTRALARGE, any case (default LARGE)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--reassociate", action="store_true")
    args = parser.parse_args()
    from polysched.bench.machine import provenance, provenance_line
    print(provenance_line(provenance(**vars(args))), flush=True)
    print(f"{args.dataset}, {args.threads} thread(s), median of {args.repeat} interleaved runs; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| kernel | intrinsics | orig s | " + " | ".join(f"{p} s (x orig)" for p in PATHS) + " |")
    print("| --- | --- | ---: | " + " | ".join("---:" for _ in PATHS) + " |")
    for name in args.kernels:
        kernel = get(name)
        program, report = auto_tensorize(ps.Program.from_file(kernel.path), builtin_intrinsics(),
                                         parallel=True, reassociate=args.reassociate)
        used = ", ".join(f"{a.statement}:{a.match.intrinsic}" for a in report if a.applied)
        check = program.verify()
        if check.status != "equal":
            print(f"{name}: verify: {check}")
            return 1
        defines = {f"{args.dataset}_DATASET": None}
        with tempfile.TemporaryDirectory(prefix="tensorize-paths-") as tmp:
            tmp = Path(tmp)
            source = tmp / f"{name}.c"
            program.write(source)
            binaries = {}
            for label, flags, src in [("orig", [], kernel.path)] + [(p, f, source) for p, f in PATHS.items()]:
                binary = tmp / f"b{len(binaries)}"
                built = compile_c(src, binary, cflags=[*DEFAULT_CFLAGS, *flags], defines=defines,
                                  include_dirs=[kernel.path.parent, INCLUDE_DIR], openmp=True)
                if not built.ok:
                    print(f"{name} {label}: {built.reason}")
                    return 1
                binaries[label] = binary
            times = {label: [] for label in binaries}
            for _ in range(args.repeat):
                for label, binary in binaries.items():
                    run = run_binary(binary, threads=args.threads, timeout=900)
                    if not run.ok:
                        print(f"{name} {label}: {run.reason}")
                        return 1
                    times[label].append(run.kernel_seconds)
        med = {label: statistics.median(t) for label, t in times.items()}
        cells = " | ".join(f"{med[p]:.4f} ({med['orig'] / med[p]:.2f}x)" for p in PATHS)
        print(f"| {name} | {used} | {med['orig']:.4f} | {cells} |")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
