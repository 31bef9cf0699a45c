"""The same input gives the same output whatever Python's hash seed (issue 9).

    .venv/bin/python experiments/determinism.py [--seeds 8] [--jobs 2] [--flags "--tile --parallel"]
        [KERNEL ...]

For every suite kernel (polysched/bench/kernels/*.c, or those named), runs
``polysched optimize KERNEL -o OUT FLAGS`` once per ``PYTHONHASHSEED`` value 0..seeds-1
and compares the output files byte for byte. Prints one line per kernel (the number of
distinct outputs, 1 when deterministic) and a summary; exit status 1 when any kernel
gave more than one output.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shlex
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "polysched" / "bench" / "kernels"


def _run(kernel: Path, seed: int, flags: list[str], out_dir: Path) -> tuple[str, int, str]:
    """(kernel name, seed, sha256 of the output file, or 'error: ...')."""
    out = out_dir / f"{kernel.stem}-{seed}.c"
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    proc = subprocess.run([sys.executable, "-m", "polysched", "optimize", str(kernel), "-o", str(out),
                           *flags], env=env, cwd=ROOT, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        return kernel.stem, seed, "error: " + (proc.stderr.strip().splitlines() or ["?"])[-1]
    return kernel.stem, seed, hashlib.sha256(out.read_bytes()).hexdigest()[:16]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kernels", nargs="*")
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--flags", default="--tile --parallel")
    args = parser.parse_args(argv)
    from polysched.bench.machine import provenance, provenance_line
    print(provenance_line(provenance(**vars(args))), flush=True)
    kernels = [KERNELS / f"{k}.c" for k in args.kernels] or sorted(KERNELS.glob("*.c"))
    flags = shlex.split(args.flags)
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda ks: _run(ks[0], ks[1], flags, Path(tmp)),
                                [(k, s) for k in kernels for s in range(args.seeds)]))
    by_kernel: dict[str, set[str]] = {}
    for name, _seed, digest in results:
        by_kernel.setdefault(name, set()).add(digest)
    bad = 0
    for name, digests in by_kernel.items():
        errors = [d for d in digests if d.startswith("error")]
        status = "deterministic" if len(digests) == 1 and not errors else "DIFFERS"
        bad += status != "deterministic"
        print(f"{name:<16} {len(digests)} distinct output(s)  {status}  {' '.join(sorted(digests))[:60]}")
    print(f"{len(by_kernel)} kernels x {args.seeds} hash seeds, optimize {' '.join(flags)}: "
          f"{len(by_kernel) - bad} deterministic, {bad} not, in {time.monotonic() - start:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
