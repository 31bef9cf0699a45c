"""Notebook pictures with matplotlib; every function takes an ``ax`` (or makes one) and
returns it.

    import polysched as ps, polysched.viz as viz
    p = ps.Program.from_file("seidel-2d.c")
    viz.domain(p, "S0", dims=("t", "i"), params={"TSTEPS": 6, "N": 8})   # points, arrows, tiles
    viz.dependence_graph(p)                                          # statements and dependences
    viz.schedule_tree(p.skew("S0", 1, 0, 1).tile("S0", [2, 2]))       # the tree, as boxes

Pictures are drawn at small parameter values (every instance is one dot).
"""
from __future__ import annotations

from collections import defaultdict

import islpy as isl

from polysched.errors import ArgumentError, TransformError
from polysched.islutil import maps_of, val

DEFAULT_PARAMETER = 8
MAX_ARROWS = 600
# instances (and dependence pairs) one drawing enumerates: every one is a Python call,
# about 50 us; helper-49's notebook at N = 3000 ran for minutes, its memory growing
MAX_POINTS = 40000
_PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
            "#ff9da7", "#9c755f", "#bab0ac"]


def _ax(ax, size=(5, 5)):
    if ax is None:
        import matplotlib.pyplot as plt
        _, ax = plt.subplots(figsize=size)
    return ax


def _fix(obj, values: dict[str, int]):
    obj = obj.reset_user()
    for name, value in values.items():
        pos = obj.find_dim_by_name(isl.dim_type.param, name)
        if pos < 0:
            continue
        if isinstance(obj, (isl.UnionMap, isl.UnionSet)):
            obj = obj.intersect_params(isl.Set(f"[{name}] -> {{ : {name} = {value} }}"))
        else:
            obj = obj.fix_val(isl.dim_type.param, pos, val(int(value)))
    return obj


def _points(s, what: str = "") -> list[tuple[int, ...]]:
    """The integer points of the (parameter-free) set ``s``; ``what``: refuse more
    than MAX_POINTS of them, naming the drawing."""
    if what:
        count = s.count_val().to_python()
        if count > MAX_POINTS:
            raise TransformError(f"{what}: {count} points to draw at these parameter values, more than "
                                 f"{MAX_POINTS}: pass smaller params")
    out: list[tuple[int, ...]] = []
    n = s.dim(isl.dim_type.set)
    s.foreach_point(lambda p: out.append(tuple(p.get_coordinate_val(isl.dim_type.set, k).to_python()
                                               for k in range(n))))
    return out


def parameter_values(scop, params: dict[str, int] | None = None) -> dict[str, int]:
    """``params`` completed with a small value (8) for every other parameter; a name
    that is no parameter of the region is an error (helper-58: a typo, ``"N"`` for
    ``"n"``, drew at the default and titled the plot with the typo)."""
    unknown = sorted(set(params or {}) - set(scop.parameters))
    if unknown:
        known = ", ".join(scop.parameters) or "none"
        raise ArgumentError(f"params: {', '.join(repr(p) for p in unknown)} "
                            f"{'is no parameter' if len(unknown) == 1 else 'are no parameters'} of the region "
                            f"(its parameters: {known})")
    values = {p: DEFAULT_PARAMETER for p in scop.parameters}
    values.update(params or {})
    return values


def _program(obj):
    from polysched.program import Program
    if isinstance(obj, Program):
        return obj
    raise TypeError(f"expected a polysched.Program, got {type(obj).__name__}")


