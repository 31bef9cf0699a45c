"""Exact dependences (isl dataflow and memory-based), distance/direction vectors,
SCCs, and legality of schedules with concrete witnesses.

    deps = analyze(scop)                 # Dependences: flow, raw, war, waw, rar
    deps.pairs("flow")                   # per statement pair: relation, levels, vectors
    result = check(scop, deps, schedule) # Legality: legal?, violations with witnesses, bands
"""
from .analysis import (KINDS, VALIDITY_KINDS, Dependences, PairDependence, analyze, memory_dependences,
                       statement_times)

from .legality import (BandInfo, Legality, ScheduleError, Violation, Witness, check, parse_schedule,
                       violated_dependences)

__all__ = ["KINDS", "VALIDITY_KINDS", "Dependences", "PairDependence", "analyze", "memory_dependences",
           "statement_times",
           "BandInfo", "Legality", "ScheduleError", "Violation", "Witness", "check", "parse_schedule",
           "violated_dependences"]
