"""``tiling.footprint.union_size`` (points in a union of integer boxes, by a sweep
over slabs) against isl's count of the same union."""
from __future__ import annotations

import random

import islpy as isl
import pytest

from polysched.tiling.footprint import MAX_EXACT_BOXES, union_size


def _isl_count(boxes) -> int:
    union = None
    for lower, upper in boxes:
        names = [f"a{d}" for d in range(len(lower))]
        cons = " and ".join(f"{lo} <= {n} <= {hi}" for n, lo, hi in zip(names, lower, upper))
        s = isl.Set(f"{{ A[{', '.join(names)}] : {cons} }}")
        union = s if union is None else union.union(s)
    return union.count_val().to_python()


@pytest.mark.parametrize("seed", range(60))
def test_union_size_matches_isl(seed):
    rng = random.Random(seed)
    dims = rng.randint(1, 3)
    boxes = []
    for _ in range(rng.randint(1, MAX_EXACT_BOXES)):
        lower = tuple(rng.randint(-3, 6) for _ in range(dims))
        upper = tuple(lo + rng.randint(-1, 5) for lo in lower)   # some empty boxes too
        boxes.append((lower, upper))
    nonempty = [b for b in boxes if all(lo <= hi for lo, hi in zip(*b))]
    expected = _isl_count(nonempty) if nonempty else 0
    assert union_size(nonempty or boxes[:0]) == expected
    assert union_size(boxes) == expected          # empty boxes add nothing


def test_many_boxes_fall_back_to_their_bounding_box():
    boxes = [((k,), (k,)) for k in range(0, 2 * (MAX_EXACT_BOXES + 1), 2)]   # isolated points
    assert union_size(boxes) == 2 * MAX_EXACT_BOXES + 1                       # the hull 0..2n
