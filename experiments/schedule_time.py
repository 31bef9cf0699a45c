"""Scheduling time: Pluto-style (CP-SAT) vs isl's scheduler on identical dependences, and
its growth with nest depth.

    .venv/bin/python experiments/schedule_time.py [--runs 3] [--json out.json]
        [--kernels a,b] [--no-suite] [--no-growth] [--optimize] [--isl-timeout 10]
        [--depths 1,2,...,10,15,20]

Suite: for every suite kernel (polysched/bench/kernels/*.c, default dataset), the median
of ``--runs`` calls of ``polysched.schedule.compute`` (dependences computed once, outside
the timing), per scheduler; kernels that need loop reversal are scheduled by pluto with
negative coefficients (marked ``neg``). ``--optimize`` adds the whole ``optimize --tile
--parallel`` pipeline (extract to C text) per kernel.

Growth: synthetic families built as C text and extracted like the suite, at each depth of
``--depths``:
- ``scalar``: ``s += 1`` inside a d-deep nest with bounds N (every iteration pair ordered);
- ``scalar-lit``: the same with literal bounds (no parameter at all);
- ``diagonal``: ``A[i0 + i{d-1}] = A[i0 + i{d-1}] + 1.0`` (d >= 2);
- ``stencil``: ``A[i] = sum of the d neighbours A[..., ik - 1, ...]`` (d-deep);
then a chain of n statements (n = 2..32), one statement with k reads (k = 8..96), and a
5-deep nest with a scalar reduction. Columns: dependence analysis, Pluto scheduling,
its ILP solves, whether it fell back (it never should), and isl's scheduler (``>T``: a
child process running it was stopped after ``--isl-timeout`` CPU seconds). Times are CPU
seconds of this process and its children (``os.times``), medians of ``--runs``; the Pluto wall
time is shown too. Quote ratios, not absolute times: the machine is shared.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import islpy as isl  # noqa: E402

from polysched.dependence import analyze  # noqa: E402
from polysched.schedule import ScheduleError, ScheduleOptions, compute  # noqa: E402
from polysched.schedule.peers import isl_schedule  # noqa: E402
from polysched.scop import extract  # noqa: E402

KERNELS = ROOT / "polysched" / "bench" / "kernels"
DEPTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20]


# -- the synthetic families ------------------------------------------------------------------
def chain_source(n: int) -> str:
    arrays = ", ".join(f"double A{k}[N]" for k in range(n + 1))
    loops = "\n".join(f"  for (i = 1; i < N - 1; i++)\n    A{k}[i] = A{k - 1}[i - 1] + A{k - 1}[i + 1];"
                      for k in range(1, n + 1))
    return (f"#define N 1000\nvoid chain(int n, {arrays}) {{\n  int i;\n#pragma scop\n{loops}\n"
            "#pragma endscop\n}\n")


def _loops(depth: int, bound: str, lower: str = "0") -> tuple[list[str], str]:
    it = [f"i{k}" for k in range(depth)]
    head = "".join(f"{'  ' * (k + 1)}for ({x} = {lower}; {x} < {bound}; {x}++)\n" for k, x in enumerate(it))
    return it, head


def scalar_source(depth: int, literal: bool = False) -> str:
    it, head = _loops(depth, "10" if literal else "N")
    return (f"void f(int N, double s) {{\n  int {', '.join(it)};\n#pragma scop\n{head}"
            f"{'  ' * (depth + 1)}s += 1;\n#pragma endscop\n}}\n")


def diagonal_source(depth: int) -> str:
    it, head = _loops(depth, "N")
    ref = f"A[i0 + i{depth - 1}]"
    return (f"void f(int N, double A[restrict]) {{\n  int {', '.join(it)};\n#pragma scop\n{head}"
            f"{'  ' * (depth + 1)}{ref} = {ref} + 1.0;\n#pragma endscop\n}}\n")


def nest_source(depth: int) -> str:
    it, head = _loops(depth, "N", "1")
    decl = "".join("[N]" for _ in it)
    reads = " + ".join("A" + "".join(f"[{x} - 1]" if m == k else f"[{x}]" for m, x in enumerate(it))
                       for k in range(depth))
    body = f"{'  ' * (depth + 1)}A{''.join(f'[{x}]' for x in it)} = {reads};\n"
    return (f"#define N 20\nvoid nest(double A{decl}) {{\n  int {', '.join(it)};\n#pragma scop\n"
            f"{head}{body}#pragma endscop\n}}\n")


def reads_source(k: int) -> str:
    rhs = " + ".join(f"A[i + {j}]" for j in range(k))
    return ("void f(int N, double A[restrict], double B[restrict]) {\n  int i;\n#pragma scop\n"
            f"  for (i = 0; i < N; i++)\n    A[i] = {rhs};\n#pragma endscop\n}}\n")


def reduction_source(depth: int = 5) -> str:
    it, head = _loops(depth, "N")
    ref = "".join(f"[{x}]" for x in it)
    dims = "".join("[20]" for _ in it)
    pad = "  " * (depth + 1)
    return (f"void f(int N, double s, double A[restrict]{dims[4:]}, double B[restrict]{dims[4:]}) {{\n"
            f"  int {', '.join(it)};\n#pragma scop\n{head}{pad}{{\n{pad}  B{ref} = A{ref} * 2.0;\n"
            f"{pad}  s += B{ref};\n{pad}}}\n#pragma endscop\n}}\n")


def growth_cases(depths: list[int]) -> list[tuple[str, str, int, str]]:
    """(family, size label, size, C text)."""
    cases = []
    for d in depths:
        cases.append(("scalar", "depth", d, scalar_source(d)))
    for d in depths:
        cases.append(("scalar-lit", "depth", d, scalar_source(d, literal=True)))
    for d in depths:
        if d >= 2:
            cases.append(("diagonal", "depth", d, diagonal_source(d)))
    for d in depths:
        if d <= 10:
            cases.append(("stencil", "depth", d, nest_source(d)))
    for n in (2, 4, 8, 16, 32):
        cases.append(("chain", "stmts", n, chain_source(n)))
    for k in (8, 32, 96):
        cases.append(("reads", "reads", k, reads_source(k)))
    cases.append(("reduction", "depth", 5, reduction_source(5)))
    return cases


# -- timing -------------------------------------------------------------------------------------
def _cpu() -> float:
    """CPU seconds of this process and of its finished children (isl's scheduler runs in
    a forked child under a time limit)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _median(fn, runs: int) -> float:
    """Median CPU seconds (`_cpu`: CP-SAT and isl run in this process or a child) over
    ``runs`` calls; wall-clock time on a loaded shared machine says more about
    the other users than about us. The last wall time is kept in ``_median.wall``."""
    samples = []
    for _ in range(runs):
        start, wall = _cpu(), time.perf_counter()
        fn()
        samples.append(_cpu() - start)
        _median.wall = time.perf_counter() - wall
        if samples[-1] > 5:  # one slow sample is enough
            break
    return statistics.median(samples)


