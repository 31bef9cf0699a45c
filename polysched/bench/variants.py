"""The variants ``polysched bench`` builds for each kernel.

``orig``: the kernel file unchanged, ``gcc -O3 -march=native``.
``<scheduler>-<mode>`` for scheduler in {isl, pluto} and mode in {sched, tile, tile-par}:
the file produced by :func:`polysched.pipeline.optimize`, same compiler and flags
(``-fopenmp`` for ``tile-par``).
``polly`` / ``polly-par``: the kernel file unchanged through clang with Polly
(``-mllvm -polly``, plus ``-polly-parallel`` and OpenMP), when such a clang exists.
``pluto-tensorize``: tile+par+tensorize, as ``polysched optimize --tile --parallel
--tensorize auto``: each statement's best legal exact intrinsic match (OpenMP over its
blocks), or, when no statement has one, the ``pluto-tile-par`` file; compiled with
``-I`` the intrinsics header's directory.
``pluto-diamond``: ``pluto-tile-par`` with ``--diamond`` (concurrent-start tiles for
stencils' time bands; the other kernels as ``pluto-tile-par``).
``pluto-tensorize-reassoc``: the same with ``--reassociate``: the intrinsics whose sums
round differently may be chosen too (a CBLAS call when polysched finds a CBLAS, else the
FMA packed kernels); verified under the tolerance, like every variant.
Any name takes parameters after colons (:func:`parse_variant`): ``pluto-tile:sizes=32,32,32``
(tile sizes, the tile variants), ``pluto-tile-par:threads=1`` (OMP_NUM_THREADS).
"""
from __future__ import annotations

import functools
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from polysched.errors import ArgumentError
from polysched.marks import parallel_marks

from .harness import DEFAULT_CC, DEFAULT_CFLAGS
from .runner import ORIG, Variant, orig_variant

SCHEDULERS = ("isl", "pluto")
MODES = ("sched", "tile", "tile-par")
DEFAULT_VARIANTS = tuple(f"{s}-{m}" for s in SCHEDULERS for m in MODES)
POLLY_FLAGS = ("-mllvm", "-polly")
POLLY_PARALLEL_FLAGS = ("-mllvm", "-polly-parallel")  # -fopenmp comes from Variant.openmp


def optimizer_variant(name: str, cc: str = DEFAULT_CC, cflags=DEFAULT_CFLAGS,
                      **overrides) -> Variant:
    """``"pluto-tile-par"`` -> a Variant whose source is ``polysched optimize``'s output."""
    scheduler, _, mode = name.partition("-")
    # (helper-92: 'identity-tile' was taken, and its record said tiled where nothing was:
    # the identity schedule is not tiled, as optimize --identity --tile is refused)
    if (scheduler not in SCHEDULERS or mode not in MODES) and name != "identity-sched":
        raise ArgumentError(f"unknown variant {name!r}: expected one of {', '.join(all_variant_names())}")
    tile = mode in ("tile", "tile-par")
    parallel = mode == "tile-par"

    def make_source(kernel, workdir: Path, threads: int | None = None):
        from polysched.pipeline import OptimizeOptions, optimize

        # the code is made for the threads it will run with (tile counts in full rounds)
        threads = threads if parallel else None
        options = OptimizeOptions.from_flags(scheduler=scheduler, tile=tile, parallel=parallel,
                                             threads=threads, **overrides)
        result = optimize(kernel.path, options)
        workdir.mkdir(parents=True, exist_ok=True)
        out = workdir / f"{kernel.name}.{name}.c"
        out.write_text(result.text)
        return out, build_info(result, {"scheduler": scheduler, "tile": tile, "parallel": parallel,
                                        **({"threads": threads} if threads else {}), **overrides})

    make_source.__name__ = f"polysched optimize --scheduler {scheduler}" + \
        (" --tile" if tile else "") + (" --parallel" if parallel else "") + \
        (" --diamond" if overrides.get("diamond") else "") + \
        (f" --fuse {overrides['fuse']}" if overrides.get("fuse") else "") + \
        (" --no-tensorize" if overrides.get("tensorize") is False else "") + \
        (" --no-point-wavefront" if overrides.get("point_wavefront") is False else "") + \
        (f" --tile-sizes {','.join(map(str, overrides['tile_sizes']))}" if overrides.get("tile_sizes") else "")
    return Variant(name, make_source, cc, tuple(cflags), openmp=parallel)


