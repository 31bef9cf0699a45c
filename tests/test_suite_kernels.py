"""The benchmark kernel suite: every C file compiles cleanly, runs, computes something,
matches its registry entry and keeps the conventions the rest of polysched relies on;
a few kernels are checked against independent numpy / pure-Python oracles."""
from __future__ import annotations

import functools
import math
import pathlib
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from polysched.bench import suite

CC = shutil.which("gcc") or shutil.which("cc")
pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler")

ALL = [k.name for k in suite.kernels()]
WARNING_FLAGS = ["-Wall", "-Wextra", "-Wno-unknown-pragmas"]


# ------------------------------------------------------------------ helpers

_build_dir: list[pathlib.Path] = []


@pytest.fixture(scope="session", autouse=True)
def _suite_build_dir(tmp_path_factory):
    """One directory for the binaries shared (through the caches below) by all tests."""
    _build_dir.append(tmp_path_factory.mktemp("suite-build"))
    yield
    _build_dir.pop()


def compile_kernel(name: str, flags: tuple[str, ...]) -> tuple[pathlib.Path, str]:
    """Compile kernel ``name`` with ``flags``; return (executable, compiler stderr)."""
    return _compile_cached(name, tuple(flags))


@functools.lru_cache(maxsize=None)
def _compile_cached(name: str, flags: tuple[str, ...]) -> tuple[pathlib.Path, str]:
    kernel = suite.get(name)
    tag = re.sub(r"[^A-Za-z0-9]+", "_", "".join(flags))
    exe = _build_dir[-1] / f"{name}{tag}"
    proc = subprocess.run([CC, "-O2", *WARNING_FLAGS, *flags, str(kernel.path), "-o", str(exe), "-lm"],
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, f"{name} {flags} does not compile:\n{proc.stderr}"
    return exe, proc.stderr


def run(exe: pathlib.Path) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"{exe.name} exited with {proc.returncode}:\n{proc.stderr}"
    return proc


def parse_dump(text: str) -> dict[str, np.ndarray]:
    """``== name ==`` headers followed by whitespace-separated numbers."""
    arrays: dict[str, list[float]] = {}
    current = None
    for line in text.splitlines():
        header = re.fullmatch(r"== (\w+) ==", line)
        if header:
            current = header.group(1)
            assert current not in arrays, f"array {current} dumped twice"
            arrays[current] = []
            continue
        assert current is not None, f"values before any header: {line[:60]!r}"
        values = line.split()
        assert 1 <= len(values) <= 20, f"bad dump line in {current}: {line[:60]!r}"
        arrays[current].extend(float(v) for v in values)
    return {k: np.array(v) for k, v in arrays.items()}


@functools.lru_cache(maxsize=None)
def dumped(name: str, dataset: str = "MINI", extra: tuple[str, ...] = ()) -> dict[str, np.ndarray]:
    exe, _ = compile_kernel(name, (f"-D{dataset}_DATASET", "-DPOLYSCHED_DUMP", *extra))
    return parse_dump(run(exe).stdout)


def build_variants(name: str) -> None:
    """Compile the variants a kernel's tests need, two compilations at a time."""
    variants = [("-DMINI_DATASET", "-DPOLYSCHED_DUMP"), ("-DSMALL_DATASET", "-DPOLYSCHED_DUMP"),
                ("-DMINI_DATASET",), ("-DMINI_DATASET", "-fopenmp")]
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda f: compile_kernel(name, f), variants))


def scop_region(text: str, function: str) -> str:
    """The text between ``#pragma scop`` and ``#pragma endscop`` of ``function``."""
    start = text.index(f"static void {function}(")
    body = text[start:text.index("\nint main(", start)]
    return body[body.index("#pragma scop"):body.index("#pragma endscop")]


# ------------------------------------------------------------------ registry

