"""The cost of the run-time checks (code versioning, see polysched/emit_c/versioning.py).

Usage: .venv/bin/python experiments/versioning_cost.py [--dataset MEDIUM] [--repeat 5]
       [--threads 2] [--mode tile-par] [KERNEL ...]

For every suite kernel, the same schedule is emitted twice: with the guard
``if (assumptions) { optimized } else { original }`` (what polysched writes) and bare
(``EmitOptions(versioning=False)``: the unchecked code of before). Both and the
original are compiled with identical flags (-O3 -march=native -fopenmp
-ffp-contract=off) and timed interleaved, ``--repeat`` times each; the kernel time is
the one each program reports on stderr. Prints per kernel the median speedups over
the original and their ratio, then the geometric means.
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
from pathlib import Path

from polysched import emit_c
from polysched.bench import compile_c, get, kernels, time_interleaved
from polysched.pipeline import OptimizeOptions, optimize

MODES = {
    "tile-par": dict(tile=True, parallel=True),
    "tile": dict(tile=True),
    "sched": dict(),
}
CFLAGS = ["-O3", "-march=native", "-ffp-contract=off"]


def main() -> int:
    from polysched.bench.suite import dataset_arg
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kernels", nargs="*")
    parser.add_argument("--dataset", default="MEDIUM", type=dataset_arg,
                        help="MINI ... EXTRALARGE, any case (default MEDIUM)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--mode", choices=sorted(MODES), default="tile-par")
    args = parser.parse_args()
    from polysched.bench.machine import provenance, provenance_line
    print(provenance_line(provenance(**vars(args))), flush=True)
    chosen = [get(name) for name in args.kernels] or kernels()
    ratios_guarded, ratios_bare = [], []
    print(f"{'kernel':<16} {'orig s':>9} {'bare x':>8} {'guarded x':>10} {'guarded/bare':>13}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for kernel in chosen:
            result = optimize(kernel.path, OptimizeOptions.from_flags(**MODES[args.mode]))
            bare = emit_c.emit_file([r.scop for r in result.regions], [r.schedule for r in result.regions],
                                    options=emit_c.EmitOptions(versioning=False))
            sources = {"orig": kernel.path, "guarded": tmp / "guarded.c", "bare": tmp / "bare.c"}
            sources["guarded"].write_text(result.text)
            sources["bare"].write_text(bare)
            binaries = {}
            for name, source in sources.items():
                binary = tmp / f"{kernel.name}-{name}"
                built = compile_c(source, binary, cflags=CFLAGS, openmp=True,
                                  defines={f"{args.dataset}_DATASET": None},
                                  include_dirs=[kernel.path.parent])
                if not built.ok:
                    print(f"{kernel.name}: {name} does not compile: {built.reason}", file=sys.stderr)
                    break
                binaries[name] = binary
            else:
                times = time_interleaved(binaries, threads=args.threads, repeat=args.repeat)
                if not all(times.values()):
                    print(f"{kernel.name}: a run failed", file=sys.stderr)
                    continue
                med = {name: statistics.median(ts) for name, ts in times.items()}
                bare_x, guarded_x = med["orig"] / med["bare"], med["orig"] / med["guarded"]
                ratios_bare.append(bare_x)
                ratios_guarded.append(guarded_x)
                print(f"{kernel.name:<16} {med['orig']:>9.4f} {bare_x:>8.3f} {guarded_x:>10.3f} "
                      f"{guarded_x / bare_x:>13.3f}", flush=True)
    if ratios_bare:
        geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))  # noqa: E731
        print(f"geomean speedup over orig ({len(ratios_bare)} kernels, {args.mode}, {args.dataset}, "
              f"{args.threads} threads, median of {args.repeat}): bare {geo(ratios_bare):.3f}x, "
              f"guarded {geo(ratios_guarded):.3f}x, guarded/bare {geo(ratios_guarded) / geo(ratios_bare):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
