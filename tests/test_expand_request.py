"""``Program.expand_scalars(["t"])``: a temporary the user names is expanded wherever it
is private to a loop (helper-44: `t = A[i][j] * 2; B[i][j] = t * t + B[i][j];` made
interchange, tile, reverse and unroll-and-jam illegal through t's one storage, while
parallel() on either loop was accepted; expand_scalars() declined, as no loop walks
an array across rows, and the refusal called the storage reuse a "raw dependence")."""
from __future__ import annotations

import pytest

import polysched as ps

TEMPORARY = r"""#include <stdio.h>
#ifndef N
#define N 10
#endif
static void kernel(int n, double A[N][N], double B[N][N]) {
  int i, j;
  double t;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      t = A[i][j] * 2.0;
      B[i][j] = t * t + B[i][j];
    }
#pragma endscop
}
int main(void) {
  static double A[N][N], B[N][N];
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) { A[i][j] = (i + j * 3) % 7; B[i][j] = 1.0 / (1 + i + j); }
  kernel(N, A, B);
  kernel(N - 3, A, B);
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) printf("%.17g\n", B[i][j]);
  return 0;
}
"""


def test_a_named_temporary_is_expanded_and_the_nest_reordered(tmp_path):
    source = tmp_path / "temp.c"
    source.write_text(TEMPORARY)
    program = ps.Program.from_file(source)
    with pytest.raises(ps.TransformError, match=r"through the scalar 't', whose one storage every iteration "
                                                r"reuses: expand_scalars\(\['t'\]\)"):
        program.interchange("S0", 0, 1)
    assert program.expand_scalars() is program          # (nothing worth it by the model)
    expanded = program.expand_scalars(["t"])
    reordered = expanded.interchange("S0", 0, 1).tile("S0", [3, 4])
    code = reordered.region_code()
    assert "t_x[" in code and "t =" not in code.split("the original code")[0]
    for threads in (1, 2):
        result = reordered.verify(None, threads=threads)
        assert result.ok and result.status == "equal", result
    # the trace names the scalar, and replays to the same code
    assert reordered.trace.steps[0] == {"op": "expand_scalars", "args": {"scalars": ["t"]}}
    assert ps.Program.from_file(source).replay(reordered.trace).region_code() == code


@pytest.mark.parametrize("change, scalars, message", [
    ("", ["B"], "'B' is not a scalar variable of the region"),
    ("", ["u"], "'u' is not a scalar variable of the region"),
    ("", [], "scalars must be a list of scalar names"),
    # t's last value is read after the region: no iteration may have its own copy (the
    # message says so; helper-54: it gave only the general conditions)
    ("#pragma endscop\n", ["t"], r"^expand_scalars\(\['t'\]\): 't' cannot be expanded at loop j: may be live "
                                 r"after the scop$"),
])
def test_what_cannot_be_expanded_is_refused(tmp_path, change, scalars, message):
    text = TEMPORARY.replace("#pragma endscop\n", "#pragma endscop\n  B[0][0] = t;\n") if change else TEMPORARY
    source = tmp_path / "temp.c"
    source.write_text(text)
    with pytest.raises(ps.TransformError, match=message):
        ps.Program.from_file(source).expand_scalars(scalars)
