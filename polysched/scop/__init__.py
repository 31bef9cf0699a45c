"""C front end and the polyhedral model (see model.py)."""
from .model import Access, Array, Scop, ScopError, Statement

__all__ = ["Access", "Array", "Scop", "ScopError", "Statement"]