def domain(program, stmt: str, ax=None, *, dims=None, params: dict[str, int] | None = None,
           fixed: dict[str, int] | None = None, kinds=("flow",), tiles: bool = True,
           order: bool = False):
    """The iteration domain of ``stmt`` in 2-D, one dot per instance, with the
    dependences of ``kinds`` between drawn instances as arrows and, if the current
    schedule tiles the statement (members with ``floor``), each tile outlined.

    ``dims``: the two iterators drawn (names or positions; default the last two);
    ``fixed``: values of the other iterators (default: their smallest); ``params``:
    parameter values (default 8 each); ``order``: number the dots in execution order."""
    import matplotlib.patches as patches

    p = _program(program)
    scop = p.scop
    if stmt not in p.statements:
        raise TransformError(f"domain({stmt!r}): no statement {stmt!r} (statements: {', '.join(p.statements)})")
    statement = scop.statement(stmt)
    iterators = statement.iterators
    values = parameter_values(scop, params)
    if len(iterators) == 0:
        raise TransformError(f"domain({stmt!r}): {stmt} has no loop: nothing to draw")
    if dims is None:
        dims = list(range(len(iterators)))[-2:]
    bad = [d for d in dims if not (d in iterators if isinstance(d, str)
                                   else isinstance(d, int) and 0 <= d < len(iterators))]
    if bad:
        raise TransformError(f"domain({stmt!r}): dims {list(dims)}: {bad[0]!r} is none of {stmt}'s loops "
                             f"({', '.join(iterators)}, or their positions 0..{len(iterators) - 1})")
    dims = [iterators.index(d) if isinstance(d, str) else int(d) for d in dims]
    if len(dims) == 1:
        dims = dims + dims
    dom = _fix(statement.domain, values)
    fixed = dict(fixed or {})
    for k, name in enumerate(iterators):
        if k in dims:
            continue
        if name not in fixed:
            proj = dom.project_out(isl.dim_type.set, k + 1, len(iterators) - k - 1) \
                .project_out(isl.dim_type.set, 0, k)
            low = proj.lexmin()
            pts = _points(low)
            fixed[name] = pts[0][0] if pts else 0
        dom = dom.fix_val(isl.dim_type.set, k, val(fixed[name]))
    where = f"domain({stmt!r}) with {', '.join(f'{k}={v}' for k, v in values.items())}"
    points = _points(dom, where)
    ax = _ax(ax)
    xs = [pt[dims[0]] for pt in points]
    ys = [pt[dims[1]] for pt in points]

    # tiles: the values of the tile members (floor) of the current schedule
    tile_of: dict[tuple, tuple] = {}
    if tiles and points:
        tile_of = _tile_coordinates(p, stmt, dom)
    if tile_of:
        groups = defaultdict(list)
        for pt in points:
            groups[tile_of.get(pt, ())].append((pt[dims[0]], pt[dims[1]]))
        for k, (_, members) in enumerate(sorted(groups.items())):
            hull = _hull(members)
            color = _PALETTE[k % len(_PALETTE)]
            ax.add_patch(patches.Polygon(_grow(hull, 0.35), closed=True, facecolor=color, alpha=0.18,
                                         edgecolor=color, linewidth=1.2))
    ax.scatter(xs, ys, s=14, color="#222", zorder=3)

    # dependences between drawn instances
    drawn = set(points)
    arrows = 0
    undrawn: list[str] = []
    for kind in kinds:
        for rec in p.deps.pairs(kind):
            if rec.source != stmt or rec.sink != stmt:
                continue
            rel = _fix(rec.relation, values)
            for k, name in enumerate(iterators):
                if name in fixed:
                    rel = rel.fix_val(isl.dim_type.in_, k, val(fixed[name]))
                    rel = rel.fix_val(isl.dim_type.out, k, val(fixed[name]))
            n = len(iterators)
            wrapped = rel.wrap()
            pairs = wrapped.count_val().to_python()
            if pairs > MAX_POINTS:      # (MAX_ARROWS of them would be drawn at most)
                undrawn.append(f"{pairs} {kind} pairs {rec.source} -> {rec.sink} not drawn")
                continue
            for pt in _points(wrapped):
                src, dst = pt[:n], pt[n:]
                if src not in drawn or dst not in drawn or arrows >= MAX_ARROWS:
                    continue
                arrows += 1
                ax.annotate("", xy=(dst[dims[0]], dst[dims[1]]), xytext=(src[dims[0]], src[dims[1]]),
                            arrowprops=dict(arrowstyle="->", color="#c0392b", alpha=0.55, lw=0.8,
                                            shrinkA=3, shrinkB=3), zorder=2)
    if order and points:
        rank = _execution_rank(p, stmt, dom)
        for pt in points:
            if pt in rank:
                ax.annotate(str(rank[pt]), (pt[dims[0]], pt[dims[1]]), textcoords="offset points",
                            xytext=(3, 3), fontsize=7, color="#555")
    ax.set_xlabel(iterators[dims[0]])
    ax.set_ylabel(iterators[dims[1]])
    where = ", ".join(f"{k}={v}" for k, v in {**values, **fixed}.items())
    ax.set_title(f"{stmt}: {', '.join(kinds)} dependences" + (", tiles" if tile_of else "") +
                 (f"\n({where})" if where else "") + "".join(f"\n({note})" for note in undrawn), fontsize=9)
    ax.set_aspect("equal", adjustable="datalim")
    ax.margins(0.08)
    return ax


