"""The tuning database: SQLite through the stdlib, one row per measurement.

WAL journal, ``synchronous=FULL``, and one transaction per measurement row: a campaign
killed at any point (``kill -9`` included) keeps every row it had written, and a row is
either there whole or not at all. ``UNIQUE(campaign, seq)`` and ``UNIQUE(campaign,
trace_hash)`` make a repeated measurement impossible rather than unlikely.

Tables:

- ``machines``: fingerprint -> provenance (CPU, cores, caches, compiler) and the
  measured peak and bandwidths of ``polysched.tune.probe`` (once per machine);
- ``kernels``: fingerprint -> name, path, region, defines, the region's text;
- ``campaigns``: one tuning run (resumable): kernel, machine, its options;
- ``confirmations``: the campaign's best re-timed against its default, interleaved;
  the one ``chosen`` (the default when the best was not faster after all) is the only
  row of that campaign ``best`` returns;
- ``measurements``: campaign, sequence number, kernel and machine fingerprints, trace
  JSON, configuration, status (``ok``, ``wrong``, ``illegal``, ``timeout``,
  ``compile_error``, ``error``), reason, compiler, version and exact command, flags,
  dataset, threads, every timing sample, median, verification verdict, hash of the
  generated C, provenance (git commit, date, load average), the cost-model features
  (for the learned model of later campaigns).
"""
from __future__ import annotations

import datetime
import hashlib
import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from polysched.errors import ArgumentError

