"""Coverage table of the tensorize matcher: every suite kernel x every shipped intrinsic.

    .venv/bin/python experiments/tensorize_coverage.py [--repeat 5]

Per (kernel, intrinsic): structural matches found by SAT and by the brute-force oracle
(summed over the kernel's statements; for an intrinsic with an init statement, the
pairs of statements), legal matches, and the SAT matching time per
(statement, intrinsic) pair (median of --repeat runs, full enumeration; the maximum over
the kernel's statements). Ends with the overall distribution of the per-pair times.
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from polysched.dependence import analyze
from polysched.scop import extract
from polysched.tensorize import builtin_intrinsics
from polysched.tensorize.brute import brute_force_matches
from polysched.tensorize.legality import legality
from polysched.tensorize.match import structural_matches
from polysched.tensorize.problem import make_problem
from polysched.tensorize.sat import sat_matches

KERNELS = Path(__file__).resolve().parent.parent / "polysched" / "bench" / "kernels"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    from polysched.bench.machine import provenance, provenance_line
    print(provenance_line(provenance(**vars(args))), flush=True)
    intrinsics = builtin_intrinsics()
    times, brute_times, rows, agree_all = [], [], [], True
    for path in sorted(KERNELS.glob("*.c")):
        for scop in extract(str(path)):
            deps = analyze(scop)
            for intrinsic in intrinsics:
                n_sat = n_brute = n_legal = 0
                worst = 0.0
                agree = True
                for stmt in scop.statements:
                    problem = make_problem(scop, stmt, intrinsic)
                    samples = []
                    for _ in range(args.repeat):
                        start = time.perf_counter()
                        sat = structural_matches(problem, sat_matches)
                        samples.append(time.perf_counter() - start)
                    pair = statistics.median(samples)
                    times.append(pair)
                    worst = max(worst, pair)
                    start = time.perf_counter()
                    brute = structural_matches(problem, brute_force_matches)
                    brute_times.append(time.perf_counter() - start)
                    keys = [(s, p.init) for s, p in sat]
                    agree &= set(keys) == {(s, p.init) for s, p in brute} and len(keys) == len(set(keys))
                    n_sat += len(sat)
                    n_brute += len(brute)
                    for (loops, _arrays), matched in sat:
                        loop_map = [(intrinsic.loops.index(a), problem.pattern.loops.index(b))
                                    for a, b in loops]
                        n_legal += legality(matched, loop_map, deps)[0]
                agree_all &= agree
                if n_sat or n_brute:
                    rows.append((path.stem, intrinsic.name, n_sat, n_brute, n_legal,
                                 "yes" if agree else "NO", worst * 1000))
    print("| kernel | intrinsic | SAT matches | brute-force matches | legal | same set | max SAT ms/pair |")
    print("| --- | --- | ---: | ---: | ---: | --- | ---: |")
    for row in rows:
        print("| %s | %s | %d | %d | %d | %s | %.2f |" % row)
    print()
    print(f"pairs: {len(times)} (statement, intrinsic) over {len(list(KERNELS.glob('*.c')))} kernels; "
          f"SAT == brute force on all: {agree_all}; pairs with no match omitted above")
    qs = statistics.quantiles(times, n=100)
    print(f"SAT time per pair (median of {args.repeat}): median {statistics.median(times) * 1000:.2f} ms, "
          f"p99 {qs[98] * 1000:.2f} ms, max {max(times) * 1000:.2f} ms")
    print(f"brute force per pair: median {statistics.median(brute_times) * 1000:.2f} ms, "
          f"max {max(brute_times) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
