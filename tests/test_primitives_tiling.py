"""tile, strip_mine, wavefront, unroll_and_jam: before/after, illegal cases with the
witness confirmed by brute force, execution verification."""
from __future__ import annotations

import re

import pytest

from primitives_oracle import confirm_dependence_witness, from_body, program

import polysched as ps
from polysched.bench import get, verify

DIAGONAL = """  for (i = 1; i < N; i++)
    for (j = 0; j < N - 1; j++)
      A[i][j] = A[i - 1][j + 1] + B[i][j];"""


def loops(p, stmt="S0"):
    return [expr for _, expr in p.loops(stmt)]


@pytest.fixture(scope="module")
def gemm():
    return ps.Program.from_file(get("gemm").path).auto_schedule("pluto")


def test_done_means_example():
    p = ps.Program.from_file(get("gemm").path)
    q = (p.auto_schedule("pluto")
          .tile("S1", [32, 64, 128])
          .interchange("S1", 4, 5)
          .parallel("S1", 0).vectorize("S1", 5))
    assert loops(q, "S1") == ["floor(i/32)", "floor(j/64)", "floor(k/128)", "i", "k", "j"]
    assert q.verify().status == "equal"
    text = q.region_code()
    assert "#pragma omp parallel for" in text and "#pragma omp simd" in text
    again = ps.Program.from_file(get("gemm").path).replay(q.trace)
    assert again.c_code() == q.c_code() and str(again.schedule) == str(q.schedule)


def test_tile_before_after(gemm):
    assert loops(gemm, "S1") == ["i", "j", "k"]
    q = gemm.tile("S1", [4, 8], depth=1)
    assert loops(q, "S1") == ["i", "floor(j/4)", "floor(k/8)", "j", "k"]
    assert loops(q, "S0") == ["i", "j"]                    # S0 is in another branch
    assert q.verify().ok


