"""polysched: polyhedral scheduling and auto-tiling research engine.

Pipeline (one isl schedule tree crosses every stage):
C file --scop--> Scop --dependence--> Dependences --schedule--> isl.Schedule
--tiling/tensorize--> marked schedule tree --emit_c--> C file --bench--> verified, timed.

The research API (schedule primitives one at a time, each checked against the exact
dependences, with a replayable trace):

    import polysched as ps
    p = ps.Program.from_file("gemm.c")
    q = p.auto_schedule("pluto").tile("S1", [32, 64, 128]).interchange("S1", 4, 5)
    q.verify()          # equal
"""
__version__ = "0.1.0"

from polysched.errors import ArgumentError, MarkError, PolyschedError, TransformError

__all__ = ["ArgumentError", "MarkError", "PolyschedError", "Program", "Trace", "TraceWarning", "TransformError", "marks",
           "viz"]


def __getattr__(name: str):
    # Program pulls in islpy and the whole pipeline: only on first use, so that
    # `import polysched` stays cheap for the CLI and for subpackages.
    if name in ("Program", "Trace", "TraceWarning"):
        from polysched import program
        return getattr(program, name)
    if name in ("marks", "viz", "display", "transform"):
        import importlib
        return importlib.import_module(f"polysched.{name}")
    raise AttributeError(f"module 'polysched' has no attribute {name!r}")
