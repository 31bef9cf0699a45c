"""polysched.bench: compile, run, verify and time C kernels; results with provenance.

- :func:`compile_c`, :func:`run_binary`: the system compiler and the programs it
  builds, through subprocess with timeouts; failures are values, never exceptions.
  :func:`time_interleaved`: several binaries timed in interleaved rounds.
- :func:`compare_outputs`: token-by-token comparison of two ``-DPOLYSCHED_DUMP``
  outputs with a relative + absolute tolerance.
- :func:`verify`: original vs transformed C file, same flags, run, compare.
- :func:`machine_info`, :func:`cache_size`: provenance and cache sizes.
- :func:`run_benchmarks`, :class:`Variant`: a campaign (verify, then time); kernels and
  variants by name or path as the command line takes them (:func:`kernel_of`,
  :func:`file_kernel`, :func:`make_variants`), or as objects.
- :func:`report`, :func:`plot`: Markdown/CSV tables and a speedup chart.
- ``Kernel``, ``kernels``, ``get``, ``DATASETS``: the kernel suite (``suite.py``),
  loaded on first access so this package imports even while the suite is absent.
"""
from __future__ import annotations

import importlib

from .compare import DEFAULT_ATOL, DEFAULT_RTOL, Comparison, compare_outputs
from .harness import (DEFAULT_CC, DEFAULT_CFLAGS, DUMP_DEFINE, CompileResult, RunResult,
                      VerifyResult, compile_c, compiler_accepts, dataset_define,
                      parse_kernel_seconds, portable_cflags, run_binary, time_interleaved, uses_openmp,
                      verify)
from .machine import (cache_line_size, cache_size, caches, compiler_version, machine_info, provenance,
                      provenance_line)
from .runner import (STATUSES, Variant, file_kernel, kernel_of, load_results, orig_variant, run_benchmarks,
                     save_results)
from .report import geometric_mean, plot, report, speedup, summary, to_dataframe

__all__ = [
    "DEFAULT_ATOL", "DEFAULT_RTOL", "Comparison", "compare_outputs",
    "DEFAULT_CC", "DEFAULT_CFLAGS", "DUMP_DEFINE", "CompileResult", "RunResult", "VerifyResult",
    "compile_c", "compiler_accepts", "dataset_define", "parse_kernel_seconds", "portable_cflags",
    "run_binary", "time_interleaved", "uses_openmp", "verify",
    "cache_line_size", "cache_size", "caches", "compiler_version", "machine_info", "provenance",
    "provenance_line",
    "STATUSES", "Variant", "file_kernel", "kernel_of", "load_results", "make_variants", "orig_variant",
    "run_benchmarks", "save_results",
    "geometric_mean", "plot", "report", "speedup", "summary", "to_dataframe",
    "Kernel", "kernels", "get", "DATASETS", "normalize_dataset",
]

# Names re-exported lazily from sibling modules that may land later (or fail to
# import while being written) without breaking `import polysched.bench`.
_LAZY = {
    "Kernel": "suite", "kernels": "suite", "get": "suite", "DATASETS": "suite",
    "normalize_dataset": "suite", "make_variants": "variants",
}


def __getattr__(name: str):
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'polysched.bench' has no attribute {name!r}")
    try:
        module = importlib.import_module(f".{module_name}", __name__)
    except ModuleNotFoundError as err:
        if err.name == f"{__name__}.{module_name}":
            raise AttributeError(f"polysched.bench.{name} is not available yet "
                                 f"(polysched/bench/{module_name}.py is missing)") from None
        raise
    return getattr(module, name)
