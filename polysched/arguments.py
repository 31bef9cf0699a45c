"""Checks of the arguments of the research API (:class:`polysched.Program`, ``Trace``).

Each helper returns the argument (normalised) or raises :class:`TransformError` with
one sentence naming the call, the argument and what it must be, as the primitives'
own checks do: ``"tile('S1', None): tile sizes must be an int or a list of ints, got None"``.
A wrong argument must never surface as a raw TypeError from deep inside.
"""
from __future__ import annotations

import dataclasses
import os
import re

from polysched.errors import TransformError
from polysched.transform.primitives import _check_int as check_int


def refusal(what: str, name: str, expected: str, value) -> TransformError:
    """``{what}: {name} must be {expected}, got {value!r}``."""
    return TransformError(f"{what}: {name} must be {expected}, got {value!r}")


def plain(value):
    """``value`` with numpy's scalars and arrays as Python's numbers and lists (a tile
    size computed in a notebook is often an ``np.int64``; traces are JSON), lists,
    tuples and dicts converted inside; any other value unchanged."""
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return type(value)(plain(v) for v in value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def as_list(value, what: str, name: str, expected: str, *, item=object, single=None,
            nonempty: bool = False) -> list:
    """``value``, a list or tuple of ``item`` values (or one ``single`` value, not split
    into its letters), as a list."""
    value = plain(value)
    if single is not None and isinstance(value, single):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, item) for v in value) \
            and (value or not nonempty):
        return list(value)
    raise refusal(what, name, expected, value)


def check_bool(value, what: str, name: str) -> bool:
    """``value`` when it is True or False: a trace's ``"false"`` or ``0`` is not (a
    non-empty string would read as True, and ``reassociate="false"`` reassociate)."""
    if not isinstance(value, bool):
        raise refusal(what, name, "True or False", value)
    return value


def fields_of(value, base, what: str, name: str, label: str):
    """A dataclass value of ``base``'s type: ``base`` for None, ``value`` itself, or
    ``base`` with the fields a dict ``value`` gives (other keys are refused, naming
    the valid ones)."""
    cls = type(base)
    if value is None:
        return base
    if isinstance(value, cls):
        return value
    keys = [f.name for f in dataclasses.fields(cls)]
    if not isinstance(value, dict):
        raise refusal(what, name, f"None, a {label} or a dict of its fields ({', '.join(keys)})", value)
    unknown = [k for k in value if k not in keys]
    if unknown:
        raise TransformError(f"{what}: unknown {name} key{'s' if len(unknown) > 1 else ''} "
                             f"{', '.join(map(repr, unknown))} (the keys are {', '.join(keys)})")
    try:
        return dataclasses.replace(base, **value)
    except ValueError as error:       # a field's own check (EmitOptions.iterator_type)
        raise TransformError(f"{what}: {error}") from None


def tile_sizes(value, what: str, name: str) -> list[int]:
    """Tile sizes: one int or a non-empty list of ints, each >= 1."""
    # (helper-54: auto_tile(sizes=[]) said "no band can be tiled", as if the bands were at fault)
    sizes = as_list(value, what, name, "an int or a non-empty list of ints", single=int, nonempty=True)
    return [check_int(size, what, f"each tile size in {name}", 1) for size in sizes]


def reduction_pairs(reductions, what: str) -> list[list]:
    """``[[operator, scalar], ...]`` from ``{scalar: operator}`` or ``(operator, scalar)``
    pairs (the operators and names are checked by ``polysched.marks.Parallel``)."""
    if isinstance(reductions, dict):
        pairs = [(op, name) for name, op in reductions.items()]
    elif isinstance(reductions, (list, tuple)):
        pairs = list(reductions)
    else:
        pairs = None
    if pairs is None or not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in pairs):
        raise refusal(what, "reductions", "{scalar: operator} or a list of (operator, scalar) pairs",
                      reductions)
    return [list(pair) for pair in pairs]


# a -D name: NAME or a function-like NAME(a, b), as the C compiler takes it
MACRO_NAME = re.compile(r"[A-Za-z_]\w*(\(\s*(?:[A-Za-z_]\w*\s*(?:,\s*[A-Za-z_]\w*\s*)*)?\))?")


def source_options(what: str, region, defines, include_dirs):
    """``(region, defines, include_dirs)`` of ``Program.from_file``/``from_source``:
    ``defines`` ``{"N": "100"}`` or ``["N=100"]`` (one ``"N=100"`` too) as a dict or a
    list; ``include_dirs`` a directory or a list of them, as a list of str."""
    check_int(region, what, "region")
    if defines is not None and not (isinstance(defines, dict) and all(isinstance(k, str) for k in defines)):
        defines = as_list(defines, what, "defines", "{name: value} or a list of 'NAME=VALUE' strings",
                          item=str, single=str)
    for name in (defines if isinstance(defines, dict) else [d.partition("=")[0] for d in defines or []]):
        if not MACRO_NAME.fullmatch(name):     # (helper-90: the compiler's message, at the file's 1:1)
            raise refusal(what, "defines", "macro names (NAME or NAME(ARGS))", name)
    if include_dirs is not None:
        include_dirs = [os.fspath(d) for d in as_list(include_dirs, what, "include_dirs",
                                                      "a directory or a list of directories",
                                                      item=(str, os.PathLike), single=(str, os.PathLike))]
    return region, defines, include_dirs


