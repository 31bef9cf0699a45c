"""Every suite kernel extracts without error under every dataset preset's macros."""
from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest

from polysched.scop import extract

KERNELS = Path(__file__).parent.parent / "polysched" / "bench" / "kernels"
FILES = sorted(KERNELS.glob("*.c")) if KERNELS.is_dir() else []


@pytest.mark.skipif(not FILES, reason="no suite kernels yet")
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
@pytest.mark.parametrize("dataset", ["MINI_DATASET", "LARGE_DATASET"])
def test_kernel_extracts(path, dataset):
    scops = extract(path, defines=[dataset])
    assert scops, f"{path.name} has no #pragma scop region"
    text = path.read_text()
    for scop in scops:
        assert scop.statements
        # the context never pins the dataset's values (generated code serves every preset)
        positive = " and ".join(f"{p} >= 1" for p in scop.parameters) or "true"
        expected = isl.Set(f"[{', '.join(scop.parameters)}] -> {{ : {positive} }}")
        assert scop.context.is_equal(expected.align_params(scop.context.get_space()))
        for stmt in scop.statements:
            assert stmt.body in text
            assert not stmt.domain.is_empty()
            for acc in stmt.accesses:
                assert acc.relation.domain().is_subset(stmt.domain)
