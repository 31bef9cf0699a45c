"""``polysched tune KERNEL|FILE.c``: search traces of schedule primitives, verify and
time each candidate, record every measurement in a SQLite database as it completes.

The default (``pluto-tile-par``, what ``optimize --tile --parallel`` does) is always
trial 0. ``--resume`` continues the latest campaign of this kernel and machine with the
same options (nothing measured is measured again). ``polysched optimize FILE.c -o
OUT.c --from-db DB`` then applies the best verified record."""
from __future__ import annotations

import argparse
import shlex
import sqlite3
import sys
from pathlib import Path

from polysched.cli import UsageError
from polysched.cli.common import add_preprocessor_args, check_compiler, interrupted, parse_defines, path_argument

PREFIX = "polysched tune"
SPACES = ("full", "small")


class TuneUsage(UsageError):
    """A bad option value or input: one line ``polysched: error: ...``, exit 2."""


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("tune", help="auto-tune a kernel: search, verify, time, record (SQLite)",
                              description=__doc__)
    p.add_argument("kernel", help="a suite kernel name (polysched bench --list) or a C file")
    p.add_argument("--trials", type=int, default=64, help="candidates to evaluate, the default included (64)")
    p.add_argument("--time-budget", type=float, metavar="S", help="stop after S seconds of this run")
    p.add_argument("--db", type=path_argument, default=Path("tune.sqlite"), help="the tuning database (tune.sqlite)")
    p.add_argument("--model", default="learned", help="cost model: sol, projected or learned (default)")
    p.add_argument("--search", default="evolutionary", help="grid, random or evolutionary (default)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--resume", action="store_true", help="continue the latest campaign with these options")
    p.add_argument("--dataset", default="LARGE", help="dataset to time (default LARGE)")
    p.add_argument("--verify-dataset", default="MINI", help="dataset to verify at (default MINI)")
    p.add_argument("--threads", type=int,
                   help="OpenMP threads for the timed runs (default: OMP_NUM_THREADS, else the CPUs this "
                        "process may run on)")
    p.add_argument("--repeat", type=int, default=3, help="timed runs per candidate; the median is kept")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per run")
    p.add_argument("--confirm", type=int, default=3, metavar="ROUNDS",
                   help="at the end, re-time the best trial and the default in turn ROUNDS times; the best "
                        "is kept only if it is still faster (default 3; 0: no re-timing)")
    p.add_argument("--jobs", type=int, default=2, help="processes compiling and verifying in parallel")
    p.add_argument("--dask", metavar="ADDRESS", help="measure on a Dask cluster (tcp://host:8786)")
    p.add_argument("--space", default="full",
                   help="full (default) or small (one fusion; tile sizes: the footprint model's, which "
                        "trial 0 uses, and powers of two 16..64; no flags)")
    p.add_argument("--max-genes", type=int, default=0, metavar="N",
                   help="vary the tile sizes of the N bands with the most iterations only; the others "
                        "keep the model's sizes (default 0: every band)")
    p.add_argument("--region", type=int, default=0, help="which #pragma scop region (0-based)")
    p.add_argument("--plot", type=path_argument, help="tuning-curve PNG (default: next to the database)")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--top", type=int, default=10, help="rows of the final table")
    p.add_argument("--cc", default="gcc")
    p.add_argument("--cflags", default="-O3 -march=native")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--timer", help=argparse.SUPPRESS)   # module:function, a fake timer for tests
    add_preprocessor_args(p)
    p.set_defaults(func=run)


def space_options(name: str, max_genes: int = 0):
    from polysched.tune import SpaceOptions
    if name == "full":
        return SpaceOptions(max_genes=max_genes)
    return SpaceOptions(fusions=("cost",), identity=False, powers=(16, 32, 64), divisors=0,
                        model_sizes=True, reorder=(True,), unroll=(1,), parallel=(True,),
                        wavefront=(True,), uaj=(), max_genes=max_genes)


