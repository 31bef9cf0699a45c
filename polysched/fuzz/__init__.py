"""Differential fuzzing of polysched: random C programs with SCoPs (``generator``),
every optimisation mode compiled, run and compared with the original (``runner``),
and failures reduced to minimal C files (``shrink``). ``polysched fuzz`` is the CLI."""
from .generator import InvalidProgram, Program, features, generate, render

__all__ = ["InvalidProgram", "Program", "features", "generate", "render"]
