"""The extracted schedule orders statement instances exactly like C execution.

Oracle: every statement of the region is replaced by a ``printf`` of its name and
iterator values, the program is compiled with gcc and run, and the printed trace is
compared with the instances of the extracted domains sorted by ``Scop.schedule_map``
(parameters fixed to the values the program uses)."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import islpy as isl
import pytest

from polysched.scop import extract
from polysched.scop.macros import macro_table

DATA = Path(__file__).parent / "data" / "scop"
KERNELS = Path(__file__).parent.parent / "polysched" / "bench" / "kernels"
MAX_INSTANCES = 60000


def trace_source(text: str, scop) -> str:
    """``text`` with each statement replaced by a trace printf."""
    starts = [0]
    for k, c in enumerate(text):
        if c == "\n":
            starts.append(k + 1)
    edits = []
    for stmt in scop.statements:
        offset = starts[stmt.line - 1] + stmt.col - 1
        assert text[offset:offset + len(stmt.body)] == stmt.body, stmt
        fmt = "@@" + stmt.name + " %ld" * len(stmt.iterators) + "\\n"
        args = "".join(f", (long)({it})" for it in stmt.iterators)
        edits.append((offset, offset + len(stmt.body), f'printf("{fmt}"{args});'))
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return "#include <stdio.h>\n" + text


def run_trace(text: str, scop, defines: list[str], tmp_path: Path) -> list[tuple]:
    src = tmp_path / "trace.c"
    src.write_text(trace_source(text, scop))
    exe = tmp_path / "trace"
    cmd = ["gcc", "-O0", "-w", "-o", str(exe), str(src), "-lm"] + [f"-D{d}" for d in defines]
    subprocess.run(cmd, check=True, timeout=120, capture_output=True)
    out = subprocess.run([str(exe)], check=True, timeout=120, capture_output=True, text=True).stdout
    trace = []
    for line in out.splitlines():
        if line.startswith("@@"):
            name, *coords = line[2:].split()
            trace.append((name, tuple(int(c) for c in coords)))
    return trace


def schedule_order(scop, values: dict[str, int]) -> list[tuple]:
    """Instances of all statements sorted by the schedule (the oracle's counterpart)."""
    params = scop.with_values(values)
    timed = []
    sched = scop.schedule_map.intersect_params(params)
    for stmt in scop.statements:
        m = sched.intersect_domain(isl.UnionSet.from_set(stmt.domain.intersect_params(params)))
        maps = m.get_map_list()
        for k in range(maps.n_map()):
            mp = maps.get_at(k)
            n_in = mp.dim(isl.dim_type.in_)
            points = []
            mp.wrap().foreach_point(points.append)
            for pt in points:
                vals = [pt.get_coordinate_val(isl.dim_type.set, d).to_python() for d in range(mp.dim(isl.dim_type.in_) + mp.dim(isl.dim_type.out))]
                timed.append((tuple(vals[n_in:]), stmt.name, tuple(vals[:n_in])))
    times = [t for t, _, _ in timed]
    assert len(set(times)) == len(times), "the schedule is not injective"
    return [(name, it) for _, name, it in sorted(timed)]


def test_mixed_control_structures(tmp_path):
    text = (DATA / "mixed.c").read_text()
    scop = extract(text, filename="mixed.c")[0]
    trace = run_trace(text, scop, [], tmp_path)
    expected = schedule_order(scop, {"N": 9, "n": 7})
    assert len(trace) > 50
    assert trace == expected


@pytest.mark.parametrize("defines", [["N=3"], ["N=4"], ["N=13"]])
def test_mixed_other_sizes(tmp_path, defines):
    text = (DATA / "mixed.c").read_text()
    scop = extract(text, defines=defines, filename="mixed.c")[0]
    n = scop.parameter_values["N"]
    assert trace_matches(text, scop, defines, {"N": n, "n": n - 2}, tmp_path)


def trace_matches(text, scop, defines, values, tmp_path) -> bool:
    return run_trace(text, scop, defines, tmp_path) == schedule_order(scop, values)


def kernel_files():
    return sorted(KERNELS.glob("*.c")) if KERNELS.is_dir() else []


def call_arguments(text: str, function: str) -> dict[str, str]:
    """Parameter name -> argument text at the call of ``function`` (the suite's main
    passes the size macros to the kernel's ``int`` parameters)."""
    header = re.search(rf"\b{function}\s*\(([^)]*)\)\s*{{", text)
    call = re.search(rf"\b{function}\s*\(([^;{{]*)\)\s*;", text)
    if not header or not call:
        return {}
    names = [re.findall(r"[A-Za-z_]\w*", p.split("[")[0])[-1] for p in header.group(1).split(",")]
    args = [a.strip() for a in call.group(1).split(",")]
    return dict(zip(names, args))


@pytest.mark.parametrize("path", kernel_files(), ids=lambda p: p.stem)
def test_suite_kernel_execution_order(path, tmp_path):
    text = path.read_text()
    table = macro_table(str(path), text, {"MINI_DATASET": ""})
    base = extract(path, defines=["MINI_DATASET"])
    sizes = {}
    for scop in base:
        arguments = call_arguments(text, scop.function)
        for name in scop.parameters:
            macro = name if name in scop.parameter_values else arguments.get(name)
            if macro is None or table.integer_value(macro) is None:
                pytest.skip(f"value of parameter {name} unknown")
            sizes[macro] = min(table.integer_value(macro), 7)
    defines = ["MINI_DATASET"] + [f"{k}={v}" for k, v in sizes.items()]
    for scop in extract(path, defines=defines):
        arguments = call_arguments(text, scop.function)
        values = {name: sizes[name if name in scop.parameter_values else arguments[name]]
                  for name in scop.parameters}
        assert trace_matches(text, scop, defines, values, tmp_path), scop.function
