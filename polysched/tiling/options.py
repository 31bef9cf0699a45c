"""Options of the tiling pass and the report of what it decided."""
from __future__ import annotations

from dataclasses import dataclass, field

from polysched.errors import ArgumentError

from .cache import openmp_threads


@dataclass
class TileOptions:
    """What ``tile`` may do.

    ``sizes``: tile sizes per band member, outermost first, used for every tiled band
    (a missing entry is chosen by the footprint model); or per statement,
    ``{"S1": [32, 64, 128], ...}``: a band takes the sizes of the first statement it
    schedules (in statement order) that has some, the others get the model's.
    ``l2tile``: tile the tile loops
    again (a second level, sizes a multiple of the first). ``parallel``: put
    ``parallel`` marks (OpenMP) on the outermost parallel loop. ``wavefront``: when a
    tiled band has no parallel tile loop, skew its first two tile loops (t1 + t2, t2) to
    make the second one parallel. ``simd``: ``simd`` mark on innermost parallel
    stride-1 loops. ``unroll``: ``unroll N`` mark on the innermost point loop.
    ``tile_depth1``: also tile permutable bands of a single member.
    ``intra_tile_reorder``: permute point loops so the innermost walks stride-1.
    ``register_tile``: when the stride-1 innermost loop carries a reduction chain
    (``y[i] += A[i][j] * x[j]`` with ``j`` innermost) and the loop that would
    vectorize instead walks an array across rows, keep the stride-1 loop innermost
    and unroll-and-jam the parallel one by this factor: that many independent chains,
    their accumulators in registers (0: off, the parallel loop goes innermost).
    ``point_wavefront``: break chains of updates in the innermost point loop (each
    iteration reading what the one before wrote into a neighbouring element): a
    parallel member goes innermost instead (adi's sweeps); when there is none (every
    point loop carries a dependence whatever their order: seidel-2d), the outermost
    point loop becomes the sum of all, so the points of one wavefront run in the inner
    loops, which carry nothing. Either way the updates in flight are independent,
    where each one waited for the one before.
    ``threads``: the OpenMP threads the code is made for (None: `openmp_threads`, the
    ones a program started here would get). A parallel loop should give each at least
    two iterations, and parallel tiles come in full rounds of them; the code is correct
    at any thread count.
    ``reassociate``: allow ``reduction`` clauses on floating-point scalars (True: on
    every one; a tuple of names: on those, as a region's own ``reduction(+:s)`` clause
    allows). Off by default: a parallel floating-point sum is computed in another
    order, so its result differs from the original's (like ``-ffast-math``). Integer reductions are exact
    without it: unsigned and narrower ones wrap as C defines, and signed sums and
    products of ``int``'s rank or wider, whose partial sums in another order might
    overflow (undefined in C), are computed in an unsigned copy (emit_c).
    """

    tile: bool = True
    sizes: list[int] | dict[str, list[int]] | None = None
    l2tile: bool = False
    parallel: bool = False
    wavefront: bool = True
    simd: bool = True
    unroll: int | None = None
    tile_depth1: bool = False
    intra_tile_reorder: bool = True
    register_tile: int = 4
    reassociate: bool | tuple[str, ...] = False
    point_wavefront: bool = True
    threads: int | None = None

    def target_threads(self) -> int:
        """``threads``, or the threads a program started here would get."""
        return self.threads or openmp_threads()

    def auto_tile_args(self, caches) -> dict:
        """These options as the arguments of a `polysched.Program.auto_tile` trace step,
        with the cache sizes (``l1d``, ``l2``, ``l3``) and the threads the size model
        used (so that a replay on another machine decides the same)."""
        return {"tile": self.tile, "sizes": self.sizes, "parallel": self.parallel,
                "l2tile": self.l2tile, "simd": self.simd, "unroll": self.unroll,
                "reassociate": reassociation_arg(self.reassociate), "wavefront": self.wavefront,
                "intra_tile_reorder": self.intra_tile_reorder, "tile_depth1": self.tile_depth1,
                "register_tile": self.register_tile, "point_wavefront": self.point_wavefront,
                "caches": {"l1d": caches.l1d, "l2": caches.l2, "l3": caches.l3},
                "threads": self.target_threads()}

    def __post_init__(self) -> None:
        if isinstance(self.sizes, dict):
            self.sizes = {str(stmt): _positive_sizes(sizes) for stmt, sizes in self.sizes.items()}
        elif self.sizes is not None:
            self.sizes = _positive_sizes(self.sizes)
        if not isinstance(self.reassociate, bool):
            names = list(self.reassociate) if isinstance(self.reassociate, (list, tuple, set, frozenset)) else [0]
            if not all(isinstance(name, str) and name.isidentifier() for name in names):
                raise ArgumentError(f"reassociate must be True, False or names of scalars, got {self.reassociate!r}")
            self.reassociate = tuple(sorted(set(names)))
        if self.threads is not None and int(self.threads) < 1:
            raise ArgumentError(f"threads must be >= 1, got {self.threads}")
        if self.unroll is not None and int(self.unroll) < 1:
            raise ArgumentError(f"unroll factor must be >= 1, got {self.unroll}")
        if self.sizes is not None and not (self.tile or self.l2tile):
            # (helper-49: ignored; the command line refuses '--tile-sizes' without '--tile')
            raise ArgumentError(f"tile sizes {self.sizes} given with tile=False: they would tile nothing")


