"""Machine probe: peak floating-point rate and read bandwidth per memory level, measured
once per machine by a small C program and cached in the tuning database.

The program (compiled with the tuning compiler, ``-O3 -march=native``) times:

- 32 independent multiply-add chains, vectorized and (``optimize("no-tree-vectorize")``)
  not: the SIMD and scalar peaks of one core in GFLOP/s;
- a 16-lane sum over an array sized for L1, L2, L3 and memory: GB/s of each level.

Single-core figures; the cost models scale compute and private-cache terms with the
thread count, not memory bandwidth.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

PROBE_VERSION = 1

PROBE_C = r"""
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }

#define NACC 32
__attribute__((noinline)) static double chains_simd(long iters, double x, double y) {
  double acc[NACC];
  for (int k = 0; k < NACC; k++) acc[k] = 1e-3 * k;
  for (long i = 0; i < iters; i++)
    for (int k = 0; k < NACC; k++) acc[k] = acc[k] * x + y;
  double s = 0; for (int k = 0; k < NACC; k++) s += acc[k];
  return s;
}
__attribute__((noinline, optimize("no-tree-vectorize"))) static double chains_scalar(long iters, double x, double y) {
  double acc[NACC];
  for (int k = 0; k < NACC; k++) acc[k] = 1e-3 * k;
  for (long i = 0; i < iters; i++)
    for (int k = 0; k < NACC; k++) acc[k] = acc[k] * x + y;
  double s = 0; for (int k = 0; k < NACC; k++) s += acc[k];
  return s;
}
#define LANES 16
__attribute__((noinline)) static double sum(const double *a, long n, long reps) {
  double acc[LANES] = {0};
  for (long r = 0; r < reps; r++)
    for (long i = 0; i + LANES <= n; i += LANES)
      for (int k = 0; k < LANES; k++) acc[k] += a[i + k];
  double s = 0; for (int k = 0; k < LANES; k++) s += acc[k];
  return s;
}

static double sink;

int main(int argc, char **argv) {
  double x = argc > 5 ? 0.999999 : 0.9999999, y = 1e-9;
  double best;
  long iters = 1 << 20;
  for (int which = 0; which < 2; which++) {
    best = 1e30;
    for (int r = 0; r < 3; r++) {
      double t = now();
      sink += which ? chains_scalar(iters, x, y) : chains_simd(iters, x, y);
      t = now() - t; if (t < best) best = t;
    }
    printf("%s %.6g\n", which ? "peak_scalar_gflops" : "peak_simd_gflops", 2.0 * NACC * iters / best * 1e-9);
  }
  static const char *names[] = {"bw_l1_gbs", "bw_l2_gbs", "bw_l3_gbs", "bw_mem_gbs"};
  for (int level = 0; level < 4 && level + 1 < argc; level++) {
    long bytes = atol(argv[level + 1]);
    long n = bytes / 8; n -= n % LANES; if (n < LANES) n = LANES;
    double *a = malloc(n * sizeof(double));
    if (!a) { printf("%s 0\n", names[level]); continue; }
    for (long i = 0; i < n; i++) a[i] = 1e-9 * (i % 97);
    long reps = (256L << 20) / (n * 8); if (reps < 1) reps = 1;
    best = 1e30;
    for (int r = 0; r < 3; r++) {
      double t = now();
      sink += sum(a, n, reps);
      t = now() - t; if (t < best) best = t;
    }
    printf("%s %.6g\n", names[level], (double)n * 8 * reps / best * 1e-9);
    free(a);
  }
  fprintf(stderr, "%g\n", sink);
  return 0;
}
"""

# used when the probe cannot run (no compiler): a modest x86 core
FALLBACK = {"peak_simd_gflops": 16.0, "peak_scalar_gflops": 4.0, "bw_l1_gbs": 100.0, "bw_l2_gbs": 50.0,
            "bw_l3_gbs": 25.0, "bw_mem_gbs": 10.0, "measured": False}


def level_sizes(caches=None) -> list[int]:
    """Array bytes for the L1, L2, L3 and memory measurements."""
    from polysched.tiling import cache_sizes
    c = caches or cache_sizes()
    l1 = max(4096, c.l1d // 2)
    l2 = max(l1 * 4, c.l2 // 2)
    l3 = max(l2 * 4, min(c.l3 // 4, 8 * c.l2))
    mem = min(max(4 * l3, 64 << 20), 512 << 20)
    return [l1, l2, l3, mem]


def run_probe(cc: str = "gcc", cflags=("-O3", "-march=native")) -> dict:
    """Compile and run the probe; :data:`FALLBACK` (``measured: False``) on failure."""
    from polysched.bench import compile_c, run_binary
    with tempfile.TemporaryDirectory(prefix="polysched-probe-") as tmp:
        source = Path(tmp) / "probe.c"
        source.write_text(PROBE_C)
        built = compile_c(source, Path(tmp) / "probe", cc=cc, cflags=list(cflags), timeout=120)
        if not built.ok:
            return dict(FALLBACK, reason=built.reason)
        run = run_binary(Path(tmp) / "probe", timeout=120, args=[str(s) for s in level_sizes()])
        if not run.ok:
            return dict(FALLBACK, reason=run.reason)
    values = dict(FALLBACK)
    for line in run.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in FALLBACK:
            try:
                values[parts[0]] = float(parts[1])
            except ValueError:
                pass
    values["measured"] = True
    values["version"] = PROBE_VERSION
    values["sizes"] = level_sizes()
    return values


_MEMO: dict = {}


def machine_probe(store=None, machine_fp: str | None = None, cc: str = "gcc") -> dict:
    """The probe figures of this machine: from the database when it has them (for
    ``machine_fp``), else measured now and stored."""
    if machine_fp in _MEMO:
        return _MEMO[machine_fp]
    probe = store.machine_probe(machine_fp) if store is not None and machine_fp else None
    if not probe or probe.get("version") != PROBE_VERSION:
        probe = run_probe(cc)
        if store is not None and machine_fp and probe.get("measured"):
            store.set_machine_probe(machine_fp, probe)
    _MEMO[machine_fp] = probe
    return probe


__all__ = ["FALLBACK", "PROBE_C", "machine_probe", "run_probe"]
