"""Random programs whose loops run under tests that read the data (``if (mask[i] % 3 ==
0) for (j ...) ...``, ``if (x[i] > 0.3 && i > 2) { ... } else for (j ...) ...``, ``if
(mask[i] == 2) continue;`` before loops), the inputs of ``data_test_over_loops``
(scop/extract.py: the test moved into the loops, as pet's filters). Each program has two
or three nests, sometimes inside a loop over ``t``; statements outside the tests may
write what they read; the loops' iterators are printed after the region (their final
values come from the original loops, run again: refused where the region writes what
a test reads). The main runs sizes -3 to 40.

Each program is optimized in the four modes of exit_values_random.py and compared
byte for byte with the original at 1 and 2 threads (its run_programs); the script
counts equal outputs, clean refusals and anything else (printed).

usage: python experiments/data_tests_random.py START COUNT [OUT_DIR]
(session 56: seeds 0-79 at 4ae8ceb, 320 optimizations: 208 equal, 112 refused (the loops'
iterators printed after a region that writes what a test reads; writes under the test to
what it reads), 0 other. helper-79's four findings, fixed in 2495cfd, were outside what
this generator writes: struct members and '*p' in the test, a loop start that sets a
scalar, a declaration the test reads. Session 57 added comma statements and swaps through
a scalar declared under a data test: seeds from 110 on are of that generator.)"""
import random
import sys
from pathlib import Path

from exit_values_random import run_programs

TESTS = ["mask[i] % 3 == 0", "x[i] > 0.3", "x[i] > 0.3 && i > 2", "i > 0 && mask[i - 1] == 1",
         "mask[i] != 2 || i == 3", "s[i] < 1.5"]
GUARDED = [
    "for (j = 0; j < m; j++)\n  B[i][j] = B[i][j] * 0.5 + A[j][i];",
    "for (j = 1; j < m; j++)\n  A[i][j] += A[i][j - 1] * x[j];",
    "s[i] = 0.0;\nfor (j = 0; j < m; j++)\n  s[i] += A[i][j] * B[j][i];",
    "for (j = 0; j < m; j++)\n  for (k = 0; k < 3; k++)\n    B[i][j] += A[k][j] * 0.25;",
    "B[i][0] = x[i];\nfor (j = 1; j < m; j++) {\n  B[i][j] = B[i][j - 1] + A[i][j];\n  if (j > 3)\n    B[i][j] *= 0.5;\n}",
    # (session 57: comma statements and a swap through a declared scalar under the tests)
    "for (j = 0; j < m; j++)\n  B[i][j] = A[i][j] * 0.5, A[i][j] += B[i][j] * 0.25;",
    "for (j = 1; j < m; j++)\n  if (A[i][j - 1] > A[i][j]) {\n    double tmp = A[i][j - 1];\n"
    "    A[i][j - 1] = A[i][j];\n    A[i][j] = tmp;\n  }",
]
OUTSIDE = ["x[i] = x[i] * 0.9 + 0.01;", "mask[i] = (mask[i] + 1) % 4;", "A[i][0] = A[i][0] + 1.0;", "", "", "",
           "x[i] = x[i] * 0.9 + 0.01, B[i][1] += 0.5;", "if (x[i] > s[i]) { double u = x[i]; x[i] = s[i]; s[i] = u; }"]


def indent(text: str, pad: str) -> str:
    return "\n".join(pad + line for line in text.split("\n"))


def nest(r: random.Random, pad: str) -> str:
    test = r.choice(TESTS)
    guarded = r.choice(GUARDED)
    before, after = r.choice(OUTSIDE), r.choice(OUTSIDE)
    form = r.choice(["if", "if", "else", "continue"])
    if form == "continue":
        opposite = f"!({test})"
        body = f"if ({opposite})\n  continue;\n{guarded}"
    elif form == "else":
        body = f"if ({test}) {{\n{indent(guarded, '  ')}\n}} else\n  for (j = 0; j < m; j++)\n    B[i][j] -= 1.0;"
    else:
        body = f"if ({test}) {{\n{indent(guarded, '  ')}\n}}"
    body = "\n".join(part for part in (before, body, after) if part)
    return f"{pad}for (i = 0; i < n; i++) {{\n{indent(body, pad + '  ')}\n{pad}}}"


def program(seed: int) -> str:
    r = random.Random(seed)
    outer = r.random() < 0.3
    pad = "    " if outer else "  "
    nests = "\n".join(nest(r, pad) for _ in range(r.randint(2, 3)))
    if outer:
        nests = f"  for (t = 0; t < 2; t++) {{\n{nests}\n  }}"
    after = '  printf("%d %d %d\\n", i, j, k);\n' if r.random() < 0.5 else ""
    return f"""#include <stdio.h>
double A[48][48], B[48][48], x[48], s[48];
int mask[48];

void kernel(int n, int m)
{{
  int i, j = -7, k = -7, t;
#pragma scop
{nests}
#pragma endscop
{after}}}

int main(void)
{{
  int sizes[][2] = {{{{-3, 4}}, {{0, 0}}, {{1, 5}}, {{2, 1}}, {{5, 9}}, {{17, 4}}, {{40, 40}}, {{33, 47}}}};
  for (int q = 0; q < 8; q++) {{
    for (int a = 0; a < 48; a++) {{
      x[a] = ((a * 7) % 11) / 10.0; s[a] = (a % 5) * 0.5; mask[a] = (a * 5) % 4;
      for (int b = 0; b < 48; b++) {{ A[a][b] = ((a + 3 * b) % 13) / 8.0; B[a][b] = ((a * b) % 7) / 4.0; }}
    }}
    kernel(sizes[q][0], sizes[q][1]);
    double sum = 0;
    for (int a = 0; a < 48; a++) {{
      sum += x[a] * (a + 1) + s[a] * (a + 2) + mask[a];
      for (int b = 0; b < 48; b++) sum += A[a][b] * (a + 1) + B[a][b] * (b + 3);
    }}
    printf("%d %.17g\\n", sizes[q][0], sum);
  }}
  return 0;
}}
"""


def main():
    run_programs(program, int(sys.argv[1]), int(sys.argv[2]),
                 Path(sys.argv[3] if len(sys.argv) > 3 else "data_tests_random"))


if __name__ == "__main__":
    main()