def _check(args):
    from polysched.bench.suite import DATASETS, dataset_spelling
    from polysched.tune import MODELS, SEARCHES
    if args.trials < 1:
        raise TuneUsage(f"--trials {args.trials}: must be at least 1")
    if args.top < 1:            # (helper-90: an empty table)
        raise TuneUsage(f"--top {args.top}: must be at least 1")
    if args.time_budget is not None and not args.time_budget > 0:
        raise TuneUsage(f"--time-budget {args.time_budget:g}: must be positive")
    if args.model not in MODELS:
        raise TuneUsage(f"--model {args.model}: choose one of {', '.join(MODELS)}")
    if args.search not in SEARCHES:
        raise TuneUsage(f"--search {args.search}: choose one of {', '.join(SEARCHES)}")
    if args.space not in SPACES:
        raise TuneUsage(f"--space {args.space}: choose one of {', '.join(SPACES)}")
    if args.max_genes < 0:
        raise TuneUsage(f"--max-genes {args.max_genes}: must be 0 (every band) or more")
    for option in ("dataset", "verify_dataset"):
        value = getattr(args, option)
        if dataset_spelling(value) not in DATASETS:      # (" large" is LARGE, as for bench)
            raise TuneUsage(f"--{option.replace('_', '-')} {value!r}: unknown dataset; choose one of "
                            f"{', '.join(DATASETS)}")
        setattr(args, option, dataset_spelling(value))
    if args.threads is not None and args.threads < 1:
        raise TuneUsage(f"--threads {args.threads}: must be at least 1")
    if args.repeat < 1:
        raise TuneUsage(f"--repeat {args.repeat}: must be at least 1")
    if args.confirm < 0:
        raise TuneUsage(f"--confirm {args.confirm}: must be 0 (no re-timing) or more")
    if not args.timeout > 0:
        raise TuneUsage(f"--timeout {args.timeout:g}: must be positive")
    if args.jobs < 1:
        raise TuneUsage(f"--jobs {args.jobs}: must be at least 1")
    if args.db.is_dir():
        raise TuneUsage(f"--db {args.db}: is a directory")
    if not args.db.parent.is_dir():
        raise TuneUsage(f"--db {args.db}: directory {args.db.parent} does not exist")
    if args.plot is not None and not args.no_plot:
        from polysched.bench.report import check_plot_path
        try:
            check_plot_path(args.plot)
        except ValueError as err:
            raise TuneUsage(f"--plot {args.plot}: {err}") from None
    check_compiler(args.cc)
    try:
        args.cflags_list = shlex.split(args.cflags)
    except ValueError as err:
        raise TuneUsage(f"--cflags: {err}") from None


def run(args) -> int:
    """``_run``; a database this run created is removed again when the run fails
    before it recorded anything (a typo must not leave an empty file behind)."""
    created = not args.db.exists()
    try:
        return _run(args)
    except BaseException:
        if created:
            _remove_if_empty(args.db)
        raise


def _remove_if_empty(db: Path) -> None:
    import sqlite3
    try:
        with sqlite3.connect(db) as connection:
            tables = [row[0] for row in connection.execute("select name from sqlite_master where type='table'")]
            # (the schema row that every new database gets in 'meta' is not content)
            if any(connection.execute(f'select 1 from "{table}" limit 1').fetchone() for table in tables
                   if table not in ("meta", "sqlite_sequence")):
                return
    except sqlite3.Error:
        return
    for path in (db, Path(f"{db}-wal"), Path(f"{db}-shm"), Path(f"{db}-journal")):
        path.unlink(missing_ok=True)


