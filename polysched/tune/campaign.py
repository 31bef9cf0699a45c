"""A tuning campaign: propose, measure, record, until the trials or the time run out.

    from polysched.tune import Target, tune
    result = tune(Target.of("gemm"), db="tune.sqlite", trials=64)
    result.best, result.default, result.chosen, result.table(), result.plot("curve.png")

Every measurement is written to the database as it completes (one transaction per
row), in the order the search proposed the candidates. ``resume=True`` continues the
latest campaign of this kernel and machine with the same options: the search is
replayed from the recorded outcomes (a recorded candidate is never measured again) and
goes on where it stopped. At the end the best is re-timed in turn with the default
(`Confirmation`): ``result.chosen`` is the one that stays faster.
"""
from __future__ import annotations

import os
import statistics
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from polysched.arguments import compile_options, defines_dict, source_options
from polysched.bench.harness import NOTHING_PRINTED, scratch_directory, untested_datasets
from polysched.bench.suite import dataset_spelling
from polysched.errors import ArgumentError
from polysched.tiling.cache import openmp_threads

from .db import TuneDB, kernel_fingerprint, machine_fingerprint, machine_identity
from .measure import Job, Result, original_checksum
from .space import SearchSpace, SpaceOptions, trace_hash

# proposals in a row that are all programs measured already, past which (or past the
# trials asked for) a campaign stops: the search finds nothing new in what is left
MAX_REPEATS_IN_A_ROW = 200


@dataclass
class Target:
    """What to tune: a C file's region (a suite kernel by name, or a path)."""

    path: Path
    name: str
    region: int = 0
    defines: dict = field(default_factory=dict)
    include_dirs: list = field(default_factory=list)

    def __post_init__(self):
        # values as text, as the command line's -D gives them: {"N": 100} fingerprints
        # as {"N": "100"} (helper-94: a campaign run from Python was not found by
        # optimize --from-db -D N=100)
        self.defines = defines_dict(self.defines)

    @classmethod
    def of(cls, kernel_or_file: str, region: int = 0, defines: dict | list | str | None = None,
           include_dirs=None) -> "Target":
        """A suite kernel name (``gemm``) or a path to a C file; ValueError otherwise.
        ``defines``, ``include_dirs``: as `polysched.Program.from_file` takes them."""
        region, defines, include_dirs = source_options(f"Target.of({kernel_or_file!r})", region, defines,
                                                       include_dirs)
        path = Path(kernel_or_file)
        # a directory that happens to bear a kernel's name ("lu" in the current
        # directory) does not hide the suite kernel
        if path.suffix == ".c" or path.is_file():
            if not path.is_file():
                raise ArgumentError(f"{kernel_or_file}: no such file")
            name = path.stem
        else:
            from polysched.bench import get
            try:
                path = Path(get(kernel_or_file).path)
            except KeyError as err:
                raise ArgumentError(f"{kernel_or_file!r} is neither a C file nor a suite kernel "
                                 f"({err.args[0].split('; ')[-1]})") from None
            name = kernel_or_file
        return cls(path, name, region, defines, [str(d) for d in include_dirs or []])

    @property
    def source(self) -> str:
        return self.path.read_text(errors="surrogateescape")

    def program(self, dataset: str | None = None):
        """The region as a Program; with ``dataset``, its sizes are that dataset's
        (``-DMEDIUM_DATASET``), so the space's tile sizes and the cost models see the
        extents that are measured."""
        from polysched.bench import dataset_define
        from polysched.program import Program
        defines = {**self.defines, **dataset_define(dataset)}
        return Program.from_file(self.path, region=self.region, defines=defines or None,
                                 include_dirs=self.include_dirs or None)

    def fingerprint(self, program=None) -> str:
        """The region's text and defines, and what they do not say: the element types
        and declared extents of its arrays, and the values of the integer macros that
        the region and those extents name, as the file defines them without a dataset
        and at each PolyBench one (helper-86: a copy of a file with 'N 400' for
        'N 100' at SMALL, or 'float' for 'double', took the other's records, which
        --from-db applied and --resume reported as measured). Where the region now is
        in the file does not count."""
        from polysched.bench.harness import DATASETS_KNOWN, dataset_define
        from polysched.scop import ScopError
        from polysched.scop.macros import macro_table
        from polysched.scop.source import IDENT_RE
        program = program or self.program()
        scop = program.scop
        region = scop.source[scop.region_start:scop.region_end]
        arrays = sorted([a.name, a.element_type, [str(d) for d in a.dims]] for a in scop.arrays.values())
        words = sorted(set(IDENT_RE.findall(region + " " + " ".join(d for _, _, dims in arrays for d in dims))))
        values = {}
        for dataset in (None, *DATASETS_KNOWN):
            try:
                table = macro_table(str(self.path), self.source, {**self.defines, **dataset_define(dataset)},
                                    self.include_dirs)
            except ScopError:       # (a dataset that does not preprocess: nothing to tell apart)
                continue
            values[dataset or ""] = {w: table.integer_value(w) for w in words if table.integer_value(w) is not None}
        return kernel_fingerprint(region, self.defines, {"arrays": arrays, "macros": values})

    def region_text(self, program) -> str:
        scop = program.scop
        return scop.source[scop.region_start:scop.region_end]


