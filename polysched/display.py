"""Text and HTML views for notebooks: schedule trees, programs, dependences, legality,
verification results. Summaries only: nothing here ever prints a program's output.

A schedule tree is shown with each statement's loops numbered as the primitives
name them, ``(stmt, depth)``:

    sequence
      filter S0
        band  permutable  coincident [y, y]
          S0: 0 i | 1 j
      filter S1
        mark parallel
          band  permutable  coincident [y, y, n]
            S1: 0 floor(i/32) | 1 floor(j/64) | 2 floor(k/128)
"""
from __future__ import annotations

import html
import sys

import islpy as isl

from polysched.islutil import sets_of
from polysched.textio import natural_key

_t = isl.schedule_node_type


def escape(text: str) -> str:
    return html.escape(str(text), quote=False)


def _statements(uset: isl.UnionSet) -> list[str]:
    return sorted({s.get_tuple_name() for s in sets_of(uset)}, key=natural_key)


def _iterators(scop, stmt: str) -> list[str] | None:
    if scop is None:
        return None
    try:
        return scop.statement(stmt).iterators
    except KeyError:
        return None


def _stmt_domain(scop, stmt: str, fallback: isl.UnionSet) -> isl.UnionSet:
    for s in sets_of(fallback):
        if s.get_tuple_name() == stmt:
            return isl.UnionSet.from_set(isl.Set.universe(s.get_space()))
    return fallback


def tree_entries(schedule: isl.Schedule, scop=None) -> list[dict]:
    """The tree as a list of ``{"level", "kind", "text", "rows"}`` entries, depth first;
    ``rows`` (bands only): ``[(stmt, [(depth, expression), ...])]``."""
    from polysched.transform.loops import affine_text

    entries: list[dict] = []

    def visit(node: isl.ScheduleNode, level: int, depth: dict[str, int]) -> None:
        kind = node.get_type()
        entry = {"level": level, "kind": "", "text": "", "rows": []}
        if kind == _t.domain:
            names = _statements(node.domain_get_domain())
            entry.update(kind="domain", text=", ".join(names))
        elif kind == _t.band:
            n = node.band_n_member()
            flags = ["permutable"] if node.band_get_permutable() else []
            coincident = ["y" if node.band_member_get_coincident(k) else "n" for k in range(n)]
            loop_types = []
            for k in range(n):
                lt = node.band_member_get_ast_loop_type(k)
                if lt not in (isl.ast_loop_type.default,):
                    loop_types.append(f"{k}:{str(lt).split('.')[-1]}")
            text = "  ".join(flags + [f"coincident [{', '.join(coincident)}]"] +
                             ([f"loop types {' '.join(loop_types)}"] if loop_types else []))
            mupa = node.band_get_partial_schedule()
            rows = []
            domain = node.get_domain()
            new_depth = dict(depth)
            for stmt in _statements(domain):
                piece = _stmt_domain(scop, stmt, domain)
                start = depth.get(stmt, 0)
                exprs = [(start + k, affine_text(mupa.get_at(k).intersect_domain(piece), _iterators(scop, stmt)))
                         for k in range(n)]
                rows.append((stmt, exprs))
                new_depth[stmt] = start + n
            entry.update(kind="band", text=text, rows=rows)
            depth = new_depth
        elif kind == _t.filter:
            entry.update(kind="filter", text=", ".join(_statements(node.filter_get_filter())))
        elif kind == _t.mark:
            entry.update(kind="mark", text=node.mark_get_id().get_name())
        elif kind == _t.sequence:
            entry.update(kind="sequence")
        elif kind == _t.set:
            entry.update(kind="set")
        elif kind == _t.leaf:
            return
        else:
            entry.update(kind=str(kind).split(".")[-1])
        if kind != _t.domain:
            entries.append(entry)
            level += 1
        for k in range(node.n_children()):
            visit(node.child(k), level, depth)

    visit(schedule.get_root(), 0, {})
    return entries


