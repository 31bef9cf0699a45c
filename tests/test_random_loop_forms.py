"""Random image kernels mixing the loop forms read since session 51 under the fuzzer's
oracle (the original and each output compiled alike and run at 1 and 2 threads): flat
loops over ``h * w`` next to rows of ``w`` (split into rows), ``if (x >= L) break;`` at
an affine limit, rows of ``w / 2`` (a pooled image, c) and a ping-pong pair of rows
flipped with ``^ 1``, at sizes from 0 to 33 by 20."""
from __future__ import annotations

import random

import pytest

from compiled_runs import image_driver, oracle_results


def random_loop_form_kernel(rng) -> str:
    def term(index: str) -> str:
        return f"{rng.choice(['0.5f', '0.25f', '1.5f'])} * {rng.choice('ab')}[{index}]"

    nests = []
    for _ in range(rng.randint(2, 4)):
        kind = rng.choice(["flat", "rows", "rows", "pool", "pingpong"])
        target = rng.choice("ab")
        if kind == "flat":
            value = rng.choice([term("i"), f"{term('i')} + i * 0.125f", "0.0f"])
            nests.append(f"  for (int i = 0; i < {rng.choice(['h * w', 'w * h'])}; i++)\n"
                         f"    {target}[i] {rng.choice(['=', '+='])} {value};\n")
        elif kind == "rows":
            limit = rng.choice([None, "w / 2", "h", "y + 2", "7"])
            brk = f"      if (x >= {limit}) break;\n" if limit else ""
            terms = " + ".join(term(f"y * w + x {d}") for d in rng.sample(["- 1", "+ 0", "+ 1"], rng.randint(1, 3)))
            nests.append(f"  for (int y = 0; y < h; y++)\n    for (int x = 1; x < w - 1; x++) {{\n{brk}"
                         f"      {target}[y * w + x] {rng.choice(['=', '+='])} {terms};\n    }}\n")
        elif kind == "pool":     # (into c alone: an array is read through one row size)
            source = rng.choice("ab")
            nests.append(f"  for (int y = 0; y < h / 2; y++)\n    for (int x = 0; x < w / 2; x++)\n"
                         f"      c[y * (w / 2) + x] = {source}[2 * y * w + 2 * x] + "
                         f"{source}[(2 * y + 1) * w + 2 * x + 1];\n")
        else:
            steps = rng.randint(1, 4)
            nests.append(f"  for (int t = 0; t < {steps}; t++)\n    for (int x = 1; x < w - 1; x++)\n"
                         f"      {target}[((t & 1) ^ 1) * w + x] = 0.5f * ({target}[(t & 1) * w + x - 1] + "
                         f"{target}[(t & 1) * w + x + 1]);\n")
    return f"""#include <stdio.h>
#include <stdlib.h>
static void kernel(int w, int h, float *a, float *b, float *c) {{
#pragma scop
{''.join(nests)}#pragma endscop
}}
""" + image_driver("int", [(0, 0), (1, 1), (2, 3), (3, 3), (5, 9), (9, 5), (33, 20)])


@pytest.mark.parametrize("seed", [510001, 510002, 510003])
def test_random_loop_form_kernels(seed, tmp_path):
    results = oracle_results(random_loop_form_kernel(random.Random(seed)), tmp_path)
    assert [(r.mode, r.kind, r.detail) for r in results if r.kind != "ok"] == []
