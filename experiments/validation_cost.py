"""What the translation validation of isl's AST (emit_c/validate.py) costs: per suite
kernel and mode (those of outputs_snapshot.py), the code generation time of `optimize`
and the part of it spent validating, in this process (no child, no budget).

    python experiments/validation_cost.py [KERNEL,KERNEL...] [MODE,MODE...]
"""
from __future__ import annotations

import argparse
import time

from outputs_snapshot import MODES, mode_names

from polysched import pipeline
from polysched.bench.suite import kernels
from polysched.emit_c import codegen
from polysched.pipeline import OptimizeOptions, optimize


def main(names: list[str] | None, modes: list[str]) -> None:
    spent = [0.0]
    validate = codegen.validate_ast

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return validate(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - start

    codegen.validate_ast = timed
    pipeline.run_isolated = lambda fn, seconds: fn()
    worst = (0.0, "")
    print("| kernel | mode | codegen (s) | validation (s) |\n| --- | --- | ---: | ---: |")
    for kernel in kernels():
        if names and kernel.name not in names:
            continue
        for mode in modes:
            spent[0] = 0.0
            result = optimize(kernel.path, OptimizeOptions.from_flags(**MODES[mode]))
            print(f"| {kernel.name} | {mode} | {result.phase_seconds['codegen']:.2f} | {spent[0]:.2f} |",
                  flush=True)
            worst = max(worst, (spent[0], f"{kernel.name} {mode}"))
    print(f"\nlongest validation: {worst[0]:.2f} s ({worst[1]})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Code generation time and the part of it spent validating "
                                                 "isl's AST, per suite kernel and mode.")
    parser.add_argument("kernels", nargs="?", default="", help="comma-separated kernel names (default: all)")
    parser.add_argument("modes", nargs="?", default=",".join(MODES),
                        help=f"comma-separated modes of {', '.join(MODES)} (default: all)")
    args = parser.parse_args()
    main(args.kernels.split(",") if args.kernels else None, mode_names(parser, args.modes))