@dataclass
class Trial:
    seq: int
    config: dict | None
    trace: str
    status: str
    median: float | None
    reason: str = ""
    recorded: bool = True          # False: taken from the database (resume)


@dataclass
class Confirmation:
    """The campaign's best trial re-timed against its default, ``rounds`` times in
    turn: the best of many noisy medians is biased low (a lucky run), so it is kept
    only when it is still faster. ``chosen_seq``: the trial ``--from-db`` applies."""
    best_seq: int
    default_seq: int
    chosen_seq: int
    best_samples: list
    default_samples: list
    reason: str = ""

    @property
    def speedup(self) -> float | None:
        """The default's median over the best's, as re-timed."""
        if not self.best_samples or not self.default_samples:
            return None
        return statistics.median(self.default_samples) / statistics.median(self.best_samples)


@dataclass
class CampaignResult:
    campaign_id: int
    target: Target
    space: SearchSpace
    trials: list[Trial]
    db_path: Path
    resumed: int = 0
    stopped: str = "trials"
    # proposals that were programs measured already (`SearchSpace.program_key`): not
    # measured again, and not trials
    repeats: int = 0
    warnings: list[str] = field(default_factory=list)
    confirmation: Confirmation | None = None

    @property
    def ok(self) -> list[Trial]:
        return [t for t in self.trials if t.status == "ok" and t.median is not None]

    @property
    def best(self) -> Trial | None:
        ok = self.ok
        return min(ok, key=lambda t: (t.median, t.seq)) if ok else None

    @property
    def default(self) -> Trial | None:
        return next((t for t in self.trials if t.seq == 0), None)

    @property
    def chosen(self) -> Trial | None:
        """What ``optimize --from-db`` applies: the best, unless re-timing it against
        the default (`Confirmation`) found it no faster, then the default."""
        if self.confirmation is None:
            return self.best
        return next((t for t in self.trials if t.seq == self.confirmation.chosen_seq), self.best)

    def curve(self) -> list[tuple[int, float | None]]:
        """(trial number from 1, best median so far)."""
        best, out = None, []
        for k, trial in enumerate(sorted(self.trials, key=lambda t: t.seq), start=1):
            if trial.status == "ok" and trial.median is not None:
                best = trial.median if best is None else min(best, trial.median)
            out.append((k, best))
        return out

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for trial in self.trials:
            counts[trial.status] = counts.get(trial.status, 0) + 1
        return counts

    def table(self, top: int = 10) -> str:
        from .report import table
        return table(self, top)

    def plot(self, path=None, ax=None):
        from .report import plot_curve
        return plot_curve(self, path, ax)