STATUSES = ("ok", "wrong", "illegal", "timeout", "compile_error", "error")
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS machines (
    fp TEXT PRIMARY KEY, info TEXT NOT NULL, probe TEXT, created TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS kernels (
    fp TEXT PRIMARY KEY, name TEXT, path TEXT, region INTEGER, defines TEXT,
    region_text TEXT, created TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS campaigns (
    id INTEGER PRIMARY KEY AUTOINCREMENT, kernel_fp TEXT NOT NULL, machine_fp TEXT NOT NULL,
    config TEXT NOT NULL, signature TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS measurements (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    campaign_id INTEGER NOT NULL REFERENCES campaigns(id),
    seq INTEGER NOT NULL,
    kernel_fp TEXT NOT NULL, machine_fp TEXT NOT NULL,
    trace_hash TEXT NOT NULL, trace TEXT NOT NULL, config TEXT,
    status TEXT NOT NULL, reason TEXT,
    compiler TEXT, compiler_version TEXT, command TEXT, flags TEXT,
    dataset TEXT, threads INTEGER,
    samples TEXT, median REAL,
    verify TEXT, source_hash TEXT,
    git_commit TEXT, git_dirty INTEGER, date TEXT NOT NULL, loadavg TEXT,
    seconds REAL, features TEXT,
    UNIQUE(campaign_id, seq), UNIQUE(campaign_id, trace_hash));
CREATE INDEX IF NOT EXISTS measurements_kernel ON measurements(kernel_fp, machine_fp, status);
CREATE TABLE IF NOT EXISTS confirmations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    campaign_id INTEGER NOT NULL REFERENCES campaigns(id),
    best_seq INTEGER NOT NULL, default_seq INTEGER NOT NULL, chosen_seq INTEGER NOT NULL,
    best_samples TEXT, default_samples TEXT, reason TEXT,
    date TEXT NOT NULL, loadavg TEXT);
"""


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _loadavg() -> list[float] | None:
    try:
        return list(os.getloadavg())
    except OSError:
        return None


def _sha(data) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def kernel_fingerprint(region_text: str, defines: dict | None, context: dict | None = None) -> str:
    """A hash of the region's text, the ``-D`` defines it is compiled with, and what
    the text does not say (``context``: the arrays' element types and extents, the
    values of the macros it names; see `Target.fingerprint`)."""
    what = {"region": region_text, "defines": {str(k): v for k, v in (defines or {}).items()}}
    if context:
        what["context"] = context
    return _sha(what)[:20]


def machine_identity(cc: str = "gcc") -> dict:
    """What makes measurements comparable: CPU model, cores, caches, compiler version."""
    from polysched.bench.machine import _cpu_model, caches, compiler_version
    return {"cpu_model": _cpu_model(), "cores": os.cpu_count(),
            "caches": [[c["level"], c["type"], c["size"]] for c in caches()],
            "compiler": cc, "compiler_version": compiler_version(cc)}


def machine_fingerprint(identity: dict) -> str:
    return _sha(identity)[:16]


@dataclass
class Row:
    """One measurement as read back."""

    id: int
    campaign_id: int
    seq: int
    kernel_fp: str
    machine_fp: str
    trace_hash: str
    trace: str
    config: dict | None
    status: str
    reason: str
    command: str | None
    dataset: str | None
    threads: int | None
    samples: list[float]
    median: float | None
    date: str

    @classmethod
    def of(cls, r: sqlite3.Row) -> "Row":
        return cls(r["id"], r["campaign_id"], r["seq"], r["kernel_fp"], r["machine_fp"], r["trace_hash"],
                   r["trace"], json.loads(r["config"]) if r["config"] else None, r["status"],
                   r["reason"] or "", r["command"], r["dataset"], r["threads"],
                   json.loads(r["samples"] or "[]"), r["median"], r["date"])


class TuneDB:
    """The database at ``path`` (created when missing). Every write is one transaction."""

    def __init__(self, path: str | os.PathLike, create: bool = True):
        """``create=False``: only read an existing polysched database (ValueError for
        a missing, empty or foreign file, which stays untouched)."""
        self.path = Path(path)
        self._read_only = not create
        if self.path.exists() and self.path.is_dir():
            raise ArgumentError(f"{self.path}: is a directory")
        if not self.path.parent.exists():
            raise ArgumentError(f"{self.path}: directory {self.path.parent} does not exist")
        if not create and not (self.path.is_file() and self.path.stat().st_size > 0):
            raise ArgumentError(f"{self.path}: not a polysched tuning database (empty or missing)")
        try:
            if create:
                self.conn = sqlite3.connect(str(self.path), isolation_level=None, timeout=30)
            else:       # only read: a database the user may only read is usable (helper-56)
                self.conn = self._reader()
            self.conn.row_factory = sqlite3.Row
            # another program's database is not ours to add tables to
            tables = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            schema = self.conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() \
                if "meta" in tables else None
            if (tables or not create) and schema is None:
                self.conn.close()
                raise ArgumentError(f"{self.path}: not a polysched tuning database (its tables: "
                                 f"{', '.join(sorted(tables)) or 'none'})")
            if not create:
                # the tables a database of an earlier schema lacks, empty, in memory
                for statement in _SCHEMA.strip().split(";"):
                    if statement.strip().startswith("CREATE TABLE"):
                        table = statement.split()[5]
                        if table not in tables:
                            self.conn.execute(statement.replace("CREATE TABLE", "CREATE TEMP TABLE", 1))
                return
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=FULL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            with self._transaction():
                for statement in _SCHEMA.strip().split(";"):
                    if statement.strip():
                        self.conn.execute(statement)
                self.conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        except sqlite3.DatabaseError as err:
            if "readonly" in str(err):       # ours, but not writable (helper-56)
                raise ArgumentError(f"{self.path}: cannot be written ({err})") from None
            raise ArgumentError(f"{self.path}: not a polysched tuning database ({err})") from None

    def _reader(self) -> sqlite3.Connection:
        """A read-only connection. A database still in WAL mode (a campaign running, or
        killed) needs its ``-shm`` file to be read, which SQLite creates beside it: in a
        directory the user may not write (helper-94), it is opened as immutable (what
        the WAL file holds and no checkpoint moved in is then not seen)."""
        uri = self.path.resolve().as_uri()
        conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None, timeout=30)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:
            conn.close()
            if os.access(self.path.parent, os.W_OK):
                raise
        return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, isolation_level=None, timeout=30)

    def close(self) -> None:
        """Close; a database written to goes back from WAL to rollback-journal mode (its
        ``-wal`` and ``-shm`` files checkpointed and removed), so that a reader needs
        no file beside it: ``--from-db`` on a database in a directory it may only read
        (helper-94). Not while another campaign has it open (that one does it)."""
        if not self._read_only:
            try:
                self.conn.execute("PRAGMA busy_timeout = 0")
                self.conn.execute("PRAGMA journal_mode=DELETE").fetchone()
            except sqlite3.DatabaseError:
                pass
        self.conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _transaction(self):
        conn = self.conn

        class _Tx:
            def __enter__(self_inner):
                conn.execute("BEGIN IMMEDIATE")

            def __exit__(self_inner, kind, value, tb):
                conn.execute("COMMIT" if kind is None else "ROLLBACK")
                return False
        return _Tx()

    # -- machines and kernels ------------------------------------------------------------
    def add_machine(self, fp: str, info: dict) -> None:
        with self._transaction():
            self.conn.execute("INSERT OR IGNORE INTO machines (fp, info, created) VALUES (?, ?, ?)",
                              (fp, json.dumps(info), _now()))

    def machine_probe(self, fp: str) -> dict | None:
        row = self.conn.execute("SELECT probe FROM machines WHERE fp = ?", (fp,)).fetchone()
        return json.loads(row["probe"]) if row and row["probe"] else None

    def set_machine_probe(self, fp: str, probe: dict) -> None:
        with self._transaction():
            self.conn.execute("UPDATE machines SET probe = ? WHERE fp = ?", (json.dumps(probe), fp))

    def add_kernel(self, fp: str, name: str, path: str | None, region: int, defines: dict,
                   region_text: str) -> None:
        with self._transaction():
            self.conn.execute("INSERT OR IGNORE INTO kernels VALUES (?, ?, ?, ?, ?, ?, ?)",
                              (fp, name, path, region, json.dumps(defines), region_text, _now()))

    def kernel_name(self, fp: str) -> str | None:
        row = self.conn.execute("SELECT name FROM kernels WHERE fp = ?", (fp,)).fetchone()
        return row["name"] if row else None

    # -- campaigns -----------------------------------------------------------------------
    def new_campaign(self, kernel_fp: str, machine_fp: str, config: dict) -> int:
        with self._transaction():
            cur = self.conn.execute(
                "INSERT INTO campaigns (kernel_fp, machine_fp, config, signature, created) VALUES (?, ?, ?, ?, ?)",
                (kernel_fp, machine_fp, json.dumps(config, sort_keys=True), _sha(config)[:16], _now()))
            return int(cur.lastrowid)

    def find_campaign(self, kernel_fp: str, machine_fp: str, config: dict) -> int | None:
        """The latest campaign of this kernel and machine with the same options."""
        row = self.conn.execute(
            "SELECT id FROM campaigns WHERE kernel_fp = ? AND machine_fp = ? AND signature = ? "
            "ORDER BY id DESC LIMIT 1", (kernel_fp, machine_fp, _sha(config)[:16])).fetchone()
        return int(row["id"]) if row else None

    def latest_campaign(self, kernel_fp: str, machine_fp: str) -> dict | None:
        """The latest campaign of this kernel and machine, whatever its options."""
        row = self.conn.execute("SELECT id FROM campaigns WHERE kernel_fp = ? AND machine_fp = ? "
                                "ORDER BY id DESC LIMIT 1", (kernel_fp, machine_fp)).fetchone()
        return self.campaign(int(row["id"])) if row else None

    def other_texts(self, kernel_fp: str, machine_fp: str, path: str, region: int) -> int:
        """How many campaigns on this machine are of the same file's region (``path``,
        ``region``) with another fingerprint: its text, defines or macros changed since."""
        row = self.conn.execute(
            "SELECT count(*) AS n FROM campaigns JOIN kernels ON kernels.fp = campaigns.kernel_fp "
            "WHERE campaigns.machine_fp = ? AND kernels.path = ? AND kernels.region = ? AND kernels.fp != ?",
            (machine_fp, path, region, kernel_fp)).fetchone()
        return int(row["n"])

    def campaign(self, campaign_id: int) -> dict | None:
        row = self.conn.execute("SELECT * FROM campaigns WHERE id = ?", (campaign_id,)).fetchone()
        if row is None:
            return None
        return {"id": row["id"], "kernel_fp": row["kernel_fp"], "machine_fp": row["machine_fp"],
                "config": json.loads(row["config"]), "created": row["created"]}

    # -- measurements --------------------------------------------------------------------
    def record(self, campaign_id: int, seq: int, kernel_fp: str, machine_fp: str, trace_hash: str,
               trace: str, config: dict | None, result, features: dict | None = None) -> int:
        """One measurement row, in one transaction. ``result``: a
        ``polysched.tune.measure.Result``. The row's id: the one written, or the one
        another run of the campaign wrote for this trace first (:meth:`row`)."""
        if result.status not in STATUSES:
            raise ArgumentError(f"unknown status {result.status!r}")
        load = _loadavg()
        from polysched.bench.machine import git_commit
        git = _git_once(git_commit)
        try:
            with self._transaction():
                cur = self._insert_measurement(campaign_id, seq, kernel_fp, machine_fp, trace_hash, trace, config,
                                               result, features, git, load)
        except sqlite3.IntegrityError:
            # another run of the campaign (two --resume at once) recorded this trace or seq
            existing = self.conn.execute("SELECT id FROM measurements WHERE campaign_id = ? AND trace_hash = ?",
                                         (campaign_id, trace_hash)).fetchone()
            if existing is None:
                raise ArgumentError(f"{self.path}: another run of this campaign is recording measurements; "
                                 "run one at a time") from None
            return int(existing[0])
        return int(cur.lastrowid)

    def _insert_measurement(self, campaign_id, seq, kernel_fp, machine_fp, trace_hash, trace, config, result,
                            features, git, load):
        return self.conn.execute(
            "INSERT INTO measurements (campaign_id, seq, kernel_fp, machine_fp, trace_hash, trace, "
            "config, status, reason, compiler, compiler_version, command, flags, dataset, threads, "
            "samples, median, verify, source_hash, git_commit, git_dirty, date, loadavg, seconds, "
            "features) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (campaign_id, seq, kernel_fp, machine_fp, trace_hash, trace,
             json.dumps(config) if config is not None else None, result.status, result.reason,
             result.compiler, result.compiler_version, result.command,
             json.dumps(result.flags) if result.flags is not None else None,
             result.dataset, result.threads, json.dumps(list(result.samples)), result.median,
             result.verify, result.source_hash, git["commit"],
             None if git["dirty"] is None else int(git["dirty"]), _now(),
             json.dumps(load), result.seconds,
             json.dumps(features) if features is not None else None))

    def row(self, row_id: int) -> Row | None:
        found = self.conn.execute("SELECT * FROM measurements WHERE id = ?", (row_id,)).fetchone()
        return Row.of(found) if found else None

    def rows(self, campaign_id: int | None = None, *, kernel_fp: str | None = None,
             machine_fp: str | None = None, status: str | None = None) -> list[Row]:
        where, args = [], []
        for column, value in (("campaign_id", campaign_id), ("kernel_fp", kernel_fp),
                              ("machine_fp", machine_fp), ("status", status)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        sql = "SELECT * FROM measurements" + (" WHERE " + " AND ".join(where) if where else "") + \
            " ORDER BY campaign_id, seq"
        return [Row.of(r) for r in self.conn.execute(sql, args).fetchall()]

    def record_confirmation(self, campaign_id: int, best_seq: int, default_seq: int, chosen_seq: int,
                            best_samples: list, default_samples: list, reason: str = "") -> None:
        with self._transaction():
            self.conn.execute(
                "INSERT INTO confirmations (campaign_id, best_seq, default_seq, chosen_seq, best_samples, "
                "default_samples, reason, date, loadavg) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (campaign_id, best_seq, default_seq, chosen_seq, json.dumps(best_samples),
                 json.dumps(default_samples), reason, _now(), json.dumps(_loadavg())))

    def confirmation(self, campaign_id: int) -> dict | None:
        """The campaign's latest confirmation, or None."""
        row = self.conn.execute("SELECT * FROM confirmations WHERE campaign_id = ? ORDER BY id DESC LIMIT 1",
                                (campaign_id,)).fetchone()
        if row is None:
            return None
        return {**dict(row), "best_samples": json.loads(row["best_samples"] or "[]"),
                "default_samples": json.loads(row["default_samples"] or "[]")}

    def datasets(self) -> list[str]:
        """The datasets of the verified measurements, sorted."""
        return [r[0] for r in self.conn.execute("SELECT DISTINCT dataset FROM measurements WHERE status = 'ok' "
                                                "AND dataset IS NOT NULL ORDER BY dataset")]

    def count(self, campaign_id: int) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM measurements WHERE campaign_id = ?",
                                     (campaign_id,)).fetchone()[0])

    def best(self, kernel_fp: str, machine_fp: str, dataset: str | None = None,
             threads: int | None = None) -> Row | None:
        """The fastest verified measurement of this kernel on this machine (of a confirmed
        campaign, the trial its confirmation chose, while the trial it re-timed is still
        the campaign's fastest), among those
        taken at one dataset and thread count (times at other sizes are not comparable):
        ``dataset`` and ``threads`` when given, else those of the latest campaign with a
        verified measurement (that matches the one given)."""
        where = ("kernel_fp = ? AND machine_fp = ? AND status = 'ok' AND median IS NOT NULL"
                 # of a confirmed campaign, only the trial its confirmation chose; a trial
                 # measured faster since (a resume with --confirm 0) is not covered by it,
                 # and tune reports the fastest (helper-86: --from-db applied trial 0)
                 " AND NOT EXISTS (SELECT 1 FROM confirmations c WHERE c.campaign_id = measurements.campaign_id"
                 " AND c.id = (SELECT MAX(id) FROM confirmations WHERE campaign_id = c.campaign_id)"
                 " AND c.chosen_seq != measurements.seq"
                 " AND c.best_seq = (SELECT b.seq FROM measurements b WHERE b.campaign_id = c.campaign_id"
                 " AND b.status = 'ok' AND b.median IS NOT NULL ORDER BY b.median, b.seq LIMIT 1))")
        chosen: list = [kernel_fp, machine_fp]
        if dataset is not None:
            where += " AND dataset = ?"
            from polysched.bench.suite import dataset_spelling
            chosen.append(dataset_spelling(dataset))
        if threads is not None:
            where += " AND threads = ?"
            chosen.append(threads)
        latest = self.conn.execute(f"SELECT dataset, threads FROM measurements WHERE {where} "
                                   "ORDER BY campaign_id DESC, seq DESC LIMIT 1", chosen).fetchone()
        if latest is None:
            return None
        row = self.conn.execute(
            f"SELECT * FROM measurements WHERE {where} AND dataset IS ? AND threads IS ? "
            "ORDER BY median, id LIMIT 1", [*chosen, latest["dataset"], latest["threads"]]).fetchone()
        return Row.of(row) if row else None


_GIT: dict = {}


def _git_once(git_commit) -> dict:
    if "value" not in _GIT:
        _GIT["value"] = git_commit()
    return _GIT["value"]


__all__ = ["STATUSES", "Row", "TuneDB", "kernel_fingerprint", "machine_fingerprint", "machine_identity"]
