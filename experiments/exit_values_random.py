"""Random programs that read loop iterators after their loops (``last = i;``, ``B[i] =
...``, ``for (j = i; ...)``, ``if (i > 3)``), the inputs of the exit-value rule
(scop/extract.py, ``exited_iterator``). Each program has two to four loops, at the top or
inside a loop over ``t``; iterators are ``int``, ``long``, ``char`` or ``unsigned``
(with an unsigned size), counting up or down by 1 (sometimes by 2, whose exit value is
refused), from a literal, a size, ``t`` or another loop's exit value, to a size, a
``&&`` of two or a literal. The main runs sizes -3 to 40 and prints integer checksums.

Each program is optimized in four modes; the original and every output are compiled
with the same flags and their outputs compared byte for byte at 1 and 2 threads. The
script counts equal outputs, clean refusals (exit 2 with a one-line error, nothing written)
and anything else (a difference, a crash, another exit status), which it prints.

usage: python experiments/exit_values_random.py START COUNT [OUT_DIR]
(session 55, the first version of this script (0b0fca7): seeds 0-39 at 5e55b12, 160
optimizations, 108 equal, 52 refused (all after a loop stepping by 2, since accepted),
0 other; seeds 40-79 at 0b0fca7: 128 equal, 32 refused, 0 other. Reads in a later
loop's body were added after helper-73's wrong-code finding: seeds 80-139 at 1ad6b51,
184 equal, 56 refused, 0 other; then reads in a later loop's bound and in if/else
branches, after helper-74's: seeds 140-199 at 61f6c68, 176 equal, 64 refused, 0 other;
then second counters starting from an exit value, after helper-75's: seeds 200-249 at
f35b442, 124 equal, 76 refused, 0 other. Second counters have exit values since 06f5f3f:
they step by 1, 2 or -1 and are read after their loop: seeds 250-279 at cc4377d, 92 equal, 28
refused, 0 other; and after an if whose branches leave different values (5d1ac15): seeds
280-309, 104 equal, 16 refused, 0 other.)"""
import os
import random
import subprocess
import sys
from pathlib import Path

from polysched.bench import compile_c, run_binary

MODES = [["--tile", "--parallel"], ["--tile"], ["--scheduler", "isl", "--tile", "--parallel"],
         ["--fuse", "max", "--tile", "--parallel"]]
CFLAGS = ["-O1", "-ffp-contract=off", "-DPOLYSCHED_PARALLEL_MIN_WORK=0"]


