"""Test helpers: build Scop objects by hand from isl strings, and a brute-force
dependence enumerator that reads the model (domains, accesses, original schedule) at
fixed parameter values and derives the dependences by executing the instances in
schedule order in Python (no isl dataflow involved)."""
from __future__ import annotations

from collections import defaultdict

import islpy as isl

from polysched.scop.model import Access, Scop, Statement


def make_scop(params: list[str], context: str, statements: list[tuple], schedule: str,
              filename: str = "<hand>") -> Scop:
    """``statements``: ``(name, iterators, domain, [(kind, access relation), ...])``;
    ``schedule``: an isl schedule tree in YAML notation or a schedule map."""
    ctx = isl.Set(context)
    stmts = []
    for name, iterators, domain, accesses in statements:
        dom = isl.Set(domain)
        accs = []
        for kind, rel in accesses:
            rel_map = isl.Map(rel).intersect_domain(dom)
            accs.append(Access(rel_map.get_tuple_name(isl.dim_type.out), kind, rel_map))
        stmts.append(Statement(name, list(iterators), dom, accs, body=""))
    try:
        sched = isl.Schedule.read_from_str(ctx.get_ctx(), schedule)
    except isl.Error:
        dom = None
        for s in stmts:
            u = isl.UnionSet.from_set(s.domain)
            dom = u if dom is None else dom.union(u)
        sched = isl.Schedule.from_domain(dom).insert_partial_schedule(
            isl.MultiUnionPwAff.from_union_map(isl.UnionMap(schedule).intersect_domain(dom)))
    return Scop(filename=filename, source="", region_start=0, region_end=0, start_line=0,
                end_line=0, function="f", parameters=list(params), parameter_values={},
                context=ctx, arrays={}, statements=stmts, schedule=sched)


# ---------------------------------------------------------------- brute force

Instance = tuple  # (statement name, (i0, i1, ...))


def _points(s: isl.Set) -> list[tuple[int, ...]]:
    pts = []
    n = s.dim(isl.dim_type.set)
    s.foreach_point(lambda p: pts.append(tuple(
        p.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(n))))
    return pts


def fix_params(obj, values: dict[str, int]):
    """Fix the named parameters of an isl set/map/union to ``values`` (by name:
    identifiers' user pointers are dropped first)."""
    obj = obj.reset_user()
    for name, value in values.items():
        pos = obj.find_dim_by_name(isl.dim_type.param, name)
        if pos >= 0:
            if isinstance(obj, (isl.UnionMap, isl.UnionSet)):
                obj = obj.intersect_params(isl.Set(f"[{name}] -> {{ : {name} = {value} }}"))
            else:
                obj = obj.fix_val(isl.dim_type.param, pos, isl.Val(int(value)))
    return obj


def in_context(scop: Scop, values: dict[str, int]) -> bool:
    """Whether the parameter values ``values`` satisfy ``scop.context``: outside it the
    optimized code never runs (e.g. a negative inner subscript, ``A[0][k - 1]`` at
    ``k = 0``, undefined in C: the run-time check runs the original), so an oracle
    compares there only."""
    context = getattr(scop, "context", None)
    if context is None:
        return True
    space = context.get_space()
    names = [space.get_dim_name(isl.dim_type.param, k) for k in range(space.dim(isl.dim_type.param))]
    point = context
    for k, name in enumerate(names):
        if name in values:
            point = point.fix_val(isl.dim_type.param, k, values[name])
    return not point.is_empty()


def relation_pairs(umap: isl.UnionMap, values: dict[str, int]) -> set[tuple[Instance, Instance]]:
    """Every ``(source instance, sink instance)`` of ``umap`` at parameter ``values``."""
    result = set()
    fixed = fix_params(umap, values)
    maps: list[isl.Map] = []
    fixed.foreach_map(maps.append)
    for m in maps:
        src = m.get_tuple_name(isl.dim_type.in_)
        dst = m.get_tuple_name(isl.dim_type.out)
        n_in = m.dim(isl.dim_type.in_)
        for pt in _points(m.wrap()):
            result.add(((src, pt[:n_in]), (dst, pt[n_in:])))
    return result


def model_trace(scop: Scop, values: dict[str, int]) -> list[tuple[Instance, list, list]]:
    """The instances of ``scop`` at parameter ``values`` in original execution order,
    each with its read addresses and write addresses (``(kind, (array, index))``)."""
    from polysched.dependence.flatten import flatten
    flat = flatten(scop.schedule)
    times = {}
    for name, m in flat.maps.items():
        n_in = m.dim(isl.dim_type.in_)
        for pt in _points(fix_params(m, values).wrap()):
            inst = (name, pt[:n_in])
            assert inst not in times, f"schedule not single-valued at {inst}"
            times[inst] = pt[n_in:]
    accesses = defaultdict(lambda: ([], []))
    for stmt in scop.statements:
        for acc in stmt.accesses:
            m = fix_params(acc.relation.intersect_domain(stmt.domain), values)
            n_in = m.dim(isl.dim_type.in_)
            for pt in _points(m.wrap()):
                inst = (stmt.name, pt[:n_in])
                address = (acc.array, pt[n_in:])
                reads, writes = accesses[inst]
                if acc.kind == "read":
                    reads.append(address)
                else:
                    writes.append((acc.kind, address))
    for stmt in scop.statements:
        for pt in _points(fix_params(stmt.domain, values)):
            assert (stmt.name, pt) in times, f"instance {stmt.name}{pt} not scheduled"
    order = sorted(times, key=lambda inst: times[inst])
    for a, b in zip(order, order[1:]):
        assert times[a] != times[b], f"{a} and {b} share schedule time {times[a]}"
    return [(inst, accesses[inst][0], accesses[inst][1]) for inst in order]


def brute_force(trace) -> dict[str, set]:
    """Dependences of an execution trace: ``[(instance, reads, writes)]`` in execution
    order, ``reads`` a list of addresses, ``writes`` a list of ``(kind, address)`` with
    kind ``"write"`` (must) or ``"may_write"``. Within an instance, reads happen before
    writes. Returns instance-pair sets for flow (last must writer plus may-writers
    after it), raw, war, waw, rar."""
    deps = {k: set() for k in ("flow", "raw", "war", "waw", "rar")}
    readers = defaultdict(list)      # address -> instances that read it so far
    writers = defaultdict(list)      # address -> instances that wrote it so far
    live = defaultdict(list)         # address -> [last must writer, may-writers after it]
    for inst, reads, writes in trace:
        for address in dict.fromkeys(reads):
            for w in writers[address]:
                deps["raw"].add((w, inst))
            for w in live[address]:
                deps["flow"].add((w, inst))
            for r in readers[address]:
                if r != inst:
                    deps["rar"].add((r, inst))
        for kind, address in writes:
            for r in readers[address]:
                if r != inst:
                    deps["war"].add((r, inst))
            for w in writers[address]:
                if w != inst:
                    deps["waw"].add((w, inst))
        # Update after all accesses of the instance: same-instance pairs are not deps.
        for address in dict.fromkeys(reads):
            if not readers[address] or readers[address][-1] != inst:
                readers[address].append(inst)
        for kind, address in writes:
            if not writers[address] or writers[address][-1] != inst:
                writers[address].append(inst)
            if kind == "write":
                live[address] = [inst]
            elif inst not in live[address]:
                live[address].append(inst)
    return deps
