"""Tables and plots from a :func:`polysched.bench.run_benchmarks` results dict.

Speedups are ratios taken within one results dict (one campaign, same machine and
moment): ``median(orig) / median(variant)``. GFLOP/s uses the kernel's flop count at
the timed dataset (``results["kernels"][name]["flops"]``). A variant slower than
``orig`` is flagged with ``!``, unless its source is ``orig``'s own (polysched kept the
region as written): that one is flagged ``=``, since its distance from 1 is timing
noise. The geometric mean per variant is over the kernels where both the variant and
``orig`` succeeded.
"""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from polysched.errors import ArgumentError

from .runner import OK, ORIG

SLOWER_FLAG = "!"
SAME_FLAG = "="


def _records(results: dict) -> dict[tuple[str, str], dict]:
    return {(record["kernel"], record["variant"]): record for record in results.get("results", [])}


def _variant_names(results: dict) -> list[str]:
    names = [variant["name"] for variant in results.get("variants", [])]
    for record in results.get("results", []):
        if record["variant"] not in names:
            names.append(record["variant"])
    return names


def _kernel_names(results: dict) -> list[str]:
    names = list(results.get("kernels", {}))
    for record in results.get("results", []):
        if record["kernel"] not in names:
            names.append(record["kernel"])
    return names


def speedup(results: dict, kernel: str, variant: str) -> float | None:
    """``median(orig) / median(variant)`` for one kernel; None unless both are OK."""
    records = _records(results)
    reference, record = records.get((kernel, ORIG)), records.get((kernel, variant))
    if not reference or not record or reference["status"] != OK or record["status"] != OK:
        return None
    if not _valid_time(reference.get("median_seconds")) or not _valid_time(record.get("median_seconds")):
        return None         # (a log of an older version may hold NaN, infinite or negative times)
    return reference["median_seconds"] / record["median_seconds"]


def same_source(results: dict, kernel: str, variant: str) -> bool:
    """Whether ``variant`` timed ``orig``'s own program for ``kernel``: the same source
    (SHA-256; polysched kept the region as written), compiler and flags (``-fopenmp``
    aside: the source has no pragma)."""
    records = _records(results)
    reference, record = records.get((kernel, ORIG)), records.get((kernel, variant))
    if variant == ORIG or not reference or not record or record.get("source_sha256") is None:
        return False
    return _build_key(record) == _build_key(reference)


def _build_key(record: dict) -> tuple:
    compiler = (record.get("compile_command") or "").split()[:1]
    return (record.get("source_sha256"), tuple(compiler),
            tuple(flag for flag in record.get("flags") or () if flag != "-fopenmp"))


def _slower(results: dict, kernel: str, variant: str, up: float | None) -> bool:
    return up is not None and up < 1 and not same_source(results, kernel, variant)


def _flag(results: dict, kernel: str, variant: str, up: float | None) -> str:
    if variant != ORIG and same_source(results, kernel, variant):
        return f" {SAME_FLAG}"
    return f" {SLOWER_FLAG}" if _slower(results, kernel, variant, up) else ""


def _valid_time(seconds) -> bool:
    return isinstance(seconds, (int, float)) and 0 < seconds < math.inf


def gflops(results: dict, kernel: str, variant: str) -> float | None:
    record = _records(results).get((kernel, variant))
    flops = results.get("kernels", {}).get(kernel, {}).get("flops")
    if not record or record["status"] != OK or not flops or not record.get("median_seconds"):
        return None
    return flops / record["median_seconds"] / 1e9


def geometric_mean(values: list[float]) -> float | None:
    values = [value for value in values if value and value > 0]
    if not values:
        return None
    return math.exp(sum(math.log(value) for value in values) / len(values))


def summary(results: dict) -> list[dict]:
    """Per variant: geometric-mean speedup over orig, and counts of OK / non-OK kernels."""
    rows = []
    records = _records(results)
    for variant in _variant_names(results):
        ups = [speedup(results, kernel, variant) for kernel in _kernel_names(results)]
        statuses = [records[(k, variant)]["status"] for k in _kernel_names(results) if (k, variant) in records]
        rows.append({"variant": variant, "geomean_speedup": geometric_mean([u for u in ups if u]),
                     "kernels_ok": statuses.count(OK),
                     "kernels_not_ok": len(statuses) - statuses.count(OK),
                     "slower": sum(1 for kernel, u in zip(_kernel_names(results), ups)
                                   if _slower(results, kernel, variant, u))})
    return rows


