"""What unroll_and_jam's scalar replacement brings on gemm (LARGE, 1 thread).

For each variant: the median kernel time of ``--repeat`` runs (the program's own
``polysched-time:``), with the jammed loops printed with and without scalar
replacement (``EmitOptions(scalar_replacement=...)``: the same loops, only the loads
and stores of the reused elements differ), and the original for reference.

Two builds: the default flags, and with ``-fno-inline``. In the suite's gemm.c the
kernel is a static function called once, so GCC inlines it into ``main``, sees that
C, A and B come from distinct ``malloc`` calls and promotes ``C[i][j]`` to a register
by itself; a kernel compiled apart from its caller (a library) gets no such help.

    .venv/bin/python experiments/scalar_replacement.py [--dataset LARGE] [--repeat 5]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import polysched as ps  # noqa: E402
from polysched.bench import (DEFAULT_CC, DEFAULT_CFLAGS, compile_c, dataset_define, get,  # noqa: E402
                             run_binary)
from polysched.emit_c import EmitOptions  # noqa: E402

VARIANTS = {
    # gemm S1 after Pluto: loops i, j, k; tiled: floor(i/32), floor(j/64), floor(k/128), i, j, k
    "tile+jam(i,2), k innermost":
        lambda p: p.tile("S1", [32, 64, 128]).unroll_and_jam("S1", 3, 2),
    "tile+jam(i,4)+jam(j,2), k innermost":
        lambda p: p.tile("S1", [32, 64, 128]).unroll_and_jam("S1", 3, 4).unroll_and_jam("S1", 4, 2),
    "tile+jam(i,4)+jam(j,4), k innermost":
        lambda p: p.tile("S1", [32, 64, 128]).unroll_and_jam("S1", 3, 4).unroll_and_jam("S1", 4, 4),
    "tile+interchange(j,k)+jam(i,4), j innermost":
        lambda p: p.tile("S1", [32, 64, 128]).interchange("S1", 4, 5).unroll_and_jam("S1", 3, 4),
}


def median_times(texts: list[str], kernel_path: Path, dataset: str, repeat: int,
                 cflags: list[str]) -> list[float]:
    """Median kernel time of each C text; the runs alternate between the texts, so
    that a busy machine slows them alike."""
    with tempfile.TemporaryDirectory(prefix="polysched-sr-") as tmp:
        binaries = []
        for k, text in enumerate(texts):
            source = Path(tmp) / str(k) / kernel_path.name
            source.parent.mkdir()
            source.write_text(text)
            built = compile_c(source, Path(tmp) / f"program{k}", cc=DEFAULT_CC, cflags=cflags,
                              defines=dataset_define(dataset), include_dirs=[str(kernel_path.parent)],
                              openmp="#pragma omp" in text)
            if not built.ok:
                raise SystemExit(built.reason)
            binaries.append(built.output or Path(tmp) / f"program{k}")
        samples: list[list[float]] = [[] for _ in texts]
        for _ in range(repeat):
            for k, binary in enumerate(binaries):
                run = run_binary(binary, threads=1, timeout=600)
                if not run.ok:
                    raise SystemExit(run.reason)
                samples[k].append(run.kernel_seconds if run.kernel_seconds is not None else run.seconds)
        return [statistics.median(s) for s in samples]


def main() -> None:
    from polysched.bench.suite import dataset_arg
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default="LARGE", type=dataset_arg,
                        help="MINI ... EXTRALARGE, any case (default LARGE)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--kernel", default="gemm")
    args = parser.parse_args()
    from polysched.bench.machine import provenance, provenance_line
    print(provenance_line(provenance(**vars(args))), flush=True)
    kernel = get(args.kernel)
    base = ps.Program.from_file(kernel.path)
    print(f"{args.kernel} {args.dataset}, 1 thread, median of {args.repeat} runs (alternating)")
    scheduled = base.auto_schedule("pluto")
    programs = {}
    for name, steps in VARIANTS.items():
        q = steps(scheduled)
        assert q.verify("MINI", rtol=0, atol=0).status == "equal"
        programs[name] = q
    for cflags in (list(DEFAULT_CFLAGS), list(DEFAULT_CFLAGS) + ["-fno-inline"]):
        print(f"-- {' '.join(cflags)}")
        for name, q in programs.items():
            texts = [kernel.path.read_text(), q.c_code(options=EmitOptions(scalar_replacement=False)),
                     q.c_code()]
            orig, without, with_sr = median_times(texts, kernel.path, args.dataset, args.repeat, cflags)
            print(f"{name:46s} original {orig:6.3f} s | without {without:6.3f} s | with scalar "
                  f"replacement {with_sr:6.3f} s: x{without / with_sr:.2f} (x{orig / with_sr:.2f} vs original)",
                  flush=True)


if __name__ == "__main__":
    main()