def campaign_options(*, search: str, model: str, seed: int, dataset: str | None, verify_dataset: str | None,
                     threads: int | None, repeat: int, cc: str, cflags, space: SpaceOptions,
                     timer: str | None) -> dict:
    """What identifies a campaign for ``--resume`` (the budgets do not)."""
    return {"search": search, "model": model, "seed": seed, "dataset": dataset,
            "verify_dataset": verify_dataset, "threads": threads, "repeat": repeat, "cc": cc,
            "cflags": list(cflags), "space": space.to_dict(), "timer": timer}


def tune(target: Target, *, db: str | os.PathLike | TuneDB, trials: int = 64,
         time_budget: float | None = None, search: str = "evolutionary", model: str = "learned",
         seed: int = 0, resume: bool = False, dataset: str | None = "LARGE",
         verify_dataset: str | None = "MINI", threads: int | None = None, repeat: int = 3,
         timeout: float = 120.0, cc: str = "gcc", cflags=("-O3", "-march=native"),
         space_options: SpaceOptions | None = None, executor=None, timer: str | None = None,
         confirm: int = 3,
         progress: Callable[[Trial, "CampaignResult"], None] | None = None,
         on_start: Callable[["CampaignResult", int], None] | None = None) -> CampaignResult:
    """Run (or resume) a campaign; see the module docstring. ``executor``: a
    :mod:`polysched.tune.executor` executor (default: a local pool of 2 processes).
    ``confirm``: rounds of re-timing the best trial against the default at the end
    (`Confirmation`; 0: none)."""
    from .executor import LocalExecutor
    from .models import make_model
    from .search import make_search

    if trials < 1:
        raise ArgumentError("trials must be at least 1")
    # (helper-94: a cflags string, "-O2", was taken character by character)
    cc, cflags = (compile_options("tune", {"cc": cc, "cflags": cflags})[name] for name in ("cc", "cflags"))
    if confirm < 0:
        raise ArgumentError("confirm must be 0 (no re-timing) or more rounds")
    if repeat < 1:       # (helper-56: repeat=0 was recorded as such, "1 runs" applied)
        raise ArgumentError("repeat must be at least 1")
    if threads is not None and threads < 1:
        raise ArgumentError("threads must be at least 1")
    # recorded as the runs had them, as the command line does (None was recorded as NULL)
    threads = threads or openmp_threads()
    if verify_dataset is None:
        # (helper-46: from Python, None recorded every candidate 'ok' unverified, and
        # optimize --from-db applied one as "verified")
        raise ArgumentError("verify_dataset=None: every candidate is verified before it is timed; give a "
                         "dataset to verify at (MINI by default)")
    # one spelling per dataset in the database, as the command line writes it ("small" was
    # another campaign than "SMALL" for --resume and --from-db)
    dataset, verify_dataset = (name if name is None else dataset_spelling(name) for name in (dataset, verify_dataset))
    program = target.program(dataset)        # the region's model first: its errors are file:line:col
    source = target.source
    include_dirs = [*target.include_dirs, str(target.path.resolve().parent)]

    def job_of(seq: int, trace: str, config: dict | None, workdir: str, reference: str | None = None) -> Job:
        return Job(seq, trace, config, source, target.path.name, target.region, dict(target.defines),
                   include_dirs, dataset, verify_dataset, threads, repeat, timeout, 300.0, cc,
                   tuple(cflags), workdir, timer, reference)

    # (helper-46 F15: the database recorded a dataset the program never reads)
    warnings = untested_datasets(target.path, {"dataset": dataset, "verify_dataset": verify_dataset},
                                 target.include_dirs)
    reference = None
    if timer is None:
        # the original's checksum at the timed size: a candidate right at verify_dataset
        # but wrong there is not timed as "ok" (helper-46 F20; bench checks the same)
        reference, why, broken = original_checksum(job_of(-1, "", None, ""))
        if broken:
            # (helper-46 F11: every candidate was measured against it, the whole budget)
            raise ArgumentError(f"{target.path}: cannot tune a program that does not run as written: {why}")
        if why:
            warnings.append(f"timed runs are not checked against the original: {why}")
    store = db if isinstance(db, TuneDB) else TuneDB(db)
    space_options = space_options or SpaceOptions()
    identity = machine_identity(cc)
    machine_fp = machine_fingerprint(identity)
    kernel_fp = target.fingerprint(program)
    store.add_machine(machine_fp, identity)
    store.add_kernel(kernel_fp, target.name, str(target.path), target.region, target.defines,
                     target.region_text(program))
    options = campaign_options(search=search, model=model, seed=seed, dataset=dataset,
                               verify_dataset=verify_dataset, threads=threads, repeat=repeat, cc=cc,
                               cflags=cflags, space=space_options, timer=timer)
    space = SearchSpace(program, space_options, threads=threads)
    cost = make_model(model, space, store=store, machine_fp=machine_fp, kernel_fp=kernel_fp,
                      threads=threads, cc=cc, dataset=dataset, seed=seed)
    strategy = make_search(search, space, seed, cost, trials)

    campaign_id = store.find_campaign(kernel_fp, machine_fp, options) if resume else None
    nothing_resumed = ""
    if resume and campaign_id is None:
        # (helper-46 F3: a typo in one option silently started from scratch)
        latest = store.latest_campaign(kernel_fp, machine_fp)
        differ = [f"{key} {latest['config'].get(key)!r} there, {value!r} here"
                  for key, value in options.items() if latest and latest["config"].get(key) != value]
        nothing_resumed = (f"resume: no campaign of {target.name} on this machine with these options, "
                           "so a new one started" +
                           (f" (the latest, campaign {latest['id']}, differs: {'; '.join(differ)})" if differ else ""))
        if latest is None and store.other_texts(kernel_fp, machine_fp, str(target.path), target.region):
            # (helper-94: the options were the same; the region's text had changed)
            nothing_resumed = (f"resume: no campaign of this text of {target.name} on this machine, so a new "
                               f"one started (the campaigns of {target.path} region {target.region} in this "
                               "database are of another text, defines or macro values of it)")
    if campaign_id is None:
        campaign_id = store.new_campaign(kernel_fp, machine_fp, options)
    recorded = {row.trace_hash: row for row in store.rows(campaign_id)}
    result = CampaignResult(campaign_id, target, space, [], store.path, resumed=len(recorded))
    result.warnings += [nothing_resumed] if nothing_resumed else []
    result.warnings += warnings
    if on_start is not None:
        on_start(result, len(recorded))
    own_executor = executor is None
    executor = executor or LocalExecutor(2)
    started = time.monotonic()
    position = 0             # proposals consumed, recorded or measured (the sequence number)
    used: set[str] = set()
    new = 0                  # rows written by this call
    per_candidate = None     # wall seconds per measured candidate in the last batch
    programs: dict[str, Trial] = {}     # program key -> the trial that measured it
    repeats_in_a_row = 0
    try:
        with scratch_directory("tune") as workdir:
            while position < trials:
                if time_budget is not None and time.monotonic() - started > time_budget:
                    result.stopped = "time budget"
                    break
                if new + len(recorded) >= trials:
                    break
                size = min(executor.batch_size, trials - position)
                if time_budget is not None and per_candidate:
                    # as many as the budget has time for, at the last batch's pace
                    # (helper-46 F10: a 30 s budget took 45.6 s, the last batch whole)
                    size = min(size, int((time_budget - (time.monotonic() - started)) / per_candidate))
                    if size < 1:
                        result.stopped = "time budget"
                        break
                elif time_budget is not None:
                    # the pace is not known yet: one candidate tells it (helper-56: a 1 s
                    # budget measured a whole first batch of 4, 37 s)
                    size = 1
                batch = strategy.propose(size)
                if not batch:
                    result.stopped = "space exhausted"
                    break
                # (the pace counts the replays that tell repeated programs apart)
                batch_start = time.monotonic()
                jobs, pending, repeats = [], [], []
                for config in batch:
                    trace = space.trace_json(config)
                    key = trace_hash(trace)
                    program = space.program_key(config)
                    if key in recorded:          # measured before this resume: not again
                        row = recorded[key]
                        used.add(key)
                        trial = Trial(row.seq, row.config, row.trace, row.status, row.median, row.reason, False)
                        pending.append((config, trial, None, program))
                        position += 1
                    elif program in programs or any(program == other for *_, other in pending):
                        repeats.append((config, program))     # the same C as a trial's
                    else:
                        job = job_of(position, trace, config, workdir, reference)
                        position += 1
                        jobs.append(job)
                        pending.append((config, None, job, program))
                measured = executor.measure(jobs)
                for config, trial, job, program in pending:
                    if trial is None:
                        outcome: Result = next(measured)
                        seq = _free_seq(store, campaign_id, job.index)
                        row = store.row(store.record(campaign_id, seq, kernel_fp, machine_fp,
                                                     trace_hash(job.trace), job.trace, config, outcome,
                                                     _features(cost, config)))
                        new += 1
                        # the table is the database's: another run of the campaign (two
                        # --resume at once) may have recorded this candidate first
                        # (helper-46 F19: its rows were dropped, the table showed ours)
                        if (row.seq, row.status, row.samples) != (seq, outcome.status, list(outcome.samples)) \
                                and not any(w.startswith("another run") for w in result.warnings):
                            result.warnings.append("another run of this campaign recorded some of the same "
                                                   "candidates first: their recorded values are kept "
                                                   "(run one at a time)")
                        trial = Trial(row.seq, config, job.trace, row.status, row.median, row.reason)
                    if trial.seq == 0 and trial.status == "error" and NOTHING_PRINTED in (trial.reason or ""):
                        # no candidate can be verified: refused after the first batch, not
                        # measured for the whole budget (helper-56)
                        raise ArgumentError(f"{target.path}: cannot tune a program that prints nothing: "
                                            "its candidates cannot be verified against it")
                    result.trials.append(trial)
                    programs.setdefault(program, trial)
                    strategy.observe(config, trial.status, trial.median)
                    if progress is not None:
                        progress(trial, result)
                for config, program in repeats:         # told as the twin's result
                    twin = programs[program]
                    strategy.observe(config, twin.status, twin.median)
                result.repeats += len(repeats)
                repeats_in_a_row = 0 if pending else repeats_in_a_row + len(repeats)
                if repeats_in_a_row > max(MAX_REPEATS_IN_A_ROW, trials):
                    result.stopped = "space exhausted (its other proposals are programs measured already)"
                    break
                if jobs:
                    per_candidate = (time.monotonic() - batch_start) / len(jobs)
                if strategy.exhausted() and not batch:
                    break
            # rows of the campaign the replayed search did not reach still belong to it
            for key, row in recorded.items():
                if key not in used:
                    result.trials.append(Trial(row.seq, row.config, row.trace, row.status, row.median,
                                               row.reason, False))
            result.trials.sort(key=lambda t: t.seq)
            if confirm and result.stopped == "time budget":
                result.warnings.append("the best trial was not re-timed against the default: the time "
                                       "budget was used up")
            elif confirm:
                result.confirmation = _confirm(result, executor, confirm, store, lambda trial: replace(
                    job_of(trial.seq, trial.trace, trial.config, workdir, reference), phase="confirm"))
            if result.confirmation is None:
                # a resumed campaign not re-timed now: its recorded confirmation still
                # decides while the trial it re-timed is the fastest, as for --from-db
                # (`TuneDB.best`)
                stored = store.confirmation(campaign_id)
                if stored is not None and result.best is not None and stored["best_seq"] == result.best.seq:
                    result.confirmation = Confirmation(
                        stored["best_seq"], stored["default_seq"], stored["chosen_seq"],
                        stored["best_samples"], stored["default_samples"], stored["reason"] or "")
    except BaseException:
        if own_executor:
            executor.abort()        # a Ctrl-C (or any failure): wait for no process
            own_executor = False
        raise
    finally:
        if own_executor:
            executor.close()
    if timer is None:
        result.warnings += _timing_warnings(result)
    if isinstance(db, (str, os.PathLike)):
        store.close()
    return result


