"""Tables and plots from a :func:`polysched.bench.run_benchmarks` results dict.

Speedups are ratios taken within one results dict (one campaign, same machine and
moment): ``median(orig) / median(variant)``. GFLOP/s uses the kernel's flop count at
the timed dataset (``results["kernels"][name]["flops"]``). A variant slower than
``orig`` is flagged with ``!``; the geometric mean per variant is over the kernels
where both the variant and ``orig`` succeeded.
"""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from .runner import OK, ORIG

SLOWER_FLAG = "!"


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
    if not reference.get("median_seconds") or not record.get("median_seconds"):
        return None
    return reference["median_seconds"] / record["median_seconds"]


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
                     "slower": sum(1 for u in ups if u is not None and u < 1)})
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
                        "slower": up is not None and up < 1,
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
                cells.append(f"{up:.2f}x" + (f" {SLOWER_FLAG}" if up < 1 else ""))
            else:
                cells.append(record["status"] if record and record["status"] != OK else "-")
        lines.append(f"| {kernel} | " + " | ".join(cells) + " |")
    return lines + [""]


def _markdown(results: dict) -> str:
    variants = {variant["name"]: variant for variant in results.get("variants", [])}
    lines = ["# polysched benchmark", "", *_provenance_lines(results), ""]
    lines += _speedup_matrix(results)
    lines += ["| kernel | variant | status | median (s) | speedup | GFLOP/s |",
              "| --- | --- | --- | ---: | ---: | ---: |"]
    for row in rows(results):
        up = _fmt(row["speedup"], ".2f") + (f" {SLOWER_FLAG}" if row["slower"] else "")
        status = row["status"] if row["status"] == OK else f"{row['status']}: {row['reason']}"
        status = status.replace("|", "\\|").replace("\n", " ")
        if len(status) > 120:
            status = status[:117] + "..."
        lines.append(f"| {row['kernel']} | {row['variant']} | {status} | "
                     f"{_fmt(row['median_seconds'], '.4g')} | {up} | {_fmt(row['gflops'], '.2f')} |")
    lines += ["", "| variant | geomean speedup | kernels OK | not OK | slower than orig | flags |",
              "| --- | ---: | ---: | ---: | ---: | --- |"]
    for row in summary(results):
        variant = variants.get(row["variant"], {})
        flags = " ".join(variant.get("cflags", [])) + (" -fopenmp" if variant.get("openmp") else "")
        lines.append(f"| {row['variant']} | {_fmt(row['geomean_speedup'], '.2f')} | {row['kernels_ok']} "
                     f"| {row['kernels_not_ok']} | {row['slower']} | {flags.strip() or '-'} |")
    lines += ["", f"`{SLOWER_FLAG}`: slower than {ORIG}. Speedup = median({ORIG}) / median(variant)."]
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
    raise ValueError(f"unknown report format {format!r}; expected 'md' or 'csv'")


def plot_formats() -> dict[str, str]:
    """The file extensions matplotlib can write (``{"png": "Portable Network
    Graphics", ...}``); ValueError when matplotlib is not installed."""
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        raise ValueError("plotting needs matplotlib (pip install matplotlib)") from None
    return dict(FigureCanvasBase.get_supported_filetypes())


def check_plot_path(path: Path | str) -> None:
    """ValueError (one sentence) unless :func:`plot` can write ``path``: an extension
    matplotlib knows, in an existing directory, not a directory itself."""
    path = Path(path)
    formats = plot_formats()
    extension = path.suffix.lower().lstrip(".")
    if not extension:
        raise ValueError(f"no file extension to choose the format from (one of: {', '.join(sorted(formats))})")
    if extension not in formats:
        raise ValueError(f"unknown plot format '.{extension}' (one of: {', '.join(sorted(formats))})")
    if path.is_dir():
        raise ValueError("is a directory")
    if not path.parent.is_dir():
        raise ValueError(f"no such directory {path.parent}")


def plot(results: dict, path: Path | str) -> Path:
    """Bar chart of speedups over orig, log scale (one group per kernel plus a
    geometric-mean group, one bar per variant; a variant without a speedup, e.g.
    FAILED, is marked with an x), saved to ``path`` (format from the extension)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter

    kernels = _kernel_names(results)
    variants = [name for name in _variant_names(results) if name != ORIG]
    groups = kernels + ["geomean"]
    geomeans = {row["variant"]: row["geomean_speedup"] for row in summary(results)}
    figure = Figure(figsize=(min(16.0, max(6.0, 0.35 * len(groups) * max(1, len(variants)) + 2)), 4.5))
    FigureCanvasAgg(figure)
    axes = figure.add_subplot(1, 1, 1)
    width = 0.8 / max(1, len(variants))
    for index, variant in enumerate(variants):
        heights = [speedup(results, kernel, variant) for kernel in kernels] + [geomeans.get(variant)]
        positions = [k + (index - (len(variants) - 1) / 2) * width for k in range(len(groups))]
        # Bars start at 1 (no change) so that slowdowns point down on the log axis.
        bars = axes.bar(positions, [(h - 1) if h else 0 for h in heights], width, bottom=1.0,
                        label=variant)
        color = bars.patches[0].get_facecolor() if bars.patches else None
        missing = [p for p, h in zip(positions, heights) if h is None]
        if missing:
            axes.scatter(missing, [1.0] * len(missing), marker="x", color=color, zorder=3)
    axes.axhline(1.0, color="black", linewidth=0.8)
    axes.set_yscale("log", base=2)
    axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}x"))
    axes.set_xticks(range(len(groups)))
    axes.set_xticklabels(groups, rotation=60, ha="right", fontsize=8)
    axes.set_xlim(-0.6, len(groups) - 0.4)
    axes.set_ylabel(f"speedup over {ORIG} (x: no result)")
    config = results.get("config", {})
    axes.set_title(f"dataset {config.get('dataset')}, threads {config.get('threads')}, "
                   f"median of {config.get('repeat')} runs")
    if variants:
        axes.legend(fontsize=8)
    figure.tight_layout()
    path = Path(path)
    check_plot_path(path)
    # atomically: a temp file in the same directory, then a rename (an existing chart
    # is never replaced by a partial one)
    import os
    import tempfile
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            figure.savefig(f, dpi=120, format=path.suffix.lower().lstrip("."))
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
    return path