def rows(results: dict) -> list[dict]:
    """One row per (kernel, variant), in campaign order."""
    out = []
    records = _records(results)
    for kernel in _kernel_names(results):
        for variant in _variant_names(results):
            record = records.get((kernel, variant))
            if record is None:
                continue
            up = speedup(results, kernel, variant)
            out.append({"kernel": kernel, "variant": variant, "status": record["status"],
                        "median_seconds": record.get("median_seconds") if record["status"] == OK else None,
                        "runs": len(record.get("times", [])),
                        "speedup": up, "gflops": gflops(results, kernel, variant),
                        "slower": _slower(results, kernel, variant, up),
                        "flag": _flag(results, kernel, variant, up),
                        "reason": record.get("reason", "")})
    return out


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def _provenance_lines(results: dict) -> list[str]:
    machine = results.get("machine", {})
    config = results.get("config", {})
    commit = machine.get("git_commit")
    commit_text = (commit[:12] + ("+dirty" if machine.get("git_dirty") else "")) if commit else "unknown"
    return [
        f"- machine: {machine.get('cpu_model', '?')}, {machine.get('cores_logical', '?')} logical cores",
        f"- compiler: {machine.get('compiler_version', '?')}",
        f"- polysched {machine.get('polysched_version', '?')}, commit {commit_text}, "
        f"started {results.get('started', '?')}",
        f"- dataset {config.get('dataset')}, threads {config.get('threads')}, "
        f"median of {config.get('repeat')} runs, verified at {config.get('verify_dataset')}",
    ]


def _speedup_matrix(results: dict) -> list[str]:
    """One row per kernel: orig's median time, then each variant's speedup (or status)."""
    records = _records(results)
    others = [name for name in _variant_names(results) if name != ORIG]
    lines = [f"| kernel | {ORIG} (s) | " + " | ".join(others) + " |",
             "| --- | ---: | " + " | ".join("---:" for _ in others) + " |"]
    for kernel in _kernel_names(results):
        reference = records.get((kernel, ORIG))
        cells = [_fmt(reference.get("median_seconds"), ".4g") if reference and reference["status"] == OK
                 else (reference["status"] if reference else "-")]
        for variant in others:
            record = records.get((kernel, variant))
            up = speedup(results, kernel, variant)
            if up is not None:
                cells.append(f"{up:.2f}x" + _flag(results, kernel, variant, up))
            else:
                cells.append(record["status"] if record and record["status"] != OK else "-")
        lines.append(f"| {kernel} | " + " | ".join(cells) + " |")
    return lines + [""]


def variant_flags(results: dict, variant: str) -> str:
    """The compiler flags a variant was actually built with, from its records (the
    ``-fopenmp`` a file with ``#pragma omp`` gets included): one string, or each
    distinct one with the kernels it applies to, e.g. ``-O3 -fopenmp (28); -O3 (2)``.
    Results without per-record flags: the variant's declared flags."""
    counts: dict[str, int] = {}
    for record in results.get("results", []):
        if record["variant"] == variant and record.get("flags") is not None:
            text = " ".join(record["flags"])
            counts[text] = counts.get(text, 0) + 1
    if not counts:
        declared = next((v for v in results.get("variants", []) if v["name"] == variant), {})
        return (" ".join(declared.get("cflags", [])) + (" -fopenmp" if declared.get("openmp") else "")).strip()
    if len(counts) == 1:
        return next(iter(counts))
    return "; ".join(f"{text} ({count})" for text, count in sorted(counts.items(), key=lambda kv: -kv[1]))


def _markdown(results: dict) -> str:
    lines = ["# polysched benchmark", "", *_provenance_lines(results), ""]
    lines += _speedup_matrix(results)
    lines += ["| kernel | variant | status | median (s) | speedup | GFLOP/s |",
              "| --- | --- | --- | ---: | ---: | ---: |"]
    for row in rows(results):
        up = _fmt(row["speedup"], ".2f") + row["flag"]
        status = row["status"] if row["status"] == OK else f"{row['status']}: {row['reason']}"
        status = status.replace("|", "\\|").replace("\n", " ")
        if len(status) > 120:
            status = status[:117] + "..."
        lines.append(f"| {row['kernel']} | {row['variant']} | {status} | "
                     f"{_fmt(row['median_seconds'], '.4g')} | {up} | {_fmt(row['gflops'], '.2f')} |")
    lines += ["", "| variant | geomean speedup | kernels OK | not OK | slower than orig | flags |",
              "| --- | ---: | ---: | ---: | ---: | --- |"]
    for row in summary(results):
        flags = variant_flags(results, row["variant"])
        lines.append(f"| {row['variant']} | {_fmt(row['geomean_speedup'], '.2f')} | {row['kernels_ok']} "
                     f"| {row['kernels_not_ok']} | {row['slower']} | {flags.strip() or '-'} |")
    lines += ["", f"`{SLOWER_FLAG}`: slower than {ORIG}. `{SAME_FLAG}`: the same source as {ORIG} (polysched kept "
              f"the region as written; a distance from 1 is timing noise). Speedup = median({ORIG}) / median(variant)."]
    warnings = list(dict.fromkeys(results.get("warnings") or []))
    # (helper-46 F7: whole-process times sat in the same column as kernel-only ones)
    whole = list(dict.fromkeys(record["kernel"] for record in results.get("results", [])
                               if record.get("time_source") == "wall"))
    if whole:
        warnings.append(f"{', '.join(whole)}: timed as whole processes (the program prints no "
                        "`polysched-time:` line), start-up and set-up included: their speedups are diluted")
    if warnings:
        lines += ["", "Warnings:", ""] + [f"- {warning}" for warning in warnings]
    return "\n".join(lines) + "\n"


