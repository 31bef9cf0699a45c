"""Search efficiency (issue 13): does the model-guided search reach within 5% of an
exhaustive grid's best while measuring at most 15% of the grid?

    python experiments/search_efficiency.py [--kernels gemm,2mm,syrk,trmm,jacobi-2d,doitgen]
        [--dataset LARGE] [--threads 2] [--db grids.sqlite] [--no-measure]
        [--budget 0.15] [--seeds 10] [--first-seed 0] [--within 0.05] [--prior]

1. **Grid.** Per kernel, a space of 200-450 points (``GRID_SPACES``: the tile sizes of
   the band where the time goes, from 16 to 256 and the model's, the point-loop
   order, for doitgen unroll-and-jam; every other band keeps the model's sizes) is
   measured point by point with ``polysched.tune`` (``--search grid``; each candidate
   verified against the original, then the median of 3 timed runs) into ``--db``. A
   killed run continues where it stopped (``resume``).
2. **Searches, replayed.** Each search runs with a budget of ``--budget`` x the grid's
   size in trials, and its "measurements" are the grid's recorded results for the
   traces it proposes (a replay executor). Every search therefore sees the same
   numbers, and the comparison is not blurred by timing noise between runs. The
   learned model starts from nothing (a fresh database: no earlier measurements), or
   with ``--prior`` from the other kernels' grids, as ``polysched tune`` learns from
   the earlier campaigns in its database (never from this kernel's own grid).
   Searches: evolutionary with the learned model (the default of ``polysched tune``),
   evolutionary with the projected model, and random, each under ``--seeds`` seeds
   from ``--first-seed`` on (a later range: seeds held out from any tuning of the
   search on these grids).
3. Prints, per kernel: the grid's size and best, how much of the grid is within
   ``--within`` of that best (how hard the target is: random search hits a wide
   target too), and per search the median over seeds of best-found / grid-best and
   the number of seeds that got within ``--within``.
"""
from __future__ import annotations

import argparse
import math
import sqlite3
import statistics
import sys
import tempfile
from pathlib import Path

KERNELS = "gemm,2mm,syrk,trmm,jacobi-2d,doitgen"
# What each grid varies (SpaceOptions fields); 3-member bands: 5^3 sizes x 2 orders = 250
COMMON = {"fusions": ("cost",), "identity": False, "tensorize": False, "divisors": 0,
          "model_sizes": True, "unroll": (1,), "parallel": (True,), "wavefront": (True,), "max_genes": 1}
GRID_SPACES = {
    "default": {"powers": (16, 32, 64, 128, 256), "reorder": (True, False), "uaj": ()},
    # a 2-member band: 6^2 sizes x 2 orders x 3 unroll-and-jam choices = 216
    "doitgen": {"powers": (8, 16, 32, 64, 128, 256), "reorder": (True, False), "uaj": (2, 4)},
}
SEARCHES = (("evolutionary", "learned"), ("evolutionary", "projected"), ("random", "projected"))


def grid_options(name: str):
    from polysched.tune import SpaceOptions
    return SpaceOptions(**COMMON, **GRID_SPACES.get(name, GRID_SPACES["default"]))


