"""File shapes gcc reads and the front end missed (helper-43): a form feed or vertical
tab before the pragma lines (the region was reported as having no '#pragma endscop'),
and a UTF-8 byte order mark before a '#define' on line 1 (every file-scope declaration
was lost: the arrays had no type, and the region was kept as written), and a carriage
return that ends a line on its own (gcc's end of line; the front end read the statement
after one in a `//` comment as part of the comment, and the region's code lost it)."""
from __future__ import annotations

import pytest

from compiled_runs import outputs_of
from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import ScopError, extract

PROGRAM = """#define N 40
#include <stdio.h>
double A[N][N];
int main(void)
{
  int i, j;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) A[i][j] = (i * 3 + j) % 5;
#pragma scop
  for (i = 1; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = A[i - 1][j] * 0.5 + 1.0;
#pragma endscop
  for (i = 0; i < N; i++) printf("%.17g\\n", A[i][N - 1]);
  return 0;
}
"""


def _same_outputs(tmp_path, text: str) -> str:
    path = tmp_path / "shape.c"
    path.write_bytes(text.encode())
    result = optimize(path, OptimizeOptions.from_flags(tile=True, parallel=True))
    assert outputs_of(result.text, tmp_path, "opt", [()]) == outputs_of(PROGRAM, tmp_path, "orig", [()])
    return result.text


def test_form_feed_and_vertical_tab_before_the_pragmas(tmp_path):
    text = PROGRAM.replace("#pragma scop", "\v#pragma scop").replace("#pragma endscop", "\f #pragma endscop")
    [scop] = extract(text, filename="ff.c")
    assert len(scop.statements) == 1
    assert "#pragma omp parallel for" in _same_outputs(tmp_path, text)


def test_byte_order_mark_before_a_define(tmp_path):
    text = "\ufeff" + PROGRAM
    [scop] = extract(text, filename="bom.c")
    assert scop.arrays["A"].element_type == "double" and scop.arrays["A"].dims == ["N", "N"]
    output = _same_outputs(tmp_path, text)
    assert "#pragma omp parallel for" in output
    # every byte outside the region kept: the mark too (it was written back as a space)
    assert output.startswith("\ufeff#define N 40\n")


@pytest.mark.parametrize("what", ["after a comment", "every line"])
def test_a_lone_carriage_return_is_refused_where_it_is(tmp_path, what):
    if what == "after a comment":
        text = PROGRAM.replace("      A[i][j] = A[i - 1][j] * 0.5 + 1.0;",
                               "      A[i][j] = A[i - 1][j] * 0.5 + 1.0; // note\r A[i][0] += A[i][j];")
        where = "cr.c:11:49: "
    else:
        text = PROGRAM.replace("\n", "\r")
        where = "cr.c:1:13: "
    assert text != PROGRAM
    with pytest.raises(ScopError) as caught:
        extract(text + "\n", filename="cr.c")
    assert str(caught.value).startswith(where + "error: a carriage return not followed by a line feed"), caught.value
    # CRLF files stay readable
    [scop] = extract(PROGRAM.replace("\n", "\r\n"), filename="crlf.c")
    assert len(scop.statements) == 1
