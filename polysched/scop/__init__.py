"""C front end and the polyhedral model (see model.py).

``extract(path_or_text, defines=None, include_dirs=None, filename=None) -> list[Scop]``
turns every ``#pragma scop`` region of a C file into a :class:`Scop`.
"""
from .extract import INTEGER_FUNCTIONS, MATH_FUNCTIONS, extract
from .model import Access, Array, Scop, ScopError, Statement, is_parallel_for_pragma, scop_to_dict

__all__ = ["Access", "Array", "INTEGER_FUNCTIONS", "MATH_FUNCTIONS", "Scop", "ScopError", "Statement", "extract", "is_parallel_for_pragma", "scop_to_dict"]
