"""Small conveniences over islpy shared by every stage (no polyhedral logic here)."""
from __future__ import annotations

import islpy as isl


def maps_of(umap: isl.UnionMap) -> list[isl.Map]:
    """The per-space pieces of ``{ S0[i] -> ...; S1[i, j] -> ... }`` as a list."""
    result: list[isl.Map] = []
    umap.foreach_map(result.append)
    return result


def sets_of(uset: isl.UnionSet) -> list[isl.Set]:
    """The per-space pieces of ``{ S0[i] : ...; S1[i, j] : ... }`` as a list."""
    result: list[isl.Set] = []
    uset.foreach_set(result.append)
    return result
