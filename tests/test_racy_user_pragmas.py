"""A region's own ``#pragma omp parallel for`` on a loop that carries a dependence was
passed over without a word (optimized, the loop keeps the order; kept as written, the
user's pragma and its race stay): the user learnt nothing of the race in their own
code. polysched now warns,
``file:line: warning: ...``, naming the array or scalar. A pragma that is right (the
loop carries nothing, its scalars are declared in the loop or named in a clause) gets
no warning. The oracle of "carries a dependence" is a run of the original loop in
reverse order next to the forward one: a loop whose result changes carries one."""
from __future__ import annotations

import pytest

from compiled_runs import outputs_of
from polysched.dependence import racy_user_loops
from polysched.pipeline import OptimizeOptions, optimize
from polysched.scop import extract

HEAD = r"""#include <stdio.h>
#include <stdlib.h>
double a[400], b[400], c[400];
double t, s;
"""
MAIN = r"""
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 300, reverse = argc > 2;
  for (int i = 0; i < 400; i++) { a[i] = (i * 7 % 11) * 0.5; b[i] = i % 3; c[i] = 0; }
  kernel(n, reverse);
  double sum = 0;
  for (int i = 0; i < 400; i++) sum += (a[i] + 2 * b[i] + 3 * c[i]) * (i % 7 + 1);
  printf("%.17g\n", sum);
  return 0;
}
"""

# (name, loop body with {i} for the iterator, clauses, racy)
LOOPS = [
    ("recurrence", "a[{i} + 1] = a[{i}] * 0.5 + b[{i}];", "", "'a' is written in one iteration"),
    ("shared_temporary", "t = a[{i}] * 2.0; c[{i}] = t + b[{i}];", "", "scalar 't' is written in each iteration but shared"),
    ("unclaimed_sum", "s += a[{i}]; c[{i}] = b[{i}];", "", "scalar 's': floating-point reduction"),
    ("private_temporary", "t = a[{i}] * 2.0; c[{i}] = t + b[{i}];", " private(t)", None),
    ("declared_temporary", "double u = a[{i}] * 2.0; c[{i}] = u + b[{i}];", "", None),
    ("claimed_sum", "s += a[{i}]; c[{i}] = b[{i}];", " reduction(+:s)", None),
    ("independent", "c[{i}] = a[{i}] * b[{i}];", "", None),
]


def _program(body: str, clauses: str) -> str:
    loop = f"""
void kernel(int n, int reverse) {{
  if (reverse) {{
    for (int i = n - 1; i >= 0; i--) {{ {body.format(i='i')} }}
    return;
  }}
#pragma scop
#pragma omp parallel for{clauses}
  for (int i = 0; i < n; i++) {{
    {body.format(i='i')}
  }}
#pragma endscop
}}
"""
    return HEAD + loop + MAIN


@pytest.mark.parametrize("name, body, clauses, racy", LOOPS, ids=[loop[0] for loop in LOOPS])
def test_the_regions_own_parallel_loop_is_checked(name, body, clauses, racy, tmp_path, capsys):
    text = _program(body, clauses)
    forward, backward = outputs_of(text.replace("#pragma omp parallel for", "//"), tmp_path, name,
                                   [(300,), (300, 1)], threads=(1,))
    # the oracle: a loop whose order changes its result carries a dependence (a
    # private temporary or a sum in another order changes nothing here: exact values)
    assert (forward != backward) == (racy == "'a' is written in one iteration")
    [scop] = extract(text)
    found = racy_user_loops(scop)
    if racy is None:
        assert found == []
    else:
        [(line, pragma, why)] = found
        assert line == 12 and pragma == f"#pragma omp parallel for{clauses}" and racy in why, why
    path = tmp_path / "in.c"
    path.write_text(text)
    result = optimize(path, OptimizeOptions.from_flags())
    err = capsys.readouterr().err
    assert ("in.c:12: warning: the region's own '#pragma omp parallel for" in err) == (racy is not None), err
    # the output means what the original means on one thread; on two, where the pragma
    # is right (a region kept as written keeps the user's pragma, and its race)
    threads = (1,) if racy else (1, 2)
    assert outputs_of(result.text, tmp_path, f"{name}_out", [(300,), (0,), (1,)], threads) == \
        outputs_of(text.replace("#pragma omp parallel for", "//"), tmp_path, f"{name}_seq", [(300,), (0,), (1,)],
                   threads)


NEST = r"""#include <stdio.h>
double a[60][60], b[60][60];
int main(void) {
  int i, j;
  for (i = 0; i < 60; i++) for (j = 0; j < 60; j++) a[i][j] = (i * 7 + j * 3) % 13;
#pragma scop
PRAGMA
  for (i = 0; i < 60; i++)
    for (j = 1; j < 60; j++)
      BODY
#pragma endscop
  printf("%g %g\n", a[5][7], b[9][3]);
  return 0;
}
"""


@pytest.mark.parametrize("pragma, body, racy", [
    # helper-98 of session 64: the loop collapse(2) shares too carries the dependence
    ("#pragma omp parallel for collapse(2)", "a[i][j] = a[i][j - 1] + 1;", "'a' is written in one iteration"),
    ("#pragma omp parallel for collapse(2)", "b[i][j] = a[i][j] * 2;", None),
    ("#pragma omp parallel for", "a[i][j] = a[i][j - 1] + 1;", "the iterator 'j' of a loop inside is declared outside"),
    # helper-98 of session 64: the inner loop's iterator, declared before the region, is shared
    ("#pragma omp parallel for", "b[i][j] = a[i][j] * 2;", "the iterator 'j' of a loop inside is declared outside"),
    ("#pragma omp parallel for private(j)", "b[i][j] = a[i][j] * 2;", None),
])
def test_a_collapsed_loop_and_the_iterators_of_the_loops_inside_are_checked(pragma, body, racy):
    [scop] = extract(NEST.replace("PRAGMA", pragma).replace("BODY", body))
    found = racy_user_loops(scop)
    if racy is None:
        assert found == []
    else:
        [(line, text, why)] = found
        assert line == 7 and text == pragma and racy in why, why
