"""The tile-size model's footprint, counted by hand for two shapes that once fooled it."""
from __future__ import annotations

import islpy as isl

from polysched.bench import get
from polysched.scop import extract
from polysched.tiling.footprint import band_space, footprint_bytes


def _band(scop, stmt, rows):
    dims = ", ".join(scop.statement(stmt).iterators)
    params = ", ".join(scop.parameters)
    mupa = isl.MultiUnionPwAff(
        f"[{params}] -> [" + ", ".join(f"{{ {stmt}[{dims}] -> [({r})] }}" for r in rows) + "]")
    return mupa


def test_row_and_column_references_do_not_make_the_whole_matrix():
    """floyd-warshall's (i, j) band under k: a T x T tile touches the tile of paths,
    T elements of row k and T of column k -- not the box spanning row k to the tile."""
    [scop] = extract(get("floyd-warshall").path)
    stmt = scop.statements[0]
    domain = isl.UnionSet.from_set(stmt.domain)
    prefix = isl.UnionMap(f"[N] -> {{ {stmt.name}[k, i, j] -> [k] }}").intersect_domain(domain)
    space = band_space(scop, domain, _band(scop, stmt.name, ["i", "j"]), prefix)
    tile = 8
    assert footprint_bytes(space, [tile, tile]) == (tile * tile + 2 * tile) * 4   # int paths


def test_enclosing_loops_are_fixed_to_one_iteration():
    """doitgen's (p, s) band inside r, q: a tile reads one row A[r][q][*], not all of A."""
    [scop] = extract(get("doitgen").path)
    update = next(s for s in scop.statements if "+=" in s.body)
    domain = isl.UnionSet.from_set(update.domain)
    prefix = isl.UnionMap(
        f"[{', '.join(scop.parameters)}] -> {{ {update.name}[r, q, p, s] -> [r, q] }}"
    ).intersect_domain(domain)
    space = band_space(scop, domain, _band(scop, update.name, ["p", "s"]), prefix)
    tp, ts = 16, 32
    # sum[p] (tp), A[r][q][s] (ts), C4[s][p] (ts x tp), doubles
    assert footprint_bytes(space, [tp, ts]) == (tp + ts + ts * tp) * 8
    without_prefix = band_space(scop, domain, _band(scop, update.name, ["p", "s"]))
    assert footprint_bytes(without_prefix, [tp, ts]) > 100 * footprint_bytes(space, [tp, ts])


def test_parallel_tiles_are_sized_to_share_out_in_full_rounds():
    """trmm's band (j, k, i) with j parallel, 1200 columns: tiles of 256 make 5 tile
    loop iterations, 3 rounds on 2 threads for 2.5 rounds of work. With the threads
    given, the sizes make a count that 2 threads share evenly (at least 90% of the
    rounds work), among at least 4 tiles; on 1 thread the sizes are the old ones."""
    from polysched.tiling.footprint import choose_sizes
    [scop] = extract(get("trmm").path)
    update = next(s for s in scop.statements if "+=" in s.body)
    domain = isl.UnionSet.from_set(update.domain)
    space = band_space(scop, domain, _band(scop, update.name, ["j", "k", "i"]))
    assert space.extents[0] == 1200
    budget = 512 * 1024
    alone = choose_sizes(space, 3, budget, min_outer_tiles=4, innermost=0)
    shared = choose_sizes(space, 3, budget, min_outer_tiles=4, innermost=0, threads=2)
    assert -(-1200 // alone[0]) % 2 == 1                   # an odd count: the old sizes
    tiles = -(-1200 // shared[0])
    assert tiles >= 4 and tiles / (2 * -(-tiles // 2)) >= 0.9, shared
    assert footprint_bytes(space, shared) <= budget
    for threads in (3, 4):
        sizes = choose_sizes(space, 3, budget, min_outer_tiles=4, innermost=0, threads=threads)
        tiles = -(-1200 // sizes[0])
        assert tiles / (threads * -(-tiles // threads)) >= 0.9, (threads, sizes)


def test_the_code_is_made_for_the_threads_asked_and_its_trace_replays_anywhere(monkeypatch):
    """trmm's parallel tile loop walks 1200 columns. Made for T threads, it gets at
    least 2 tiles per thread in rounds that keep 90% of the threads busy, whatever
    this machine has; by default T is OMP_NUM_THREADS (else the CPUs this process may
    use). The trace records T: replayed where OMP_NUM_THREADS says otherwise, it makes
    the same code, and that code computes the original's outputs at 1 and 2 threads."""
    import polysched as ps
    from polysched.tiling import openmp_threads

    program = ps.Program.from_file(get("trmm").path).auto_schedule("pluto")
    made = {}
    for threads in (2, 8):
        q = program.auto_tile(parallel=True, threads=threads)
        [band] = [b for b in q.tiling_report.bands if b.parallel == "tile loop 0" and b.members == 3]
        tiles = -(-1200 // band.sizes[0])
        assert tiles >= 2 * threads and tiles / (threads * -(-tiles // threads)) >= 0.9, (threads, band.sizes)
        assert q.trace.steps[-1]["args"]["threads"] == threads
        made[threads] = q
    assert made[2].tiling_report.bands[0].sizes != made[8].tiling_report.bands[0].sizes
    monkeypatch.setenv("OMP_NUM_THREADS", "8,2")
    assert openmp_threads() == 8
    assert program.auto_tile(parallel=True).c_code() == made[8].c_code()
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert ps.Program.from_file(get("trmm").path).replay(str(made[8].trace)).c_code() == made[8].c_code()
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert made[8].verify().ok


def test_openmp_threads_reads_the_first_positive_count_else_the_usable_cpus(monkeypatch):
    import os

    from polysched.tiling import openmp_threads
    usable = len(os.sched_getaffinity(0))
    for value, expected in (("4", 4), (" 6 ,2", 6), ("0", usable), ("many", usable), ("", usable), ("-2", usable)):
        monkeypatch.setenv("OMP_NUM_THREADS", value)
        assert openmp_threads() == expected, value
