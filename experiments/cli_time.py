"""Wall time of a one-shot ``polysched optimize KERNEL.c -o OUT.c`` per suite kernel:
what a user waits for, start-up included (issue #9's goal: < 2 s on every kernel).

    .venv/bin/python experiments/cli_time.py [--repeat 5] [--flags "--tile --parallel"] [KERNEL ...]

Each kernel is run ``--repeat`` times in a fresh process; the table gives the median
wall and CPU (user + sys of the process and its children) seconds, then the median and
the maximum over the kernels, and ``polysched --help`` as the floor (interpreter and
command-line start-up only). Run it on a quiet machine: the figures are absolute times.

The package's bytecode is compiled first, as an install has it (an environment with
PYTHONDONTWRITEBYTECODE, like this workplace's, would otherwise recompile every
changed module in every process, and time that too).
"""
from __future__ import annotations

import argparse
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from polysched.bench import get, kernels

POLYSCHED = [sys.executable, "-m", "polysched"]


def _timed(args: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of ``args``; a failed run raises."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True, timeout=600)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kernels", nargs="*")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--flags", default="", help="extra optimize flags (the default mode without)")
    args = parser.parse_args()
    from polysched.bench.machine import provenance, provenance_line
    print(provenance_line(provenance(**vars(args))), flush=True)
    selected = [get(name) for name in args.kernels] if args.kernels else kernels()
    import polysched
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(polysched.__file__).parent)],
                   check=True, timeout=600)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "out.c")
        floor = [_timed(POLYSCHED + ["--help"]) for _ in range(args.repeat)]
        print(f"{'(polysched --help)':20s} {statistics.median(w for w, _ in floor):7.2f} "
              f"{statistics.median(c for _, c in floor):7.2f}")
        print(f"{'kernel':20s} {'wall':>7s} {'cpu':>7s}")
        for kernel in selected:
            runs = [_timed(POLYSCHED + ["optimize", str(kernel.path), "-o", out, *shlex.split(args.flags)])
                    for _ in range(args.repeat)]
            wall, cpu = statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)
            rows.append((kernel.name, wall, cpu))
            print(f"{kernel.name:20s} {wall:7.2f} {cpu:7.2f}", flush=True)
    walls = [w for _, w, _ in rows]
    slowest = max(rows, key=lambda r: r[1])
    print(f"median {statistics.median(walls):.2f} s, max {slowest[1]:.2f} s ({slowest[0]}), "
          f"{sum(w < 2.0 for w in walls)}/{len(walls)} kernels under 2 s; load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
