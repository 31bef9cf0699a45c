"""Dependence analysis time per suite kernel (median of N runs, default 5).

    .venv/bin/python experiments/deps_time.py [--repeat 5] [--json out.json] [KERNEL ...]

Columns: ``analyze`` = analyze(scop) (flow, raw, war, waw, rar relations);
``+pairs`` = analyze plus the per-pair views of every kind (carrying levels,
distance/direction vectors) and the SCCs, i.e. everything ``polysched deps`` computes;
``check`` = check() of the original schedule (legality + band analysis).
Extraction is done once and not timed. Goal: every kernel < 1 s, median < 0.1 s.
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from polysched.dependence import KINDS, analyze, check
from polysched.scop import extract

KERNELS = Path(__file__).resolve().parent.parent / "polysched" / "bench" / "kernels"


def _median_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _full(scop):
    deps = analyze(scop)
    for kind in KINDS:
        deps.pairs(kind)
    deps.sccs()
    return deps


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kernels", nargs="*", help="kernel names (default: all)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    from polysched.bench.machine import provenance, provenance_line
    print(provenance_line(provenance(**vars(args))), flush=True)
    paths = sorted(KERNELS.glob("*.c"))
    if args.kernels:
        paths = [p for p in paths if p.stem in args.kernels]
    rows = []
    print(f"{'kernel':16s} {'stmts':>5s} {'analyze':>9s} {'+pairs':>9s} {'check':>9s}")
    for path in paths:
        scops = extract(path)
        n_stmts = sum(len(s.statements) for s in scops)
        t_analyze = _median_time(lambda: [analyze(s) for s in scops], args.repeat)
        t_full = _median_time(lambda: [_full(s) for s in scops], args.repeat)
        deps = [_full(s) for s in scops]
        t_check = _median_time(lambda: [check(s, d, s.schedule) for s, d in zip(scops, deps)],
                               args.repeat)
        rows.append({"kernel": path.stem, "statements": n_stmts, "analyze_s": t_analyze,
                     "analyze_pairs_s": t_full, "check_s": t_check})
        print(f"{path.stem:16s} {n_stmts:5d} {t_analyze:9.4f} {t_full:9.4f} {t_check:9.4f}",
              flush=True)
    if not rows:
        print("no kernels", file=sys.stderr)
        return 1
    for key in ("analyze_s", "analyze_pairs_s", "check_s"):
        values = [r[key] for r in rows]
        worst = max(rows, key=lambda r: r[key])
        print(f"{key:16s} median {statistics.median(values):.4f} s   max {worst[key]:.4f} s "
              f"({worst['kernel']})")
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = "?"
    print(f"machine: {platform.machine()} {platform.processor() or ''} python "
          f"{platform.python_version()} commit {commit}, median of {args.repeat}")
    if args.json:
        args.json.write_text(json.dumps({"repeat": args.repeat, "commit": commit,
                                         "provenance": provenance(**vars(args)),
                                         "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