def _run(args) -> int:
    from polysched.errors import PolyschedError
    from polysched.scop import ScopError
    from polysched.tune import DaskExecutor, LocalExecutor, Target, tune
    from polysched.tune.search import SearchError

    _check(args)
    defines = parse_defines(args.defines)
    try:
        target = Target.of(args.kernel, region=args.region, defines=defines, include_dirs=args.include_dirs)
    except ValueError as err:
        raise TuneUsage(str(err)) from None
    try:
        executor = DaskExecutor(args.dask) if args.dask else LocalExecutor(args.jobs)
    except RuntimeError as err:
        raise TuneUsage(str(err)) from None

    bar = None
    messages = sys.stderr

    shown = 0           # warnings printed as the campaign started

    def on_start(result, recorded):
        nonlocal bar, shown
        for warning in result.warnings:
            print(f"{PREFIX}: warning: {warning}", file=messages)
        shown = len(result.warnings)
        if args.quiet:
            if recorded:
                print(f"{PREFIX}: resuming campaign {result.campaign_id}: {recorded} trials recorded",
                      file=messages)
            return
        from tqdm import tqdm
        bar = tqdm(total=args.trials, desc=target.name, unit="trial", file=messages, dynamic_ncols=True)
        if recorded:
            # (to the bar's stream, as with --quiet: tqdm writes to stdout, helper-56)
            bar.write(f"{PREFIX}: resuming campaign {result.campaign_id}: {recorded} trials recorded",
                      file=messages)

    def progress(trial, result):
        if bar is None:
            return
        best = result.best
        bar.update(1)
        last = len(result.trials) >= args.trials and args.confirm and best and best.seq
        bar.set_postfix_str((f"best {best.median:.4g} s" if best else "best -")
                            + ("; re-timing it against the default" if last else ""), refresh=bool(last))

    try:
        result = tune(target, db=args.db, trials=args.trials, time_budget=args.time_budget,
                      search=args.search, model=args.model, seed=args.seed, resume=args.resume,
                      dataset=args.dataset, verify_dataset=args.verify_dataset,
                      threads=args.threads, repeat=args.repeat,
                      timeout=args.timeout, cc=args.cc, cflags=tuple(args.cflags_list),
                      space_options=space_options(args.space, args.max_genes), executor=executor, timer=args.timer,
                      confirm=args.confirm,
                      progress=progress, on_start=on_start)
    except ScopError:
        raise                   # already 'file:line:col: error: ...'
    except (SearchError, ValueError) as err:
        raise TuneUsage(str(err)) from None
    except PolyschedError as err:
        raise TuneUsage(f"{target.path}: {err}") from None
    except RuntimeError as err:
        raise TuneUsage(str(err)) from None
    except sqlite3.DatabaseError as err:     # damaged past its header (helper-56: exit 3)
        raise TuneUsage(f"{args.db}: the database is damaged ({err})") from None
    except BaseException as err:
        if not interrupted(err):     # (a Ctrl-C while a module loads is an ImportError)
            raise
        # the pool is killed, not waited for: a second Ctrl-C inside a waiting shutdown
        # hung the run at exit (helper-56)
        executor.abort()
        if bar is not None:
            bar.close()
            bar = None
        print(f"\ninterrupted: every finished trial is recorded in {args.db}; the same command with "
              "`--resume` continues", file=sys.stderr)
        return 130
    finally:
        if bar is not None:
            bar.close()
        executor.close()

    print(result.table(args.top))
    for warning in result.warnings[shown:]:
        print(f"{PREFIX}: warning: {warning}", file=sys.stderr)
    if result.stopped != "trials":
        print(f"stopped: {result.stopped}")
    if not args.no_plot and result.ok:
        # one file per region (helper-56: region 1's curve overwrote region 0's)
        region = f"-region{target.region}" if target.region else ""
        path = args.plot or args.db.with_name(f"{args.db.stem}-{target.name}{region}.png")
        try:
            result.plot(path)
            print(f"tuning curve: {path}")
        except ImportError:
            print("no tuning curve: matplotlib is not installed (pip install 'polysched[plot]')")
        except OSError as err:
            raise TuneUsage(f"--plot {path}: {err.strerror or err}") from None
    if result.best is not None:
        # with the -D and -I the records were made with (helper-86: without them,
        # "no verified tuning record")
        flags = [f"-D {shlex.quote(k if v in (None, '') else f'{k}={v}')}" for k, v in target.defines.items()] + \
            [f"-I {shlex.quote(d)}" for d in target.include_dirs]
        print(f"apply the best: polysched optimize {shlex.quote(str(target.path))} -o OUT.c "
              f"{''.join(f + ' ' for f in flags)}--from-db {shlex.quote(str(args.db))}")
    if result.best is None:
        # (helper-46: every trial 'wrong', exit 0 and no word; a program that prints a
        # clock differs from itself, which no candidate can match)
        counts = result.counts()
        why = (f"a program whose output changes from run to run, a time or an address, differs from itself: "
               f"check with polysched verify {shlex.quote(str(target.path))} {shlex.quote(str(target.path))}"
               if counts.get("wrong") else "the table gives each trial's reason")
        statuses = ", ".join(f"{status} {n}" for status, n in sorted(counts.items()))
        # (helper-56: candidates that verified, then timed out, were "no candidate verified")
        print(f"{PREFIX}: no candidate verified and timed ({statuses}): nothing to apply ({why})",
              file=sys.stderr)
        return 1
    return 0
