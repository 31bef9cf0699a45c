"""Arrays reached through a pointer per row (``double **A``, ``R[i].v[j]``, a global
``double *R[N]``, pointer members ``R[i].a``, ``R[i].b``): their rows may overlap each
other or another array's. The programs in tests/data/aliasing (found by an adversarial
probe: each printed other values once optimized) call the kernels on overlapping rows;
the optimized files must print what the originals print, at 1 and 2 threads."""
from __future__ import annotations

from pathlib import Path

import pytest

from polysched.bench import compile_c, run_binary, verify
from polysched.pipeline import OptimizeOptions, optimize

DATA = Path(__file__).parent / "data" / "aliasing"
MODES = {"plain": OptimizeOptions.from_flags(),
         "tile-par": OptimizeOptions.from_flags(tile=True, parallel=True)}


@pytest.mark.parametrize("name", sorted(p.stem for p in DATA.glob("*.c")))
def test_overlapping_rows_give_the_original_results(name, tmp_path):
    source = DATA / f"{name}.c"
    for mode, options in MODES.items():
        out = tmp_path / f"{name}-{mode}.c"
        out.write_text(optimize(source, options).text)
        verdict = verify(source, out, cflags=["-O2"], openmp=True, workdir=tmp_path / mode)
        assert verdict.ok, f"{name} [{mode}]: {verdict.status} {verdict.reason}"


def test_rows_that_do_not_overlap_run_the_optimized_code(tmp_path):
    """The run-time check: one row pointer per row of a contiguous buffer passes it (the
    optimized code runs), rows one element apart fail it (the original runs); both
    print the original's values."""
    source = (DATA / "bug1_ptrptr_overlapping_rows.c").read_text()
    result = optimize(DATA / "bug1_ptrptr_overlapping_rows.c", MODES["tile-par"])
    assert "the rows of A do not overlap" in result.summary()
    marked = result.text.replace("if (polysched_rows_ok) {", 'if (polysched_rows_ok) {\n    puts("optimized");', 1)
    assert marked != result.text
    for layout, expected in (("base + i * n", True), ("base + i", False)):
        outputs = []
        for tag, text in (("orig", source), ("opt", marked)):
            text = text.replace("double base[8] = {0};", "double base[16] = {0};") \
                .replace("rows[i] = base + i;", f"rows[i] = {layout};").replace("i < 2 * n;", "i < 16;")
            path = tmp_path / f"{tag}.c"
            path.write_text(text)
            built = compile_c(path, tmp_path / tag, cflags=["-O2"], openmp=True)
            assert built.ok, built.reason
            run = run_binary(tmp_path / tag, threads=2)
            assert run.ok, run.reason
            outputs.append(run.stdout)
        assert ("optimized" in outputs[1]) == expected, layout
        assert outputs[1].replace("optimized\n", "") == outputs[0], layout
