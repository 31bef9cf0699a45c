"""Bounds on sizes and factors, shared by the primitives (polysched.transform) and the
command line, which checks them before any work (this module imports nothing).

Past them, only isl's integers or the generated code explode: a tile of 2**70
overflows isl's small integers; jamming by 10**4 writes 10**4 copies of the body, and
gcc refuses ``#pragma GCC unroll N`` for N >= 65535."""

MAX_SIZE = 2 ** 30      # a tile or strip-mine size
MAX_JAM = 64            # an unroll(-and-jam) or register-tile factor
MAX_CACHE = 2 ** 40     # a cache size in bytes (the tile-size model's)
MAX_THREADS = 1024      # OpenMP threads to make code for or to run with