def _confirm(result: CampaignResult, executor, rounds: int, store: TuneDB,
             job_of: Callable[[Trial], Job]) -> Confirmation | None:
    """The best trial and the default re-timed ``rounds`` times in turn, the verdict
    recorded (None when there is nothing to compare: no best, or it is the default)."""
    best, default = result.best, result.default
    if best is None or default is None or default.status != "ok" or best.seq == default.seq:
        return None
    default_runs, best_runs = executor.retime([job_of(default), job_of(best)], rounds)
    failed = next((run for run in best_runs if run.status != "ok"), None)
    best_samples = [x for run in best_runs if run.status == "ok" for x in run.samples]
    default_samples = [x for run in default_runs if run.status == "ok" for x in run.samples]
    if failed is not None:
        chosen, reason = default.seq, f"trial {best.seq} re-timed: {failed.status}: {failed.reason}"
    elif not default_samples:
        chosen, reason = best.seq, "the default failed when re-timed"
    elif statistics.median(best_samples) < statistics.median(default_samples):
        chosen, reason = best.seq, ""
    else:
        chosen, reason = default.seq, f"trial {best.seq} was not faster than the default when re-timed"
    store.record_confirmation(result.campaign_id, best.seq, default.seq, chosen, best_samples,
                              default_samples, reason)
    return Confirmation(best.seq, default.seq, chosen, best_samples, default_samples, reason)


