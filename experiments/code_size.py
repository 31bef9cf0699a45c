"""Generated code size and gcc compile time per suite kernel (issue 12: "gcc -O3 compile
time < 10 s and < 3,000 lines per kernel"; Pluto's diamond-tiled heat-3d is 4,087 lines
and takes gcc 109 s).

    python experiments/code_size.py [--flags tile,parallel] [--kernels gemm,heat-3d] [--repeat 3]

For each kernel: the lines of the optimized region (the text between ``#pragma scop``
and ``#pragma endscop`` of ``polysched optimize``'s output, the original kept for the
run-time fallback included) and of the whole file, and the median wall time of
``gcc -O3 -march=native -fopenmp -c`` on the original and on the output, side by side.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _compile_seconds(source: Path, include: Path, repeat: int, obj: Path) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(["gcc", "-O3", "-march=native", "-fopenmp", f"-I{include}", "-c", str(source),
                        "-o", str(obj)], check=True, capture_output=True, timeout=600)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _region_lines(text: str) -> int:
    lines = text.splitlines()
    start = next(k for k, line in enumerate(lines) if line.strip().startswith("#pragma scop"))
    end = max(k for k, line in enumerate(lines) if line.strip().startswith("#pragma endscop"))
    return end - start + 1


def main(argv=None) -> int:
    from polysched.bench.machine import provenance, provenance_line
    from polysched.bench.suite import get, kernels
    from polysched.pipeline import OptimizeOptions, optimize

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flags", default="tile,parallel",
                        help="OptimizeOptions.from_flags switches set to True (default tile,parallel)")
    parser.add_argument("--kernels", default="", help="comma-separated (default: the whole suite)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(provenance_line(provenance(**vars(args))), flush=True)
    names = [k for k in args.kernels.split(",") if k] or [k.name for k in kernels()]
    flags = {f: True for f in args.flags.split(",") if f}
    print("| kernel | region lines (orig) | region lines | file lines | gcc -O3 orig (s) | gcc -O3 output (s) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    worst_lines, worst_seconds = ("", 0), ("", 0.0)
    with tempfile.TemporaryDirectory(prefix="polysched-size-") as tmp:
        for name in names:
            kernel = get(name)
            original = Path(kernel.path).read_text()
            text = optimize(kernel.path, OptimizeOptions.from_flags(**flags)).text
            out = Path(tmp) / f"{name}.c"
            out.write_text(text)
            obj = Path(tmp) / "out.o"
            orig_seconds = _compile_seconds(Path(kernel.path), Path(kernel.path).parent, args.repeat, obj)
            seconds = _compile_seconds(out, Path(kernel.path).parent, args.repeat, obj)
            lines = _region_lines(text)
            print(f"| {name} | {_region_lines(original)} | {lines} | {len(text.splitlines())} | "
                  f"{orig_seconds:.2f} | {seconds:.2f} |", flush=True)
            worst_lines = max(worst_lines, (name, lines), key=lambda item: item[1])
            worst_seconds = max(worst_seconds, (name, seconds), key=lambda item: item[1])
    print(f"\nlargest region: {worst_lines[0]} ({worst_lines[1]} lines); slowest compile: "
          f"{worst_seconds[0]} ({worst_seconds[1]:.2f} s, median of {args.repeat})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