def build_info(result, options: dict) -> dict:
    """What a results record keeps of an ``optimize`` run: its options, and per region
    the tile sizes chosen per tiled band, where the parallel loops went, the fusion
    decisions, the scalars expanded, the micro-kernel calls (tensorize) and the final
    schedule tree (isl notation)."""
    regions = []
    for region in result.regions:
        bands = region.tiling.to_json()["bands"] if region.tiling is not None else []
        regions.append(region_record(
            region.scop.function, region.schedule,
            tile_sizes=[band["sizes"] for band in bands if band.get("tiled")],
            # a tensorized region's parallel loops are its marks (helper-92: [])
            parallel=[band["parallel"] for band in bands if band.get("parallel")]
            or ([mark for mark, _ in parallel_marks(region.schedule)] if region.tensorize else []),
            fusion=region.fusion, expansions=region.expansions, tensorize=region.tensorize))
    return {"options": dict(options), "regions": regions}


def region_record(function: str, schedule, *, tile_sizes=(), parallel=(), fusion=(), expansions=(),
                  tensorize=()) -> dict:
    """One region of a record's ``build`` (see :func:`build_info`)."""
    return {"function": function, "tile_sizes": list(tile_sizes), "parallel": list(parallel),
            "fusion": list(fusion), "expansions": list(expansions), "tensorize": list(tensorize),
            "schedule": str(schedule)}


@functools.lru_cache(maxsize=None)
def find_polly_clang() -> str | None:
    """A clang that accepts ``-mllvm -polly`` (Debian: clang-19 + libpolly-19-dev), or None."""
    candidates = ["clang"] + [f"clang-{v}" for v in range(22, 13, -1)]
    for cc in candidates:
        path = shutil.which(cc)
        if path is None:
            continue
        with tempfile.TemporaryDirectory(prefix="polysched-polly-") as tmp:
            src = Path(tmp) / "p.c"
            src.write_text("int main(void) { return 0; }\n")
            try:
                proc = subprocess.run([path, *POLLY_FLAGS, *POLLY_PARALLEL_FLAGS, "-fopenmp", str(src),
                                       "-o", str(Path(tmp) / "p")],
                                      capture_output=True, text=True, timeout=60)
            except (OSError, subprocess.TimeoutExpired):
                continue
            if proc.returncode == 0 and "polly" not in proc.stderr:
                return cc
    return None


def polly_variants(cflags=DEFAULT_CFLAGS) -> list[Variant]:
    cc = find_polly_clang()
    if cc is None:
        return []
    return [
        Variant("polly", None, cc, (*cflags, *POLLY_FLAGS)),
        Variant("polly-par", None, cc, (*cflags, *POLLY_FLAGS, *POLLY_PARALLEL_FLAGS), openmp=True),
    ]


TENSORIZE = "pluto-tensorize"
DIAMOND = "pluto-diamond"
TENSORIZE_REASSOC = "pluto-tensorize-reassoc"