def tree_text(schedule: isl.Schedule, scop=None) -> str:
    lines = []
    for e in tree_entries(schedule, scop):
        pad = "  " * e["level"]
        lines.append(f"{pad}{e['kind']}" + (f"  {e['text']}" if e["text"] else ""))
        for stmt, exprs in e["rows"]:
            lines.append(f"{pad}  {stmt}: " + " | ".join(f"{d} {x}" for d, x in exprs))
    return "\n".join(lines) or "(empty schedule)"


_COLORS = {"band": "#1f4e79", "mark": "#b35900", "filter": "#555", "sequence": "#555", "set": "#555"}


def tree_html(schedule: isl.Schedule, scop=None) -> str:
    out = ['<div style="font-family:monospace;font-size:90%;line-height:1.35">']
    for e in tree_entries(schedule, scop):
        margin = 1.4 * e["level"]
        color = _COLORS.get(e["kind"], "#333")
        head = f'<b style="color:{color}">{escape(e["kind"])}</b>'
        if e["kind"] == "mark":
            head += f' <span style="background:#fff0e0">{escape(e["text"])}</span>'
        elif e["text"]:
            head += f' <span style="color:#666">{escape(e["text"])}</span>'
        out.append(f'<div style="margin-left:{margin}em">{head}</div>')
        for stmt, exprs in e["rows"]:
            cells = " &nbsp;".join(f'<sub style="color:#999">{d}</sub>{escape(x)}' for d, x in exprs)
            out.append(f'<div style="margin-left:{margin + 1.4}em">{escape(stmt)}: {cells}</div>')
    out.append("</div>")
    return "\n".join(out)


class ScheduleView:
    """A schedule tree for display: ``repr`` is the indented tree, and notebooks get HTML."""

    def __init__(self, schedule: isl.Schedule, scop=None, deps=None):
        self.schedule = schedule
        self.scop = scop
        self.deps = deps

    def __repr__(self) -> str:
        return tree_text(self.schedule, self.scop)

    def _repr_html_(self) -> str:
        return tree_html(self.schedule, self.scop)


# -- programs -------------------------------------------------------------------------

def _where(scop) -> str:
    from pathlib import Path
    return f"{Path(scop.filename).name}:{scop.function or '?'}"


def program_summary(program) -> str:
    scop = program.scop
    steps = " -> ".join(step["op"] for step in program.trace) or "original schedule"
    return (f"<Program {_where(scop)} (region {program.region}, lines {scop.start_line}-{scop.end_line}): "
            f"{', '.join(program.statements)}; {steps}>")


def legality_line(verdict) -> str:
    if verdict.legal:
        return "legal"
    first = verdict.violations[0]
    return f"illegal ({len(verdict.violations)} violation{'s' * (len(verdict.violations) > 1)}): {first}"


def program_html(program) -> str:
    scop = program.scop
    verdict = program.check()
    color = "#2e7d32" if verdict.legal else "#c62828"
    calls = program.trace.calls()
    parts = [
        '<div style="font-family:sans-serif">',
        f'<b>Program</b> {escape(_where(scop))} &mdash; region {program.region}, lines '
        f'{scop.start_line}-{scop.end_line}, statements {escape(", ".join(program.statements))}',
        f'<div>schedule: <span style="color:{color}">{escape(legality_line(verdict))}</span></div>',
    ]
    if calls:
        parts.append('<div>trace: <code>' + escape(" . ".join(calls)) + '</code></div>')
    parts.append(tree_html(program.schedule, scop))
    parts.append("</div>")
    return "\n".join(parts)


def show_c(text: str) -> None:
    """Print C code: highlighted HTML in a notebook, ANSI colours on a terminal, else plain."""
    try:
        import pygments
        from pygments.lexers import CLexer
    except ImportError:
        pygments = None
    shell = None
    try:
        from IPython import get_ipython
        shell = get_ipython()
    except ImportError:
        pass
    if pygments is not None and shell is not None and getattr(shell, "kernel", None) is not None:
        from IPython.display import HTML, display
        from pygments.formatters import HtmlFormatter
        formatter = HtmlFormatter(noclasses=True, nobackground=True)
        display(HTML(pygments.highlight(text, CLexer(), formatter)))
        return
    if pygments is not None and sys.stdout.isatty():
        from pygments.formatters import TerminalFormatter
        sys.stdout.write(pygments.highlight(text, CLexer(), TerminalFormatter()))
        return
    print(text, end="" if text.endswith("\n") else "\n")