def _tile_coordinates(p, stmt: str, dom: isl.Set) -> dict[tuple, tuple]:
    """``{instance: (tile member values...)}`` for the schedule members of ``stmt``
    that are tile loops (contain ``floor``)."""
    from polysched.transform.loops import node_at, statement_loops
    rows = None
    stmt_set = isl.UnionSet.from_set(dom)
    for lp in statement_loops(p.scop, p.schedule, stmt):
        upa = node_at(p.schedule, lp.path).band_get_partial_schedule().get_at(lp.member)
        upa = upa.intersect_domain(stmt_set)
        if "floor" not in str(upa):
            continue
        part = isl.UnionMap.from_union_pw_aff(upa)
        rows = part if rows is None else rows.flat_range_product(part)
    if rows is None:
        return {}
    out = {}
    n = dom.dim(isl.dim_type.set)
    for m in maps_of(rows.reset_user()):
        for pt in _points(m.wrap()):
            out[pt[:n]] = pt[n:]
    return out


def _execution_rank(p, stmt: str, dom: isl.Set) -> dict[tuple, int]:
    from polysched.dependence.flatten import flatten
    maps = flatten(p.schedule.reset_user()).maps
    m = maps[stmt].intersect_domain(dom.reset_user())
    n = dom.dim(isl.dim_type.set)
    times = {pt[:n]: pt[n:] for pt in _points(m.wrap())}
    return {inst: k for k, inst in enumerate(sorted(times, key=times.get))}


def _hull(points: list[tuple[int, int]]) -> list[tuple[float, float]]:
    """Convex hull (monotone chain); degenerate sets give a segment or a point."""
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for pt in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], pt) <= 0:
            lower.pop()
        lower.append(pt)
    for pt in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], pt) <= 0:
            upper.pop()
        upper.append(pt)
    return lower[:-1] + upper[:-1]


def _grow(hull, margin: float):
    """The hull pushed outwards by ``margin`` (a box around a point or a segment)."""
    if len(hull) <= 2:
        xs = [x for x, _ in hull]
        ys = [y for _, y in hull]
        x0, x1, y0, y1 = min(xs) - margin, max(xs) + margin, min(ys) - margin, max(ys) + margin
        return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    cx = sum(x for x, _ in hull) / len(hull)
    cy = sum(y for _, y in hull) / len(hull)
    out = []
    for x, y in hull:
        dx, dy = x - cx, y - cy
        norm = (dx * dx + dy * dy) ** 0.5 or 1.0
        out.append((x + margin * dx / norm * 1.4, y + margin * dy / norm * 1.4))
    return out


def dependence_graph(program_or_deps, ax=None, *, kinds=("raw", "war", "waw")):
    """Statements as nodes, an arrow S -> T labelled with the kinds of dependence from
    S to T (self-dependences as loops). ``kinds``: a kind or a sequence of them."""
    import networkx as nx
    deps = getattr(program_or_deps, "deps", program_or_deps)
    if isinstance(kinds, str):          # (helper-90: "raw" read as 'r', 'a', 'w')
        kinds = (kinds,)
    try:
        graph = deps.graph(tuple(kinds))
    except ValueError as err:           # an unknown kind
        raise TransformError(f"dependence_graph: {err}") from None
    ax = _ax(ax, (5, 4))
    nodes = list(graph.nodes)
    if len(nodes) == 1:
        pos = {nodes[0]: (0.0, 0.0)}
    else:
        pos = nx.circular_layout(graph)
    nx.draw_networkx_nodes(graph, pos, ax=ax, node_color="#dbe8f5", edgecolors="#1f4e79", node_size=900)
    nx.draw_networkx_labels(graph, pos, ax=ax, font_size=10)
    others = [(a, b) for a, b in graph.edges if a != b]
    loops = [(a, b) for a, b in graph.edges if a == b]
    nx.draw_networkx_edges(graph, pos, edgelist=others, ax=ax, arrows=True, arrowsize=15, node_size=900,
                           connectionstyle="arc3,rad=0.15", edge_color="#666")
    for a, _ in loops:
        x, y = pos[a]
        ax.add_patch(__import__("matplotlib.patches", fromlist=["Circle"]).Circle(
            (x, y + 0.17), 0.09, fill=False, edgecolor="#666", linewidth=1.0))
        ax.text(x, y + 0.3, ",".join(graph.edges[a, a]["kinds"]), ha="center", fontsize=8, color="#c0392b")
    labels = {(a, b): ",".join(graph.edges[a, b]["kinds"]) for a, b in others}
    if labels:
        nx.draw_networkx_edge_labels(graph, pos, edge_labels=labels, ax=ax, font_size=8,
                                     font_color="#c0392b", connectionstyle="arc3,rad=0.15")
    ax.set_title(f"dependences ({', '.join(kinds)})", fontsize=9)
    ax.set_axis_off()
    ax.margins(0.25)
    return ax


