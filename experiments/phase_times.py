"""Time of every phase of `polysched optimize` per suite kernel (medians of N runs).

    .venv/bin/python experiments/phase_times.py [--repeat 3] [--scheduler pluto] [KERNEL ...]

Runs polysched.pipeline.optimize(kernel, tile + parallel) and prints, per kernel, the
median seconds of extract, deps, schedule, tile, codegen, tensorize (the default's
search for micro-kernel matches) and the total, then the
median and maximum over the suite. ``extract (cold)`` is the first run of each kernel,
before the preprocessor-macro cache is warm (what a one-shot CLI call pays).
Goals: extract well under 1 s; whole pipeline median < 1 s, max < 10 s.
"""
from __future__ import annotations

import argparse
import statistics
import sys

from polysched.bench import get, kernels
from polysched.pipeline import OptimizeOptions, optimize

PHASES = ("extract", "deps", "schedule", "tile", "codegen", "tensorize")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kernels", nargs="*")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scheduler", default="pluto", choices=["pluto", "isl", "identity"])
    args = parser.parse_args()
    from polysched.bench.machine import provenance, provenance_line
    print(provenance_line(provenance(**vars(args))), flush=True)
    selected = [get(name) for name in args.kernels] if args.kernels else kernels()
    options = OptimizeOptions.from_flags(scheduler=args.scheduler, tile=True, parallel=True)

    rows = []
    print(f"{'kernel':16s} {'extract(cold)':>13s} " + " ".join(f"{p:>9s}" for p in PHASES) + f" {'total':>9s}")
    for kernel in selected:
        runs = [optimize(kernel.path, options).phase_seconds for _ in range(args.repeat)]
        cold = runs[0]["extract"]
        med = {p: statistics.median(r.get(p, 0.0) for r in runs) for p in PHASES}
        total = statistics.median(sum(r.values()) for r in runs)
        rows.append((kernel.name, cold, med, total))
        print(f"{kernel.name:16s} {cold:13.3f} " + " ".join(f"{med[p]:9.3f}" for p in PHASES) + f" {total:9.3f}")
    for label, fn in (("median", statistics.median), ("max", max)):
        print(f"{label:16s} {fn(r[1] for r in rows):13.3f} "
              + " ".join(f"{fn(r[2][p] for r in rows):9.3f}" for p in PHASES)
              + f" {fn(r[3] for r in rows):9.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
