#!/usr/bin/env bash
# Reproduce the headline table: the 30 classic kernels at LARGE, 2 threads, median of 5,
# orig vs {isl,pluto} x {sched,tile,tile-par} (+ Polly when installed), verified first.
# Usage: bash experiments/headline.sh [OUTDIR]   (takes a while: ~30-60 min on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-experiments/results}
mkdir -p "$out"
make venv >/dev/null
.venv/bin/polysched bench --classic --dataset LARGE --threads 2 --repeat 5 -o "$out/headline.json" --overwrite \
    || [ $? -eq 1 ]   # 1: some (kernel, variant) failed; the report shows which
.venv/bin/polysched report "$out/headline.json" --format md --plot "$out/headline.png" > "$out/headline.md"
.venv/bin/python experiments/gemm_vs_blas.py --threads 2 --repeat 5 | tee "$out/gemm_vs_blas.txt"
echo "tables: $out/headline.md, chart: $out/headline.png"
