"""Random reductions into memory that is no variable (out-parameters ``*s``, ``(*s)``,
``s[0]``; struct members ``st->x``, ``g.x``, ``st->in.y``): each program runs
``polysched optimize`` in a random mode (``--parallel``, ``--tile --parallel``,
``--parallel --fuse no``), and the original and the output, both built with ``gcc -O2
-fopenmp -ffp-contract=off -fsanitize=undefined``, print the same at sizes 0, 1, 7,
1000 and 20000 (a NULL out-parameter at size 0 when no update runs), at 1 and 2 threads.

usage: python experiments/cell_reductions_random.py START COUNT [OUT_DIR]
(session 53: seeds 0-199, 200 ok, 0 wrong)"""
import os
import random
import subprocess
import sys

PY = sys.executable
TYPES = ["char", "signed char", "unsigned char", "short", "unsigned short", "int", "unsigned", "long",
         "unsigned long", "long long", "size_t"]
DATA = ["short", "int", "unsigned char", "long", "unsigned"]
FORMS = ["{c} += {e};", "{c} -= {e};", "{c} *= {m};", "{c} |= {e};", "{c} ^= {e};", "{c} &= {e} | 0x10;",
         "{c} = {c} + {e};", "{c} = {e} + {c};", "{c}++;", "++{c};", "{c}--;", "{c} = {c} * {m};"]
SPELL = {"ptr": ["*s", "(*s)", "s[0]"], "member": ["st->x"], "global": ["g.x"], "nested": ["st->in.y"]}


def program(rng):
    ctype, dtype = rng.choice(TYPES), rng.choice(DATA)
    kind = rng.choice(list(SPELL))
    form = rng.choice(FORMS)
    cond = rng.random() < 0.35
    nest = rng.choice(["1d", "inner", "time", "outer"])
    signed = not (ctype.startswith("unsigned") or ctype == "size_t" or ctype == "char")
    cell = rng.choice(SPELL[kind])
    e = rng.choice(["a[i]", "a[i] + 1", "(a[i] & 7)", "i", "a[i] > 3", "2 * a[i] - i"])
    m = "a[i] % 2 == 0 ? 1 : -1" if signed else "(a[i] & 3) + 1"
    m = f"({m})"
    if nest != "1d":
        e = e.replace("i", "j") if nest != "outer" else e
        m = m.replace("i", "j") if nest != "outer" else m
    stmt = form.format(c=cell, e=e, m=m)
    if cond:
        stmt = f"if (a[{'j' if nest in ('inner', 'time') else 'i'}] % 3 == 1) {stmt}"
    if nest == "1d":
        loop = f"  for (int i = 0; i < n; i++)\n    {stmt}\n"
    elif nest == "inner":
        loop = f"  for (int i = 0; i < 3; i++)\n    for (int j = 0; j < n; j++)\n      {stmt}\n"
    elif nest == "time":
        loop = f"  for (int t = 0; t < 2; t++) {{\n    b[t] = b[t] + 1;\n    for (int j = 0; j < n; j++)\n      {stmt}\n  }}\n"
    else:
        loop = f"  for (int i = 0; i < n; i++)\n    for (int j = 0; j < 4; j++)\n      {stmt}\n"
    decl = {"ptr": f"{ctype} *s", "member": "struct S *st", "global": "int unused", "nested": "struct S *st"}[kind]
    src = f"""#include <stdio.h>
#include <stdlib.h>
struct In {{ {ctype} y; }};
struct S {{ long pad; {ctype} x; struct In in; }};
struct S g;
void kernel(int n, const {dtype} *a, long *b, {decl}) {{
#pragma scop
{loop}#pragma endscop
}}
int main(void) {{
  int sizes[] = {{0, 1, 7, 1000, 20000}};
  for (int k = 0; k < 5; k++) {{
    int n = sizes[k];
    {dtype} *a = malloc(sizeof({dtype}) * (n + 1));
    long b[2] = {{0, 0}};
    for (int i = 0; i < n; i++) a[i] = ({dtype})((i * 2654435761u >> 7) % 97);
    {ctype} cellv = ({ctype})5;
    struct S st = {{0, ({ctype})5, {{({ctype})7}}}};
    g.x = ({ctype})3;
"""
    arg = {"ptr": "n ? &cellv : 0" if not cond else "&cellv", "member": "&st", "global": "0", "nested": "&st"}[kind]
    if kind == "ptr" and nest in ("inner", "time", "outer"):
        arg = "&cellv"
    src += f"""    kernel(n, a, b, {arg});
    printf("%d %lld %lld %lld %lld %ld\\n", n, (long long)cellv, (long long)st.x, (long long)st.in.y, (long long)g.x, b[0] + b[1]);
    free(a);
  }}
  return 0;
}}
"""
    return src


def sh(cmd, timeout=120, env=None):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout, env=env, text=True)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def main():
    start, count = int(sys.argv[1]), int(sys.argv[2])
    out = sys.argv[3] if len(sys.argv) > 3 else "/tmp/cell_reductions_random"
    os.makedirs(out, exist_ok=True)
    tally = {}
    for seed in range(start, start + count):
        rng = random.Random(seed)
        src = program(rng)
        mode = rng.choice([["--parallel"], ["--tile", "--parallel"], ["--parallel", "--fuse", "no"]])
        c = f"{out}/p{seed}.c"
        open(c, "w").write(src)
        flags = ["gcc", "-O2", "-fopenmp", "-ffp-contract=off", "-fsanitize=undefined", "-fno-sanitize-recover",
                 "-DPOLYSCHED_PARALLEL_MIN_WORK=0", "-w"]
        rc, so, se = sh(flags + ["-o", f"{out}/p{seed}.orig", c])
        if rc != 0:
            print(seed, "ORIG BUILD", se[:200]); tally["bad"] = tally.get("bad", 0) + 1; continue
        rc, ref, se = sh([f"{out}/p{seed}.orig"])
        if rc != 0:
            print(seed, "ORIG RUN", se[:200]); tally["bad"] = tally.get("bad", 0) + 1; continue
        rc, so, se = sh([PY, "-m", "polysched", "optimize", c, "-o", f"{out}/p{seed}.opt.c", *mode])
        if rc != 0:
            print(seed, "OPT rc", rc, se[-300:]); tally["opt"] = tally.get("opt", 0) + 1; continue
        text = open(f"{out}/p{seed}.opt.c").read()
        par = "_partial" in text
        rc, so, se = sh(flags + ["-o", f"{out}/p{seed}.opt", f"{out}/p{seed}.opt.c"])
        if rc != 0:
            print(seed, "OPT BUILD", se[:300]); tally["build"] = tally.get("build", 0) + 1; continue
        verdict = "ok"
        for t in ("1", "2"):
            rc, got, se = sh([f"{out}/p{seed}.opt"], env=dict(os.environ, OMP_NUM_THREADS=t))
            if rc != 0 or got != ref:
                verdict = f"WRONG t={t} rc={rc} {se[:200]}"
                break
        key = verdict if verdict == "ok" else "wrong"
        tally[key] = tally.get(key, 0) + 1
        tally["cell-parallel"] = tally.get("cell-parallel", 0) + par
        if verdict != "ok":
            print(seed, verdict, mode)
    print("tally", tally)


if __name__ == "__main__":
    main()