def program(seed: int) -> str:
    r = random.Random(seed)
    types = {"i": r.choice(["int", "long"]), "j": r.choice(["int", "char"]), "k": "long", "u": "unsigned"}
    exited: list[str] = []          # iterators whose loop ended in this block, in order
    lines: list[str] = []
    outer = r.random() < 0.35
    pad = "    " if outer else "  "
    for loop in range(r.randint(2, 4)):
        name = r.choice(["i", "j", "k", "u"])
        unsigned = name == "u"
        size = "un" if unsigned else r.choice(["n", "m", "n - 2", "n + 1"])
        starts = ["0", "1", "3"] + (["t"] if outer and not unsigned else []) + \
                 [e for e in exited if e != name and not unsigned and e != "u"]
        start = r.choice(starts)
        step = r.choice([1, 1, 1, 1, 2]) if not unsigned else 1
        down = not unsigned and r.random() < 0.3
        if down:
            low = r.choice(["0", "2", "-1"] + [e for e in exited if e != name and e != "u"])
            header = f"for ({name} = {size} - 1; {name} >= {low}; {name} -= {step})"
        else:
            bound = r.choice([f"{name} < {size}", f"{name} <= {size}", f"{name} < {size} && {name} < m",
                              f"{name} < 20"]) if not unsigned else r.choice(["u < un", "u <= un", "u < 7"])
            header = f"for ({name} = {start}; {bound}; {name} += {step})"
        lines.append(f"{pad}{header}")
        lines.append(f"{pad}  A[{name} + 40] = A[{name} + 40] * 3 + {loop + 1};")
        exited = [e for e in exited if e != name] + [name]
        use = r.choice(["last", "subscript", "loop", "cond", "last", "body", "branch", "counter"])
        target = r.choice(exited)
        slot = r.randint(0, 7)
        if use == "last":
            lines.append(f"{pad}last[{slot}] = last[{slot}] * 7 + {target};")
        elif use == "subscript":
            lines.append(f"{pad}B[{target} + 40] = B[{target} + 40] + {slot + 1};")
        elif use == "cond":
            lines.append(f"{pad}if ({target} > 3)\n{pad}  last[{slot}] = last[{slot}] + 1;")
        elif use == "body" and target != "u":
            # read in a later loop's body, where a loop over it may follow (then the
            # value from the second iteration on is that loop's: refused)
            other = r.choice([e for e in "ijk" if e != target])
            again = r.random() < 0.5
            upper = r.choice(["2", f"{target} % 3 + 1"]) if types[target] != "char" else "2"
            lines.append(f"{pad}for ({other} = 0; {other} < {upper}; {other}++) {{\n"
                         f"{pad}  last[{slot}] = last[{slot}] * 5 + {target};\n"
                         + (f"{pad}  for ({target} = 0; {target} < m; {target}++)\n"
                            f"{pad}    A[{target} + 40] += 1;\n" if again else "") + f"{pad}}}")
            exited = [e for e in exited if e not in (other, target if again else "")] + [other]
        elif use == "counter" and target != "u":
            # a second counter starting from it (the loop's own iterator is another)
            first, second = r.sample([e for e in "ijk" if e != target], 2)
            stepped = r.choice(["++", "++", " += 2", "--"])
            lines.append(f"{pad}for ({first} = 0, {second} = {target}; {first} < 3; {first}++, {second}{stepped})\n"
                         f"{pad}  B[{second} + 40] += {slot + 1};")
            # (both have exit values: the second counter's follows the first's)
            exited = [e for e in exited if e not in (first, second)] + [first, second]
        elif use == "branch" and target != "u":
            # a loop over it in one branch, a read in the other and after the if
            lines.append(f"{pad}if (m > 4)\n{pad}  for ({target} = 1; {target} < m; {target}++)\n"
                         f"{pad}    A[{target} + 40] += 2;\n{pad}else\n{pad}  last[{slot}] = last[{slot}] + {target};")
            if r.random() < 0.3:        # (not known there: refused)
                lines.append(f"{pad}last[{(slot + 1) % 8}] += {target};")
        elif target != "u":
            other = r.choice([e for e in "ijk" if e != target])
            lines.append(f"{pad}for ({other} = {target}; {other} < n; {other}++)\n{pad}  B[{other} + 40] += {slot};")
            exited = [e for e in exited if e != other] + [other]
    body = "\n".join(lines)
    if outer:
        body = f"  for (t = 0; t < 3; t++) {{\n{body}\n  }}"
    declarations = "".join(f"  {types[v]} {v};\n" for v in "ijku") + "  int t;\n"
    return f"""#include <stdio.h>
long A[128], B[128], last[8];

void kernel(int n, int m, unsigned un)
{{
{declarations}#pragma scop
{body}
#pragma endscop
}}

int main(void)
{{
  int sizes[][2] = {{{{-3, 2}}, {{0, 0}}, {{1, 5}}, {{2, 1}}, {{5, 9}}, {{17, 4}}, {{40, 40}}, {{33, 60}}}};
  for (int s = 0; s < 8; s++) {{
    for (int a = 0; a < 128; a++) {{ A[a] = a % 7; B[a] = a % 5; }}
    for (int a = 0; a < 8; a++) last[a] = a;
    kernel(sizes[s][0], sizes[s][1], (unsigned) (sizes[s][0] > 0 ? sizes[s][0] : 0));
    unsigned long sum = 0;
    for (int a = 0; a < 128; a++) sum = sum * 31 + A[a] * 3 + B[a];
    for (int a = 0; a < 8; a++) sum = sum * 17 + last[a];
    printf("%d %lu\\n", sizes[s][0], sum);
  }}
  return 0;
}}
"""


def outputs(path: Path, tag: str) -> list[str] | str:
    """The program's stdout at 1 and 2 threads, or why it failed."""
    binary = path.with_name(tag)
    built = compile_c(path, binary, cflags=CFLAGS, openmp=True)
    if not built.ok:
        return f"build: {built.reason}"
    runs = [run_binary(binary, threads=t, timeout=60) for t in (1, 2)]
    bad = [run.reason for run in runs if not run.ok]
    return f"run: {bad[0]}" if bad else [run.stdout for run in runs]


def run_programs(program, start: int, count: int, out: Path) -> None:
    """Write ``program(seed)`` for each seed, optimize it in every mode, compare each
    output with the original's; print what differs and a one-line count."""
    out.mkdir(parents=True, exist_ok=True)
    equal = refused = other = 0
    for seed in range(start, start + count):
        path = out / f"p{seed}.c"
        path.write_text(program(seed))
        expected = outputs(path, f"p{seed}")
        if isinstance(expected, str) or expected[0] != expected[1]:
            print(f"p{seed}: the original fails or differs between thread counts: {expected}", flush=True)
            other += 1
            continue
        for k, mode in enumerate(MODES):
            result = path.with_name(f"p{seed}.m{k}.c")
            run = subprocess.run([sys.executable, "-m", "polysched", "optimize", str(path), "-o", str(result)] + mode,
                                 capture_output=True, text=True, timeout=600)
            if run.returncode == 2 and ": error: " in run.stderr and not result.exists():
                refused += 1
                continue
            got = outputs(result, f"p{seed}.m{k}") if run.returncode == 0 else f"exit {run.returncode}"
            if got == [expected[0]] * 2:
                equal += 1
            else:
                other += 1
                print(f"p{seed} {' '.join(mode)}: {got if isinstance(got, str) else 'outputs differ'}\n"
                      f"{run.stderr[-1500:]}", flush=True)
    print(f"{count} programs (seeds {start}-{start + count - 1}) x {len(MODES)} modes: {equal} equal, "
          f"{refused} refused, {other} other")


def main():
    run_programs(program, int(sys.argv[1]), int(sys.argv[2]),
                 Path(sys.argv[3] if len(sys.argv) > 3 else "exit_values_random"))


if __name__ == "__main__":
    main()
