"""What scalar expansion and substitution (polysched/transform/expand.py, substitute.py)
buy: the original, the default ``optimize --tile --parallel`` with ``--no-expand``, and
the default (which expands and substitutes),
each verified against the original at MINI (outputs bit-identical at 1 and 2 threads),
then timed interleaved (orig, no-expand, default, orig, ...) with identical flags.

The kernels: the suite's that expand (deriche, symm) and loops as users write them
(experiments/kernels/user_*.c: a matrix product with a scalar accumulator, the same
scaled into C (C = beta * C + alpha * s: an array on the heap), a convolution with a
bias and a ReLU (a four-dimensional array on the heap), a recursive filter and a
running sum down the columns, A^T x with a scalar accumulator; and temporaries declared
in loop bodies, which polysched/transform/substitute.py writes into the statements that
read them: a Jacobi stencil's partial sums, a transposed update's scaled element).

    python experiments/scalar_expansion.py --threads 2 --repeat 5 [--dataset LARGE] [KERNEL...]

``--without transpose_arrays`` compares with the default without array transposition
instead (polysched/transform/layout.py; ``python experiments/scalar_expansion.py
--without transpose_arrays adi``).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from polysched.bench.harness import (DEFAULT_CC, DEFAULT_CFLAGS, compile_c, dataset_define, time_interleaved,
                                     verify)
from polysched.bench.suite import dataset_arg, get
from polysched.pipeline import OptimizeOptions, optimize
from polysched.tensorize import INCLUDE_DIR

USER_KERNELS = Path(__file__).parent / "kernels"
DEFAULT_KERNELS = ["deriche", "symm", "ludcmp", "user_matmul_acc", "user_gemm_ab", "user_conv_relu", "user_colscan",
                   "user_cholesky_rows",
                   "user_matvec_t",
                   "user_stencil_temps", "user_transpose_temps"]
# the OptimizeOptions field the comparison turns off, and its column's name
WITHOUT = {"expand_scalars": "no-expand", "transpose_arrays": "no-transpose"}


def source_of(name: str) -> Path:
    user = USER_KERNELS / f"{name}.c"
    return user if user.is_file() else get(name).path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kernels", nargs="*", default=DEFAULT_KERNELS)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dataset", default="LARGE", type=dataset_arg)
    parser.add_argument("--without", choices=sorted(WITHOUT), default="expand_scalars")
    args = parser.parse_args(argv)
    off = WITHOUT[args.without]
    variants = {off: {args.without: False}, "default": {}}
    from polysched.bench.machine import provenance, provenance_line
    print(provenance_line(provenance(**vars(args))), flush=True)
    print(f"| kernel | orig (s) | {off} (s) | default (s) | {off} x orig | default x orig | default / {off} |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory(prefix="polysched-expand-") as tmp:
        work = Path(tmp)
        for name in args.kernels:
            original = source_of(name)
            binaries = {}
            for variant, flags in {"orig": None, **variants}.items():
                source = original
                if flags is not None:
                    source = work / f"{name}-{variant}.c"
                    source.write_text(optimize(original, OptimizeOptions.from_flags(
                        tile=True, parallel=True, **flags)).text)
                    verdict = verify(original, source, dataset="MINI", include_dirs=[INCLUDE_DIR],
                                     workdir=work / f"{name}-{variant}-verify")
                    if not verdict.ok:
                        print(f"| {name} | {variant} not verified: {verdict.status} {verdict.reason} |")
                        break
                binary = work / f"{name}-{variant}"
                built = compile_c(source, binary, cc=DEFAULT_CC, cflags=DEFAULT_CFLAGS,
                                  defines=dataset_define(args.dataset),
                                  include_dirs=[INCLUDE_DIR, original.parent], openmp=True)
                if not built.ok:
                    print(f"| {name} | {variant} does not compile: {built.reason} |")
                    break
                binaries[variant] = binary
            if len(binaries) != 3:
                continue
            times = time_interleaved(binaries, threads=args.threads, repeat=args.repeat)
            if not all(times.values()):
                print(f"| {name} | no timing |")
                continue
            o, n, d = (statistics.median(times[v]) for v in ("orig", off, "default"))
            print(f"| {name} | {o:.4f} | {n:.4f} | {d:.4f} | {o / n:.2f} | {o / d:.2f} | {n / d:.2f} |", flush=True)
    print(f"\n({args.threads} threads, median of {args.repeat} interleaved runs, {args.dataset})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
