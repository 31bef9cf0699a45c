"""OR-Tools' CP-SAT module, loaded without pandas.

``ortools.sat.python.cp_model`` imports pandas when it loads, for its optional pandas
API (``new_int_var_series`` and friends), which polysched never calls. That import is
about 0.3 s, a fifth of a one-shot ``polysched optimize`` (issue #9's goal: any suite
kernel in < 2 s). While cp_model loads, ``pandas`` names a stand-in:

- its ``Index`` and ``Series`` are classes whose ``isinstance`` checks ask the real
  pandas only when the process has imported it (an object cannot be a pandas Series
  otherwise), and whose construction imports it;
- any other attribute imports the real pandas and returns its own.

The stand-in leaves ``sys.modules`` as soon as cp_model is loaded, so a later
``import pandas`` (the bench report, a user's notebook) gets the real library, and
cp_model's pandas API keeps working on real pandas objects.
"""
from __future__ import annotations

import importlib
import sys
import types


def _real_pandas():
    if isinstance(sys.modules.get("pandas"), _PandasStandIn):
        del sys.modules["pandas"]
    return importlib.import_module("pandas")


class _Deferred(type):
    """A pandas class named like this one, looked up only when it is really needed."""

    def __instancecheck__(cls, obj) -> bool:
        pandas = sys.modules.get("pandas")
        if pandas is None or isinstance(pandas, _PandasStandIn):
            return False        # pandas was never imported: nothing can be its instance
        return isinstance(obj, getattr(pandas, cls.__name__))

    def __call__(cls, *args, **kwargs):
        return getattr(_real_pandas(), cls.__name__)(*args, **kwargs)


class _PandasStandIn(types.ModuleType):
    Index = _Deferred("Index", (), {})
    Series = _Deferred("Series", (), {})

    def __getattr__(self, name: str):
        return getattr(_real_pandas(), name)


def _load_cp_model():
    if "ortools.sat.python.cp_model" in sys.modules or "pandas" in sys.modules:
        return importlib.import_module("ortools.sat.python.cp_model")
    sys.modules["pandas"] = _PandasStandIn("pandas")
    try:
        return importlib.import_module("ortools.sat.python.cp_model")
    finally:
        if isinstance(sys.modules.get("pandas"), _PandasStandIn):
            del sys.modules["pandas"]


cp_model = _load_cp_model()