def reassociation_arg(reassociate: bool | tuple[str, ...]) -> bool | list[str]:
    """A reassociation (True/False, or scalar names) as a trace step's JSON argument."""
    return reassociate if isinstance(reassociate, bool) else list(reassociate)


def _positive_sizes(sizes) -> list[int]:
    sizes = [int(s) for s in ([sizes] if isinstance(sizes, int) else sizes)]
    if any(s < 1 for s in sizes):
        raise ArgumentError(f"tile sizes must be >= 1, got {sizes}")
    return sizes


@dataclass
class BandReport:
    """What happened to one band of the input tree.

    ``schedule``: the band's partial schedule in isl notation, as found.
    ``parallel``: where the parallel mark went (``"tile loop 0"``, ``"wavefront"``,
    ``"loop 1"``...) with its OpenMP clauses, or None. ``steps``: the primitive steps
    the policy applied to the band (``{"op": "tile", "args": {...}}``, as in a
    `polysched.Trace`).
    """

    depth: int
    members: int
    schedule: str
    permutable: bool
    coincident: list[bool]
    tiled: bool = False
    sizes: list[int] | None = None
    l2_sizes: list[int] | None = None
    point_order: list[int] | None = None
    parallel: str | None = None
    clauses: str = ""
    wavefront: bool = False
    point_wavefront: bool = False
    simd: bool = False
    unroll: int | None = None
    jam: int | None = None            # unroll-and-jam factor of member jam_member
    jam_member: int | None = None
    notes: list[str] = field(default_factory=list)
    steps: list[dict] = field(default_factory=list)

    def summary(self) -> str:
        parts = [f"band@{self.depth} ({self.members} members, "
                 f"{'permutable' if self.permutable else 'not permutable'}, "
                 f"coincident {['y' if c else 'n' for c in self.coincident]})"]
        if self.tiled:
            parts.append(f"tiled {self.sizes}")
            if self.l2_sizes:
                parts.append(f"L2 tiles {self.l2_sizes}")
            if self.point_order is not None:
                parts.append(f"point order {self.point_order}")
        if self.wavefront:
            parts.append("wavefront")
        if self.point_wavefront:
            parts.append("point loops in wavefronts")
        if self.parallel:
            parts.append(f"parallel: {self.parallel}" + (f" [{self.clauses}]" if self.clauses else ""))
        if self.simd:
            parts.append("simd")
        if self.unroll:
            parts.append(f"unroll {self.unroll}")
        if self.jam:
            parts.append(f"unroll-and-jam member {self.jam_member} by {self.jam}")
        parts.extend(self.notes)
        return "; ".join(parts)


@dataclass
class TilingReport:
    """One ``BandReport`` per band of the input tree, outermost first."""

    bands: list[BandReport] = field(default_factory=list)
    sinks: list[dict] = field(default_factory=list)      # sink steps taken before the bands'

    @property
    def tiled(self) -> list[BandReport]:
        return [b for b in self.bands if b.tiled]

    @property
    def parallel(self) -> list[BandReport]:
        return [b for b in self.bands if b.parallel]

    def steps(self) -> list[dict]:
        """Every band's primitive steps in the order the policy applied them (innermost
        band first): replayed on the input schedule (`polysched.Program.replay`), they
        give the tiled schedule."""
        return self.sinks + [step for band in reversed(self.bands) for step in band.steps
                             if not any(note.startswith("left as it is") for note in band.notes)]

    def __str__(self) -> str:
        lines = [f"loop {s['args']['depth']} of {s['args']['stmt']} sunk innermost (stride 1, carries nothing)"
                 for s in self.sinks]
        return "\n".join(lines + [b.summary() for b in self.bands]) or "(no band)"

    def to_json(self) -> dict:
        return {"sinks": self.sinks, "bands": [dict(vars(b)) for b in self.bands]}
