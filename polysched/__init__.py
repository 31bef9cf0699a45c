"""polysched: polyhedral scheduling and auto-tiling research engine.

Pipeline (one isl schedule tree crosses every stage):
C file --scop--> Scop --dependence--> Dependences --schedule--> isl.Schedule
--tiling/tensorize--> marked schedule tree --emit_c--> C file --bench--> verified, timed.
"""
__version__ = "0.1.0"
