"""Kernel time of the original vs. tensorized programs (the best legal match per
statement, as ``polysched tensorize --apply``), at one dataset, 1 and 2 threads.

    .venv/bin/python experiments/tensorize_speed.py [--dataset LARGE] [--repeat 5] [KERNEL...]

Ratios are taken in the same run (the machine is shared: quote ratios, not times).
The tensorized code calls polysched_intrinsics.h on its run-time ISA path; the
floating-point kernels do not fuse multiply-adds (bit-identical results)."""
from __future__ import annotations

import argparse

import polysched as ps
from polysched.tensorize import auto_tensorize, builtin_intrinsics

DEFAULT = ["gemm", "2mm", "3mm", "bmm", "matmul-int8", "conv2d-nhwc"]


def main() -> None:
    from polysched.bench.suite import dataset_arg
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kernels", nargs="*", default=DEFAULT)
    parser.add_argument("--dataset", default="LARGE", type=dataset_arg,
                        help="MINI ... EXTRALARGE, any case (default LARGE)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    from polysched.bench.machine import provenance, provenance_line
    print(provenance_line(provenance(**vars(args))), flush=True)
    intrinsics = builtin_intrinsics()
    print(f"| kernel | calls | orig 1T s | tensorized 1T s | speedup 1T | orig 2T s | tensorized+par 2T s | speedup 2T |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for kernel in args.kernels:
        p = ps.Program.from_file(f"polysched/bench/kernels/{kernel}.c")
        q, report = auto_tensorize(p, intrinsics)
        calls = ", ".join(f"{a.statement}:{a.match.intrinsic}" for a in report if a.applied)
        par = p
        for a in report:
            if a.applied:
                par = par.tensorize(a.statement, a.match.intrinsic, match=a.match.loops, parallel=True)
        o1 = p.time(args.dataset, repeat=args.repeat, threads=1, original=True)
        t1 = q.time(args.dataset, repeat=args.repeat, threads=1)
        o2 = p.time(args.dataset, repeat=args.repeat, threads=2, original=True)
        t2 = par.time(args.dataset, repeat=args.repeat, threads=2)
        print(f"| {kernel} | {calls} | {o1:.3f} | {t1:.3f} | {o1 / t1:.2f}x | {o2:.3f} | {t2:.3f} | {o2 / t2:.2f}x |")


if __name__ == "__main__":
    main()
