"""Why CP-SAT: every hyperplane ILP the scheduler solves on the suite, re-solved with the
MIP solvers OR-Tools ships (SCIP, CBC, HiGHS through pywraplp) on an exact translation of
the same model (enforcement literals become big-M constraints from the variable bounds),
with the same lexicographic level sequence. Reports total solve time per solver and
whether every level's optimum agrees.

    .venv/bin/python experiments/schedule_solver.py [--kernels a,b] [--solvers SCIP,CBC,HIGHS]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ortools.linear_solver import pywraplp  # noqa: E402
from ortools.sat.python import cp_model  # noqa: E402

import polysched.schedule as schedule_package  # noqa: E402
import polysched.schedule.ilp as ilp  # noqa: E402
from polysched.dependence import analyze  # noqa: E402
from polysched.schedule import ScheduleError, ScheduleOptions, compute  # noqa: E402
from polysched.scop import extract  # noqa: E402

KERNELS = ROOT / "polysched" / "bench" / "kernels"


def mip_lexicographic(proto, objectives, solver_name: str):
    """Solve the CP-SAT ``proto`` (linear + bool_or constraints, optional enforcement
    literals) as a MIP, level by level. Returns the optimum of each level (None: failed)."""
    solver = pywraplp.Solver.CreateSolver(solver_name)
    xs = []
    # (list() first: the proto wrappers of OR-Tools 9.15 do not support negative indices)
    bounds = [(list(v.domain)[0], list(v.domain)[-1]) for v in proto.variables]
    for k, (lo, hi) in enumerate(bounds):
        xs.append(solver.IntVar(lo, hi, f"x{k}"))

    def lit(ref):  # a literal as a 0/1 linear expression
        return xs[ref] if ref >= 0 else 1 - xs[-ref - 1]

    for ct in proto.constraints:
        if ct.has_bool_or():
            solver.Add(sum(lit(r) for r in ct.bool_or.literals) >= 1)
            continue
        if not ct.has_linear():
            raise NotImplementedError(str(ct))
        terms = list(zip(list(ct.linear.vars), list(ct.linear.coeffs)))
        expr = sum(c * (xs[v] if v >= 0 else 1 - xs[-v - 1]) for v, c in terms)
        lo_expr = sum(c * (bounds[v][0] if c > 0 else bounds[v][1]) for v, c in terms if v >= 0)
        hi_expr = sum(c * (bounds[v][1] if c > 0 else bounds[v][0]) for v, c in terms if v >= 0)
        domain = list(ct.linear.domain)
        lo, hi = domain[0], domain[-1]
        enforce = list(ct.enforcement_literal)
        slack = sum(1 - lit(r) for r in enforce) if enforce else 0
        if lo > -(2**62):
            solver.Add(expr >= lo - (lo - lo_expr) * slack if enforce else expr >= lo)
        if hi < 2**62:
            solver.Add(expr <= hi + (hi_expr - hi) * slack if enforce else expr <= hi)
    optima = []
    for obj_vars, obj_coeffs in objectives:
        expr = sum(c * xs[v] for v, c in zip(obj_vars, obj_coeffs))
        solver.Minimize(expr)
        status = solver.Solve()
        if status != pywraplp.Solver.OPTIMAL:
            print("status", status, file=sys.stderr)
            optima.append(None)
            return optima
        best = round(solver.Objective().Value())
        optima.append(best)
        solver.Add(expr == best)
    return optima


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels")
    ap.add_argument("--solvers", default="SCIP,CBC,HIGHS")
    args = ap.parse_args(argv)
    from polysched.bench.machine import provenance, provenance_line
    print(provenance_line(provenance(**vars(args))), flush=True)
    solvers = args.solvers.split(",")
    totals = {"CP-SAT": 0.0, **{s: 0.0 for s in solvers}}
    mismatches = {s: 0 for s in solvers}
    problems = 0
    original = ilp.HyperplaneProblem._lexicographic

    def instrumented(self, levels):
        nonlocal problems
        # Snapshot the objectives as proto terms, on a clone (the real run goes on).
        objectives = []
        probe = self.model.clone()
        for level in levels:
            if isinstance(level, int):
                continue
            probe.minimize(level)
            objectives.append((list(probe.proto.objective.vars), list(probe.proto.objective.coeffs)))
        proto = self.model.clone().proto
        start = time.perf_counter()
        result = original(self, levels)
        totals["CP-SAT"] += time.perf_counter() - start
        if not objectives or result is None:
            return result
        problems += 1
        # CP-SAT's optimum per level (re-solved on the probe, untimed) is the reference.
        reference = []
        cp = cp_model.CpSolver()
        cp.parameters.num_workers = 1
        for level in (lv for lv in levels if not isinstance(lv, int)):
            probe.minimize(level)
            cp.solve(probe)
            best = round(cp.objective_value)
            reference.append(best)
            probe.add(level == best)
        for name in solvers:
            start = time.perf_counter()
            optima = mip_lexicographic(proto, objectives, name)
            totals[name] += time.perf_counter() - start
            if optima != reference or None in optima:
                mismatches[name] += 1
        return result

    ilp.HyperplaneProblem._lexicographic = instrumented
    # Pluto runs in a forked child (a budget that can stop isl), whose counts this
    # process would never see: run it here
    schedule_package.run_isolated = lambda fn, seconds: fn()
    names = sorted(p.stem for p in KERNELS.glob("*.c"))
    if args.kernels:
        names = [n for n in names if n in args.kernels.split(",")]
    for name in names:
        scop = extract(KERNELS / f"{name}.c")[0]
        deps = analyze(scop)
        try:
            compute(scop, deps, ScheduleOptions())
        except ScheduleError:
            pass
        print(f"{name:16s} " + "  ".join(f"{k} {v:7.2f}s" for k, v in totals.items()), flush=True)
    print(f"\n{problems} hyperplane problems (lexicographic sequences) with an objective")
    for k, v in totals.items():
        print(f"  {k:7s} total {v:8.2f} s" + (f"  sequences disagreeing with CP-SAT: {mismatches[k]}"
                                               if k in mismatches else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
