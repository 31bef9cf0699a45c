"""``polysched bench``: verify and time suite kernels under each variant."""
from __future__ import annotations

import shlex
from pathlib import Path

from polysched.cli import UsageError
from polysched.cli.common import unknown_name, write_output


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("bench", help="verify and time suite kernels under each variant")
    p.add_argument("kernels", nargs="*", help="suite kernels (default: all); see --list")
    p.add_argument("--list", action="store_true", help="list the suite kernels and variants")
    p.add_argument("--classic", action="store_true", help="only the 30 classic kernels")
    p.add_argument("--dataset", default="LARGE",
                   help="dataset to time (default LARGE: every suite kernel takes >= 0.1 s there)")
    p.add_argument("--verify-dataset", default="MINI", help="dataset for verification (default MINI)")
    p.add_argument("--variants", default=None,
                   help="comma-separated variants (default: isl/pluto x sched/tile/tile-par, "
                        "plus polly and polly-par when clang with Polly is installed)")
    p.add_argument("--no-polly", action="store_true", help="do not add the Polly peers")
    p.add_argument("--threads", type=int, default=None, help="OpenMP threads (default: all cores)")
    p.add_argument("--repeat", type=int, default=5, help="timed runs per variant; the median is kept")
    p.add_argument("--timeout", type=float, default=600, help="seconds per run")
    p.add_argument("--cc", default="gcc")
    p.add_argument("--cflags", default="-O3 -march=native")
    p.add_argument("-o", "--output", type=Path, default=Path("results.json"), help="results JSON")
    p.add_argument("--workdir", type=Path, help="keep generated sources and binaries here")
    p.set_defaults(func=run)


def run(args) -> int:
    import json
    import os

    from polysched.bench import get, kernels, report, run_benchmarks
    from polysched.bench.variants import (DEFAULT_VARIANTS, all_variant_names, find_polly_clang,
                                          make_variants)

    if args.list:
        for kernel in kernels():
            print(f"{kernel.name:16s} {kernel.category:15s} {'classic' if kernel.classic else ''}")
        print("variants: " + ", ".join(all_variant_names()))
        return 0
    known = [kernel.name for kernel in kernels()]
    for name in args.kernels:
        if name not in known:
            raise UsageError(unknown_name("kernel", name, known))
    selected = [get(name) for name in args.kernels] if args.kernels else kernels(args.classic)
    if args.repeat < 1:
        raise UsageError("--repeat must be at least 1")
    if args.threads is not None and args.threads < 1:
        raise UsageError("--threads must be at least 1")
    if not args.timeout > 0:
        raise UsageError("--timeout must be positive")
    try:
        cflags = tuple(shlex.split(args.cflags))
    except ValueError as err:
        raise UsageError(f"--cflags: {err}") from None
    if args.output.is_dir():
        raise UsageError(f"-o {args.output}: is a directory")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    if args.variants:
        names = [n.strip() for n in args.variants.split(",") if n.strip()]
    else:
        names = list(DEFAULT_VARIANTS)
        if not args.no_polly and find_polly_clang():
            names += ["polly", "polly-par"]
    try:
        variants = make_variants(names, args.cc, cflags)
    except ValueError as err:
        raise UsageError(str(err))
    threads = args.threads or os.cpu_count() or 1
    results = run_benchmarks(selected, variants, dataset=args.dataset, threads=threads,
                             repeat=args.repeat, verify_dataset=args.verify_dataset,
                             timeout=args.timeout, workdir=args.workdir)
    write_output(args.output, json.dumps(results, indent=1, sort_keys=False) + "\n")
    print(report(results, "md"))
    print(f"results written to {args.output}")
    return 0
