"""``polysched optimize FILE.c -o OUT.c``: the main job."""
from __future__ import annotations

import sys
from pathlib import Path

from polysched.cli import UsageError
from polysched.cli.common import add_preprocessor_args, default_dataset, parse_defines


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("optimize", help="schedule, tile and parallelize the SCoPs of a C file")
    p.add_argument("file", type=Path, help="C file with #pragma scop regions")
    p.add_argument("-o", "--output", type=Path, required=True, help="where to write the new C file")
    p.add_argument("--identity", action="store_true",
                   help="keep the original schedule (same as --scheduler identity, no tiling)")
    p.add_argument("--scheduler", choices=["pluto", "isl", "identity"], default="pluto")
    p.add_argument("--fuse", choices=["smart", "max", "no"], default="smart")
    p.add_argument("--negative", action="store_true",
                   help="allow negative schedule coefficients everywhere (Pluto+-style); by default "
                        "they are tried only when no non-negative schedule exists")
    p.add_argument("--tile", action="store_true", help="tile permutable bands")
    p.add_argument("--tile-sizes", help="comma-separated sizes per band member, e.g. 32,32,32")
    p.add_argument("--tile-sizes-file", type=Path, help="file with tile sizes (one per line or comma-separated)")
    p.add_argument("--l2tile", action="store_true", help="second level of tiling")
    p.add_argument("--parallel", action="store_true", help="OpenMP parallel loops (with wavefronts)")
    p.add_argument("--unroll", type=int, metavar="N", help="unroll-and-jam the point loops by N")
    p.add_argument("--verify", action="store_true",
                   help="compile and run original and output at a small size and compare")
    add_preprocessor_args(p)
    p.set_defaults(func=run)


def parse_tile_sizes(text: str, origin: str) -> list[int]:
    try:
        sizes = [int(tok) for tok in text.replace("\n", ",").split(",") if tok.strip()]
    except ValueError:
        raise UsageError(f"{origin}: tile sizes must be positive integers, got {text.strip()!r}")
    if not sizes or any(s < 1 for s in sizes):
        raise UsageError(f"{origin}: tile sizes must be positive integers, got {text.strip()!r}")
    return sizes


def run(args) -> int:
    from polysched.pipeline import OptimizeOptions, optimize

    sizes = None
    if args.tile_sizes:
        sizes = parse_tile_sizes(args.tile_sizes, "--tile-sizes")
    elif args.tile_sizes_file:
        sizes = parse_tile_sizes(args.tile_sizes_file.read_text(), str(args.tile_sizes_file))
    if args.unroll is not None and args.unroll < 1:
        raise UsageError("--unroll must be a positive integer")
    options = OptimizeOptions(
        scheduler="identity" if args.identity else args.scheduler,
        fuse=args.fuse, negative_coefficients=args.negative,
        tile=args.tile and not args.identity, tile_sizes=sizes, l2tile=args.l2tile,
        parallel=args.parallel and not args.identity, unroll=args.unroll,
        defines=parse_defines(args.defines), include_dirs=args.include_dirs,
    )
    result = optimize(args.file, options)
    # Write only after everything succeeded: a failed run leaves no output file behind.
    args.output.write_text(result.text)
    print(f"wrote {args.output}")
    print(result.summary())
    if args.verify:
        from polysched.bench import verify

        chosen = any(name.endswith("_DATASET") for name in options.defines)
        verdict = verify(args.file, args.output, defines=options.defines,
                         dataset=None if chosen else default_dataset(args.file),
                         include_dirs=options.include_dirs)
        print(f"verify: {verdict.status}" + (f" ({verdict.reason})" if verdict.reason else ""))
        return 0 if verdict.ok else 1
    return 0
