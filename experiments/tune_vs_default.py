"""Tuned against default (issue 13): per kernel, a tuning campaign (``polysched.tune``),
then the best verified record and the default ``optimize --tile --parallel`` timed
again, interleaved in one process (``ab_sources.time_pair``), so the figure is not the
campaign's own best-of-N (which the luckiest sample flatters).

    python experiments/tune_vs_default.py --kernels gemm,jacobi-2d,atax --trials 12 \\
        [--dataset MEDIUM] [--threads 1] [--repeat 5] [--db tune-vs-default.sqlite] [--out DIR]
        [--classic] [--max-genes N]

``--classic``: the 30 classic kernels (issue 13's goal: LARGE, 2 threads, <= 64 trials).

Prints the campaign's own ratio and the re-timed one per kernel, and their geomeans.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def main(argv=None) -> int:
    from polysched.bench.suite import dataset_arg
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernels", default="gemm,2mm,jacobi-2d,atax,mvt,syrk,heat-3d,trmm")
    parser.add_argument("--trials", type=int, default=12)
    parser.add_argument("--dataset", default="MEDIUM", type=dataset_arg)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--db", type=Path, default=Path("tune-vs-default.sqlite"))
    parser.add_argument("--out", type=Path, default=Path("tune-vs-default"))
    parser.add_argument("--search", default="evolutionary")
    parser.add_argument("--model", default="learned")
    parser.add_argument("--classic", action="store_true", help="the 30 classic kernels (overrides --kernels)")
    parser.add_argument("--max-genes", type=int, default=0,
                        help="vary the sizes of the N heaviest bands only (SpaceOptions.max_genes)")
    args = parser.parse_args(argv)

    from ab_sources import time_pair
    from polysched.bench.machine import provenance, provenance_line
    from polysched.bench.suite import get
    from polysched.pipeline import OptimizeOptions, optimize
    from polysched.tune import LocalExecutor, SpaceOptions, Target, best_program, tune

    print(provenance_line(provenance(**vars(args))), flush=True)
    default_dir, tuned_dir = args.out / "default", args.out / "tuned"
    default_dir.mkdir(parents=True, exist_ok=True)
    tuned_dir.mkdir(parents=True, exist_ok=True)
    own = {}
    if args.classic:
        from polysched.bench.suite import kernels
        names = [k.name for k in kernels(classic_only=True)]
    else:
        names = [k.strip() for k in args.kernels.split(",") if k.strip()]
    with LocalExecutor(2) as executor:
        for name in names:
            start = time.perf_counter()
            target = Target.of(name)
            result = tune(target, db=args.db, trials=args.trials, search=args.search, model=args.model,
                          resume=True, dataset=args.dataset, threads=args.threads, executor=executor,
                          space_options=SpaceOptions(max_genes=args.max_genes))
            program, row = best_program(args.db, target)
            if program is None or result.default is None or result.default.status != "ok":
                print(f"{name}: no verified best or default: {result.counts()}", flush=True)
                continue
            own[name] = result.default.median / row.median
            (default_dir / f"{name}.c").write_text(
                optimize(get(name).path, OptimizeOptions.from_flags(tile=True, parallel=True)).text)
            (tuned_dir / f"{name}.c").write_text(program.c_code())
            print(f"{name}: {len(result.trials)} trials {result.counts()} in "
                  f"{time.perf_counter() - start:.0f} s; campaign's own best {own[name]:.2f}x the default "
                  f"(trial {row.seq})", flush=True)
    print("\nre-timed, interleaved (A = default, B = tuned best; A/B > 1: tuning wins):", flush=True)
    time_pair(default_dir, tuned_dir, args.threads, args.repeat, args.dataset)
    if own:
        import statistics
        print(f"campaigns' own geomean: {statistics.geometric_mean(own.values()):.3f} over {len(own)} kernels")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    sys.exit(main())
