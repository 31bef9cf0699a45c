"""Reductions into memory that is no variable: an out-parameter (``*sum += a[i]``) and
struct members (``st->count += ...``), the way C functions return their counts.

OpenMP reduces variables only, so such a loop was kept sequential. Now the parallel
loop updates a local copy that starts at the operator's identity, with a flag set by the
first reference of each update that runs, and adds the copy into the memory after the
loop only when the flag is set: the original touches that memory only in its updates,
so a NULL out-parameter of a loop whose updates never run stays untouched. Every case
runs the original and the output, compiled alike, at 1 and 2 threads, and compares
what they print (sizes 0, 1, 7, 1,000 and 200,000 in one run).
"""
from __future__ import annotations

import pytest

from polysched.dependence import ScopAccesses
from polysched.dependence.scalars import reduced_cell, reduction_of
from polysched.scop import extract
from test_wrong_code import assert_same_behaviour

CELLS = r"""#include <stdio.h>
#include <stdlib.h>
struct stats { long cnt; int sum; unsigned char mix; short prod; double total; };

void outparam(int n, const int *a, long *s) {
#pragma scop
  for (int i = 0; i < n; i++)
    *s += a[i];
#pragma endscop
}

void members(int n, const int *a, struct stats *st) {
#pragma scop
  for (int i = 0; i < n; i++) {
    st->cnt += a[i] > 3;
    st->sum -= a[i];
    st->mix ^= a[i];
    if (a[i] % 5 == 1)
      st->prod *= 3;
    st->total += a[i] * 0.5;
  }
#pragma endscop
}

void conditional(int n, const int *a, int *hits) {
#pragma scop
  for (int i = 0; i < n; i++)
    if (a[i] > 100)
      (*hits)++;
#pragma endscop
}

void nested(int n, int m, const int a[n][m], long *s, unsigned *t) {
#pragma scop
  *s = 7;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      s[0] = s[0] + a[i][j];
      t[0] |= a[i][j] & 0xff0;
    }
#pragma endscop
}

void blocked(int n, const int *a, long *s, long *b) {
#pragma scop
  for (int i = 0; i < n; i++) {
    *s += a[i];
    b[i] = *s;
  }
#pragma endscop
}

void selection(int n, const int *a, int *m) {
#pragma scop
  for (int i = 0; i < n; i++)
    if (a[i] > *m)
      *m = a[i];
#pragma endscop
}

void pair(int n, const int *a, long *s) {
#pragma scop
  for (int i = 0; i < n; i++)
    s[0] += a[i] + s[1];
#pragma endscop
}

int main(void) {
  int sizes[] = {0, 1, 7, 1000, 200000};
  for (int k = 0; k < 5; k++) {
    int n = sizes[k];
    int *a = malloc(sizeof(int) * (n + 1));
    int *small = malloc(sizeof(int) * (n + 1));
    long *b = malloc(sizeof(long) * (n + 1));
    for (int i = 0; i < n; i++) {
      a[i] = (i * 37) % 211 - (i % 3 == 0 ? 20000 : 0);
      small[i] = i % 100;
    }
    long s = 5, s2 = -3;
    unsigned t = 0;
    int hits = 0, m = -1;
    struct stats st = {1, 2, 3, 4, 0.25};
    outparam(n, a, n ? &s : NULL);
    members(n, a, &st);
    conditional(n, a, &hits);
    conditional(n, small, NULL);
    nested(n / 50, 50, (const int (*)[50])a, &s2, &t);
    blocked(n, small, &s, b);
    selection(n, a, &m);
    long two[2] = {1, 2};
    pair(n, a, two);
    printf("%d: %ld %ld %u %d %d %ld %d %u %d %.17g %ld %ld\n", n, s, s2, t, hits, m, st.cnt, st.sum,
           (unsigned)st.mix, st.prod, st.total, n ? b[n - 1] : 0L, two[0]);
    free(a); free(small); free(b);
  }
  return 0;
}
"""

MODES = {
    "par": dict(parallel=True),
    "tile-par": dict(tile=True, parallel=True),
    "reassociate": dict(parallel=True, reassociate=True),
    "isl-tile-par": dict(scheduler="isl", tile=True, parallel=True),
    "max-unroll": dict(fuse="max", tile=True, parallel=True, unroll=2),
}


def test_out_parameters_and_struct_members_are_reduced_in_a_copy(tmp_path):
    """The sums, products, xors and ors into ``*s``, ``(*hits)++``, ``s[0] = s[0] +
    ...``, ``t[0] |= ...`` and four members of a struct run in parallel and print what
    the original prints, in every mode. What is read inside the loop (``b[i] = *s``),
    a max kept in ``*m`` and a floating-point member without --reassociate stay
    sequential. ``conditional(n, small, NULL)``: no update runs, and the NULL cell is
    never read."""
    outputs = assert_same_behaviour(tmp_path, CELLS, modes=MODES, opts=("-O2",))
    text = outputs["par"]
    assert "reduction(+:s_partial) reduction(|:s_updated)" in text, text
    assert "reduction(^:st_mix_partial) reduction(*:st_prod_partial)" in text, text
    assert "(*(hits_updated = 1, &hits_partial))++;" in text, text
    assert "(*(s_updated = 1, &s_partial)) = s_partial + a[c0][c1];" in text, text
    members = text.split("void members(")[1].split("void conditional(")[0]
    assert "st_cnt_partial" in members and "st_total_partial" not in members, members
    assert "st_total_partial" in outputs["reassociate"]
    for function in ("blocked", "selection", "pair"):
        body = text.split(f"void {function}(")[1].split("\n}")[0]
        assert "#pragma omp" not in body, body


@pytest.mark.parametrize("index, cells", [(0, {"s": True, "a": False}),
                                          (1, {"st__cnt": True, "st__total": True}),
                                          (4, {"s": True, "b": False}),
                                          (5, {"m": True}),
                                          (6, {"s": False})])
def test_which_memory_is_a_cell(index, cells):
    """``reduced_cell``: a member, or a pointer touched only at element 0 and spelled
    plainly; an array read at ``a[i]``, or a pointer read at ``s[1]`` too, is none."""
    scop = extract(CELLS, filename="cells.c")[index]
    assert {name: reduced_cell(scop, name) for name in cells} == cells


def test_reduction_of_a_cell_reads_its_spellings():
    """The operators come from the statements with the cell written as a name: a sum
    (``-=`` too), a product under a test, an xor; a max of ``*m`` is a selection, which a
    copy cannot start at the identity of (classify_scalars blocks it)."""
    scops = extract(CELLS, filename="cells.c")
    members, selection = scops[1], scops[5]
    accesses = ScopAccesses(members)
    assert {name: reduction_of(members, accesses, name, members.domain)
            for name in ("st__cnt", "st__sum", "st__mix", "st__prod")} == \
        {"st__cnt": "+", "st__sum": "+", "st__mix": "^", "st__prod": "*"}
    assert reduction_of(selection, ScopAccesses(selection), "m", selection.domain) == "max"