def _csv(results: dict) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["kernel", "variant", "status", "median_seconds", "runs", "speedup", "gflops",
                     "slower_than_orig", "reason"])
    for row in rows(results):
        writer.writerow([row["kernel"], row["variant"], row["status"],
                         "" if row["median_seconds"] is None else f"{row['median_seconds']:.6g}",
                         row["runs"], "" if row["speedup"] is None else f"{row['speedup']:.4f}",
                         "" if row["gflops"] is None else f"{row['gflops']:.4f}",
                         int(row["slower"]), row["reason"]])
    for row in summary(results):
        writer.writerow(["GEOMEAN", row["variant"], "", "", "",
                         "" if row["geomean_speedup"] is None else f"{row['geomean_speedup']:.4f}",
                         "", row["slower"], ""])
    return buffer.getvalue()


def report(results: dict, format: str = "md") -> str:  # noqa: A002 -- the documented name
    """The results as a Markdown ("md") or CSV ("csv") table."""
    if format in ("md", "markdown"):
        return _markdown(results)
    if format == "csv":
        return _csv(results)
    raise ArgumentError(f"unknown report format {format!r}; expected 'md' or 'csv'")


def plot_formats() -> dict[str, str]:
    """The file extensions matplotlib can write (``{"png": "Portable Network
    Graphics", ...}``); ValueError when matplotlib is not installed."""
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        raise ArgumentError("plotting needs matplotlib (pip install matplotlib)") from None
    return dict(FigureCanvasBase.get_supported_filetypes())


def check_plot_path(path: Path | str) -> None:
    """ValueError (one sentence) unless :func:`plot` can write ``path``: an extension
    matplotlib knows, in an existing directory, not a directory itself."""
    path = Path(path)
    formats = plot_formats()
    extension = path.suffix.lower().lstrip(".")
    if not extension:
        raise ArgumentError(f"no file extension to choose the format from (one of: {', '.join(sorted(formats))})")
    if extension not in formats:
        raise ArgumentError(f"unknown plot format '.{extension}' (one of: {', '.join(sorted(formats))})")
    if path.is_dir():
        raise ArgumentError("is a directory")
    if not path.parent.is_dir():
        raise ArgumentError(f"no such directory {path.parent}")


def ratio_label(value: float) -> str:
    """A speedup tick as a plain ratio: 0.25x, 0.5x, 1x, 1.5x, 2x, 16x."""
    if value <= 0:
        return ""
    text = f"{value:.3g}" if value < 100 else f"{value:.0f}"
    return text + "x"


def _ratio_ticks(low: float, high: float) -> list[float]:
    """Powers of two covering [low, high]; within a narrow range also the halves
    between them (0.75x, 1.5x, 3x), so that the axis always has a few labels."""
    low, high = min(low, 1.0), max(high, 1.0)
    first = math.floor(math.log2(low)) if low > 0 else -1
    last = math.ceil(math.log2(high))
    ticks = [2.0 ** k for k in range(first, last + 1)]
    if last - first <= 2:
        ticks = sorted(ticks + [1.5 * 2.0 ** k for k in range(first, last)])
    return ticks


