"""A readable description of any schedule tree (ours, isl's or the identity):

    S1: (t, 2t + i, 0)
    S2: (t, 2t + i + 1, 1)
    band 0 [S1, S2] depth 0: permutable
      member 0: sequential  satisfies: raw S2->S1, war S1->S2
      member 1: sequential  satisfies: raw S1->S2
    sequence [S1 | S2] depth 2  satisfies: war S1->S2

"satisfies" lists the dependences (kind, source -> sink) that have some instance pair
ordered strictly by that dimension and not by an outer one.
"""
from __future__ import annotations

import re

import islpy as isl

from polysched.dependence.loops import carried, node_band_flags, same_value
from polysched.islutil import maps_of, sets_of
from polysched.textio import natural_key

DEPENDENCE_KINDS = ("raw", "war", "waw")


def _dependence_relations(deps) -> dict[str, isl.UnionMap]:
    if deps is None:
        return {}
    kinds = {k: getattr(deps, k) for k in DEPENDENCE_KINDS if getattr(deps, k, None) is not None}
    if not kinds and getattr(deps, "validity", None) is not None:
        kinds = {"dep": deps.validity}
    return kinds


def _pairs(rel: isl.UnionMap) -> list[str]:
    out = []
    for m in maps_of(rel):
        if not m.is_empty():
            out.append(f"{m.get_tuple_name(isl.dim_type.in_)}->{m.get_tuple_name(isl.dim_type.out)}")
    return sorted(set(out))


def _expression(m: isl.Map, iterators: list[str] | None) -> str:
    if iterators:
        for k, name in enumerate(iterators[: m.dim(isl.dim_type.in_)]):
            m = m.set_dim_name(isl.dim_type.in_, k, name)
    text = str(m.coalesce())
    match = re.fullmatch(r"(\[[^]]*\] -> )?\{ [^[]*\[[^]]*\] -> \[\(?([^;:]*?)\)?\] \}", text)
    return match.group(2) if match else text


class _Describer:
    def __init__(self, deps, iterators):
        self.kinds = _dependence_relations(deps)
        # every kind at once: what a band's flags are computed from
        self.validity = None
        for rel in self.kinds.values():
            self.validity = rel if self.validity is None else self.validity.union(rel)
        self.iterators = iterators or {}
        self.rows: dict[str, list[str]] = {}
        self.lines: list[str] = []
        self.bands = 0

    def _statements(self, domain: isl.UnionSet) -> list[str]:
        return sorted(s.get_tuple_name() for s in sets_of(domain))

    def visit(self, node: isl.ScheduleNode, deps: dict[str, isl.UnionMap], depth: int) -> None:
        kind = node.get_type()
        T = isl.schedule_node_type
        if kind == T.leaf:
            return
        if kind == T.band:
            self._band(node, deps, depth)
            return
        if kind in (T.sequence, T.set):
            self._sequence(node, deps, depth, kind == T.sequence)
            return
        if kind == T.filter:
            filt = node.filter_get_filter()
            deps = {k: r.intersect_domain(filt).intersect_range(filt) for k, r in deps.items()}
        for i in range(node.n_children()):
            self.visit(node.child(i), deps, depth)

    def _band(self, node, deps, depth):
        domain = node.get_domain()
        stmts = self._statements(domain)
        band_id = self.bands
        self.bands += 1
        # the flags a tree stores are claims (the identity schedule sets none): with the
        # dependences known, both are recomputed from them, as ``check`` does
        if self.validity is not None:
            flags = node_band_flags(self.validity, node)
            parallel, permutable = flags.parallel, flags.permutable
        else:
            parallel = [node.band_member_get_coincident(k) for k in range(node.band_n_member())]
            permutable = node.band_get_permutable()
        self.lines.append(f"band {band_id} [{', '.join(stmts)}] depth {depth}: "
                          f"{'permutable' if permutable else 'not permutable'}")
        partial = node.band_get_partial_schedule()
        for k in range(node.band_n_member()):
            plain = isl.UnionMap.from_union_pw_aff(partial.get_at(k))
            umap = plain.intersect_domain(domain)
            for m in maps_of(plain):
                s = m.get_tuple_name(isl.dim_type.in_)
                if s not in stmts:
                    continue
                self.rows.setdefault(s, []).append(_expression(m, self.iterators.get(s)))
            # ``deps`` holds only what the outer rows leave live (narrowed member by member)
            same = same_value(umap)
            satisfied = []
            for name, rel in deps.items():
                satisfied += [f"{name} {p}" for p in _pairs(carried(rel, None, umap))]
                deps = {**deps, name: rel.intersect(same)}
            par = "parallel" if parallel[k] else "sequential"
            self.lines.append(f"  member {k}: {par:10s}  satisfies: {', '.join(satisfied) or '-'}")
        for i in range(node.n_children()):
            self.visit(node.child(i), deps, depth + node.band_n_member())

    def _sequence(self, node, deps, depth, ordered):
        filters = [node.child(i).filter_get_filter() for i in range(node.n_children())]
        groups = [self._statements(f.intersect(node.get_domain())) for f in filters]
        satisfied = []
        if ordered:
            for name, rel in deps.items():
                for i, fi in enumerate(filters):
                    for fj in filters[i + 1:]:
                        satisfied += [f"{name} {p}" for p in
                                      _pairs(rel.intersect_domain(fi).intersect_range(fj))]
        label = "sequence" if ordered else "set"
        self.lines.append(f"{label} [{' | '.join(', '.join(g) for g in groups)}] depth {depth}"
                          + (f"  satisfies: {', '.join(sorted(set(satisfied))) or '-'}" if ordered else ""))
        for i, group in enumerate(groups):
            for s in group:
                self.rows.setdefault(s, []).append(str(i))
            self.visit(node.child(i), deps, depth + 1)


def describe_schedule(schedule: isl.Schedule, deps=None,
                      iterators: dict[str, list[str]] | None = None) -> str:
    """Per-statement hyperplanes, then bands (permutable, parallel members, satisfied
    dependences) and sequence nodes. With ``deps``, a band's flags are computed from them
    (``node_band_flags``), not read from the tree. ``iterators``: statement -> iterator names for display."""
    d = _Describer(deps, iterators)
    d.visit(schedule.get_root(), dict(d.kinds), 0)
    width = max((len(s) for s in d.rows), default=0)
    head = [f"{s:{width}s}: ({', '.join(row)})" for s, row in sorted(d.rows.items(), key=lambda item: natural_key(item[0]))]
    return "\n".join(head + d.lines)
