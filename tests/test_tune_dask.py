"""The Dask executor on a 2-worker LocalCluster gives the same best trace as the local
process pool on a fixed seed (real replay, verification and compilation of each
candidate; a deterministic timer, so that machine noise cannot decide)."""
from __future__ import annotations

import distributed   # in the test extra: a missing install fails here, it is not skipped

from polysched.tune import DaskExecutor, LocalExecutor, SpaceOptions, Target, tune
from polysched.tune.space import trace_hash

# sizes at SMALL (the campaign sizes its space at the timed dataset): 2 choices per member
SPACE = SpaceOptions(fusions=("smart",), identity=False, powers=(32, 64), divisors=0, model_sizes=False,
                     reorder=(True,), unroll=(1,), parallel=(True,), wavefront=(True,), uaj=())
TIMER = "polysched.tune.fake:deterministic_time"


def campaign(db, executor):
    return tune(Target.of("gemm"), db=db, trials=5, search="random", model="sol", seed=11, dataset="SMALL",
                threads=2, repeat=1, space_options=SPACE, executor=executor, timer=TIMER)


def test_dask_local_cluster_gives_the_same_best_trace_as_the_local_pool(tmp_path):
    with LocalExecutor(2) as local:
        expected = campaign(tmp_path / "local.sqlite", local)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster, distributed.Client(cluster) as client:
        dask = DaskExecutor(client=client)
        got = campaign(tmp_path / "dask.sqlite", dask)
    assert [t.status for t in got.trials] == ["ok"] * 5
    assert [trace_hash(t.trace) for t in got.trials] == [trace_hash(t.trace) for t in expected.trials]
    assert trace_hash(got.best.trace) == trace_hash(expected.best.trace)
    assert got.best.median == expected.best.median
