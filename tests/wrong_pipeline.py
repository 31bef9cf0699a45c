"""A deliberately wrong pipeline for the tests that check a wrong schedule is caught:
every schedule reversed (all dimensions negated, which runs every instance in the
opposite order) and the legality check told it is legal."""
from __future__ import annotations

import islpy as isl


def reverse_every_schedule(monkeypatch, trust_the_ast: bool = False) -> None:
    """Patch ``polysched.pipeline`` so that its scheduler reverses every schedule and
    its legality check says yes. ``trust_the_ast``: the validation of isl's AST says
    yes too (it would otherwise catch the broken dependences and fall back to the
    original schedule)."""
    from polysched import pipeline
    from polysched.emit_c import codegen

    real_compute = pipeline.compute

    def reversed_compute(scop, deps, options, stats=None):
        schedule = real_compute(scop, deps, options, stats=stats)
        mupa = isl.MultiUnionPwAff.from_union_map(schedule.get_map())
        return isl.Schedule.from_domain(schedule.get_domain()).insert_partial_schedule(mupa.neg())

    class Legal:
        legal = True

    monkeypatch.setattr(pipeline, "compute", reversed_compute)
    monkeypatch.setattr(pipeline, "check", lambda *args, **kwargs: Legal())
    if trust_the_ast:
        monkeypatch.setattr(codegen, "validate_ast", lambda *args, **kwargs: None)
