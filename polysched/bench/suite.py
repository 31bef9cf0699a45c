"""The benchmark kernel suite: the 30 classic polyhedral kernels plus ML-style ones.

Each kernel is one self-contained C file, ``kernels/<name>.c``, with a single
``#pragma scop`` region inside ``static void kernel_<name_with_underscores>(...)``.
Every file follows the same conventions (the rest of polysched relies on them):

* ``-D{MINI,SMALL,MEDIUM,LARGE,EXTRALARGE}_DATASET`` picks the sizes (default LARGE);
  each size macro is ``#ifndef``-guarded, so ``-DN=37`` overrides one size alone.
* stderr gets ``polysched-time: <seconds>`` (the kernel call only) and, without
  ``-DPOLYSCHED_DUMP``, ``polysched-checksum: <sum of the outputs>``.
* with ``-DPOLYSCHED_DUMP``, stdout gets every array the kernel writes, as a line
  ``== <array> ==`` followed by the values (``%.10g`` or ``%d``), 20 per line.

``Kernel.sizes`` repeats the values written in the C file (a test checks that they
agree).  ``Kernel.flops`` counts the floating-point operations of the mathematical
definition, with the usual conventions: a multiply-add is 2 flops, a scaling by
alpha/beta is one flop per scaled element, sqrt/exp/pow count 1; for the integer
kernels (floyd-warshall, nussinov, matmul-int8) it counts the integer operations
the same way.
"""
from __future__ import annotations

import pathlib
from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable, Mapping

from polysched.errors import ArgumentError

DATASETS = ("MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE")

KERNEL_DIR = pathlib.Path(__file__).parent / "kernels"

CATEGORIES = ("blas", "linear-algebra", "solvers", "datamining", "medley", "stencils", "ml")


@dataclass(frozen=True)
class Kernel:
    """One benchmark kernel: its C file, dataset sizes and flop formula."""

    name: str
    category: str
    path: pathlib.Path
    sizes: Mapping[str, Mapping[str, int]]  # read-only: dataset -> {macro: value}
    flops_fn: Callable[[Mapping[str, int]], float]
    classic: bool

    def __hash__(self) -> int:
        # The fields hold mappings and functions; the name identifies a kernel.
        return hash(self.name)

    @property
    def function_name(self) -> str:
        """The C function holding the SCoP, e.g. ``kernel_jacobi_2d``."""
        return "kernel_" + self.name.replace("-", "_")

    def flops(self, dataset: str) -> float:
        """Floating-point operations of one kernel call at ``dataset``."""
        return float(self.flops_fn(self.sizes[_check_dataset(dataset)]))

    def define_flag(self, dataset: str) -> str:
        """The compiler flag selecting ``dataset``, e.g. ``-DLARGE_DATASET``."""
        return f"-D{_check_dataset(dataset)}_DATASET"


def dataset_spelling(dataset: str) -> str:
    """A dataset name spelled one way (``" large "``, ``"large_dataset"`` -> ``"LARGE"``),
    whether or not it is a PolyBench preset (a program may test ``HUGE_DATASET``)."""
    return str(dataset).strip().upper().removesuffix("_DATASET")


def normalize_dataset(dataset: str) -> str:
    """The canonical name of a dataset (``"large"``, `` Large `` -> ``"LARGE"``);
    ValueError (one line, listing the names) for any other name, e.g. ``"HUGE"``:
    an unknown ``-D<NAME>_DATASET`` would silently build the file's default size."""
    key = dataset_spelling(dataset)
    if key not in DATASETS:
        raise ArgumentError(f"unknown dataset {dataset!r}; choose one of {', '.join(DATASETS)}")
    return key