def defines_dict(defines) -> dict[str, str | None]:
    """``{name: value text or None}`` of the ``defines`` `source_options` accepts (values
    as text: ``{"N": 100}`` is ``-DN=100``, and fingerprints the same as ``"100"``)."""
    if not defines:
        return {}
    if isinstance(defines, dict):
        return {str(k): (None if v is None else str(v)) for k, v in defines.items()}
    out = {}
    for item in defines:
        name, eq, value = str(item).partition("=")
        out[name] = value if eq else None
    return out


def compile_options(what: str, options: dict) -> dict:
    """The compiler and run options of ``Program.verify``/``time`` (those of
    ``polysched.bench.verify``) normalised: a ``cflags`` string is split as a shell
    would (``"-O2 -fopenmp"``), one directory or file is a list of one, ``defines`` is
    ``{name: value}`` from a list of ``"NAME=VALUE"`` too; anything else of the wrong
    kind is refused by name (it surfaced as a TypeError from subprocess)."""
    import shlex
    options = dict(options)
    for name in ("cc", "transformed_cc"):
        if options.get(name) is not None and not (isinstance(options[name], str) and options[name].strip()):
            raise refusal(what, name, "the name or path of a C compiler", options[name])
    for name in ("cflags", "transformed_cflags"):
        if options.get(name) is not None:
            value = options[name]
            options[name] = shlex.split(value) if isinstance(value, str) else \
                as_list(value, what, name, "a string of flags or a list of them", item=str)
    for name in ("include_dirs", "extra_sources"):
        if options.get(name) is not None:
            options[name] = [os.fspath(v) for v in as_list(options[name], what, name, "a path or a list of paths",
                                                             item=(str, os.PathLike), single=(str, os.PathLike))]
    if options.get("defines") is not None:
        defines = options["defines"]
        if not (isinstance(defines, dict) and all(isinstance(k, str) for k in defines)):
            items = as_list(defines, what, "defines", "{name: value} or a list of 'NAME=VALUE' strings",
                            item=str, single=str)
            defines = {name.strip(): (value if sep else None)
                       for name, sep, value in (item.partition("=") for item in items)}
        options["defines"] = defines
    for name, low in (("rtol", 0), ("atol", 0), ("timeout", 1e-9), ("compile_timeout", 1e-9)):
        value = options.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= low):
            raise refusal(what, name, "a number >= 0" if low == 0 else "a positive number of seconds", value)
    for name in ("dump", "fp_contract_off"):
        if name in options:
            check_bool(options[name], what, name)
    if options.get("openmp") is not None:
        check_bool(options["openmp"], what, "openmp")
    return options


class DefaultDataset(str):
    """A method's default dataset (``verify``'s ``"MINI"``, ``time``'s ``"MEDIUM"``), as
    opposed to one the caller named: not testing it is no warning (the program runs as
    written, as the CLI's default does)."""


def dataset_name(dataset, what: str, files, include_dirs=(), shown: str | None = None) -> str | None:
    """``dataset`` as the ``-D<NAME>_DATASET`` name (None or "": no define): a PolyBench
    size, or a name the program tests (otherwise the define would change nothing and
    the run would silently be at the default size). A PolyBench size the program does
    not test is a warning (``warnings.warn``, as ``tune`` says it; ``shown``: the file's
    name in it), the run being at the sizes the program is written with."""
    import warnings

    from polysched.bench.harness import dataset_is_tested, tested_datasets, untested_datasets
    from polysched.bench.suite import DATASETS, dataset_spelling
    if dataset is None or dataset == "":
        return None
    if not isinstance(dataset, str) or not dataset.strip().replace("_", "").isalnum():
        raise refusal(what, "dataset", "a name such as 'MINI' or 'LARGE', or None", dataset)
    name = dataset_spelling(dataset)
    if dataset_is_tested(name, files, include_dirs):
        return name
    if name not in DATASETS:
        # (a tester: the PolyBench names were suggested to a file that tests none of them)
        tested = tested_datasets(files, include_dirs)
        choice = f"choose one it tests, {', '.join(tested)}, or None" if tested else \
            "it tests no *_DATASET: None runs it at the sizes it is written with"
        raise TransformError(f"{what}: dataset={dataset!r} changes nothing: the program never tests "
                             f"{name}_DATASET ({choice})")
    if isinstance(dataset, DefaultDataset):
        return name
    for message in untested_datasets(shown or files[0], {"dataset": name}, include_dirs):
        warnings.warn(f"{what}: {message}", stacklevel=3)
    return name


__all__ = ["DefaultDataset", "as_list", "check_int", "compile_options", "dataset_name", "fields_of", "reduction_pairs", "refusal",
           "source_options", "tile_sizes"]
