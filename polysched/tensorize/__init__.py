"""Auto-tensorization: intrinsics described as tiny C loop nests, every match of a
statement found by SAT (python-sat) and checked against a brute-force oracle, legality
from the exact dependences.

    from polysched.scop import extract
    from polysched.tensorize import builtin_intrinsics, match_scop
    [scop] = extract("polysched/bench/kernels/gemm.c")
    for report in match_scop(scop, builtin_intrinsics()):    # intrinsics/*.c
        for m in report.matches:     # per intrinsic: legal first, by gain
            print(report.statement, m.describe())
    # S1 dgemm_4x8_scaled: loops k->k, i->i, j->j; arrays C->C, alpha->alpha, A->A,
    #    B->B; remainder on j; legal, gain 3.985

Modules: intrinsic (descriptions), pattern (statements as trees + access matrices),
problem (the matching rules), sat (the SAT search), brute (the oracle), legality
(isl: box + exact dependences), cost (ranking), library (a CBLAS on this machine), match (the API), apply (the
schedule tree of Program.tensorize), auto (best legal match per statement).
"""
from .auto import Applied, auto_tensorize, default_tensorize
from .intrinsic import (INCLUDE_DIR, INTRINSICS_DIR, Intrinsic, IntrinsicError, builtin_intrinsics,
                        load_intrinsic, load_intrinsics)
from .library import find_cblas, find_library
from .match import Match, MatchReport, match_scop, match_statement
from .pattern import Pattern, statement_pattern

__all__ = ["Applied", "INCLUDE_DIR", "INTRINSICS_DIR", "Intrinsic", "IntrinsicError", "Match", "MatchReport",
           "Pattern", "auto_tensorize", "builtin_intrinsics", "default_tensorize", "find_cblas", "find_library", "load_intrinsic", "load_intrinsics", "match_scop",
           "match_statement", "statement_pattern"]
