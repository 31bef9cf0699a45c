"""Scheduling time: Pluto-style (CP-SAT) vs isl's scheduler on identical dependences.

    .venv/bin/python experiments/schedule_time.py [--runs 3] [--json out.json] [--kernels a,b]

For every suite kernel (polysched/bench/kernels/*.c, default dataset), the median of
``--runs`` calls of ``polysched.schedule.compute`` (dependences computed once, outside
the timing), per scheduler; kernels that need loop reversal are scheduled by pluto with
negative coefficients (marked ``neg``). Then the growth on two synthetic families built as
C text and extracted like the suite: a chain of n statements each reading its
predecessor's neighbours (n = 2..32), and one stencil nest of depth 2..5.
Quote ratios, not absolute times: the machine is shared.
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from polysched.dependence import analyze  # noqa: E402
from polysched.schedule import ScheduleError, ScheduleOptions, compute  # noqa: E402
from polysched.scop import extract  # noqa: E402

KERNELS = ROOT / "polysched" / "bench" / "kernels"


def chain_source(n: int) -> str:
    arrays = ", ".join(f"double A{k}[N]" for k in range(n + 1))
    loops = "\n".join(f"  for (i = 1; i < N - 1; i++)\n    A{k}[i] = A{k - 1}[i - 1] + A{k - 1}[i + 1];"
                      for k in range(1, n + 1))
    return (f"#define N 1000\nvoid chain(int n, {arrays}) {{\n  int i;\n#pragma scop\n{loops}\n"
            "#pragma endscop\n}\n")


def nest_source(depth: int) -> str:
    it = [f"i{k}" for k in range(depth)]
    decl = "".join("[N]" for _ in it)
    head = "".join(f"{'  ' * (k + 1)}for ({x} = 1; {x} < N; {x}++)\n" for k, x in enumerate(it))
    reads = " + ".join("A" + "".join(f"[{x} - 1]" if m == k else f"[{x}]" for m, x in enumerate(it))
                       for k in range(depth))
    body = f"{'  ' * (depth + 1)}A{''.join(f'[{x}]' for x in it)} = {reads};\n"
    return (f"#define N 20\nvoid nest(double A{decl}) {{\n  int {', '.join(it)};\n#pragma scop\n"
            f"{head}{body}#pragma endscop\n}}\n")


def time_schedule(scop, deps, options: ScheduleOptions, runs: int) -> tuple[float, str]:
    note = ""
    try:
        compute(scop, deps, options)
    except ScheduleError:
        options = ScheduleOptions(**{**options.__dict__, "negative_coefficients": True})
        note = "neg"
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        compute(scop, deps, options)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), note


def measure(name: str, scop, runs: int) -> dict:
    deps = analyze(scop)
    row = {"name": name, "statements": len(scop.statements)}
    for scheduler in ("pluto", "isl"):
        seconds, note = time_schedule(scop, deps, ScheduleOptions(scheduler=scheduler), runs)
        row[scheduler] = seconds
        row[f"{scheduler}_note"] = note
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--kernels", help="comma-separated subset of the suite")
    args = ap.parse_args(argv)

    names = sorted(p.stem for p in KERNELS.glob("*.c"))
    if args.kernels:
        names = [n for n in names if n in args.kernels.split(",")]
    suite = []
    print(f"{'kernel':18s} {'stmts':>5s} {'pluto s':>9s} {'isl s':>9s} {'pluto/isl':>9s}")
    for name in names:
        scops = extract(KERNELS / f"{name}.c")
        for k, scop in enumerate(scops):
            label = name if len(scops) == 1 else f"{name}#{k}"
            row = measure(label, scop, args.runs)
            suite.append(row)
            ratio = row["pluto"] / row["isl"] if row["isl"] > 0 else float("inf")
            print(f"{label:18s} {row['statements']:5d} {row['pluto']:9.3f} {row['isl']:9.3f} "
                  f"{ratio:9.1f} {row['pluto_note']}", flush=True)
    summary = {}
    for scheduler in ("pluto", "isl"):
        times = [r[scheduler] for r in suite]
        if times:
            summary[scheduler] = {"median": statistics.median(times), "max": max(times)}
            print(f"suite {scheduler}: median {summary[scheduler]['median']:.3f} s, "
                  f"max {summary[scheduler]['max']:.3f} s over {len(times)} scops")

    growth = []
    print(f"\n{'family':18s} {'stmts':>5s} {'pluto s':>9s} {'isl s':>9s}")
    for label, source in ([(f"chain-{n}", chain_source(n)) for n in (2, 4, 8, 16, 32)]
                          + [(f"nest-depth-{d}", nest_source(d)) for d in (2, 3, 4, 5)]):
        scop = extract(source, filename=f"{label}.c")[0]
        row = measure(label, scop, args.runs)
        growth.append(row)
        print(f"{label:18s} {row['statements']:5d} {row['pluto']:9.3f} {row['isl']:9.3f} "
              f"{row['pluto_note']}", flush=True)

    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True, timeout=10).stdout.strip()
    meta = {"machine": platform.machine(), "processor": platform.processor(),
            "python": platform.python_version(), "commit": commit, "runs": args.runs}
    print(f"\n{meta}")
    if args.json:
        args.json.write_text(json.dumps({"meta": meta, "suite": suite, "summary": summary,
                                         "growth": growth}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
