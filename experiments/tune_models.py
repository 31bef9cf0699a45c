"""How well each cost model ranks candidates: Spearman rank correlation against measured
times on held-out measurements (issue 13).

    python experiments/tune_models.py [--kernels gemm,jacobi-2d,syrk] [--trials 40]
        [--dataset MEDIUM] [--threads 2] [--db tune-models.sqlite] [--no-measure] [--seed 0]
        [--train-fraction 0.5]

1. Measures ``--trials`` random candidates per kernel with ``polysched.tune`` (verified,
   median of 3 runs), into ``--db`` (``--no-measure``: use what the database holds).
2. Splits each kernel's verified measurements at random (``--seed``) into a training
   part (``--train-fraction``, default half) and the held-out rest: the learned model
   (LightGBM) trains on the kernel's training part and on every measurement
   of the other kernels; SOL and projected need no training.
3. Prints, per kernel and pooled, the Spearman correlation of each model's scores with
   the measured medians of the held-out part, with the provenance of the run.
"""
from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from pathlib import Path


def main(argv=None) -> int:
    from polysched.bench.suite import dataset_arg
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernels", default="gemm,jacobi-2d,syrk")
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--dataset", default="MEDIUM", type=dataset_arg,
                        help="MINI ... EXTRALARGE, any case (default MEDIUM)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--db", type=Path, default=Path("tune-models.sqlite"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-measure", action="store_true")
    parser.add_argument("--train-fraction", type=float, default=0.5,
                        help="share of each kernel's measurements the learned model trains on")
    args = parser.parse_args(argv)
    from polysched.bench.machine import provenance, provenance_line
    print(provenance_line(provenance(**vars(args))), flush=True)

    import numpy as np

    from polysched.bench.machine import git_commit
    from polysched.tune import LocalExecutor, SpaceOptions, Target, TuneDB, make_model, spearman, tune
    from polysched.tune.db import machine_fingerprint, machine_identity
    from polysched.tune.space import SearchSpace

    kernels = [k.strip() for k in args.kernels.split(",") if k.strip()]
    identity = machine_identity()
    machine_fp = machine_fingerprint(identity)
    print(f"machine {machine_fp}: {identity['cpu_model']}, {identity['cores']} cores, "
          f"{identity['compiler_version']}; commit {git_commit()['commit']}", flush=True)
    if not args.no_measure:
        with LocalExecutor(2) as executor:
            for name in kernels:
                result = tune(Target.of(name), db=args.db, trials=args.trials, search="random", model="projected",
                              seed=args.seed, resume=True, dataset=args.dataset, threads=args.threads,
                              executor=executor)
                print(f"{name}: {len(result.trials)} trials, {result.counts()}", flush=True)

    rng = random.Random(args.seed)
    per_kernel = {}          # name -> (space analysis holder, test rows, train rows)
    store = TuneDB(args.db)
    for name in kernels:
        target = Target.of(name)
        program = target.program(args.dataset)
        kernel_fp = target.fingerprint(program)
        rows = [r for r in store.rows(kernel_fp=kernel_fp, machine_fp=machine_fp, status="ok")
                if r.dataset == args.dataset and r.config is not None and r.median]
        if len(rows) < 6:
            print(f"{name}: only {len(rows)} verified measurements at {args.dataset}; skipped")
            continue
        campaign = store.campaign(rows[0].campaign_id)
        space = SearchSpace(program, SpaceOptions.from_dict(campaign["config"]["space"]))
        rng.shuffle(rows)
        cut = max(1, min(len(rows) - 1, round(args.train_fraction * len(rows))))
        per_kernel[name] = (space, rows[:cut], rows[cut:])

    results = {m: [] for m in ("sol", "projected", "learned")}
    pooled = {m: [] for m in results}
    print(f"\n| kernel | held out | SOL | projected | learned |\n| --- | ---: | ---: | ---: | ---: |")
    for name, (space, train, test) in per_kernel.items():
        measured = [r.median for r in test]
        configs = [r.config for r in test]
        line = [name, str(len(test))]
        for kind in ("sol", "projected", "learned"):
            model = make_model(kind, space, store=store, machine_fp=machine_fp, threads=args.threads,
                               seed=args.seed)
            if kind == "learned":
                model.prior = []
                for other, (other_space, other_train, other_test) in per_kernel.items():
                    if other == name:
                        continue
                    analysis = make_model("projected", other_space, store=store, machine_fp=machine_fp,
                                          threads=args.threads).analysis
                    both = other_train + other_test
                    reference = statistics.median(math.log(r.median) for r in both)
                    model.prior += [(analysis.features(r.config), math.log(r.median) - reference) for r in both]
                for r in train:
                    model.observe(r.config, r.status, r.median)
            scores = model.rank(configs)
            rho = spearman(scores, measured)
            results[kind].append(rho)
            # pooled: ranks within the kernel, so kernels of different speeds can be pooled
            pooled[kind] += list(zip(_ranks(scores), _ranks(measured)))
            line.append(f"{rho:.3f}")
        print("| " + " | ".join(line) + " |")
    print()
    for kind in results:
        values = [v for v in results[kind] if not math.isnan(v)]
        if values:
            xs, ys = zip(*pooled[kind])
            print(f"{kind:10s} mean Spearman {np.mean(values):.3f} over {len(values)} kernels; "
                  f"pooled within-kernel ranks {spearman(xs, ys):.3f}")
    store.close()
    return 0


def _ranks(values):
    order = sorted(range(len(values)), key=lambda k: values[k])
    ranks = [0.0] * len(values)
    for position, k in enumerate(order):
        ranks[k] = position / max(1, len(values) - 1)
    return ranks


if __name__ == "__main__":
    sys.exit(main())