_KIND_COLORS = {"band": "#dbe8f5", "mark": "#ffe3c4", "filter": "#eeeeee", "sequence": "#f5f5f5",
                "set": "#f5f5f5", "domain": "#ffffff"}


def schedule_tree(program_or_schedule, ax=None, *, scop=None):
    """The schedule tree as boxes, one per node, children indented below their parent;
    bands list each statement's loops as ``depth expression``."""
    from polysched.display import tree_entries
    schedule = getattr(program_or_schedule, "schedule", program_or_schedule)
    if not isinstance(schedule, isl.Schedule):
        # (a tester: a string escaped as "'str' object has no attribute 'get_root'")
        raise TypeError(f"schedule_tree: expected a polysched.Program or an isl.Schedule, "
                        f"got {type(program_or_schedule).__name__}")
    scop = scop if scop is not None else getattr(program_or_schedule, "scop", None)
    entries = tree_entries(schedule, scop)
    lines_per = []
    for e in entries:
        text = e["kind"] + (f"  {e['text']}" if e["text"] else "")
        rows = [f"{stmt}: " + "  ".join(f"[{d}] {x}" for d, x in exprs) for stmt, exprs in e["rows"]]
        lines_per.append([text] + rows)
    height = sum(len(ls) for ls in lines_per) + len(entries)
    ax = _ax(ax, (7, max(2.5, 0.32 * height)))
    y = 0.0
    anchors: list[tuple[float, float]] = []
    stack: list[int] = []                     # index of the last entry at each level
    for k, (e, lines) in enumerate(zip(entries, lines_per)):
        x = 0.6 * e["level"]
        box = dict(boxstyle="round,pad=0.3", facecolor=_KIND_COLORS.get(e["kind"], "#fff"),
                   edgecolor="#999")
        ax.text(x, -y, "\n".join(lines), fontsize=8, family="monospace", va="top", ha="left", bbox=box)
        anchors.append((x, -y))
        del stack[e["level"]:]
        if stack:
            px, py = anchors[stack[-1]]
            ax.plot([px + 0.15, px + 0.15, x], [py - 0.6, -y - 0.35, -y - 0.35], color="#aaa", lw=0.8,
                    zorder=0)
        stack.append(k)
        y += len(lines) + 1.0
    ax.set_xlim(-0.3, 0.6 * max((e["level"] for e in entries), default=0) + 9)
    ax.set_ylim(-y - 0.5, 1.0)
    ax.set_axis_off()
    return ax


def timings(labels, seconds, ax=None, *, baseline: int | None = 0, title: str = "run time"):
    """A bar chart of run times (``seconds[k]`` for ``labels[k]``), annotated with the
    speedup over ``labels[baseline]``."""
    labels, seconds = list(labels), list(seconds)
    if len(labels) != len(seconds):
        raise ArgumentError(f"timings: {len(labels)} labels for {len(seconds)} times")
    if baseline is not None and not (isinstance(baseline, int) and -len(seconds) <= baseline < len(seconds)):
        # (helper-54: an IndexError from the list)
        raise ArgumentError(f"timings: baseline {baseline!r} is not the index of one of the {len(seconds)} "
                            "times (None: no speedups)")
    ax = _ax(ax, (5, 3))
    bars = ax.bar(labels, seconds, color=_PALETTE[: len(labels)])
    if baseline is not None and seconds and seconds[baseline] > 0:
        for bar, s in zip(bars, seconds):
            ax.annotate(f"{seconds[baseline] / s:.2f}x" if s > 0 else "", (bar.get_x() + bar.get_width() / 2, s),
                        ha="center", va="bottom", fontsize=8)
    ax.set_ylabel("seconds")
    ax.set_title(title, fontsize=9)
    return ax


__all__ = ["dependence_graph", "domain", "parameter_values", "schedule_tree", "timings"]
