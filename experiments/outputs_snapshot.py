"""Write optimize's C for every suite kernel under several modes into a directory, so
that two checkouts can be compared byte for byte (a refactoring that must not change
the generated code):

    PYTHONPATH=/path/to/old/checkout python experiments/outputs_snapshot.py /tmp/before
    python experiments/outputs_snapshot.py /tmp/after
    diff -r /tmp/before /tmp/after && echo identical

(``--kernels gemm,2mm`` and ``--modes tile,par`` for fewer.)
"""
from __future__ import annotations

import argparse
from pathlib import Path

from polysched.bench.suite import kernels
from polysched.pipeline import OptimizeOptions, optimize

MODES = {
    "tile": dict(tile=True), "tile-par": dict(tile=True, parallel=True),
    "l2tile-par": dict(tile=True, l2tile=True, parallel=True), "unroll": dict(unroll=4),
    "tile-unroll": dict(tile=True, unroll=2, parallel=True), "par": dict(parallel=True),
    "isl-tile-par": dict(scheduler="isl", tile=True, parallel=True),
    "max-tile-par": dict(fuse="max", tile=True, parallel=True),
}


def mode_names(parser: argparse.ArgumentParser, text: str) -> list[str]:
    """The comma-separated ``text`` as names of MODES (a usage error for any other)."""
    names = text.split(",")
    unknown = set(names) - set(MODES)
    if unknown:
        parser.error(f"unknown mode {', '.join(sorted(unknown))}")
    return names


def main(out: Path, names: list[str] | None = None, modes: list[str] | None = None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for kernel in kernels():
        if names and kernel.name not in names:
            continue
        for name, flags in MODES.items():
            if modes and name not in modes:
                continue
            try:
                text = optimize(kernel.path, OptimizeOptions.from_flags(**flags)).text
            except Exception as err:        # noqa: BLE001 - recorded, compared like the rest
                text = f"ERROR {type(err).__name__}: {err}\n"
            (out / f"{kernel.name}.{name}.c").write_text(text)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Write optimize's C for suite kernels under several modes "
                                                 "into a directory (to compare two checkouts).")
    parser.add_argument("out", type=Path, help="the directory to write KERNEL.MODE.c files into")
    parser.add_argument("--kernels", help="comma-separated kernel names (default: all)")
    parser.add_argument("--modes", help=f"comma-separated modes of {', '.join(MODES)} (default: all)")
    args = parser.parse_args()
    main(args.out, args.kernels.split(",") if args.kernels else None,
         mode_names(parser, args.modes) if args.modes else None)
