"""The final table and the tuning curve (best time against trials) of a campaign."""
from __future__ import annotations

from pathlib import Path


def _fmt(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds >= 1:
        return f"{seconds:.3f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def describe(result, config: dict | None) -> str:
    if config is None:
        return "?"
    try:
        return result.space.describe(config)
    except Exception:  # noqa: BLE001 -- a config of another space version
        return str(config)


def table(result, top: int = 10) -> str:
    """Markdown: the ``top`` fastest verified trials (time, speedup over the default,
    trial 0, what they are), then the counts per status."""
    default = result.default
    reference = default.median if default is not None and default.status == "ok" else None
    ok = sorted(result.ok, key=lambda t: (t.median, t.seq))
    lines = [f"campaign {result.campaign_id} of {result.target.name} in {result.db_path}: "
             f"{len(result.trials)} trials"
             + (f" ({result.resumed} from an earlier run)" if result.resumed else "")
             + (f"; {result.repeats} more proposals were programs measured already, not measured again"
                if result.repeats else ""),
             "",
             "| rank | trial | median | vs default | configuration |",
             "| ---: | ---: | ---: | ---: | --- |"]
    for rank, trial in enumerate(ok[:top], start=1):
        ratio = f"{reference / trial.median:.2f}x" if reference and trial.median else "-"
        mark = " (default)" if trial.seq == 0 else ""
        lines.append(f"| {rank} | {trial.seq} | {_fmt(trial.median)} | {ratio} | "
                     f"{describe(result, trial.config)}{mark} |")
    if default is not None and default.status != "ok":
        lines.append(f"default (trial 0): {default.status}: {default.reason}")
    counts = result.counts()
    lines.append("")
    lines.append("status: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    best = result.best
    if best is not None and reference:
        # (a tester: named 'pluto-tile-par' when trial 0 was the micro-kernel calls)
        lines.append(f"best: trial {best.seq}, {_fmt(best.median)}, {reference / best.median:.2f}x the default "
                     f"{describe(result, default.config)} ({_fmt(reference)})")
    confirmation = result.confirmation
    if confirmation is not None:
        speedup = confirmation.speedup
        again = (f"re-timed in turn with the default ({len(confirmation.best_samples)} and "
                 f"{len(confirmation.default_samples)} runs)" +
                 (f": {speedup:.2f}x the default" if speedup is not None else ""))
        if confirmation.chosen_seq == confirmation.best_seq:
            # (helper-86: "the default failed when re-timed" was only in the database)
            lines.append(f"{again}: kept" + (f" ({confirmation.reason})" if confirmation.reason else ""))
        else:
            lines.append(f"{again}: {confirmation.reason}; the default is what --from-db applies")
    return "\n".join(lines)


def plot_curve(result, path: str | Path | None = None, ax=None):
    """Best median so far against the trial number (log time axis), the default as a
    dashed line; saved to ``path`` when given. Returns the ``ax``."""
    import matplotlib
    if ax is None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    own = ax is None
    if own:
        fig, ax = plt.subplots(figsize=(6, 3.6))
    curve = [(k, best) for k, best in result.curve() if best is not None]
    if curve:
        ax.step([k for k, _ in curve], [b for _, b in curve], where="post", label="best so far")
        measured = [(k, t.median) for k, t in enumerate(sorted(result.trials, key=lambda t: t.seq), start=1)
                    if t.status == "ok" and t.median]
        ax.scatter([k for k, _ in measured], [m for _, m in measured], s=8, alpha=0.4, label="trial")
        default = result.default
        if default is not None and default.status == "ok":
            ax.axhline(default.median, linestyle="--", color="gray", label="default (trial 0)")
        ax.set_yscale("log")
    ax.set_xlabel("trials")
    ax.set_ylabel("kernel time (s)")
    ax.set_title(f"tuning {result.target.name}")
    ax.legend(loc="upper right", fontsize="small")
    if own:
        fig.tight_layout()
        if path is not None:
            fig.savefig(path, dpi=110)
        plt.close(fig)
    return ax


__all__ = ["plot_curve", "table"]
