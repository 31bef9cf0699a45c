"""Every suite kernel: ``analyze`` equals, instance pair for instance pair, a
brute-force enumeration at two small sizes. The brute force executes the statement
instances in the original schedule order (instances and addresses read off the model
at fixed parameters) and derives last-writer flow, RAW, WAR, WAW and RAR in Python,
without isl's dataflow analysis."""
from __future__ import annotations

from pathlib import Path

import pytest

from oracle_model import brute_force, model_trace, relation_pairs
from polysched.dependence import KINDS, analyze

KERNELS = sorted((Path(__file__).parent.parent / "polysched" / "bench" / "kernels").glob("*.c"))


def small_sizes(scop) -> list[dict[str, int]]:
    """Two parameter assignments: all equal, then unequal (so that swapped extents
    are caught), kept small for kernels with many loops."""
    many = len(scop.parameters) >= 5
    uniform = {p: (2 if many else 3) for p in scop.parameters}
    cycle = (3, 2, 4) if many else (4, 3, 5)
    mixed = {p: cycle[k % 3] for k, p in enumerate(scop.parameters)}
    return [uniform, mixed]


@pytest.fixture(scope="module")
def extract():
    from polysched.scop import extract as _extract
    return _extract


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.stem)
def test_kernel_matches_brute_force(path, extract):
    for scop in extract(path):
        deps = analyze(scop)
        assert deps.validity.intersect(scop.domain.identity()).is_empty()
        for values in small_sizes(scop):
            expected = brute_force(model_trace(scop, values))
            for kind in KINDS:
                got = relation_pairs(deps.relation(kind), values)
                assert got == expected[kind], (
                    f"{path.stem} {kind} at {values}: extra {sorted(got - expected[kind])[:4]}, "
                    f"missing {sorted(expected[kind] - got)[:4]}")
        # Every pair record is consistent with its relation and the original order.
        for kind in KINDS:
            for rec in deps.pairs(kind):
                assert rec.levels, (kind, rec.source, rec.sink)
                assert len(rec.direction) == rec.common_loops
                if rec.levels == [0]:      # loop-independent only: zero distance
                    assert all(d == "=" for d in rec.direction), rec.direction
                if rec.distance is not None:
                    assert rec.distances == [rec.distance]


def test_kernels_present():
    assert len(KERNELS) >= 10
