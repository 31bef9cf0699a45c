"""Whole-pipeline time (optimize --tile --parallel --budget 0, wall seconds and the
phase times it prints) on d-deep stencils with an anti-diagonal neighbour, d = 2..10,
each output verified (1 and 2 threads). Sources and outputs go to WORKDIR/depthD.c
(a new temporary directory unless --workdir).

    .venv/bin/python experiments/pipeline_depth.py [--max-depth 10] [--workdir DIR]"""
import argparse, subprocess, sys, tempfile, time, re
parser = argparse.ArgumentParser(description="Whole-pipeline time on d-deep stencils, d = 2..MAX, each "
                                             "output verified.")
parser.add_argument("--max-depth", type=int, default=10, choices=range(2, 13), metavar="2..12")
parser.add_argument("--workdir", help="where the sources and outputs go (default: a new temporary directory)")
args = parser.parse_args()
workdir = args.workdir or tempfile.mkdtemp(prefix="pipeline-depth-")
names = "abcdefghijkl"
for d in range(2, args.max_depth + 1):
    its = names[:d]
    idx = lambda sh: "".join(f"[{v}{'' if s == 0 else ('+1' if s > 0 else '-1')}]" for v, s in zip(its, sh))
    reads = [idx([-1 if k == j else 0 for k in range(d)]) for j in range(d)]
    diag = idx([(-1 if k % 2 == 0 else 1) if k < d - 1 else 0 for k in range(d)])
    loops = "".join(f"{' ' * k}for ({v} = 1; {v} <= N; {v}++)\n" for k, v in enumerate(its))
    body = f"A{idx([0]*d)} = (" + " + ".join("A" + r for r in reads) + f") * 0.125 + A{diag};\n"
    dims = "[N+2]" * d
    src = f"""#include <stdio.h>
#define N 2
double A{dims};
int main(void) {{
  int {', '.join(its)};
#pragma scop
{loops}{body}#pragma endscop
  printf("%.17g\\n", A{'[1]' * d});
  return 0;
}}
"""
    open(f"{workdir}/depth{d}.c", "w").write(src)
    t = time.time()
    r = subprocess.run([sys.executable, "-m", "polysched", "optimize", f"{workdir}/depth{d}.c", "-o", f"{workdir}/depth{d}.out.c",
                        "--tile", "--parallel", "--budget", "0"], capture_output=True, text=True, timeout=900)
    wall = time.time() - t
    line = [l for l in r.stdout.splitlines() + r.stderr.splitlines() if l.startswith("time:")]
    v = subprocess.run([sys.executable, "-m", "polysched", "verify", f"{workdir}/depth{d}.c", f"{workdir}/depth{d}.out.c"],
                       capture_output=True, text=True, timeout=900)
    print(d, f"{wall:.1f}s", line[0] if line else r.stderr[-200:], v.stdout.strip().split(":")[0], flush=True)
