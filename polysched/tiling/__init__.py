"""Tiling and parallelization of isl schedule trees, recorded as mark nodes.

    sched, report = tile_with_report(scop, deps, schedule, TileOptions(parallel=True))
    sched = tile(scop, deps, schedule, options)          # the same, without the report

Every permutable band of depth >= 2 (and of depth 1 with ``tile_depth1``) is tiled
rectangularly (sizes given or chosen by a cache footprint model), point loops are
ordered so the innermost walks stride-1, and marks are added: ``parallel [clauses]``
on the outermost parallel loop (a tile-loop wavefront if needed), ``simd`` on
innermost parallel stride-1 loops, ``unroll N``. Parallelism is recomputed from the
dependences; scalars get ``private``/``reduction`` clauses or keep the loop sequential.
"""
from .cache import CacheSizes, cache_sizes, openmp_threads
from .options import BandReport, TileOptions, TilingReport
from .order import stride_one_order
from .transform import TilingError, tile, tile_with_report

__all__ = ["BandReport", "CacheSizes", "TileOptions", "TilingError", "TilingReport",
           "cache_sizes", "openmp_threads", "stride_one_order", "tile", "tile_with_report"]