def dataset_arg(text: str) -> str:
    """``argparse`` type of a ``--dataset`` option: the normalised name, or a usage
    error naming the known ones (``type=dataset_arg``)."""
    import argparse
    try:
        return normalize_dataset(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _check_dataset(dataset: str) -> str:
    try:
        return normalize_dataset(dataset)
    except ValueError as err:
        raise KeyError(str(err)) from None


# The five columns are MINI, SMALL, MEDIUM, LARGE, EXTRALARGE, exactly as in the .c files.
_SIZES: dict[str, dict[str, tuple[int, int, int, int, int]]] = {
    "2mm": {"NI": (16, 40, 180, 800, 1600), "NJ": (18, 50, 190, 900, 1800), "NK": (22, 70, 210, 1100, 2200), "NL": (24, 80, 220, 1200, 2400)},
    "3mm": {"NI": (16, 40, 180, 800, 1600), "NJ": (18, 50, 190, 900, 1800), "NK": (20, 60, 200, 1000, 2000), "NL": (22, 70, 210, 1100, 2200), "NM": (24, 80, 220, 1200, 2400)},
    "adi": {"TSTEPS": (20, 40, 100, 200, 400), "N": (20, 60, 200, 1000, 2000)},
    "atax": {"M": (38, 116, 390, 8000, 12000), "N": (42, 124, 410, 8400, 12600)},
    "bicg": {"M": (38, 116, 390, 8000, 12000), "N": (42, 124, 410, 8400, 12600)},
    "bmm": {"NB": (2, 4, 8, 32, 64), "NI": (8, 32, 96, 320, 512), "NJ": (10, 36, 100, 330, 520), "NK": (12, 40, 104, 340, 528)},
    "cholesky": {"N": (40, 120, 400, 2000, 4000)},
    "conv2d-nchw": {"NB": (1, 2, 4, 16, 32), "NC": (3, 8, 32, 64, 128), "NK": (4, 16, 32, 64, 128), "NH": (8, 16, 28, 56, 56), "NW": (8, 16, 28, 56, 56), "NR": (3, 3, 3, 3, 3), "NS": (3, 3, 3, 3, 3)},
    "conv2d-nhwc": {"NB": (1, 2, 4, 16, 32), "NC": (3, 8, 32, 64, 128), "NK": (4, 16, 32, 64, 128), "NH": (8, 16, 28, 56, 56), "NW": (8, 16, 28, 56, 56), "NR": (3, 3, 3, 3, 3), "NS": (3, 3, 3, 3, 3)},
    "correlation": {"M": (28, 80, 240, 1200, 2600), "N": (32, 100, 260, 1400, 3000)},
    "covariance": {"M": (28, 80, 240, 1200, 2600), "N": (32, 100, 260, 1400, 3000)},
    "deriche": {"W": (64, 192, 720, 4096, 7680), "H": (64, 128, 480, 2160, 4320)},
    "doitgen": {"NQ": (8, 20, 40, 200, 250), "NR": (10, 25, 50, 220, 270), "NP": (12, 30, 60, 256, 320)},
    "durbin": {"N": (40, 120, 400, 20000, 40000)},
    "fdtd-2d": {"TSTEPS": (20, 40, 100, 500, 1000), "NX": (20, 60, 200, 1000, 2000), "NY": (30, 80, 240, 1200, 2600)},
    "floyd-warshall": {"N": (60, 180, 500, 1600, 3200)},
    "gemm": {"NI": (20, 60, 200, 1000, 2000), "NJ": (25, 70, 220, 1100, 2300), "NK": (30, 80, 240, 1200, 2600)},
    "gemver": {"N": (40, 120, 400, 8000, 12000)},
    "gesummv": {"N": (30, 90, 250, 7000, 10000)},
    "gramschmidt": {"M": (30, 80, 240, 1200, 2600), "N": (20, 60, 200, 1000, 2000)},
    "heat-3d": {"TSTEPS": (20, 40, 100, 500, 1000), "N": (10, 20, 40, 120, 200)},
    "jacobi-1d": {"TSTEPS": (20, 40, 100, 10000, 20000), "N": (30, 120, 400, 50000, 100000)},
    "jacobi-2d": {"TSTEPS": (20, 40, 100, 500, 1000), "N": (30, 90, 250, 1300, 2800)},
    "lu": {"N": (40, 120, 400, 2000, 4000)},
    "ludcmp": {"N": (40, 120, 400, 2000, 4000)},
    "matmul-int8": {"NI": (16, 64, 256, 2048, 4096), "NJ": (20, 72, 272, 2048, 4096), "NK": (24, 80, 288, 2048, 4096)},
    "matvec": {"M": (40, 120, 400, 8000, 14000), "N": (48, 128, 416, 8000, 14000)},
    "mvt": {"N": (40, 120, 400, 8000, 12000)},
    "nussinov": {"N": (60, 180, 500, 2500, 5000)},
    "seidel-2d": {"TSTEPS": (20, 40, 100, 100, 200), "N": (40, 120, 400, 2000, 4000)},
    "symm": {"M": (20, 60, 200, 1000, 2000), "N": (30, 80, 240, 1200, 2600)},
    "syr2k": {"M": (20, 60, 200, 1000, 2000), "N": (30, 80, 240, 1200, 2600)},
    "syrk": {"M": (20, 60, 200, 1000, 2000), "N": (30, 80, 240, 1200, 2600)},
    "trisolv": {"N": (40, 120, 400, 10000, 14000)},
    "trmm": {"M": (20, 60, 200, 1000, 2000), "N": (30, 80, 240, 1200, 2600)},
}


def _tri(n: int) -> int:
    """Entries of a lower triangle with its diagonal: n(n+1)/2."""
    return n * (n + 1) // 2


def _sum_squares(n: int) -> int:
    """sum of k^2 for k = 1..n."""
    return n * (n + 1) * (2 * n + 1) // 6


# name -> (category, flop formula).  Each formula is commented with its derivation.
_FLOPS: dict[str, tuple[str, Callable[[Mapping[str, int]], float]]] = {
    # mean: NM adds + M divs; stddev: 3NM + 2M (sub, mul, add; div, sqrt);
    # normalise: 3NM (sub, mul, div); corr: 2N per pair i < j.
    "correlation": ("datamining", lambda s: 7 * s["N"] * s["M"] + 3 * s["M"]
                    + 2 * s["N"] * s["M"] * (s["M"] - 1) / 2),
    # mean: NM + M; centre: NM; cov: (2N + 1) per entry of the upper triangle.
    "covariance": ("datamining", lambda s: 2 * s["N"] * s["M"] + s["M"]
                   + (2 * s["N"] + 1) * _tri(s["M"])),
    # C := alpha*A*B + beta*C: 2*NI*NJ*NK for A*B, 3*NI*NJ for the scalings and the sum.
    "gemm": ("blas", lambda s: 2 * s["NI"] * s["NJ"] * s["NK"] + 3 * s["NI"] * s["NJ"]),
    # rank-2 update 4N^2; x: 2N^2 + 2N (A'y, beta, + z); w: 2N^2 + 2N.
    "gemver": ("blas", lambda s: 8 * s["N"] ** 2 + 4 * s["N"]),
    # two matrix-vector products 4N^2, then alpha*tmp + beta*y: 3N.
    "gesummv": ("blas", lambda s: 4 * s["N"] ** 2 + 3 * s["N"]),
    # A*B with A symmetric M x M: 2*M*M*N; alpha, beta and the sum: 3*M*N.
    "symm": ("blas", lambda s: 2 * s["M"] ** 2 * s["N"] + 3 * s["M"] * s["N"]),
    # two rank-k products on the lower triangle: 4M per entry; alpha, beta, sum: 3.
    "syr2k": ("blas", lambda s: (4 * s["M"] + 3) * _tri(s["N"])),
    # one rank-k product on the lower triangle: 2M per entry; alpha, beta, sum: 3.
    "syrk": ("blas", lambda s: (2 * s["M"] + 3) * _tri(s["N"])),
    # strictly triangular A'*B: M(M-1)/2 * N multiply-adds; alpha: M*N.
    "trmm": ("blas", lambda s: s["M"] * (s["M"] - 1) * s["N"] + s["M"] * s["N"]),
    # tmp := alpha*A*B: 2*NI*NJ*NK + NI*NJ; D := tmp*C + beta*D: 2*NI*NL*NJ + 2*NI*NL.
    "2mm": ("linear-algebra", lambda s: 2 * s["NI"] * s["NJ"] * s["NK"] + s["NI"] * s["NJ"]
            + 2 * s["NI"] * s["NL"] * s["NJ"] + 2 * s["NI"] * s["NL"]),
    # E := A*B, F := C*D, G := E*F.
    "3mm": ("linear-algebra", lambda s: 2 * (s["NI"] * s["NJ"] * s["NK"] + s["NJ"] * s["NL"] * s["NM"]
                                             + s["NI"] * s["NL"] * s["NJ"])),
    # A*x and A'*tmp: 2 multiply-adds per matrix entry.
    "atax": ("linear-algebra", lambda s: 4 * s["M"] * s["N"]),
    # A'*r and A*p: 2 multiply-adds per matrix entry.
    "bicg": ("linear-algebra", lambda s: 4 * s["M"] * s["N"]),
    # one NP x NP vector-matrix product per (r, q).
    "doitgen": ("linear-algebra", lambda s: 2 * s["NR"] * s["NQ"] * s["NP"] ** 2),
    # A*y1 and A'*y2.
    "mvt": ("linear-algebra", lambda s: 4 * s["N"] ** 2),
    # row i: sum_{j<i} (2j + 1) = i^2 for the off-diagonal part, 2i + 1 for the diagonal
    # (with the sqrt): sum over i of (i + 1)^2.
    "cholesky": ("solvers", lambda s: _sum_squares(s["N"])),
    # step k: beta 3, dot product 2k, alpha 2, z update 2k.
    "durbin": ("solvers", lambda s: sum(4 * k + 5 for k in range(1, s["N"]))),
    # per column k: norm 2M + sqrt, scaling M; per later column j: dot 2M, update 2M.
    "gramschmidt": ("solvers", lambda s: s["N"] * (3 * s["M"] + 1)
                    + 4 * s["M"] * s["N"] * (s["N"] - 1) / 2),
    # 2*min(i, j) per entry (sum over i, j < N of min(i, j) = (N-1)N(2N-1)/6) plus one
    # division per entry below the diagonal.
    "lu": ("solvers", lambda s: 2 * _sum_squares(s["N"] - 1) + s["N"] * (s["N"] - 1) / 2),
    # lu as above, then forward substitution N(N-1) and backward N(N-1) + N divisions.
    "ludcmp": ("solvers", lambda s: 2 * _sum_squares(s["N"] - 1) + s["N"] * (s["N"] - 1) / 2
               + 2 * s["N"] * (s["N"] - 1) + s["N"]),
    # back substitution: N(N-1)/2 multiply-adds and N divisions.
    "trisolv": ("solvers", lambda s: s["N"] * (s["N"] - 1) + s["N"]),
    # per pixel: 4 recursions of 7 flops and 2 combinations of 2 flops.
    "deriche": ("medley", lambda s: 32 * s["W"] * s["H"]),
    # one add and one min per (k, i, j).
    "floyd-warshall": ("medley", lambda s: 2 * s["N"] ** 3),
    # one add and one max per (i, k, j) with i < k < j, plus 4 max/add per pair i < j.
    "nussinov": ("medley", lambda s: 2 * s["N"] * (s["N"] - 1) * (s["N"] - 2) / 6
                 + 4 * s["N"] * (s["N"] - 1) / 2),
    # per time step, half step and interior point: p 3 flops, q 12, back substitution 2.
    "adi": ("stencils", lambda s: s["TSTEPS"] * 2 * (s["N"] - 2) ** 2 * 17),
    # per step: ey 3 flops on (NX-1)*NY points, ex 3 on NX*(NY-1), hz 5 on (NX-1)*(NY-1).
    "fdtd-2d": ("stencils", lambda s: s["TSTEPS"] * (3 * (s["NX"] - 1) * s["NY"] + 3 * s["NX"] * (s["NY"] - 1)
                                                   + 5 * (s["NX"] - 1) * (s["NY"] - 1))),
    # 15 flops per interior point, two sweeps per step.
    "heat-3d": ("stencils", lambda s: 2 * 15 * s["TSTEPS"] * (s["N"] - 2) ** 3),
    # 3 flops per interior point, two sweeps per step.
    "jacobi-1d": ("stencils", lambda s: 2 * 3 * s["TSTEPS"] * (s["N"] - 2)),
    # 5 flops per interior point, two sweeps per step.
    "jacobi-2d": ("stencils", lambda s: 2 * 5 * s["TSTEPS"] * (s["N"] - 2) ** 2),
    # 9 flops (8 adds, 1 division) per interior point and step.
    "seidel-2d": ("stencils", lambda s: 9 * s["TSTEPS"] * (s["N"] - 2) ** 2),
    # one multiply-add per (n, k, h, w, c, r, s).
    "conv2d-nchw": ("ml", lambda s: 2 * s["NB"] * s["NK"] * s["NH"] * s["NW"] * s["NC"] * s["NR"] * s["NS"]),
    "conv2d-nhwc": ("ml", lambda s: 2 * s["NB"] * s["NK"] * s["NH"] * s["NW"] * s["NC"] * s["NR"] * s["NS"]),
    # NB independent NI x NK times NK x NJ products.
    "bmm": ("ml", lambda s: 2 * s["NB"] * s["NI"] * s["NJ"] * s["NK"]),
    # integer multiply-adds of an NI x NK times NK x NJ product.
    "matmul-int8": ("ml", lambda s: 2 * s["NI"] * s["NJ"] * s["NK"]),
    # one multiply-add per matrix entry.
    "matvec": ("ml", lambda s: 2 * s["M"] * s["N"]),
}

CLASSIC = (
    "correlation", "covariance",
    "gemm", "gemver", "gesummv", "symm", "syr2k", "syrk", "trmm",
    "2mm", "3mm", "atax", "bicg", "doitgen", "mvt",
    "cholesky", "durbin", "gramschmidt", "lu", "ludcmp", "trisolv",
    "deriche", "floyd-warshall", "nussinov",
    "adi", "fdtd-2d", "heat-3d", "jacobi-1d", "jacobi-2d", "seidel-2d",
)


def _build() -> dict[str, Kernel]:
    table = {}
    for name, (category, flops_fn) in _FLOPS.items():
        sizes = MappingProxyType({ds: MappingProxyType({macro: values[k] for macro, values in _SIZES[name].items()})
                                  for k, ds in enumerate(DATASETS)})
        table[name] = Kernel(name=name, category=category,
                             path=KERNEL_DIR / f"{name}.c", sizes=sizes,
                             flops_fn=flops_fn, classic=name in CLASSIC)
    return table


_KERNELS = _build()


def kernels(classic_only: bool = False) -> list[Kernel]:
    """All kernels of the suite (only the 30 classic ones if asked), sorted by name."""
    return [k for name, k in sorted(_KERNELS.items()) if k.classic or not classic_only]


def get(name: str) -> Kernel:
    """The kernel called ``name`` (e.g. ``"jacobi-2d"``); KeyError listing the names."""
    try:
        return _KERNELS[name]
    except KeyError:
        raise KeyError(f"no kernel named {name!r} in the suite; known kernels: "
                       + ", ".join(sorted(_KERNELS))) from None


__all__ = ["DATASETS", "CATEGORIES", "CLASSIC", "KERNEL_DIR", "Kernel", "kernels", "get", "normalize_dataset", "dataset_arg"]
