"""Auto-tensorization: intrinsics described as tiny C loop nests, every match of a
statement found by SAT (python-sat) and checked against a brute-force oracle, legality
from the exact dependences. See ../shared/design.md for what this package owns.

    from polysched.tensorize import builtin_intrinsics, match_statement
    intrinsics = builtin_intrinsics()                 # polysched/tensorize/intrinsics/*.c
"""
from .intrinsic import (INCLUDE_DIR, INTRINSICS_DIR, Intrinsic, IntrinsicError, builtin_intrinsics,
                        load_intrinsic, load_intrinsics)
from .pattern import Pattern, statement_pattern

__all__ = ["INCLUDE_DIR", "INTRINSICS_DIR", "Intrinsic", "IntrinsicError", "Pattern",
           "builtin_intrinsics", "load_intrinsic", "load_intrinsics", "statement_pattern"]