def plot(results: dict, path: Path | str | None = None, ax=None):
    """Bar chart of speedups over orig, log scale (one group per kernel plus a
    geometric-mean group, one bar per variant; a variant without a speedup, e.g.
    FAILED, is marked with an x). Drawn on the matplotlib axes ``ax`` (a new figure
    when None), saved to ``path`` (format from the extension) when given. Returns
    the ``ax`` (drawn on), or the path when called with a path and no ``ax`` (as before).
    The legend sits outside the axes, to the right, never over the bars; the log-scale
    ticks read as plain ratios (0.5x, 1x, 2x)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, NullLocator

    if path is not None:
        check_plot_path(path)
    kernels = _kernel_names(results)
    variants = [name for name in _variant_names(results) if name != ORIG]
    groups = kernels + ["geomean"]
    geomeans = {row["variant"]: row["geomean_speedup"] for row in summary(results)}
    if ax is None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        legend_width = 2.5 if variants else 0.0
        figure = Figure(figsize=(min(16.0, max(6.0, 0.35 * len(groups) * max(1, len(variants)) + 2))
                                 + legend_width, 4.5))
        FigureCanvasAgg(figure)
        ax = figure.add_subplot(1, 1, 1)
        own_figure = True
    else:
        figure = ax.figure
        own_figure = False
    width = 0.8 / max(1, len(variants))
    values = []
    for index, variant in enumerate(variants):
        heights = [speedup(results, kernel, variant) for kernel in kernels] + [geomeans.get(variant)]
        values += [h for h in heights if h]
        positions = [k + (index - (len(variants) - 1) / 2) * width for k in range(len(groups))]
        # Bars start at 1 (no change) so that slowdowns point down on the log axis.
        bars = ax.bar(positions, [(h - 1) if h else 0 for h in heights], width, bottom=1.0,
                      label=variant)
        color = bars.patches[0].get_facecolor() if bars.patches else None
        missing = [p for p, h in zip(positions, heights) if h is None]
        if missing:
            ax.scatter(missing, [1.0] * len(missing), marker="x", color=color, zorder=3)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log", base=2)
    low, high = (min(values), max(values)) if values else (1.0, 1.0)
    ticks = _ratio_ticks(low, high)
    ax.set_ylim(min(ticks[0], low) / 1.15, max(ticks[-1], high) * 1.15)
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: ratio_label(value)))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=60, ha="right", fontsize=8)
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.set_ylabel(f"speedup over {ORIG} (x: no result)")
    config = results.get("config", {})
    ax.set_title(f"dataset {config.get('dataset')}, threads {config.get('threads')}, "
                 f"median of {config.get('repeat')} runs")
    if variants:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                  frameon=False)
    if own_figure:
        figure.tight_layout()
    if path is not None:
        _save_figure(figure, Path(path))
        if own_figure:
            return Path(path)
    return ax


def _save_figure(figure, path: Path) -> None:
    """Atomically: a temp file in the same directory, then a rename (an existing chart
    is never replaced by a partial one). The legend outside the axes is kept."""
    import os
    import tempfile
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            figure.savefig(f, dpi=120, format=path.suffix.lower().lstrip("."), bbox_inches="tight")
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


DATAFRAME_COLUMNS = ("kernel", "variant", "status", "median_seconds", "min_seconds", "runs", "speedup",
                     "gflops", "dataset", "threads", "flags", "openmp", "compile_command",
                     "source_sha256", "tile_sizes", "verify", "loadavg", "date", "reason")


def to_dataframe(results: dict):
    """One row per (kernel, variant) as a pandas DataFrame (columns
    ``DATAFRAME_COLUMNS``, plus ``times``: every sample). pandas is optional: without
    it, ImportError saying how to install it."""
    try:
        import pandas
    except ImportError:
        raise ImportError("to_dataframe needs pandas, which is not installed (pip install pandas); "
                          "polysched.bench.report.rows(results) gives the same rows as dicts") from None
    records = _records(results)
    config = results.get("config", {})
    table = []
    for row in rows(results):
        record = records[(row["kernel"], row["variant"])]
        build = record.get("build") or {}
        sizes = [region.get("tile_sizes") for region in build.get("regions", [])] if build else None
        loadavg = record.get("loadavg")
        table.append({
            "kernel": row["kernel"], "variant": row["variant"], "status": row["status"],
            "median_seconds": row["median_seconds"], "min_seconds": record.get("min_seconds"),
            "runs": row["runs"], "speedup": row["speedup"], "gflops": row["gflops"],
            "dataset": record.get("dataset", config.get("dataset")),
            "threads": record.get("threads", config.get("threads")),
            "flags": " ".join(record["flags"]) if record.get("flags") is not None else None,
            "openmp": record.get("openmp"), "compile_command": record.get("compile_command"),
            "source_sha256": record.get("source_sha256"), "tile_sizes": sizes,
            "verify": record.get("verify"), "loadavg": loadavg[0] if loadavg else None,
            "date": record.get("date"), "reason": row["reason"],
            "times": list(record.get("times", []))})
    return pandas.DataFrame(table, columns=[*DATAFRAME_COLUMNS, "times"])
