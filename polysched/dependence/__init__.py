"""Exact dependences (isl dataflow and memory-based), distance/direction vectors,
SCCs, legality of schedules with concrete witnesses, and what each loop carries.

    deps = analyze(scop)                 # Dependences: flow, raw, war, waw, rar
    deps.pairs("flow")                   # per statement pair: relation, levels, vectors
    result = check(scop, deps, schedule) # Legality: legal?, violations with witnesses, bands
    is_parallel(deps.validity, outer, member)          # loops: one loop's questions
    band_flags(deps.validity, outer, band_schedule)    # loops: parallel members, permutable
    classify_scalars(scop, ScopAccesses(scop), domain, iteration)  # scalars: private/reduction
"""
from .analysis import (KINDS, VALIDITY_KINDS, Dependences, PairDependence, analyze, memory_dependences,
                       statement_times)

from .legality import (BandInfo, Legality, ScheduleError, Violation, Witness, check, is_legal,
                       mark_violations, parse_schedule, runs_in_original_order, unsupported_nodes,
                       violated_dependences)
from .loops import (BandFlags, band_flags, carried, empty_rows, is_forward, is_parallel, is_permutable,
                    live, mupa_rows, node_band_flags, prefix_is_empty, prefix_rows, rows, same_value)
from .scalars import (ScalarFlow, ScalarVerdict, ScopAccesses, classify_scalars, clause_variables, is_integer_type,
                      may_overflow, dependences_without_reductions, last_write_reason, private_reason,
                      private_clauses_read_after, racy_user_loops, reduced_cell, reduction_of, reduction_operator,
                      restrict_to_array, spelled_as, used_after_scop, wraps_in_a_copy)

__all__ = ["KINDS", "VALIDITY_KINDS", "Dependences", "PairDependence", "analyze", "memory_dependences",
           "statement_times",
           "BandInfo", "Legality", "ScheduleError", "Violation", "Witness", "check", "is_legal", "mark_violations",
           "parse_schedule", "runs_in_original_order", "unsupported_nodes", "violated_dependences",
           "BandFlags", "band_flags", "carried", "empty_rows", "is_forward", "is_parallel",
           "is_permutable", "live", "mupa_rows", "node_band_flags", "prefix_is_empty", "prefix_rows",
           "rows", "same_value",
           "ScalarFlow", "ScalarVerdict", "ScopAccesses", "classify_scalars", "clause_variables", "is_integer_type",
           "may_overflow",
           "dependences_without_reductions", "last_write_reason", "private_clauses_read_after", "private_reason",
           "racy_user_loops", "reduced_cell",
           "reduction_of", "reduction_operator", "restrict_to_array", "spelled_as", "used_after_scop", "wraps_in_a_copy"]
