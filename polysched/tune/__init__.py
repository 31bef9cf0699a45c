"""Auto-tuning (issue 13): search over traces of schedule primitives, verified
measurements in a SQLite database, cost models, local or Dask executors.

    from polysched.tune import Target, tune
    result = tune(Target.of("gemm"), db="tune.sqlite", trials=64)
    print(result.table()); result.plot("gemm-curve.png")
    best = result.chosen.trace    # a polysched.Program trace (JSON): the best, re-timed
                                  # against the default (result.confirmation)

Modules: ``space`` (configurations and the traces they denote), ``db`` (the store),
``measure`` (replay, verify, compile, time), ``executor`` (local pool, Dask),
``models`` (SOL, projected, learned), ``probe`` (machine peak and bandwidths),
``search`` (grid, random, evolutionary), ``campaign`` (the driver), ``report``.
"""
from .campaign import CampaignResult, Confirmation, Target, Trial, tune
from .db import STATUSES, TuneDB, kernel_fingerprint, machine_fingerprint, machine_identity
from .executor import DaskExecutor, Executor, FunctionExecutor, LocalExecutor
from .measure import Job, Result
from .models import MODELS, LearnedModel, ProjectedModel, SOLModel, make_model, spearman
from .search import SEARCHES, make_search
from .space import SearchSpace, SpaceOptions

__all__ = ["CampaignResult", "Confirmation", "DaskExecutor", "Executor", "FunctionExecutor", "Job", "LearnedModel",
           "LocalExecutor", "MODELS", "ProjectedModel", "Result", "SEARCHES", "SOLModel", "STATUSES",
           "SearchSpace", "SpaceOptions", "Target", "Trial", "TuneDB", "best_program", "kernel_fingerprint",
           "machine_fingerprint", "machine_identity", "make_model", "make_search", "spearman", "tune"]


def best_program(db, target: "Target", cc: str = "gcc", dataset: str | None = None,
                 threads: int | None = None):
    """The program of the best verified record of ``target`` on this machine (its trace
    replayed), and the record; ``(None, None)`` when the database has none.
    ``dataset``/``threads``: among the records timed so (see :meth:`TuneDB.best`)."""
    from polysched.program import Trace
    program = target.program()
    with TuneDB(db, create=False) as store:
        row = store.best(target.fingerprint(program), machine_fingerprint(machine_identity(cc)),
                         dataset, threads)
    if row is None:
        return None, None
    if row.dataset:      # replayed at the sizes it was timed at: the model's tile sizes are the ones measured
        program = target.program(row.dataset)
    recorded = Trace.from_json(row.trace)
    # the record is this region's by its fingerprint (its text and defines), wherever the
    # region is in the file now (helper-56: an identical region, or one shifted by a
    # region before it that became readable, was refused as "recorded on region 0")
    trace = Trace(recorded.steps, recorded.source, target.region, region_recorded=False)
    return program.replay(trace), row
