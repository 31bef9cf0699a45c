"""The C text of an iterator's exit value (scop.affine.pw_aff_c_text) against isl's own
evaluation of the piecewise function, by running the text compiled at every point of a
grid, negative values included (C's '/' truncates; the divisions must floor)."""
from __future__ import annotations

import islpy as isl
import pytest

from polysched.bench import compile_c, run_binary
from polysched.scop.affine import pw_aff_c_text

VALUES = [
    "[n, m] -> { [i] -> [(n)] : n >= i + 1; [i] -> [(i)] : n <= i }",
    "[n, m] -> { [i] -> [(2 * floor((n + 1) / 2))] : n >= 0; [i] -> [(0)] : n < 0 }",
    "[n, m] -> { [i] -> [(i)] : exists e : i = 3e + 1; [i] -> [(7)] : not (exists e : i = 3e + 1) }",
    "[n, m] -> { [i] -> [(-1 + n - 3i)] : n >= 0 or m > 5 + i; [i] -> [(7)] : n < 0 and m <= 5 + i }",
    "[n, m] -> { [i] -> [(4 * floor((n - i) / 4) + i)] : n >= i; [i] -> [(i - floor((m + 5) / 3))] : n < i }",
    "[n, m] -> { [i] -> [(-2147483648)] }",
]
GRID = range(-7, 8)


@pytest.mark.parametrize("text", VALUES)
def test_the_c_text_of_a_piecewise_value_is_isls_value_everywhere(tmp_path, text):
    value = isl.PwAff(text)
    c_text = pw_aff_c_text(value)
    assert c_text is not None
    source = tmp_path / "v.c"
    source.write_text("#include <stdio.h>\nint main(void) {\n"
                      f"  for (int n = {GRID[0]}; n <= {GRID[-1]}; n++)\n"
                      f"    for (int m = {GRID[0]}; m <= {GRID[-1]}; m++)\n"
                      f"      for (int i = {GRID[0]}; i <= {GRID[-1]}; i++)\n"
                      f"        printf(\"%lld\\n\", (long long) {c_text});\n  return 0;\n}}\n")
    built = compile_c(source, tmp_path / "v", cflags=["-O1"])
    assert built.ok, built.reason
    run = run_binary(tmp_path / "v")
    assert run.ok, run.reason
    expected = []
    space = value.get_domain_space()
    for n in GRID:
        for m in GRID:
            for i in GRID:
                point = isl.Point.zero(space).set_coordinate_val(isl.dim_type.param, 0, n) \
                    .set_coordinate_val(isl.dim_type.param, 1, m).set_coordinate_val(isl.dim_type.set, 0, i)
                expected.append(str(value.eval(point).to_python()))
    assert run.stdout.split() == expected