def test_registry_lists_30_classic_and_5_ml_kernels():
    names = [k.name for k in suite.kernels()]
    assert names == sorted(names)
    assert len(names) == 35 and len(set(names)) == 35
    assert len(suite.CLASSIC) == 30
    assert sorted(suite.CLASSIC) == [k.name for k in suite.kernels(classic_only=True)]
    ml = {k.name for k in suite.kernels() if not k.classic}
    assert ml == {"conv2d-nchw", "conv2d-nhwc", "bmm", "matmul-int8", "matvec"}
    assert {k.category for k in suite.kernels()} == set(suite.CATEGORIES)
    for k in suite.kernels():
        assert k.path.is_file() and k.path.name == f"{k.name}.c"
        assert set(k.sizes) == set(suite.DATASETS)
        assert k.define_flag("MINI") == "-DMINI_DATASET"
    assert len({k: k.name for k in suite.kernels()}) == 35  # usable as dict keys
    with pytest.raises(TypeError):
        suite.get("gemm").sizes["MINI"]["NI"] = 3  # read-only


def test_get_unknown_kernel_lists_the_names():
    with pytest.raises(KeyError, match="jacobi-2d"):
        suite.get("jacobi-3d")
    assert suite.get("jacobi-2d").function_name == "kernel_jacobi_2d"
    with pytest.raises(KeyError, match="MINI"):
        suite.get("gemm").flops("HUGE")


def test_flops_grow_with_the_dataset():
    for k in suite.kernels():
        flops = [k.flops(ds) for ds in suite.DATASETS]
        assert all(f > 0 for f in flops), k.name
        assert flops == sorted(flops) and flops[0] < flops[-1], (k.name, flops)
    s = suite.get("gemm").sizes["LARGE"]
    assert suite.get("gemm").flops("LARGE") == 2 * s["NI"] * s["NJ"] * s["NK"] + 3 * s["NI"] * s["NJ"]


