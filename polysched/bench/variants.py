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
"""
from __future__ import annotations

import functools
import shutil
import subprocess
import tempfile
from pathlib import Path

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
    if scheduler not in SCHEDULERS + ("identity",) or mode not in MODES:
        raise ValueError(f"unknown variant {name!r}: expected one of {', '.join(all_variant_names())}")
    tile = mode in ("tile", "tile-par")
    parallel = mode == "tile-par"

    def make_source(kernel, workdir: Path) -> Path:
        from polysched.pipeline import OptimizeOptions, optimize

        options = OptimizeOptions.from_flags(scheduler=scheduler, tile=tile, parallel=parallel, **overrides)
        result = optimize(kernel.path, options)
        workdir.mkdir(parents=True, exist_ok=True)
        out = workdir / f"{kernel.name}.{name}.c"
        out.write_text(result.text)
        return out

    make_source.__name__ = f"polysched optimize --scheduler {scheduler}" + \
        (" --tile" if tile else "") + (" --parallel" if parallel else "")
    return Variant(name, make_source, cc, tuple(cflags), openmp=parallel)


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


def tensorize_variant(cc: str = DEFAULT_CC, cflags=DEFAULT_CFLAGS) -> Variant:
    """``pluto-tensorize`` (see the module doc)."""
    from polysched.tensorize import INCLUDE_DIR

    def make_source(kernel, workdir: Path) -> Path:
        from polysched import Program
        from polysched.pipeline import OptimizeOptions, optimize
        from polysched.tensorize import auto_tensorize, builtin_intrinsics

        program, report = auto_tensorize(Program.from_file(kernel.path), builtin_intrinsics(), parallel=True)
        if any(item.applied for item in report):
            text = program.c_code()
        else:
            text = optimize(kernel.path, OptimizeOptions.from_flags(tile=True, parallel=True)).text
        workdir.mkdir(parents=True, exist_ok=True)
        out = workdir / f"{kernel.name}.{TENSORIZE}.c"
        out.write_text(text)
        return out

    make_source.__name__ = "polysched optimize --tile --parallel --tensorize auto"
    return Variant(TENSORIZE, make_source, cc, (*cflags, f"-I{INCLUDE_DIR}"), openmp=True)


def all_variant_names() -> list[str]:
    return [ORIG, *DEFAULT_VARIANTS, "identity-sched", "polly", "polly-par", TENSORIZE]


def make_variants(names, cc: str = DEFAULT_CC, cflags=DEFAULT_CFLAGS) -> list[Variant]:
    """Variants by name (see :func:`all_variant_names`); ``orig`` always first."""
    variants = [orig_variant(cc, cflags)]
    polly = {v.name: v for v in polly_variants(cflags)} if any(n.startswith("polly") for n in names) else {}
    for name in names:
        if name == ORIG:
            continue
        if name == TENSORIZE:
            variants.append(tensorize_variant(cc, cflags))
        elif name.startswith("polly"):
            if name not in polly:
                raise ValueError(f"variant {name!r} needs clang with Polly (Debian: apt-get install "
                                 "clang-19 libpolly-19-dev libomp-19-dev), none found")
            variants.append(polly[name])
        else:
            variants.append(optimizer_variant(name, cc, cflags))
    return variants