def time_schedule(scop, deps, options: ScheduleOptions, runs: int) -> tuple[float, str, dict]:
    note = ""
    stats: dict = {}
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            compute(scop, deps, options, stats=stats)
    except ScheduleError:
        options = ScheduleOptions(**{**options.__dict__, "negative_coefficients": True})
        note = "neg"

    def run():
        with contextlib.redirect_stderr(io.StringIO()):
            compute(scop, deps, options, stats=stats)
    seconds = _median(run, runs)
    if "fallback" in stats:
        note = (note + " fallback").strip()
    return seconds, note, stats


def time_isl(scop, deps, timeout: float) -> float | None:
    """isl's scheduler alone, in this process (CPU seconds), or None when a first run in
    a child process (stopped after ``timeout`` CPU seconds) did not finish."""
    try:
        isl_schedule(scop.domain, scop.context, deps.validity, deps.proximity, ScheduleOptions(),
                     timeout=timeout)
    except isl.Error as exc:
        if "did not finish" in str(exc):
            return None
    start = _cpu()
    try:
        isl_schedule(scop.domain, scop.context, deps.validity, deps.proximity, ScheduleOptions())
    except isl.Error:
        pass
    return _cpu() - start


def measure(name: str, scop, runs: int) -> dict:
    deps = analyze(scop)
    row = {"name": name, "statements": len(scop.statements)}
    for scheduler in ("pluto", "isl"):
        seconds, note, _ = time_schedule(scop, deps, ScheduleOptions(scheduler=scheduler), runs)
        row[scheduler] = seconds
        row[f"{scheduler}_note"] = note
    return row


def _fmt(seconds: float | None, timeout: float) -> str:
    return f">{timeout:g}" if seconds is None else f"{seconds:.3f}"