def tensorize_variant(cc: str = DEFAULT_CC, cflags=DEFAULT_CFLAGS, reassociate: bool = False) -> Variant:
    """``pluto-tensorize`` or, with ``reassociate``, ``pluto-tensorize-reassoc`` (see the
    module doc)."""
    name = TENSORIZE_REASSOC if reassociate else TENSORIZE
    from polysched.tensorize import INCLUDE_DIR

    def make_source(kernel, workdir: Path, threads: int | None = None) -> Path:
        from polysched import Program
        from polysched.pipeline import OptimizeOptions, optimize
        from polysched.tensorize import auto_tensorize, builtin_intrinsics

        program, report = auto_tensorize(Program.from_file(kernel.path), builtin_intrinsics(), parallel=True,
                                         reassociate=reassociate)
        options = {"tensorize": "auto", "parallel": True, "reassociate": reassociate}
        if any(item.applied for item in report):
            text = program.c_code()
            # (helper-92: the record's build was null; region 0's calls, as a region of
            # optimize's own)
            info = {"options": options, "regions": [region_record(
                program.scop.function, program.schedule,
                parallel=[mark for mark, _ in parallel_marks(program.schedule)],
                tensorize=[item.describe() for item in report])]}
        else:
            # (made for the threads it runs with, as the optimizer variants' code)
            result = optimize(kernel.path, OptimizeOptions.from_flags(tile=True, parallel=True, threads=threads,
                                                                      reassociate=reassociate))
            text, info = result.text, build_info(result, {**options, "tile": True, "threads": threads})
        workdir.mkdir(parents=True, exist_ok=True)
        out = workdir / f"{kernel.name}.{name}.c"
        out.write_text(text)
        return out, info

    make_source.__name__ = "polysched optimize --tile --parallel --tensorize auto" + (
        " --reassociate" if reassociate else "")
    return Variant(name, make_source, cc, (*cflags, f"-I{INCLUDE_DIR}"), openmp=True)


def all_variant_names() -> list[str]:
    return [ORIG, *DEFAULT_VARIANTS, "identity-sched", "polly", "polly-par", TENSORIZE, TENSORIZE_REASSOC,
            DIAMOND]


VARIANT_PARAMS = ("sizes", "threads", "fuse", "tensorize", "pointwave")
# parameters (as parse_variant keeps them) that are `OptimizeOptions.from_flags` arguments
OPTIMIZE_PARAMS = {"sizes": "tile_sizes", "fuse": "fuse", "tensorize": "tensorize",
                   "point_wavefront": "point_wavefront"}
FUSE_VALUES = ("cost", "smart", "max", "no")


def split_variant_list(text: str) -> list[str]:
    """``"orig,pluto-tile:sizes=32,32,32,isl-tile"`` -> ``["orig",
    "pluto-tile:sizes=32,32,32", "isl-tile"]``: a comma followed by a number continues
    the parameter value before it."""
    names: list[str] = []
    for piece in (part.strip() for part in text.split(",")):
        if names and re.fullmatch(r"[-+]?\d+", piece) and "=" in names[-1]:   # (sizes=32,-1: refused whole)
            names[-1] += "," + piece
        elif piece:
            names.append(piece)
    return names


def _positive_ints(spec: str, key: str, value: str) -> list[int]:
    parts = re.split(r"[,x]", value)
    from polysched.limits import MAX_SIZE as MAX_TILE_SIZE
    if not all(re.fullmatch(r"\d+", part) and 0 < int(part) <= MAX_TILE_SIZE for part in parts):
        raise ArgumentError(f"variant {spec!r}: {key}={value} is not "
                         + (f"a list of integers from 1 to {MAX_TILE_SIZE} (e.g. sizes=32,32,32)" if key == "sizes"
                            else f"an integer from 1 to {MAX_TILE_SIZE}"))
    return [int(part) for part in parts]


