"""Random banded and triangular nests, the register-tiling rule's inputs: matrix-vector
(``y[i] += A[i][j] * x[j]``), two updates, syrk-like (``C[i][j] += A[i][k] * A[j][k]``) and
scaling bodies over ``j`` from ``0`` or ``max(i - KL, 0)`` up to ``i``, ``n - 1`` or
``min(i + KU, n - 1)``, with the widths as size macros, parameters or literals, ``int`` or
``long`` iterators and ``double``, ``float`` or ``int`` data. Each program's main runs
sizes 0-47 with several widths and prints checksums. Each goes through ``polysched
optimize --tile --parallel --verify`` (original and output compiled alike, outputs
compared at 1 and 2 threads); the script counts verified outputs, code generation
fallbacks, jammed bands and bands left unjammed by the parameter rule, and the slowest
code generation.

From seed 240 on, also trmm's, symm's and a lower gemm's triangles (``k`` from ``i + 1``,
``i`` or ``0`` up to ``n``, ``i`` or ``i + 1``), whose loop along which every store stays put
is jammed along the triangle.

usage: python experiments/banded_jam_random.py START COUNT [OUT_DIR]
(session 54: seeds 0-139 at 93ca0f4: 140 verified, 0 fallbacks, 25 jammed, 47 left
unjammed by the rule; the code before dfd1d26 on those 47: 22 fell back to the untiled
schedule after the 10 s code generation budget; seeds 140-179 at 6840a5b: 40 verified, 0
fallbacks, 4 jammed, 12 left unjammed; session 58 at a96f06e, seeds 180-239: 60 verified, 0
fallbacks, 12 jammed, 25 left unjammed; with the triangles, seeds 240-299: 60 verified, 0
fallbacks, 33 jammed, 10 left unjammed, slowest code generation 2.3 s)"""
import os
import random
import re
import subprocess
import sys


