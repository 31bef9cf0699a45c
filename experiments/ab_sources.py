"""A/B timing of two versions of polysched's output: the same suite kernels optimized by
two checkouts (e.g. before and after a policy change), compiled with identical flags,
verified against the original at MINI, then timed interleaved (A, B, A, B, ...) so
that load on a shared machine hits both alike. Prints per kernel the medians and the
ratio A/B (> 1: B is faster), and the geometric mean of the ratios.

    # sources from two checkouts (each run with its own PYTHONPATH)
    PYTHONPATH=/tmp/before python experiments/ab_sources.py generate /tmp/ab/before gemm 2mm
    PYTHONPATH=.           python experiments/ab_sources.py generate /tmp/ab/after gemm 2mm
    python experiments/ab_sources.py time /tmp/ab/before /tmp/ab/after --threads 2 --repeat 7

``generate`` imports only ``polysched.pipeline`` and ``polysched.bench.suite``, so that it
runs on old checkouts too (one without ``OptimizeOptions.from_flags`` gets the pluto
scheduler's ``OptimizeOptions(tile=..., parallel=...)``, its default then).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from polysched.bench.suite import get


def generate(out: Path, names: list[str], flags: dict) -> None:
    from polysched.pipeline import OptimizeOptions, optimize
    out.mkdir(parents=True, exist_ok=True)
    if hasattr(OptimizeOptions, "from_flags"):
        options = OptimizeOptions.from_flags(**flags)
    else:       # a checkout from before from_flags
        options = OptimizeOptions(scheduler="pluto", **flags)
    for name in names:
        (out / f"{name}.c").write_text(optimize(get(name).path, options).text)


def time_pair(a_dir: Path, b_dir: Path, threads: int, repeat: int, dataset: str) -> None:
    from polysched.bench.harness import (DEFAULT_CC, DEFAULT_CFLAGS, compile_c, dataset_define, time_interleaved,
                                         verify)
    from polysched.tensorize import INCLUDE_DIR
    ratios = []
    print(f"| kernel | A (s) | B (s) | A/B |\n| --- | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory(prefix="polysched-ab-") as tmp:
        for a_source in sorted(a_dir.glob("*.c")):
            name = a_source.stem
            b_source = b_dir / a_source.name
            if b_source.exists() and a_source.read_text() == b_source.read_text():
                # one program: its ratio is 1, whatever two timings of it would say
                ratios.append(1.0)
                print(f"| {name} | same code | same code | 1.00 |", flush=True)
                continue
            original = get(name).path
            binaries = []
            for tag, source in (("a", a_source), ("b", b_source)):
                # the tensorize header, for sources that call intrinsics (harmless otherwise)
                verdict = verify(original, source, dataset="MINI", include_dirs=[INCLUDE_DIR],
                                 workdir=Path(tmp) / f"{name}-{tag}-verify")
                if not verdict.ok:
                    print(f"| {name} | {tag.upper()} not verified: {verdict.status} {verdict.reason} | | |")
                    break
                binary = Path(tmp) / f"{name}-{tag}"
                compiled = compile_c(source, binary, cc=DEFAULT_CC, cflags=DEFAULT_CFLAGS,
                                     defines=dataset_define(dataset), include_dirs=[INCLUDE_DIR],
                                     openmp=True)
                if not compiled.ok:
                    print(f"| {name} | {tag.upper()} does not compile: {compiled.reason} | | |")
                    break
                binaries.append(binary)
            if len(binaries) != 2:
                continue
            times = time_interleaved(dict(enumerate(binaries)), threads=threads, repeat=repeat)
            if not times[0] or not times[1]:
                print(f"| {name} | no timing | | |")
                continue
            a, b = statistics.median(times[0]), statistics.median(times[1])
            ratios.append(a / b)
            print(f"| {name} | {a:.4f} | {b:.4f} | {a / b:.2f} |", flush=True)
    if ratios:
        print(f"\ngeomean A/B over {len(ratios)} kernels: {statistics.geometric_mean(ratios):.3f} "
              f"({threads} threads, median of {repeat}, {dataset})")


def main(argv=None) -> int:
    try:
        from polysched.bench.suite import dataset_arg
    except ImportError:      # generate on an old checkout
        dataset_arg = str
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate", help="optimize suite kernels into DIR")
    g.add_argument("out", type=Path)
    g.add_argument("kernels", nargs="+")
    g.add_argument("--no-parallel", action="store_true")
    t = sub.add_parser("time", help="time DIR_A against DIR_B, interleaved")
    t.add_argument("a", type=Path)
    t.add_argument("b", type=Path)
    t.add_argument("--threads", type=int, default=2)
    t.add_argument("--repeat", type=int, default=7)
    t.add_argument("--dataset", default="LARGE", type=dataset_arg,
                   help="MINI ... EXTRALARGE, any case (default LARGE)")
    args = parser.parse_args(argv)
    if args.command == "generate":
        generate(args.out, args.kernels, {"tile": True, "parallel": not args.no_parallel})
    else:
        from polysched.bench.machine import provenance, provenance_line
        print(provenance_line(provenance(**vars(args))), flush=True)
        time_pair(args.a, args.b, args.threads, args.repeat, args.dataset)
    return 0


if __name__ == "__main__":
    sys.exit(main())