def suite_table(names: list[str], runs: int, with_optimize: bool) -> tuple[list[dict], dict]:
    suite = []
    head = f"{'kernel':18s} {'stmts':>5s} {'pluto s':>9s} {'isl s':>9s} {'pluto/isl':>9s}"
    print(head + (f" {'optimize s':>10s}" if with_optimize else ""))
    for name in names:
        scops = extract(KERNELS / f"{name}.c")
        for k, scop in enumerate(scops):
            label = name if len(scops) == 1 else f"{name}#{k}"
            row = measure(label, scop, runs)
            if with_optimize:
                from polysched.pipeline import OptimizeOptions, optimize
                opts = OptimizeOptions.from_flags(tile=True, parallel=True)
                with contextlib.redirect_stderr(io.StringIO()):
                    row["optimize"] = _median(lambda: optimize(KERNELS / f"{name}.c", opts), runs)
            suite.append(row)
            ratio = row["pluto"] / row["isl"] if row["isl"] > 0 else float("inf")
            print(f"{label:18s} {row['statements']:5d} {row['pluto']:9.3f} {row['isl']:9.3f} "
                  f"{ratio:9.1f}" + (f" {row['optimize']:10.3f}" if with_optimize else "")
                  + f" {row['pluto_note']}", flush=True)
    summary = {}
    for key in ("pluto", "isl", "optimize"):
        times = [r[key] for r in suite if key in r]
        if times:
            summary[key] = {"median": statistics.median(times), "max": max(times)}
            print(f"suite {key}: median {summary[key]['median']:.3f} s, "
                  f"max {summary[key]['max']:.3f} s over {len(times)} scops")
    return suite, summary


def growth_table(depths: list[int], runs: int, isl_timeout: float) -> list[dict]:
    growth = []
    print(f"\n{'family':12s} {'size':>10s} {'deps s':>8s} {'pluto s':>9s} {'(wall)':>9s} "
          f"{'solves':>6s} {'isl s':>9s}  note")
    for family, label, size, source in growth_cases(depths):
        scop = extract(source, filename=f"{family}-{size}.c")[0]
        start = _cpu()
        deps = analyze(scop)
        deps_s = _cpu() - start
        pluto_s, note, stats = time_schedule(scop, deps, ScheduleOptions(), runs)
        wall = _median.wall
        isl_s = time_isl(scop, deps, isl_timeout)
        row = {"family": family, "size_label": label, "size": size, "deps": deps_s, "pluto": pluto_s,
               "pluto_wall": wall, "solves": stats.get("ilp_solves"), "isl": isl_s, "note": note}
        growth.append(row)
        print(f"{family:12s} {label + ' ' + str(size):>10s} {deps_s:8.3f} {pluto_s:9.3f} {wall:9.3f} "
              f"{stats.get('ilp_solves', 0):6d} {_fmt(isl_s, isl_timeout):>9s}  {note}", flush=True)
    return growth


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--kernels", help="comma-separated subset of the suite")
    ap.add_argument("--no-suite", action="store_true")
    ap.add_argument("--no-growth", action="store_true")
    ap.add_argument("--optimize", action="store_true",
                    help="also time the whole optimize --tile --parallel pipeline per kernel")
    ap.add_argument("--isl-timeout", type=float, default=10.0)
    ap.add_argument("--depths", default=",".join(map(str, DEPTHS)))
    args = ap.parse_args(argv)
    from polysched.bench.machine import provenance, provenance_line
    print(provenance_line(provenance(**vars(args))), flush=True)

    suite, summary, growth = [], {}, []
    if not args.no_suite:
        names = sorted(p.stem for p in KERNELS.glob("*.c"))
        if args.kernels:
            names = [n for n in names if n in args.kernels.split(",")]
        suite, summary = suite_table(names, args.runs, args.optimize)
    if not args.no_growth:
        growth = growth_table([int(d) for d in args.depths.split(",")], args.runs, args.isl_timeout)

    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True, timeout=10).stdout.strip()
    meta = {"machine": platform.machine(), "processor": platform.processor(),
            "python": platform.python_version(), "commit": commit, "runs": args.runs}
    print(f"\n{meta}")
    if args.json:
        args.json.write_text(json.dumps({"meta": meta, "provenance": provenance(**vars(args)),
                                         "suite": suite, "summary": summary,
                                         "growth": growth}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