def program(seed):
    r = random.Random(seed)
    how = r.choice(["macro", "param", "literal"])
    kl, ku = r.randint(0, 4), r.randint(0, 4)
    W = {"macro": ("KL", "KU"), "param": ("kl", "ku"), "literal": (str(kl), str(ku))}[how]
    lo = r.choice([f"(i - {W[0]} > 0 ? i - {W[0]} : 0)", f"i - {W[0]} > 0 ? i - {W[0]} : 0", "0", f"(i > {W[0]} ? i - {W[0]} : 0)"])
    hi_strict = r.random() < 0.5
    hi = r.choice([f"(i + {W[1]} < n - 1 ? i + {W[1]} : n - 1)", "i", f"n - 1"])
    if lo == "0" and hi == "n - 1":
        hi = f"(i + {W[1]} < n - 1 ? i + {W[1]} : n - 1)"
    itype = r.choice(["int", "long"])
    dtype = r.choice(["double", "double", "float", "int"])
    # from seed 240 (session 58), also the triangles of the loop that keeps its stores
    # (trmm's k > i, symm's k < i), jammed since 656a0fd
    kind = r.choice(["matvec", "matvec2", "syrk", "scal"] + (["trmm", "symm", "gemm_lower"] if seed >= 240 else []))
    k_lo, k_hi = r.choice([("i + 1", "n"), ("i", "n"), ("0", "i"), ("0", "i + 1")])
    triangle = f"for ({itype} k = {k_lo}; k < {k_hi}; k++)"
    if kind == "trmm":
        nest = f"for ({itype} i = 0; i < n; i++)\n    for ({itype} j = 0; j < m; j++)\n      {triangle}\n" \
               f"        C[i][j] += A[k][i] * C[k][j];"
    elif kind == "symm":
        nest = f"for ({itype} i = 0; i < n; i++)\n    for ({itype} j = 0; j < m; j++)\n      {triangle}\n" \
               f"        C[k][j] += A[i][k] * A[i][j];"
    elif kind == "gemm_lower":
        nest = f"for ({itype} i = 0; i < n; i++)\n    {triangle}\n      for ({itype} j = 0; j < m; j++)\n" \
               f"        C[i][j] += A[i][k] * A[k][j];"
    elif kind == "matvec":
        body = "y[i] += A[i][j] * x[j];"
        nest = f"for ({itype} i = 0; i < n; i++)\n    for ({itype} j = {lo}; j <= {hi}; j++)\n      {body}"
    elif kind == "matvec2":
        body = "y[i] = y[i] + A[i][j] * x[j];\n      z[j] += A[i][j];"
        nest = f"for ({itype} i = 0; i < n; i++)\n    for ({itype} j = {lo}; j <= {hi}; j++) {{\n      {body}\n    }}"
    elif kind == "syrk":
        body = "C[i][j] += A[i][k] * A[j][k];"
        nest = f"for ({itype} i = 0; i < n; i++)\n    for ({itype} k = 0; k < m; k++)\n      for ({itype} j = {lo}; j <= {hi}; j++)\n        {body}"
    else:
        body = "A[i][j] = A[i][j] * 2 + x[j];"
        nest = f"for ({itype} i = 0; i < n; i++)\n    for ({itype} j = {lo}; j <= {hi}; j++)\n      {body}"
    macros = f"#define KL {kl}\n#define KU {ku}\n" if how == "macro" else ""
    params = "int n, int m" + (", int kl, int ku" if how == "param" else "")
    args = "n, m" + (", kl, ku" if how == "param" else "")
    return f"""#include <stdio.h>
{macros}#define S 48
static {dtype} A[S][S], C[S][S], x[S], y[S], z[S];
void kernel({params}) {{
#pragma scop
  {nest}
#pragma endscop
}}
int main(void) {{
  int ns[] = {{0, 1, 2, 5, 13, 47}};
  for (int c = 0; c < 6; c++) for (int kl = 0; kl < 4; kl += 3) for (int ku = 0; ku < 5; ku += 2) {{
    for (int i = 0; i < S; i++) {{
      x[i] = ({dtype})(i % 9); y[i] = ({dtype})(i % 4); z[i] = 0;
      for (int j = 0; j < S; j++) {{ A[i][j] = ({dtype})((i * 3 + j * 7) % 19); C[i][j] = ({dtype})((i + j) % 5); }}
    }}
    int n = ns[c], m = 3 + c;
    (void)kl; (void)ku;
    kernel({args});
    double s = 0;
    for (int i = 0; i < S; i++) {{ s += y[i] * (i + 1) + z[i] * (i + 2) + x[i];
      for (int j = 0; j < S; j++) s += (A[i][j] + C[i][j]) * ((i * 5 + j) % 11); }}
    printf("%d %d %d %.17g\\n", n, kl, ku, s);
  }}
  return 0;
}}
"""


def main():
    start, count = int(sys.argv[1]), int(sys.argv[2])
    out = sys.argv[3] if len(sys.argv) > 3 else "banded_jam_random"
    os.makedirs(out, exist_ok=True)
    verified = fallbacks = jammed = unjammed = 0
    slowest = (0, None)
    for seed in range(start, start + count):
        path = os.path.join(out, f"p{seed}.c")
        with open(path, "w") as f:
            f.write(program(seed))
        run = subprocess.run([sys.executable, "-m", "polysched", "optimize", path, "-o", path[:-2] + ".out.c",
                              "--tile", "--parallel", "--verify"], capture_output=True, text=True, timeout=600)
        log = run.stdout + run.stderr
        ok = run.returncode == 0 and "verify: equal" in log
        verified += ok
        # (the budget's notice; not "the region is kept as written" of a schedule with nothing to do)
        fallbacks += bool(re.search(r"^polysched: .*; the region is (generated from|kept as written)", log, re.M))
        jammed += "unroll-and-jam member" in log
        unjammed += "no unroll-and-jam: a parameter shifts" in log
        codegen = re.search(r"codegen (\d+) ms", log)
        if codegen and int(codegen.group(1)) > slowest[0]:
            slowest = (int(codegen.group(1)), seed)
        if not ok:
            print(f"p{seed}: NOT VERIFIED (exit {run.returncode})\n{log[-2000:]}", flush=True)
    print(f"{count} programs (seeds {start}-{start + count - 1}): {verified} verified, {fallbacks} code "
          f"generation fallbacks, {jammed} jammed, {unjammed} left unjammed by the parameter rule; "
          f"slowest code generation {slowest[0]} ms (p{slowest[1]})")


if __name__ == "__main__":
    main()