def main(argv=None) -> int:
    from polysched.bench.suite import dataset_arg
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernels", default=KERNELS)
    parser.add_argument("--dataset", default="LARGE", type=dataset_arg)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--db", type=Path, default=Path("grids.sqlite"))
    parser.add_argument("--no-measure", action="store_true", help="use the grids the database holds")
    parser.add_argument("--budget", type=float, default=0.15, help="trials as a fraction of the grid")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--first-seed", type=int, default=0,
                        help="seeds first-seed .. first-seed + seeds - 1 (held-out seeds: e.g. 10)")
    parser.add_argument("--within", type=float, default=0.05)
    parser.add_argument("--prior", action="store_true",
                        help="the learned model starts from the other kernels' grids")
    args = parser.parse_args(argv)
    from polysched.bench.machine import provenance, provenance_line
    print(provenance_line(provenance(**vars(args))), flush=True)

    from polysched.tune import FunctionExecutor, LocalExecutor, Target, tune
    from polysched.tune.space import SearchSpace

    kernels = [k.strip() for k in args.kernels.split(",") if k.strip()]
    grids = {}
    executor = None if args.no_measure else LocalExecutor(2)
    try:
        for name in kernels:
            target = Target.of(name)
            options = grid_options(name)
            size = sum(1 for _ in SearchSpace(target.program(args.dataset), options).enumerate())
            result = tune(target, db=args.db, trials=size, search="grid", model="projected", seed=0,
                          resume=True, dataset=args.dataset, threads=args.threads, repeat=3,
                          space_options=options, executor=executor or FunctionExecutor(_no_measurement))
            grids[name] = result
            print(f"{name}: grid of {size} points, {len(result.trials)} recorded {result.counts()}", flush=True)
    finally:
        if executor is not None:
            executor.close()

    print(f"\nbudget {args.budget:.0%} of each grid, {args.seeds} seeds ({args.first_seed}-"
          f"{args.first_seed + args.seeds - 1}), target: within "
          f"{args.within:.0%} of the grid's best; cells: median best-found / grid-best "
          f"(seeds within target)\n")
    header = " | ".join(f"{search}+{model}" for search, model in SEARCHES)
    print(f"| kernel | grid | ok | best (s) | default/best | grid within target | trials | {header} |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |" + " ---: |" * len(SEARCHES))
    summary = {key: [] for key in SEARCHES}
    for name, grid in grids.items():
        table = {t.trace: t for t in grid.trials}
        ok = [t.median for t in grid.ok]
        if not ok:
            print(f"| {name} | {len(table)} | 0 | - | - | - | - |" + " - |" * len(SEARCHES))
            continue
        best = min(ok)
        default = grid.default.median if grid.default is not None and grid.default.median else None
        near = sum(1 for m in ok if m <= best * (1 + args.within))
        trials = max(1, math.floor(args.budget * len(table)))
        cells = []
        for search, model in SEARCHES:
            ratios = []
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                ratios.append(_replay(name, table, search, model, seed, trials, args) / best)
            hits = sum(1 for r in ratios if r <= 1 + args.within)
            summary[(search, model)].append((statistics.median(ratios), hits))
            cells.append(f"{statistics.median(ratios):.3f} ({hits}/{args.seeds})")
        print(f"| {name} | {len(table)} | {len(ok)} | {best:.4g} | "
              f"{(default / best) if default else float('nan'):.2f} | {near} ({near / len(ok):.0%}) | "
              f"{trials} | " + " | ".join(cells) + " |", flush=True)
    print()
    for (search, model), rows in summary.items():
        if rows:
            print(f"{search}+{model}: median ratio over kernels {statistics.median(r for r, _ in rows):.3f}; "
                  f"kernels whose median is within target {sum(1 for r, _ in rows if r <= 1 + args.within)}"
                  f"/{len(rows)}; seeds within target {sum(h for _, h in rows)}/{len(rows) * args.seeds}")
    return 0


def _no_measurement(job):
    raise SystemExit(f"--no-measure: the database lacks a grid point ({job.trace[:80]}...); measurements "
                     "are kept per machine fingerprint and kernel path, and the traces hold this machine's "
                     "cache sizes, so a grid measured on another machine cannot be replayed here "
                     "(run without --no-measure to measure the grids)")


def _replay(name, table, search, model, seed, trials, args) -> float:
    """The best median a ``search`` finds in ``trials`` trials when every measurement is
    the grid's recorded result for the proposed trace."""
    from polysched.tune import FunctionExecutor, Target, tune
    from polysched.tune.measure import Result

    def measure(job):
        recorded = table.get(job.trace)
        if recorded is None:
            return Result(job.index, "failed", "not in the grid")
        return Result(job.index, recorded.status, recorded.reason or "", [recorded.median] if recorded.median else [],
                      recorded.median)

    with tempfile.TemporaryDirectory(prefix="replay-") as tmp:
        db = Path(tmp) / "replay.sqlite"
        if args.prior:
            # a copy: the learned model reads the other kernels' rows (prior_history
            # leaves out this kernel's), and the replay's own rows go into the copy
            with sqlite3.connect(args.db) as source, sqlite3.connect(db) as copy:
                source.backup(copy)
        result = tune(Target.of(name), db=db, trials=trials, search=search, model=model,
                      seed=seed, dataset=args.dataset, threads=args.threads, repeat=3,
                      space_options=grid_options(name), executor=FunctionExecutor(measure))
    found = [t.median for t in result.ok]
    return min(found) if found else math.inf


if __name__ == "__main__":
    sys.exit(main())
