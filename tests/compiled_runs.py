"""Compile a test's C program once and run it with several argument lists, at 1 and 2
threads: the outputs the transformed program must reproduce exactly."""
from __future__ import annotations

from polysched.bench import compile_c, run_binary

# -O1 compiles fast; polysched's parallel loops fork at any size
CFLAGS = ["-O1", "-ffp-contract=off", "-DPOLYSCHED_PARALLEL_MIN_WORK=0"]


def outputs_of(source: str, tmp_path, tag: str, arguments, threads=(1, 2)) -> list[str]:
    """The stdout of ``source`` (compiled as ``tmp_path/tag``) for each tuple of
    ``arguments`` at each thread count, in order; a failed build or run fails the test."""
    path = tmp_path / f"{tag}.c"
    path.write_text(source)
    built = compile_c(path, tmp_path / tag, cflags=CFLAGS, openmp=True)
    assert built.ok, built.reason
    outputs = []
    for args in arguments:
        for t in threads:
            run = run_binary(tmp_path / tag, args=[str(a) for a in args], threads=t, timeout=60)
            assert run.ok, f"{tag} {' '.join(map(str, args))} threads={t}: {run.reason}"
            outputs.append(run.stdout)
    return outputs
