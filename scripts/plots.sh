#!/usr/bin/env bash
# Regenerates the benchmark plots: the newest run's main table of each H200/lavapipe decode doc is extracted into
# docs/benchmarks/data/*.csv by scripts/BenchCsv.java (the figures are read from the markdown, never typed here),
# then drawn to docs/benchmarks/*.png by scripts/PlotBenchmarks.java (java.awt, headless; no dependency beyond the JDK).
# Which table is "the newest run" is chosen below by its heading (docs/benchmarks/data/README.md says why);
# when a doc gains a newer run, move the anchor and run this again.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/java-home.sh
java="$JAVA_HOME/bin/java"
bench=docs/benchmarks
data=$bench/data
mkdir -p "$data"

csv() { "$java" scripts/BenchCsv.java "$@"; }

csv $bench/cuda-h200.md "## Run G," $data/cuda-h200.csv \
  "cuda on an NVIDIA H200: GraphRT beside the C floor, per kernel" "µs per kernel (median)" \
  "row=N x K=N x K" \
  "graphrt_eager_us=GraphRT eager µs/kernel=GraphRT eager" \
  "c_eager_us=C eager=C eager (CUDA runtime)" \
  "graphrt_replay_us=GraphRT replay µs/kernel=GraphRT replay" \
  "c_graph_us=C graph=C graph (CUDA graph)"

csv $bench/hip-on-cuda-h200.md "# hip (HIP API over CUDA)" $data/hip-on-cuda-h200.csv \
  "hip (HIP API over CUDA) on an NVIDIA H200, per kernel (no C floor in this run)" "µs per kernel (median)" \
  "row=N x K=N x K" \
  "graphrt_eager_us=eager µs/kernel=GraphRT hip eager" \
  "graphrt_replay_us=replay µs/kernel=GraphRT hip replay" \
  "cuda_replay_us=cuda replay, same run=GraphRT cuda replay (same run)"

csv $bench/wgpu-h200.md "## Issue 14:" $data/wgpu-h200.csv \
  "wgpu (Dawn, Vulkan) on an NVIDIA H200: GraphRT beside the plain webgpu.h floor" "µs per dispatch (median)" \
  "row=N x K=N x K" \
  "graphrt_eager_us=eager, batched=GraphRT eager (batched)" \
  "graphrt_replay_us=replay=GraphRT replay" \
  "floor_us=floor: best=webgpu.h floor (best chunking)"

csv $bench/wgpu-lavapipe.md "## Issue 14:" $data/wgpu-lavapipe.csv \
  "wgpu on lavapipe (a 2-core CPU, shared with builds): GraphRT beside the webgpu.h floor" \
  "µs per dispatch (median of 3-4 runs)" \
  "row=N x K=N x K" \
  "graphrt_eager_us=eager, batched=GraphRT eager (batched)" \
  "graphrt_replay_us=replay=GraphRT replay" \
  "floor_us=floor: best=webgpu.h floor (best chunking)"

for name in cuda-h200 hip-on-cuda-h200 wgpu-h200 wgpu-lavapipe; do
  "$java" -Djava.awt.headless=true scripts/PlotBenchmarks.java "$data/$name.csv" "$bench/$name.png"
done

csv $bench/gpt-decode-h200.md "## Issue 32, 2026-12-04" $data/gpt-decode-h200.csv \
  "GPT-2 small decode step on an NVIDIA H200 (position 1,023): GraphRT beside PyTorch" "µs per token (median)" \
  "row=implementation=implementation" \
  "eager_us=eager µs/token=eager" \
  "graph_us=replay µs/token=replay (graph)"
"$java" -Djava.awt.headless=true scripts/PlotBenchmarks.java $data/gpt-decode-h200.csv $bench/gpt-decode-h200.png