def _timing_warnings(result: CampaignResult) -> list[str]:
    """What bench says of its timings, said of the campaign's (helper-46 F9: a default
    timed once at load 5.8 on 2 cores made a "333.90x" best, without a word)."""
    from polysched.tiling.cache import usable_cores
    from polysched.bench.runner import SHORT_MEDIAN_SECONDS, load_warning, short_median_warning
    warnings = []
    load = load_warning(usable_cores())
    if load:
        warnings.append(load)
    short = [trial for trial in (result.default, result.best)
             if trial is not None and trial.median is not None and trial.median < SHORT_MEDIAN_SECONDS]
    if short:
        warnings.append(short_median_warning(f"trial {short[0].seq}", short[0].median, "tune"))
    return warnings


def _features(cost, config: dict) -> dict | None:
    from .models import FEATURE_VERSION
    analysis = getattr(cost, "analysis", None)
    if analysis is None:
        return None
    try:
        return {"version": FEATURE_VERSION, "x": analysis.features(config)}
    except Exception:  # noqa: BLE001 -- features are an aid, never a reason to lose a row
        return None


def _free_seq(store: TuneDB, campaign_id: int, wanted: int) -> int:
    """``wanted`` unless a row of the campaign has it (a search that is not replayed
    exactly after a resume): then the next free number."""
    taken = {row[0] for row in store.conn.execute(
        "SELECT seq FROM measurements WHERE campaign_id = ?", (campaign_id,)).fetchall()}
    seq = wanted
    while seq in taken:
        seq += 1
    return seq


def load_campaign(db_path, campaign_id: int) -> list[Trial]:
    with TuneDB(db_path) as store:
        return [Trial(r.seq, r.config, r.trace, r.status, r.median, r.reason, False)
                for r in store.rows(campaign_id)]


__all__ = ["CampaignResult", "Confirmation", "Target", "Trial", "campaign_options", "load_campaign", "tune"]

