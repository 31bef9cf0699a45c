"""Test helpers for the schedule primitives: small C kernels (complete programs, so
they can be verified by execution) and brute-force confirmation of the witness a
``TransformError`` gives.

The oracle trusts neither polysched's dependence analysis nor its flattening of
schedule trees: dependences come from ``oracle_model.brute_force`` (executing the
instances in original order at the witness's parameter values) and times from isl's
own ``Schedule.get_map`` of the rejected tree."""
from __future__ import annotations

import islpy as isl

from oracle_model import brute_force, fix_params, model_trace

import polysched as ps


def program(body: str, decls: str = "", n: int = 10, extra_params: str = "") -> str:
    """A complete C program around one scop ``body`` over ``double`` arrays ``A``,
    ``B``, ``C`` of ``N x N`` (and 1-d ``x``, ``y``) that prints every array."""
    return f"""#include <stdio.h>
#define N {n}
double A[N][N], B[N][N], C[N][N], x[N], y[N];
{decls}
static void kernel(void) {{
  int i, j, k, t;
#pragma scop
{body}
#pragma endscop
}}
int main(void) {{
  int i, j;
  for (i = 0; i < N; i++) {{
    x[i] = 1.0 + i; y[i] = 2.0 - i;
    for (j = 0; j < N; j++) {{
      A[i][j] = (i * 7 + j * 3) % 11 + 0.5;
      B[i][j] = (i * 5 + j) % 13 - 1.5;
      C[i][j] = (i + j * 11) % 7 * 0.25;
    }}
  }}
  kernel();
  for (i = 0; i < N; i++) {{
    printf("%.10g %.10g\\n", x[i], y[i]);
    for (j = 0; j < N; j++)
      printf("%.10g %.10g %.10g\\n", A[i][j], B[i][j], C[i][j]);
  }}
  return 0;
}}
"""


def from_body(body: str, **kw) -> ps.Program:
    return ps.Program.from_source(program(body, **kw), filename="kernel.c")


def isl_time(schedule: isl.Schedule, stmt: str, instance, values: dict[str, int]) -> tuple[int, ...]:
    """The time isl's own flattening of ``schedule`` gives ``stmt[instance]``."""
    umap = fix_params(schedule.get_map().reset_user(), values)
    found = []
    umap.foreach_map(lambda m: found.append(m) if m.get_tuple_name(isl.dim_type.in_) == stmt else None)
    (m,) = found
    for k, v in enumerate(instance):
        m = m.fix_val(isl.dim_type.in_, k, isl.Val(v))
    rng = m.range()
    assert not rng.is_empty(), f"{stmt}{instance} has no time"
    pt = rng.sample_point()
    return tuple(pt.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(rng.dim(isl.dim_type.set)))


def _values(p: ps.Program, witness) -> dict[str, int]:
    return {name: witness.parameters[name] for name in p.scop.parameters if name in witness.parameters}


def confirm_dependence_witness(p: ps.Program, err: ps.TransformError) -> None:
    """The witness pair is a dependence of its kind (brute force) that the rejected
    schedule does not run in order (isl's times)."""
    violation, witness = err.violation, err.witness
    assert violation is not None and witness is not None, str(err)
    assert violation.kind in ("raw", "war", "waw"), violation.kind
    values = _values(p, witness)
    deps = brute_force(model_trace(p.scop, values))
    assert (witness.source, witness.sink) in deps[violation.kind], (violation.kind, str(witness))
    t_src = isl_time(err.schedule, *witness.source, values)
    t_dst = isl_time(err.schedule, *witness.sink, values)
    n = max(len(t_src), len(t_dst))
    t_src, t_dst = t_src + (0,) * (n - len(t_src)), t_dst + (0,) * (n - len(t_dst))
    assert not t_src < t_dst, (t_src, t_dst)
    # and the times the error reports are those of the rejected schedule, in order
    assert tuple(witness.source_time) >= tuple(witness.sink_time)


def confirm_race_witness(p: ps.Program, err: ps.TransformError, same_iteration) -> None:
    """A mark's witness: two instances that touch one element, one writing (brute
    force over the access relations), in different iterations of the marked loop
    (``same_iteration(src, dst)`` is False) and equal outer loops (up to the caller)."""
    violation, witness = err.violation, err.witness
    assert violation is not None and violation.kind == "mark" and witness is not None, str(err)
    values = _values(p, witness)
    accesses = {inst: (reads, [a for _, a in writes]) for inst, reads, writes in model_trace(p.scop, values)}
    r1, w1 = accesses[witness.source]
    r2, w2 = accesses[witness.sink]
    assert set(w1) & set(r2 + w2) or set(w2) & set(r1 + w1), str(witness)
    assert not same_iteration(witness.source[1], witness.sink[1]), str(witness)