@pytest.mark.parametrize("name", ALL)
def test_registry_sizes_match_the_c_file(name):
    """Ask the preprocessor which value each size macro takes under every dataset flag."""
    kernel = suite.get(name)
    for dataset in suite.DATASETS:
        proc = subprocess.run([CC, "-E", "-dM", kernel.define_flag(dataset), str(kernel.path)],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        defined = dict(re.findall(r"^#define (\w+) (\S+)$", proc.stdout, re.MULTILINE))
        for macro, value in kernel.sizes[dataset].items():
            assert defined.get(macro) == str(value), (dataset, macro, defined.get(macro), value)


def test_default_dataset_is_large_and_single_macros_can_be_overridden():
    kernel = suite.get("gemm")

    def macros(*flags):
        proc = subprocess.run([CC, "-E", "-dM", *flags, str(kernel.path)],
                              capture_output=True, text=True, timeout=60, check=True)
        return dict(re.findall(r"^#define (N\w) (\S+)$", proc.stdout, re.MULTILINE))

    assert macros() == {k: str(v) for k, v in kernel.sizes["LARGE"].items()}
    assert macros("-DMINI_DATASET", "-DNJ=37")["NJ"] == "37"
    out = dumped("gemm", "MINI", ("-DNI=7", "-DNJ=9"))
    assert out["C"].size == 7 * 9


# ------------------------------------------------------------------ conventions

@pytest.mark.parametrize("name", ALL)
def test_source_follows_the_suite_conventions(name):
    kernel = suite.get(name)
    text = kernel.path.read_text()
    includes = set(re.findall(r"#include <([\w.]+)>", text))
    assert includes <= {"stdio.h", "stdlib.h", "math.h", "time.h", "stdint.h"}
    assert len(re.findall(r"^#pragma scop$", text, re.MULTILINE)) == 1
    assert len(re.findall(r"^#pragma endscop$", text, re.MULTILINE)) == 1
    region = scop_region(text, kernel.function_name)
    # No declarations inside the region (neither statements nor for-headers).
    decl = re.compile(r"(^|[;{(]\s*)(int|double|float|DATA_TYPE|int8_t|int32_t|long|unsigned)\s+\w")
    assert not decl.search(region), f"declaration inside the SCoP of {name}"
    assert "while" not in region and "break" not in region and "->" not in region


def test_the_suite_covers_the_front_end_variety():
    texts = {k.name: k.path.read_text() for k in suite.kernels()}
    regions = {name: scop_region(t, suite.get(name).function_name) for name, t in texts.items()}
    int_params = [n for n, t in texts.items()
                  if re.search(rf"static void {suite.get(n).function_name}\(int n\b|\(int m, int n\b|\(int tsteps, int n\b", t)]
    assert len(int_params) >= 6, int_params
    assert len([n for n, t in texts.items() if "#define DATA_TYPE" in t]) >= 3
    assert len([n for n, t in texts.items() if "DATA_TYPE ARR2D(" in t]) >= 2
    min_max_bounds = [n for n, r in regions.items()
                      if re.search(r"for \([^;]*;[^;]*(MIN\(|MAX\(|\?)[^;]*;", r)]
    assert len(min_max_bounds) >= 2, min_max_bounds
    assert len([n for n, r in regions.items() if re.search(r"for \([^;]*;[^;]*;\s*\w+--\)", r)]) >= 3
    for name, funcs in {"correlation": ["sqrt"], "covariance": [], "gramschmidt": ["sqrt"],
                        "cholesky": ["sqrt"], "deriche": ["exp", "pow"]}.items():
        for f in funcs:
            assert f + "(" in regions[name], (name, f)
    assert "MAX(" in regions["nussinov"] and "if (j - 1 >= 0)" in regions["nussinov"]
    for kernel in suite.kernels():
        if kernel.category == "stencils":  # all time-iterated: the step count is TSTEPS
            assert "TSTEPS" in kernel.sizes["MINI"], kernel.name


# ------------------------------------------------------------------ compile and run

@pytest.mark.parametrize("name", ALL)
def test_kernel_compiles_cleanly_and_reports_time_and_checksum(name):
    build_variants(name)
    for flags in [("-DMINI_DATASET",), ("-DMINI_DATASET", "-fopenmp")]:
        exe, warnings = compile_kernel(name, flags)
        assert warnings == "", f"{name} {flags} warns:\n{warnings}"
        proc = run(exe)
        assert proc.stdout == ""
        lines = proc.stderr.splitlines()
        assert len(lines) == 2, lines
        assert re.fullmatch(r"polysched-time: \d+\.\d{9}", lines[0]), lines
        checksum = re.fullmatch(r"polysched-checksum: (\S+)", lines[1])
        assert checksum and math.isfinite(float(checksum.group(1))), lines


@pytest.mark.parametrize("name", ALL)
def test_mini_dump_is_finite_and_not_constant(name):
    build_variants(name)
    arrays = dumped(name, "MINI")
    assert arrays, f"{name} dumps nothing"
    for array, values in arrays.items():
        assert values.size > 0, array
        assert np.all(np.isfinite(values)), f"{name}: {array} has non-finite values"
        assert values.size < 50_000
    assert any(np.ptp(v) > 0 for v in arrays.values()), f"{name}: every output is constant"
    # The sentinel -999 marks never-read triangles in some inputs; it must not leak out.
    assert all(np.all(np.abs(v) < 1e6) for v in arrays.values())


@pytest.mark.parametrize("name", ALL)
def test_every_output_array_is_changed_by_the_kernel(name, tmp_path):
    """Dump once more with the kernel call removed from main: every dumped array must
    differ. Catches a kernel whose inputs are a fixed point of its computation (e.g. a
    stencil started from a linear field), which would hide a wrongly scheduled kernel."""
    kernel = suite.get(name)
    text = kernel.path.read_text()
    main_at = text.index("\nint main(void)")
    call = re.compile(rf"^  {kernel.function_name}\(.*\);$", re.MULTILINE)
    assert len(call.findall(text, main_at)) == 1
    skipped = tmp_path / f"{name}-no-kernel.c"
    skipped.write_text(text[:main_at] + call.sub("  /* kernel call removed */", text[main_at:]))
    exe = tmp_path / "no-kernel"
    proc = subprocess.run([CC, "-O2", "-Wno-unknown-pragmas", "-DMINI_DATASET", "-DPOLYSCHED_DUMP",
                           str(skipped), "-o", str(exe), "-lm"], capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    before = parse_dump(run(exe).stdout)
    build_variants(name)
    after = dumped(name, "MINI")
    assert before.keys() == after.keys()
    unchanged = [a for a in after if np.array_equal(before[a], after[a])]
    assert not unchanged, f"{name}: the kernel leaves {unchanged} as initialised"


@pytest.mark.parametrize("name", ALL)
def test_mini_and_small_give_different_outputs(name):
    build_variants(name)
    mini, small = dumped(name, "MINI"), dumped(name, "SMALL")
    assert mini.keys() == small.keys()
    assert any(mini[a].shape != small[a].shape or not np.array_equal(mini[a], small[a]) for a in mini)


# ------------------------------------------------------------------ oracles

def _mini(name):
    return suite.get(name).sizes["MINI"]


def test_gemm_matches_numpy():
    s = _mini("gemm")
    i = np.arange(s["NI"])[:, None]
    k = np.arange(s["NK"])[None, :]
    j = np.arange(s["NJ"])[None, :]
    C = ((i * j + 1) % s["NI"]) / s["NI"]
    A = (i * (k + 1) % s["NK"]) / s["NK"]
    kk = np.arange(s["NK"])[:, None]
    B = (kk * (j + 2) % s["NJ"]) / s["NJ"]
    expected = 1.5 * A @ B + 1.2 * C
    np.testing.assert_allclose(dumped("gemm")["C"].reshape(expected.shape), expected, rtol=1e-9, atol=1e-12)


def test_atax_matches_numpy():
    s = _mini("atax")
    m, n = s["M"], s["N"]
    x = 1.0 + np.arange(n) / n
    A = ((np.arange(m)[:, None] + np.arange(n)[None, :]) % n) / (5 * m)
    out = dumped("atax")
    np.testing.assert_allclose(out["tmp"], A @ x, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(out["y"], A.T @ (A @ x), rtol=1e-9, atol=1e-12)


def test_jacobi_1d_matches_numpy():
    s = _mini("jacobi-1d")
    n = s["N"]
    i = np.arange(n)
    A = ((i * i + 3 * i + 2) % 29) / 29.0
    B = ((i * i + 5 * i + 3) % 31) / 31.0
    for _ in range(s["TSTEPS"]):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])
    out = dumped("jacobi-1d")
    np.testing.assert_allclose(out["A"], A, rtol=1e-9)
    np.testing.assert_allclose(out["B"], B, rtol=1e-9)


def test_conv2d_nchw_matches_numpy():
    s = _mini("conv2d-nchw")
    nb, nc, nk, nh, nw, nr, ns = (s[k] for k in ("NB", "NC", "NK", "NH", "NW", "NR", "NS"))
    n, c, h, w = np.ogrid[:nb, :nc, :nh + nr - 1, :nw + ns - 1]
    inp = ((n + 2 * c + 3 * h + 5 * w) % 17) / 17.0 - 0.5
    k, c, r, t = np.ogrid[:nk, :nc, :nr, :ns]
    wt = ((3 * k + 5 * c + 7 * r + 11 * t) % 13) / 13.0 - 0.5
    expected = np.zeros((nb, nk, nh, nw))
    for r in range(nr):
        for t in range(ns):
            expected += np.einsum("nchw,kc->nkhw", inp[:, :, r:r + nh, t:t + nw], wt[:, :, r, t])
    got = dumped("conv2d-nchw")["out"].reshape(expected.shape)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
    # The NHWC variant computes the same convolution on the same values.
    nhwc = dumped("conv2d-nhwc")["out"].reshape(nb, nh, nw, nk)
    np.testing.assert_allclose(nhwc.transpose(0, 3, 1, 2), expected, rtol=1e-9, atol=1e-12)


def test_matmul_int8_matches_numpy_exactly():
    s = _mini("matmul-int8")
    i, k = np.ogrid[:s["NI"], :s["NK"]]
    A = ((i * 7 + k * 13) % 255 - 127).astype(np.int8)
    k, j = np.ogrid[:s["NK"], :s["NJ"]]
    B = ((k * 11 + j * 5) % 255 - 127).astype(np.int8)
    expected = A.astype(np.int64) @ B.astype(np.int64)
    assert np.array_equal(dumped("matmul-int8")["C"].reshape(expected.shape), expected)


# Factorisations are checked by multiplying the factors back: the dump keeps 10
# significant digits, so products of dumped values agree to about 1e-9 absolute.
RECON = dict(rtol=1e-8, atol=1e-9)


def _lu_input(n):
    i, j = np.ogrid[:n, :n]
    return (i == j) * 1.0 + ((i * 7 + j * 3) % 11 + 1) / (11.0 * n)


def test_lu_and_ludcmp_factors_reproduce_the_matrix():
    n = _mini("lu")["N"]
    A0 = _lu_input(n)
    for name in ("lu", "ludcmp"):
        F = dumped(name)["A"].reshape(n, n)
        L = np.tril(F, -1) + np.eye(n)
        U = np.triu(F)
        np.testing.assert_allclose(L @ U, A0, **RECON)
    out = dumped("ludcmp")
    b = np.arange(1, n + 1) / n / 2.0 + 4.0
    np.testing.assert_allclose(A0 @ out["x"], b, **RECON)


def test_cholesky_factor_reproduces_the_matrix():
    n = _mini("cholesky")["N"]
    i, j = np.ogrid[:n, :n]
    A0 = np.where(i == j, 1.0 + (i % 5) / 5.0, (((i + j) * 3) % 11 + 1) / (11.0 * n))
    L = np.tril(dumped("cholesky")["A"].reshape(n, n))
    np.testing.assert_allclose(L @ L.T, A0, **RECON)


def test_trisolv_and_durbin_solve_their_systems():
    n = _mini("trisolv")["N"]
    i, j = np.ogrid[:n, :n]
    U = np.where(j == i, 1.0 + (i % 3), ((i + 2 * j) % 7 + 1) / (7.0 * n)) * (j >= i)
    b = (np.arange(n) % 17) / 17.0 + 0.5
    np.testing.assert_allclose(U @ dumped("trisolv")["x"], b, **RECON)
    n = _mini("durbin")["N"]
    k = np.arange(n)
    r = 0.25 * (k % 5 + 1) / 5.0 / ((k + 1.0) ** 2)
    first_row = np.concatenate([[1.0], r[:-1]])
    T = first_row[np.abs(k[:, None] - k[None, :])]
    np.testing.assert_allclose(T @ dumped("durbin")["y"], -r, **RECON)


def test_gramschmidt_gives_an_orthonormal_q_and_triangular_r():
    s = _mini("gramschmidt")
    m, n = s["M"], s["N"]
    i, j = np.ogrid[:m, :n]
    A0 = (i == j) * 1.0 + ((i * j + 1) % 13) / (13.0 * n)
    out = dumped("gramschmidt")
    Q, R = out["Q"].reshape(m, n), out["R"].reshape(n, n)
    np.testing.assert_allclose(Q.T @ Q, np.eye(n), atol=1e-9)
    np.testing.assert_allclose(Q @ R, A0, **RECON)
    assert np.array_equal(R, np.triu(R))


def test_floyd_warshall_matches_bellman_style_relaxation():
    n = _mini("floyd-warshall")["N"]
    i, j = np.ogrid[:n, :n]
    missing = ((i + j) % 13 == 0) | ((i + j) % 7 == 0) | ((i + j) % 11 == 0)
    D = np.where(i == j, 0, np.where(missing, 999, i * j % 7 + 1)).astype(np.int64)
    # Min-plus matrix squaring until a fixed point: a different algorithm, same distances.
    while True:
        nxt = np.minimum(D, (D[:, :, None] + D[None, :, :]).min(axis=1))
        if np.array_equal(nxt, D):
            break
        D = nxt
    assert np.array_equal(dumped("floyd-warshall")["paths"].reshape(n, n), D)


def test_nussinov_matches_a_memoised_recursion():
    n = _mini("nussinov")["N"]
    seq = [(i * 7 + i // 3 + 1) % 4 for i in range(n)]

    @functools.lru_cache(maxsize=None)
    def best(i, j):  # maximum number of nested complementary pairs in seq[i..j]
        if j <= i:
            return 0
        value = max(best(i + 1, j), best(i, j - 1))
        if seq[i] + seq[j] == 3 and i < j - 1:
            value = max(value, best(i + 1, j - 1) + 1)
        return max([value] + [best(i, k) + best(k + 1, j) for k in range(i + 1, j)])

    table = dumped("nussinov")["table"].reshape(n, n)
    expected = np.array([[best(i, j) if j > i else 0 for j in range(n)] for i in range(n)])
    assert np.array_equal(table, expected)