def parse_variant(spec: str) -> tuple[str, dict]:
    """``"pluto-tile:sizes=32,32,32:threads=2"`` -> ``("pluto-tile", {"sizes": [32, 32,
    32], "threads": 2})``. ``sizes``: tile sizes (the ``tile`` and ``tile-par`` variants);
    ``fuse``: the fusion policy (``pluto-tile-par:fuse=no``; polysched's variants);
    ``tensorize``: ``no`` keeps the matrix products in the pipeline's own loops
    (``pluto-tile-par:tensorize=no``; polysched's variants); ``pointwave``: ``no``
    keeps the point loops of fully sequential bands as they are (``--no-point-wavefront``);
    ``threads``: OMP_NUM_THREADS for this variant (any). ValueError (one line) for a
    malformed or unknown parameter."""
    name, *parts = spec.strip().split(":")
    params: dict = {}
    for part in parts:
        key, sep, value = (text.strip() for text in part.partition("="))
        if not sep or not key or not value:
            raise ArgumentError(f"variant {spec!r}: parameter {part!r} is not KEY=VALUE")
        if key not in VARIANT_PARAMS:
            raise ArgumentError(f"variant {spec!r}: unknown parameter {key!r} (known: {', '.join(VARIANT_PARAMS)})")
        if key in params:
            raise ArgumentError(f"variant {spec!r}: parameter {key!r} given twice")
        if key == "fuse":
            if value not in FUSE_VALUES:
                raise ArgumentError(f"variant {spec!r}: fuse={value} is not one of {', '.join(FUSE_VALUES)}")
            params[key] = value
            continue
        if key in ("tensorize", "pointwave"):
            if value not in ("yes", "no"):
                raise ArgumentError(f"variant {spec!r}: {key}={value} is not yes or no")
            params["point_wavefront" if key == "pointwave" else key] = value == "yes"
            continue
        numbers = _positive_ints(spec, key, value)
        if key == "threads" and len(numbers) != 1:
            raise ArgumentError(f"variant {spec!r}: threads={value} is not one positive integer")
        params[key] = numbers[0] if key == "threads" else numbers
    if "sizes" in params:
        _, _, mode = name.partition("-")
        if name.partition("-")[0] not in SCHEDULERS + ("identity",) or mode not in ("tile", "tile-par"):
            raise ArgumentError(f"variant {spec!r}: sizes= applies to the tile and tile-par variants only")
    for key, option in (("fuse", "fuse"), ("tensorize", "tensorize"), ("pointwave", "point_wavefront")):
        if option in params and (name.partition("-")[0] not in SCHEDULERS or name.partition("-")[2] not in MODES):
            raise ArgumentError(f"variant {spec!r}: {key}= applies to polysched's own variants only")
        if option in params and key != "fuse" and name.partition("-")[2] == "sched":
            # (as optimize refuses --no-tensorize, --no-point-wavefront without --tile:
            # the sched variant's code was the same, recorded under another label)
            raise ArgumentError(f"variant {spec!r}: {key}= applies to the tile and tile-par variants only")
    return name, params


def make_variants(names, cc: str = DEFAULT_CC, cflags=DEFAULT_CFLAGS) -> list[Variant]:
    """Variants by name (see :func:`all_variant_names`), with optional parameters
    (:func:`parse_variant`: ``pluto-tile:sizes=32,32,32``); ``orig`` always first."""
    variants = [orig_variant(cc, cflags)]
    polly = {v.name: v for v in polly_variants(cflags)} if any(n.startswith("polly") for n in names) else {}
    for spec in names:
        name, params = parse_variant(spec)
        if params:
            variant = make_variants([name], cc, cflags)[-1] if name != ORIG else orig_variant(cc, cflags)
            overrides = {option: params[key] for key, option in OPTIMIZE_PARAMS.items() if key in params}
            if overrides:
                variant = optimizer_variant(name, cc, cflags, **overrides)
            variant.name = spec.strip()
            variant.threads = params.get("threads")
            variants.append(variant)
            continue
        if name == ORIG:
            continue
        if name in (TENSORIZE, TENSORIZE_REASSOC):
            variants.append(tensorize_variant(cc, cflags, reassociate=name == TENSORIZE_REASSOC))
        elif name == DIAMOND:
            variant = optimizer_variant("pluto-tile-par", cc, cflags, diamond=True)
            variant.name = DIAMOND
            variants.append(variant)
        elif name.startswith("polly"):
            if name not in polly:
                raise ArgumentError(f"variant {name!r} needs clang with Polly (Debian: apt-get install "
                                 "clang-19 libpolly-19-dev libomp-19-dev), none found")
            variants.append(polly[name])
        else:
            variants.append(optimizer_variant(name, cc, cflags))
    return variants
