"""Libraries an intrinsic may call (description key ``library:``), found on this machine.

``cblas``: a shared library exporting ``cblas_dgemm`` (LP64 ``int`` sizes) or, as the
OpenBLAS that numpy and scipy ship, ``scipy_cblas_dgemm[64_]``. Looked for in order:

1. the environment variable ``POLYSCHED_CBLAS`` (a path or soname; nothing else is
   tried when it is set, so a user can point polysched at exactly one library, or at
   none with ``POLYSCHED_CBLAS=none``);
2. the system's CBLAS, OpenBLAS, BLIS or MKL (``ctypes.util.find_library``);
3. the OpenBLAS bundled with numpy (``numpy.libs``) or the ``scipy-openblas32/64`` wheels.

The generated C looks the library up again at run time (``polysched_cblas_load`` in
``polysched_intrinsics.h``): the path found here is only its default, written into the
file as ``POLYSCHED_CBLAS_DEFAULT``, and without any library the call runs the FMA
packed kernel instead.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import glob
import importlib.util
import os
from pathlib import Path

_DGEMM_SYMBOLS = ("cblas_dgemm", "scipy_cblas_dgemm", "cblas_dgemm64_", "scipy_cblas_dgemm64_")
_SYSTEM_NAMES = ("cblas", "openblas", "blis", "mkl_rt")


def _exports_dgemm(path: str) -> bool:
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return False
    return any(hasattr(lib, symbol) for symbol in _DGEMM_SYMBOLS)


def _python_package_libraries() -> list[str]:
    """OpenBLAS builds that Python packages bring along (numpy's own, scipy-openblas)."""
    found = []
    for package, pattern in (("numpy", "../numpy.libs/lib*openblas*.so*"),
                             ("scipy_openblas32", "lib/libscipy_openblas*.so*"),
                             ("scipy_openblas64", "lib/libscipy_openblas*.so*")):
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            continue
        for location in spec.submodule_search_locations:
            found += sorted(glob.glob(str(Path(location) / pattern)))
    return [str(Path(p).resolve()) for p in found]


@functools.lru_cache(maxsize=None)
def _find_cblas(override: str | None) -> str | None:
    if override is not None:
        return override if override.lower() != "none" and _exports_dgemm(override) else None
    candidates = [ctypes.util.find_library(name) for name in _SYSTEM_NAMES]
    for candidate in [c for c in candidates if c] + _python_package_libraries():
        if _exports_dgemm(candidate):
            return candidate
    return None


def find_cblas() -> str | None:
    """The path (or soname) of a CBLAS on this machine, None when there is none (see
    the module doc for where it looks)."""
    return _find_cblas(os.environ.get("POLYSCHED_CBLAS"))


LOCATORS = {"cblas": find_cblas}


def find_library(kind: str) -> str | None:
    """The library for a description's ``library: KIND`` (None: not on this machine)."""
    locate = LOCATORS.get(kind)
    return locate() if locate else None


def library_defines(kind: str) -> str:
    """C lines to put above ``#include "polysched_intrinsics.h"`` so that the program
    finds the library polysched found (an empty string when it found none)."""
    path = find_library(kind)
    if not path or kind != "cblas":
        return ""
    escaped = path.replace("\\", "\\\\").replace('"', '\\"')
    return f'#ifndef POLYSCHED_CBLAS_DEFAULT\n#define POLYSCHED_CBLAS_DEFAULT "{escaped}"\n#endif\n'
