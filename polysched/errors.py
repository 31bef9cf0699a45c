"""One error hierarchy for polysched.

    PolyschedError
      ├── ScopError         (polysched.scop: C outside the polyhedral model, file:line:col)
      ├── ScheduleError     (polysched.dependence / polysched.schedule: unusable schedule)
      ├── TilingError       (polysched.tiling)
      ├── MarkError         (polysched.marks: a mark name outside the vocabulary)
      ├── CodegenError      (polysched.emit_c: no correct code for a schedule)
      ├── TransformError    (polysched.transform / Program: an illegal or misused primitive)
      └── ArgumentError     (options, names and values the stages, bench and tune cannot take)

``except polysched.PolyschedError`` catches every error that polysched raises on
purpose. As Python's own functions do, a file that cannot be read raises ``OSError``
and an argument of the wrong Python type (``None`` for a Scop) ``TypeError`` or
``AttributeError``; anything else is a bug. This module imports nothing from
polysched so every package, however low, can use it.
"""
from __future__ import annotations


class PolyschedError(Exception):
    """Base of every error polysched raises on purpose (bad input, illegal request)."""


class MarkError(PolyschedError, ValueError):
    """A mark name that is not in the vocabulary of :mod:`polysched.marks`."""


class TransformError(PolyschedError, ValueError):
    """A schedule primitive that cannot be applied.

    Two kinds, told apart by ``violation``:

    - a misuse (unknown statement, loop depth out of range, sizes of the wrong length):
      ``violation`` is None and the message is one sentence;
    - an illegal result: ``violation`` is the :class:`polysched.dependence.Violation`
      that the transformed schedule would break, with ``witness`` (source and sink
      instances, both times under the *new* schedule, and the parameter values).
    """

    def __init__(self, message: str, *, violation=None, primitive: str | None = None, schedule=None):
        super().__init__(message)
        self.violation = violation
        self.primitive = primitive
        self.schedule = schedule      # the rejected schedule tree (illegal results only)

    @property
    def witness(self):
        """The :class:`polysched.dependence.Witness` of the violated dependence, or None."""
        return getattr(self.violation, "witness", None)

    @property
    def kind(self) -> str:
        """``"misuse"`` or the kind of the violated dependence (``raw``, ``war``,
        ``waw``, ``mark``)."""
        return "misuse" if self.violation is None else self.violation.kind


class ArgumentError(PolyschedError, ValueError):
    """A value a stage, bench or tune cannot take: an unknown name (kernel, variant,
    dependence kind, model), a size or count out of its range, options that disagree
    (helper-49: these were plain ValueErrors, outside the hierarchy)."""


__all__ = ["ArgumentError", "MarkError", "PolyschedError", "TransformError"]
