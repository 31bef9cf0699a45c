"""Random loop nests (bounds with min/max, C division of possibly negative values,
strides, both directions, if/else with &&, ||, !, %) against the C compiler: every
statement is replaced by a trace printf, the file is compiled and run, and the trace
must equal the instances of the extracted domains sorted by the extracted schedule."""
from __future__ import annotations

import random
import subprocess

import pytest

from polysched.scop import extract
from test_scop_order import schedule_order

N_PROGRAMS = 40
PARAMS = {"N": 5, "M": 4, "n": 3}


class Generator:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.count = 0

    def affine(self, iters: list[str]) -> str:
        rng = self.rng
        terms = [str(rng.randint(-2, 4))]
        for name in iters + ["N", "M", "n"]:
            if rng.random() < 0.35:
                terms.append(f"{rng.choice([-1, 1, 1, 2])} * {name}")
        expr = " + ".join(terms)
        roll = rng.random()
        if roll < 0.15:
            expr = f"({expr}) / {rng.choice([2, 3])}"
        elif roll < 0.25:
            expr = f"({expr}) % {rng.choice([2, 3])}"
        return expr

    def bound(self, iters: list[str]) -> str:
        roll = self.rng.random()
        a = self.affine(iters)
        if roll < 0.2:
            return f"MIN({a}, {self.affine(iters)})"
        if roll < 0.4:
            return f"MAX({a}, {self.affine(iters)})"
        if roll < 0.5:
            b = self.affine(iters)
            return f"(({a}) < ({b}) ? ({a}) : ({b}) + 1)"
        return a

    def condition(self, iters: list[str], depth: int = 0) -> str:
        rng = self.rng
        roll = rng.random()
        if depth < 2 and roll < 0.2:
            return f"({self.condition(iters, depth + 1)} && {self.condition(iters, depth + 1)})"
        if depth < 2 and roll < 0.35:
            return f"({self.condition(iters, depth + 1)} || {self.condition(iters, depth + 1)})"
        if depth < 2 and roll < 0.45:
            return f"!({self.condition(iters, depth + 1)})"
        op = rng.choice(["<", "<=", ">", ">=", "==", "!="])
        return f"{self.affine(iters)} {op} {self.affine(iters)}"

    def block(self, iters: list[str], depth: int, indent: str) -> str:
        items = []
        for _ in range(self.rng.randint(1, 3)):
            roll = self.rng.random()
            if depth < 3 and roll < 0.5:
                items.append(self.loop(iters, depth, indent))
            elif depth < 3 and roll < 0.65:
                cond = self.condition(iters)
                then = self.block(iters, depth + 1, indent + "  ")
                text = f"{indent}if ({cond}) {{\n{then}{indent}}}\n"
                if self.rng.random() < 0.5:
                    text += f"{indent}else {{\n{self.block(iters, depth + 1, indent + '  ')}{indent}}}\n"
                items.append(text)
            else:
                items.append(f"{indent}X[{self.count % 7}] += 1;\n")
                self.count += 1
        return "".join(items)

    def loop(self, iters: list[str], depth: int, indent: str) -> str:
        rng = self.rng
        name = "ijkl"[len(iters)]
        step = rng.choice([1, 1, 1, 2, 3])
        if rng.random() < 0.7:
            init, cond = self.bound(iters), f"{name} {rng.choice(['<', '<='])} {self.bound(iters)}"
            inc = {1: f"{name}++", 2: f"{name} += 2", 3: f"{name} = {name} + 3"}[step]
        else:
            init, cond = self.bound(iters), f"{name} {rng.choice(['>', '>='])} {self.bound(iters)}"
            inc = {1: f"--{name}", 2: f"{name} -= 2", 3: f"{name} = {name} - 3"}[step]
        body = self.block(iters + [name], depth + 1, indent + "  ")
        return f"{indent}for ({name} = {init}; {cond}; {inc}) {{\n{body}{indent}}}\n"


def program(seed: int) -> str:
    gen = Generator(seed)
    parts = ["#include <stdio.h>\n#define N 5\n#define M 4\n"
             "#define MIN(a, b) ((a) < (b) ? (a) : (b))\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\n"
             "static double X[8];\n"]
    for k in range(N_PROGRAMS):
        parts.append(f"void f{k}(int n)\n{{\n  int i, j, k, l;\n#pragma scop\n"
                     f"{gen.block([], 0, '  ')}#pragma endscop\n}}\n")
    calls = "".join(f'  printf("@@scop {k}\\n");\n  f{k}(3);\n' for k in range(N_PROGRAMS))
    parts.append(f"int main(void)\n{{\n{calls}  return 0;\n}}\n")
    return "".join(parts)


def traced(text: str, scops) -> str:
    starts = [0] + [k + 1 for k, c in enumerate(text) if c == "\n"]
    edits = []
    for scop in scops:
        for stmt in scop.statements:
            offset = starts[stmt.line - 1] + stmt.col - 1
            assert text[offset:offset + len(stmt.body)] == stmt.body
            fmt = "@@" + stmt.name + " %ld" * len(stmt.iterators) + "\\n"
            args = "".join(f", (long)({it})" for it in stmt.iterators)
            edits.append((offset, offset + len(stmt.body), f'printf("{fmt}"{args});'))
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_loop_nests_match_execution(seed, tmp_path):
    text = program(seed)
    scops = extract(text, filename=f"random{seed}.c")
    assert len(scops) == N_PROGRAMS
    src = tmp_path / "random.c"
    src.write_text(traced(text, scops))
    exe = tmp_path / "random"
    subprocess.run(["gcc", "-O0", "-w", "-o", str(exe), str(src)], check=True, timeout=120, capture_output=True)
    out = subprocess.run([str(exe)], check=True, timeout=120, capture_output=True, text=True).stdout
    traces: list[list[tuple]] = []
    for line in out.splitlines():
        if line.startswith("@@scop"):
            traces.append([])
        elif line.startswith("@@"):
            name, *coords = line[2:].split()
            traces[-1].append((name, tuple(int(c) for c in coords)))
    executed = 0
    for k, scop in enumerate(scops):
        values = {p: PARAMS[p] for p in scop.parameters}
        assert traces[k] == schedule_order(scop, values), f"f{k}:\n{scop}"
        executed += len(traces[k])
    assert executed > 100