def test_tile_of_a_non_permutable_band_is_illegal():
    p = ps.Program.from_file(get("seidel-2d").path)
    with pytest.raises(ps.TransformError, match="permutable") as info:
        p.tile("S0", [4, 4, 4])
    confirm_dependence_witness(p, info.value)
    d = from_body(DIAGONAL)
    with pytest.raises(ps.TransformError) as info:
        d.tile("S0", [3, 3])
    confirm_dependence_witness(d, info.value)
    (i0, j0), (i1, j1) = info.value.witness.source[1], info.value.witness.sink[1]
    assert (i0 // 3, j0 // 3, i0, j0) >= (i1 // 3, j1 // 3, i1, j1)   # a Python twin


@pytest.mark.parametrize("call,message", [
    (lambda p: p.tile("S1", [32, 32], depth=2), "need loops 2..3, but S1 has 3 loops"),
    (lambda p: p.tile("S1", [32, 0]), "must be >= 1"),
    (lambda p: p.tile("S1", []), "at least one tile size"),
    (lambda p: p.tile("S9", [4]), "unknown statement 'S9'"),
    (lambda p: p.tile("S1", [4], depth=7), "need loops 7..7"),
    (lambda p: p.wavefront("S1", 2), "loop 2 is the innermost loop of S1"),
    (lambda p: p.strip_mine("S1", 0, 1.5), "must be an int"),
])
def test_tile_misuse_is_one_sentence(gemm, call, message):
    with pytest.raises(ps.TransformError, match=re.escape(message)) as info:
        call(gemm)
    assert info.value.violation is None and info.value.kind == "misuse"
    assert str(info.value).count("\n") == 0


def test_strip_mine_keeps_the_order(gemm):
    q = gemm.strip_mine("S1", 2, 16)
    assert loops(q, "S1") == ["i", "j", "floor(k/16)", "k"]
    assert q.verify().ok


def test_wavefront_makes_the_tile_loop_parallel():
    p = ps.Program.from_file(get("seidel-2d").path)
    skewed = p.skew("S0", 1, 0, 1).skew("S0", 2, 1, 1).skew("S0", 2, 0, 1).tile("S0", [4, 4, 4])
    with pytest.raises(ps.TransformError, match="carries a dependence"):
        skewed.parallel("S0", 1)                           # before the wavefront
    q = skewed.wavefront("S0", 0).parallel("S0", 1)
    assert loops(q)[:2] == ["floor(t/4) + floor((t + i)/4)", "floor((t + i)/4)"]
    assert q.verify().ok


def test_wavefront_illegal():
    d = from_body(DIAGONAL)
    with pytest.raises(ps.TransformError) as info:
        d.wavefront("S0", 0)                               # (i + j, j): distance (0, -1)
    confirm_dependence_witness(d, info.value)


def test_unroll_and_jam_replicates_statements(gemm):
    q = gemm.unroll_and_jam("S1", 0, 2)
    assert loops(q, "S1") == ["floor(i/2)", "j", "k", "i"]
    body = q.region_code()
    # the jammed body holds two instances of S1 (rows 2*c0 and 2*c0 + 1) in one loop;
    # the partial strip (an odd number of rows) has one, and the original code one
    assert body.count("+= alpha * A[") == 2 + 1 + 1
    assert q.verify().ok


def test_unroll_and_jam_illegal():
    d = from_body(DIAGONAL)
    with pytest.raises(ps.TransformError) as info:
        d.unroll_and_jam("S0", 0, 2)                       # i moves inside j
    confirm_dependence_witness(d, info.value)
    with pytest.raises(ps.TransformError, match="innermost"):
        d.unroll_and_jam("S0", 1, 2)


TWO_UPDATES = """  for (i = 0; i < N; i++)
    for (k = 0; k < N / 2; k++)
      for (j = 0; j < N; j++) {
        C[i][j] += A[i][2 * k] * B[2 * k][j];
        C[i][j] += A[i][2 * k + 1] * B[2 * k + 1][j];
      }"""


def test_unroll_and_jam_keeps_each_copy_of_a_two_statement_body_together():
    """Jamming k into j's body when the body updates C[i][j] twice: the copies of the
    whole body are interleaved (S0(k) S1(k) S0(k+1) S1(k+1)), and the full strips are
    generated apart from the partial one (isl's isolate option). isl's band_sink pushed
    the point loop into each child of the sequence, running all of S0's copies before
    S1's, which reverses S1(k) -> S0(k+1): the primitive refused it and the pipeline
    fell back to no register tiling."""
    d = from_body(TWO_UPDATES, n=11)           # N / 2 = 5 strips of 2: one partial strip of 4
    q = d.unroll_and_jam("S0", 1, 4)
    assert loops(q, "S0") == ["i", "floor(k/4)", "j", "k"] == loops(q, "S1")
    optimized = q.region_code().split("the original code")[0]
    full = optimized[:optimized.index("if (N % 8")]         # the partial strip comes after
    rows = re.findall(r"\+= A_r\d \* B\[([^\]]*)\]", full)
    assert rows == ["2 * (4 * c1)", "2 * (4 * c1) + 1", "2 * (4 * c1 + 1)", "2 * (4 * c1 + 1) + 1",
                    "2 * (4 * c1 + 2)", "2 * (4 * c1 + 2) + 1", "2 * (4 * c1 + 3)", "2 * (4 * c1 + 3) + 1"]
    # full strips are isolated from the partial one: no guard between their copies
    assert "if (" not in full[full.index("A_r0 ="):]
    assert "N % 8 >= 4" in optimized       # the partial strip keeps its guards
    assert q.verify().status == "equal"


def test_optimize_jams_a_two_statement_body(tmp_path, capsys):
    """The pipeline's register tiling of the same body is applied (no notice of an
    illegal result) and the output matches the original."""
    from polysched.cli import main
    source = tmp_path / "two.c"
    source.write_text(program(TWO_UPDATES, n=23))
    out = tmp_path / "out.c"
    assert main(["optimize", str(source), "-o", str(out), "--tile", "--parallel", "--no-tensorize"]) == 0
    printed = capsys.readouterr()
    assert "unroll-and-jam" in printed.out and "illegal" not in printed.err
    assert verify(source, out, dataset=None).ok


@pytest.mark.parametrize("kernel,steps", [
    ("jacobi-2d", lambda p: p.auto_schedule().tile("S0", [4, 8, 8]).wavefront("S0", 0)),
    ("syr2k", lambda p: p.auto_schedule().tile("S1", [8, 8, 8]).unroll_and_jam("S1", 3, 2)),
    ("doitgen", lambda p: p.auto_schedule().strip_mine("S1", 1, 3)),
])
def test_suite_kernels_verify(kernel, steps):
    q = steps(ps.Program.from_file(get(kernel).path))
    result = q.verify()
    assert result.ok, result.reason


def test_auto_tile_sizes_per_statement_band():
    """Tile sizes per band, named by a statement of the band: S1's band of 2mm gets
    (8, 16, 32), S3's (4, 4, 4), the others the model's; the trace replays it and the
    program computes what the original does."""
    p = ps.Program.from_file(get("2mm").path).auto_schedule()
    q = p.auto_tile(sizes={"S1": [8, 16, 32], "S3": [4, 4, 4]}, register_tile=0)   # k's tiles stay 32
    by_statement = {re.search(r"\{ (S\d)\[", band.schedule).group(1): band.sizes
                    for band in q.tiling_report.bands if band.tiled}
    assert by_statement["S1"] == [8, 16, 32] and by_statement["S3"] == [4, 4, 4]
    assert "S0" not in by_statement         # tmp[i][j] = 0.0: a stream, left untiled
    # the tile loops step by the sizes given (S1: i by 8, j by 16, k by 32)
    text = q.c_code()
    assert re.search(r"c\d \+= 8\)|8 \* c\d", text) and re.search(r"32 \* c\d", text)
    assert ps.Program.from_file(get("2mm").path).replay(q.trace).c_code() == text
    assert q.verify().status == "equal"


def test_cli_tile_sizes_per_statement(tmp_path):
    from polysched.cli import main

    out = tmp_path / "out.c"
    assert main(["optimize", str(get("2mm").path), "-o", str(out), "--tile", "--register-tile", "0",
                 "--tile-sizes", "S1=8,16,32;S3=4,4,4"]) == 0
    assert "32 * c" in out.read_text()
    assert main(["optimize", str(get("2mm").path), "-o", str(out), "--tile",
                 "--tile-sizes", "S1=8,x"]) == 2


def test_illegal_jam_with_integer_divisions_gets_a_witness_not_an_isl_error():
    """floyd-warshall: jamming k (the outer loop, which carries everything) is illegal.
    The violated relation has integer divisions (floor(k/2)) on which isl's lexmin
    failed ("affine expression involves some of the domain dimensions"): check then
    crashed instead of naming the dependence. Now the witness is any point when lexmin
    gives up, and it is a true violated dependence (brute force)."""
    p = ps.Program.from_file(get("floyd-warshall").path)
    with pytest.raises(ps.TransformError, match="is illegal") as info:
        p.unroll_and_jam("S0", 0, 2)
    confirm_dependence_witness(p, info.value)


def test_illegal_tile_after_a_tile_gets_a_witness_not_an_isl_error():
    """seidel-2d with i strip-mined by 3, then (i, j) points tiled 2x3: illegal. isl's
    lexmin answered "false" on the (non-empty) violated pairs once the parameters were
    fixed, and the witness read a void point (islpy.Error). The witness is now a true
    violated dependence (brute force)."""
    p = ps.Program.from_file(get("seidel-2d").path).tile("S0", [3], depth=1)
    with pytest.raises(ps.TransformError, match="is illegal") as info:
        p.tile("S0", [2, 3], depth=2)
    confirm_dependence_witness(p, info.value)


@pytest.mark.parametrize("kernel,steps", [
    ("jacobi-1d", lambda p: p.unroll_and_jam("S0", 0, 2).sink("S1", 0)),
    ("cholesky", lambda p: p.auto_schedule().unroll_and_jam("S2", 1, 4).sink("S1", 1)),
])
def test_a_sink_below_a_jam_generates_without_the_unroll(kernel, steps):
    """The sink puts the jam's point loop (marked for complete unrolling) above the
    strip loop, where its bounds are parameters: isl's AST generator gave up ("cannot
    find lower bound for unrolling") and c_code raised islpy.Error. AST options never
    change what runs, so the tree is now generated without them; the result runs
    like the original."""
    q = steps(ps.Program.from_file(get(kernel).path))
    assert q.check().legal
    assert "for (" in q.region_code()
    assert q.verify().ok


def test_auto_tile_after_a_tile_of_inner_loops():
    """gemm with S1's (k, j) tiled 8x2 by hand, then auto_tile: the policy jams a point
    loop (its full strips isolated, an AST option naming the outer loops' values) and
    then tiles the band above it, which isl refused ("cannot delete band node with
    anchored subtree", an islpy.Error). The options are dropped there; the result
    runs like the original."""
    q = ps.Program.from_file(get("gemm").path).tile("S1", [8, 2], depth=1).auto_tile()
    assert q.check().legal
    assert len(q.loops("S1")) > 5          # both tilings are there
    assert q.verify().ok