# -- scops, dependences, legality, verification ----------------------------------------

def scop_summary(scop) -> str:
    return (f"<Scop {_where(scop)} lines {scop.start_line}-{scop.end_line}: "
            f"{len(scop.statements)} statements ({', '.join(s.name for s in scop.statements)}), "
            f"parameters [{', '.join(scop.parameters)}], {len(scop.arrays)} arrays>")


def scop_html(scop) -> str:
    rows = "".join(
        f"<tr><td>{escape(s.name)}</td><td><code>{escape(s.body.strip())}</code></td>"
        f"<td><code>{escape(s.domain)}</code></td></tr>" for s in scop.statements)
    return (f"<div><b>Scop</b> {escape(_where(scop))}, lines {scop.start_line}-{scop.end_line}; "
            f"parameters <code>{escape(', '.join(scop.parameters))}</code>"
            + (f" (known {escape(scop.parameter_values)})" if scop.parameter_values else "")
            + f"<table><tr><th>statement</th><th>body</th><th>domain</th></tr>{rows}</table></div>")


def deps_summary(deps) -> str:
    from polysched.dependence import KINDS
    counts = ", ".join(f"{kind} {len(deps.pairs(kind))}" for kind in KINDS)
    return f"<Dependences of {_where(deps.scop)}: statement pairs per kind: {counts}>"


def _vector_text(rec) -> str:
    if rec.distance is not None:
        return "(" + ", ".join(map(str, rec.distance)) + ")"
    if rec.vectors:
        return " ".join("(" + ", ".join(map(str, v)) + ")" for v in rec.vectors[:4])
    return "(" + ", ".join(rec.direction) + ")"


def deps_html(deps) -> str:
    from polysched.dependence import KINDS
    rows = []
    for kind in KINDS:
        for rec in deps.pairs(kind):
            relation = str(deps.display(rec.relation))
            if len(relation) > 160:
                relation = relation[:157] + "..."
            rows.append(f"<tr><td>{kind}</td><td>{escape(rec.source)} &rarr; {escape(rec.sink)}</td>"
                        f"<td>{escape(rec.levels)}</td><td>{escape(_vector_text(rec))}</td>"
                        f"<td><code>{escape(relation)}</code></td></tr>")
    return (f"<div><b>Dependences</b> of {escape(_where(deps.scop))}<table>"
            "<tr><th>kind</th><th>pair</th><th>carried at</th><th>distance / direction</th>"
            "<th>relation</th></tr>" + "".join(rows) + "</table></div>")


def legality_summary(verdict) -> str:
    return f"<Legality: {legality_line(verdict)}; {len(verdict.bands)} bands>"


def legality_html(verdict) -> str:
    color = "#2e7d32" if verdict.legal else "#c62828"
    items = "".join(f"<li>{escape(v)}</li>" for v in verdict.violations)
    bands = "".join(
        f"<tr><td>{escape(list(b.path))}</td><td>{b.n_member}</td><td>{'yes' if b.permutable else 'no'}</td>"
        f"<td>{escape(' '.join('y' if p else 'n' for p in b.parallel))}</td></tr>" for b in verdict.bands)
    return (f'<div><b style="color:{color}">{"legal" if verdict.legal else "illegal"}</b>'
            + (f"<ul>{items}</ul>" if items else "")
            + "<table><tr><th>band</th><th>members</th><th>permutable</th><th>parallel</th></tr>"
            + bands + "</table></div>")


def verify_summary(result) -> str:
    counts = [t for t in (result.thread_counts or []) if t is not None]
    threads = f", threads {counts}" if counts else ""
    reason = result.reason if len(result.reason) <= 200 else result.reason[:197] + "..."
    return f"<VerifyResult {result.status}: {reason}{threads}>"


def verify_html(result) -> str:
    color = {"equal": "#2e7d32", "differ": "#c62828"}.get(result.status, "#b35900")
    return (f'<div><b style="color:{color}">{escape(result.status)}</b> {escape(result.reason[:500])}'
            + "</div>")
