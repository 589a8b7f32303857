#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with .gpu/ (from scripts/gpu-bundle.sh) carried along:
# the conformance kit and smoke tests of the GPU backends, then the decode benchmarks; `deviceloss` traps a
# kernel in a process of its own per backend; `model` runs the seams model (kit group 29) in chunks. Writes reports and
# logs into $OUT (or ./gpu-out). Usage: scripts/gpu-run.sh [cuda] [wgpu] [hip] [floor] [bench] [wgpubench] [capturebench] [cachebench] [poolbench] [kernelcache] [nvtx] [multigpu] [gpt] [doctor] [demo] [launchfloor] [launchprofile] [captureprofile] [pdl] [gptpdl] [gptbf16] [gpttune] [pdlprofile] [nccl] [allreduce] [launchab]
# (default: all but the optional ref/ncu/profile steps; `bench` runs cuda plus $BENCH_MORE, `wgpubench` the wgpu
# replay rows beside the plain webgpu.h floor)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
[ -x .gpu/jre/bin/java ] || tar -C .gpu -xJf .gpu/jre.tar.xz
JAVA="$PWD/.gpu/jre/bin/java"
# The wgpu backend loads the Vulkan driver once per JVM (one process-wide WebGPU instance, issue 13 §2); before
# that every runtime loaded it anew and NVIDIA's libnvidia-tls ran glibc's static TLS surplus out after a dozen
# loads ("cannot allocate memory in static TLS block"). The larger surplus stays as a margin for the other steps.
export GLIBC_TUNABLES=glibc.rtld.optional_static_tls=65536
COMMIT=$(cat .gpu/commit)
steps=${*:-cuda wgpu hip floor bench wgpubench demo}
JOPTS=(-Dguice_bytecode_gen_option=DISABLED --enable-native-access=ALL-UNNAMED -XX:+EnableDynamicAgentLoading
       -Dgraphrt.conformance.dir="$OUT" -Dgraphrt.commit="$COMMIT")
{ echo "commit $COMMIT"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; } | tee "$OUT/device.txt"

kit() { # module test-classes... : run the kit and smoke tests of one backend
  local name=$1; shift
  local sel=(); for c in "$@"; do sel+=(--select-class "$c"); done
  "$JAVA" "${JOPTS[@]}" -cp ".gpu/tests/$name:.gpu/lib/*" org.junit.platform.console.ConsoleLauncher execute \
    --disable-banner --details=summary --details-theme=ascii "${sel[@]}" > "$OUT/$name-tests.log" 2>&1
  echo "$name tests: exit $?"; grep -E "tests (successful|failed|aborted|skipped)" "$OUT/$name-tests.log"
}

wgpu_env() { # the Vulkan loader, NVIDIA's ICD and Dawn, once per run
  [ -n "${WGPU_READY:-}" ] && return
  if ls .gpu/gl/*.deb >/dev/null 2>&1; then for f in .gpu/gl/*.deb; do dpkg -x "$f" /; done; ldconfig; fi
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  export GRAPHRT_WEBGPU_LIB=${GRAPHRT_WEBGPU_LIB:-$PWD/.gpu/dawn/libwebgpu_wrapper.so}
  [ -f .gpu/dawn/libwebgpu_wrapper.so.xz ] && [ ! -f .gpu/dawn/libwebgpu_wrapper.so ] && xz -dk .gpu/dawn/libwebgpu_wrapper.so.xz
  WGPU_READY=1
}

wgpu_bench() { # issue 14's rows: GraphRT eager and replay beside the plain webgpu.h floor (same process, interleaved)
  [ -n "${WGPU_BENCHED:-}" ] && return
  WGPU_BENCHED=1
  wgpu_env
  local rounds=${ROUNDS:-15} main=dev.graphrt.examples.bench.DecodeBench
  "$JAVA" "${JOPTS[@]}" -cp ".gpu/lib/*" $main wgpu "$rounds" \
    ${WGPU_ROWS:-256x1000 1024x1000 1024x150 65536x1000 1048576x500 16777216x100} > "$OUT/bench-wgpu.md" 2>"$OUT/bench-wgpu.err"
  echo "bench wgpu: exit $?"; cat "$OUT/bench-wgpu.md"
  # the replay's chunk size measured, not assumed: one pass, and fixed chunks around the adaptive 125
  for chunk in 1000 32 64 256; do
    "$JAVA" "${JOPTS[@]}" -Dgraphrt.option.wgpu.replayChunk=$chunk -cp ".gpu/lib/*" $main wgpu \
      "$rounds" 256x1000 1024x1000 > "$OUT/bench-wgpu-chunk$chunk.md" 2>/dev/null
    echo "bench wgpu replayChunk=$chunk: exit $?"; grep -E "^\| (256|1K) " "$OUT/bench-wgpu-chunk$chunk.md"
  done
  # the unbatched eager path (one submit per launch), for the record
  "$JAVA" "${JOPTS[@]}" -Dgraphrt.option.wgpu.batch=1 -Dbench.noFloor=true -cp ".gpu/lib/*" $main \
    wgpu "$rounds" 256x1000 1024x1000 > "$OUT/bench-wgpu-batch1.md" 2>/dev/null
  echo "bench wgpu batch=1: exit $?"; grep -E "^\| (256|1K) " "$OUT/bench-wgpu-batch1.md"
  echo "== wgpu summary"; grep '^summary:' "$OUT/bench-wgpu.md"
}

hip_env() { # the HIP-on-CUDA test library, built once per job: GraphRT's hip backend over the H200
  [ -n "${GRAPHRT_HIP_LIB:-}" ] && return
  if [ -x backend-hip/src/test/native/build-hip-on-cuda.sh ] && [ -d .gpu/hip ]; then
    backend-hip/src/test/native/build-hip-on-cuda.sh .gpu/hip .gpu/hip-on-cuda > "$OUT/hip-build.log" 2>&1
    echo "hip shim build: $(tail -1 "$OUT/hip-build.log")"
  fi
  [ -f .gpu/hip-on-cuda/libamdhip64.so ] && export GRAPHRT_HIP_LIB=$PWD/.gpu/hip-on-cuda/libamdhip64.so
}

gpt_variant() { # backend property value name: GptDecodeDemo on GPT-2 small with -Dproperty=value, into gpt/name.md
  "$JAVA" "${JOPTS[@]}" -D"$2=$3" -cp ".gpu/lib/*" dev.graphrt.examples.gpt.GptDecodeDemo \
    "$1" gpt2 "${GPT_TOKENS:-64}" "${ROUNDS:-5}" > "$OUT/gpt/$4.md" 2>"$OUT/gpt/$4.err"
  echo "gpt $1 $2=$3 ($4): exit $?"
  grep -E "^kernels:|^weights:|logits of|^\| $1|greedy generation" "$OUT/gpt/$4.md"
}

compare_logits() { # torch-dir graphrt-dir label: the largest error of tokens 0-7's logits, relative to the largest
  python3 - "$@" <<'PY'
import sys, numpy as np, pathlib
torch, graphrt, label = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
worst = 0.0
for k in range(8):
    t, g = torch / f"torch-logits-{k}.bin", graphrt / f"graphrt-logits-{k}.bin"
    if not (t.exists() and g.exists()):
        worst = None; break
    tv, gv = np.fromfile(t, "<f4").astype(np.float64), np.fromfile(g, "<f4").astype(np.float64)
    worst = max(worst, float(np.abs(tv - gv).max() / np.abs(tv).max()))
print(f"logits of tokens 0-7, {label}: max error relative to the largest logit = {worst}")
PY
}

model_chunks() { # name class: group 29 in chunks of $MODEL_CHUNK sequences from $MODEL_SEED, each a seed range;
  # $MODEL_LANES (or $MODEL_LANES_<name>) processes at once, lane k taking chunks k, k + lanes, ...;
  # $MODEL_MAX_CHUNKS in all
  local name=$1 cls=$2 k lanes_of=MODEL_LANES_$1
  local lanes=${!lanes_of:-${MODEL_LANES:-1}}
  for ((k = 0; k < lanes; k++)); do model_lane "$name" "$cls" "$k" "$lanes" > "$OUT/$name-lane-$k.txt" 2>&1 & done
  wait; cat "$OUT/$name"-lane-*.txt; rm -f "$OUT/$name"-lane-*.txt
  echo "$name model: $(cat "$OUT/$name"-passed-* 2>/dev/null | awk '{s += $1} END {print s + 0}') sequences passed"
  rm -f "$OUT/$name"-passed-*
}

model_lane() { # name class lane lanes
  local name=$1 cls=$2 i=$3 lanes=$4 chunk=${MODEL_CHUNK:-2000} deadline=$((SECONDS + ${MODEL_SECONDS:-480})) done=0
  local seed0=${MODEL_SEED:-20251201}
  while [ $SECONDS -lt $deadline ] && [ $i -lt ${MODEL_MAX_CHUNKS:-5} ]; do
    "$JAVA" "${JOPTS[@]}" -Dgraphrt.conformance.dir="$OUT/model-reports/$name-$i" \
      -Dgraphrt.kit.modelSequences=$chunk -Dgraphrt.kit.modelSeed=$((seed0 + i * chunk)) ${MODEL_OPTS:-} \
      -cp ".gpu/tests/$name:.gpu/lib/*" org.junit.platform.console.ConsoleLauncher execute --disable-banner \
      --details=summary --details-theme=ascii \
      --select-unique-id "[engine:junit-jupiter]/[class:$cls]/[nested-class:SeamsModel]" \
      > "$OUT/$name-model-$i.log" 2>&1
    if grep -q "1 tests successful" "$OUT/$name-model-$i.log"; then done=$((done + chunk)); else
      echo "$name model chunk $i (seeds from $((seed0 + i * chunk))): FAILED"; grep -m3 -A12 "=>" "$OUT/$name-model-$i.log"; fi
    echo "$name model chunk $i: $(grep -ho "Test run finished after [0-9]* ms" "$OUT/$name-model-$i.log")"
    i=$((i + lanes))
  done
  echo "$done" > "$OUT/$name-passed-$3"
}

for step in $steps; do
  case $step in
    model) # issue 26: the seams model (kit group 29) on cuda, hip over cuda and wgpu at once, in chunks
      hip_env; wgpu_env
      for b in ${MODEL_BACKENDS:-cuda hip wgpu}; do
        case $b in
          cuda) model_chunks cuda dev.graphrt.backend.cuda.CudaConformanceTest > "$OUT/model-cuda.txt" 2>&1 & ;;
          hip) model_chunks hip dev.graphrt.backend.hip.HipConformanceTest > "$OUT/model-hip.txt" 2>&1 & ;;
          wgpu) model_chunks wgpu dev.graphrt.backend.wgpu.WgpuConformanceTest > "$OUT/model-wgpu.txt" 2>&1 & ;;
        esac
      done
      wait; cat "$OUT"/model-*.txt ;;
    kits) # the three kits at once (each a process of its own), after the environments are ready
      hip_env; wgpu_env
      for b in cuda hip wgpu; do "$0" "$b" > "$OUT/kit-$b.txt" 2>&1 & done
      wait; cat "$OUT"/kit-*.txt ;;
    cuda) kit cuda dev.graphrt.backend.cuda.CudaConformanceTest dev.graphrt.backend.cuda.CudaDeviceSmokeTest \
        dev.graphrt.backend.cuda.CudaSignaturesTest dev.graphrt.backend.cuda.CudaNvtxTest dev.graphrt.backend.cuda.CudaKitHasTeethTest ;;
    nccl) # issue 33: where NCCL is, the facts of its header beside the binding's, then the cuda kit with it (group 32, 1 rank)
      ncclroot=$(python3 -c "import importlib.util as u; print(list(u.find_spec('nvidia.nccl').submodule_search_locations)[0])" 2>/dev/null)
      lib=""; [ -n "$ncclroot" ] && [ -f "$ncclroot/lib/libnccl.so.2" ] && lib="$ncclroot/lib/libnccl.so.2"
      [ -z "$lib" ] && lib=$(ldconfig -p | awk '/libnccl.so.2 /{print $NF; exit}')
      echo "nccl: library ${lib:-not found} (the Python wheel's directory: ${ncclroot:-none})"
      if [ -n "$ncclroot" ] && [ -f "$ncclroot/include/nccl.h" ]; then
        gcc -O1 -I"$ncclroot/include" -I/usr/local/cuda/include -o "$OUT/nccl_probe" examples/src/main/native/nccl_probe.c \
          "$lib" && "$OUT/nccl_probe"
      fi
      command -v all_reduce_perf >/dev/null && echo "nccl-tests: all_reduce_perf present" || echo "nccl-tests: all_reduce_perf absent"
      [ -n "$lib" ] && export GRAPHRT_NCCL_LIB="$lib"
      "$0" cuda
      grep -E "declares|^- result|32. Collectives" "$OUT/cuda.md"; grep -E -B2 -A12 "Collectives|nccl" "$OUT/cuda-tests.log" | head -60 ;;
    allreduce) # issue 33: all-reduce bandwidth, GraphRT beside NCCL's own C program in the same job (every GPU here)
      ncclroot=$(python3 -c "import importlib.util as u; print(list(u.find_spec('nvidia.nccl').submodule_search_locations)[0])" 2>/dev/null)
      export GRAPHRT_NCCL_LIB=${GRAPHRT_NCCL_LIB:-$ncclroot/lib/libnccl.so.2}
      /usr/local/cuda/bin/nvcc -O2 -std=c++17 -I"$ncclroot/include" -o "$OUT/nccl_allreduce_floor" \
        examples/src/main/native/nccl_allreduce_floor.cu -L"$(dirname "$GRAPHRT_NCCL_LIB")" -l:libnccl.so.2 \
        -Xlinker -rpath -Xlinker "$(dirname "$GRAPHRT_NCCL_LIB")" \
        && "$OUT/nccl_allreduce_floor" 0 "${ROUNDS:-20}" ${ALLREDUCE_MIB:-8 32 128 512 1024} > "$OUT/allreduce-c.txt"
      echo "NCCL C floor: exit $?"; cat "$OUT/allreduce-c.txt"; rm -f "$OUT/nccl_allreduce_floor"
      "$JAVA" "${JOPTS[@]}" -Dbench.ncclFloor="$OUT/allreduce-c.txt" -cp ".gpu/lib/*" \
        dev.graphrt.examples.bench.AllReduceBench cuda 0 "${ROUNDS:-20}" ${ALLREDUCE_MIB:-8 32 128 512 1024} \
        > "$OUT/allreduce-cuda.md" 2>"$OUT/allreduce-cuda.err"
      echo "all-reduce GraphRT: exit $?"; cat "$OUT/allreduce-cuda.md"; grep -m5 -E "Exception|Error" "$OUT/allreduce-cuda.err" ;;
    wgpu)
      wgpu_env
      kit wgpu dev.graphrt.backend.wgpu.WgpuConformanceTest dev.graphrt.backend.wgpu.WgpuLaunchTest \
        dev.graphrt.backend.wgpu.WgpuReplayTest dev.graphrt.backend.wgpu.WgpuChunkedReplayTest \
        dev.graphrt.backend.wgpu.WgpuFenceAndErrorTest dev.graphrt.backend.wgpu.WgpuManyRuntimesTest \
        dev.graphrt.backend.wgpu.WgpuProcessInstanceTest
      # issue 13 §2 killed the JVM outright (no summary line): say so loudly, with the crash log if any
      grep -q "tests successful" "$OUT/wgpu-tests.log" || echo "wgpu tests: NO SUMMARY - the JVM died; see wgpu-tests.log"
      ls hs_err_pid*.log >/dev/null 2>&1 && { echo "wgpu: JVM crash log(s):"; mv hs_err_pid*.log "$OUT/"; } ;;
    hip)
      hip_env
      kit hip dev.graphrt.backend.hip.HipConformanceTest dev.graphrt.backend.hip.HipDeviceSmokeTest ;;
    launchfloor) # issue 29: GraphRT's eager and replay beside a plain FFM floor in the same JVM, cuda and hip over cuda
      hip_env
      for b in cuda hip; do
        "$JAVA" "${JOPTS[@]}" -cp ".gpu/lib/*" dev.graphrt.examples.bench.LaunchFloorBench "$b" "${ROUNDS:-9}" \
          > "$OUT/launchfloor-$b.md" 2>"$OUT/launchfloor-$b.err"; echo "launch floor $b: exit $?"
        cat "$OUT/launchfloor-$b.md"; grep -m5 -E "Exception|Error" "$OUT/launchfloor-$b.err"
      done ;;
    launchprofile) # issue 29: where an eager launch's time and heap go: LaunchFloorBench cuda under JFR (profile)
      "$JAVA" "${JOPTS[@]}" -XX:StartFlightRecording=filename="$OUT/launch-cuda.jfr",settings=profile \
        -cp ".gpu/lib/*" dev.graphrt.examples.bench.LaunchFloorBench cuda "${PROFILE_ROUNDS:-700}" 1024x1000 \
        > "$OUT/launchprofile-cuda.md" 2>"$OUT/launchprofile-cuda.err"; echo "launch profile cuda: exit $?"
      cat "$OUT/launchprofile-cuda.md" ;;
    captureprofile) # issue 29: where a capture's and an update's time go: CaptureBench cuda (100 launches) under JFR
      "$JAVA" "${JOPTS[@]}" -XX:StartFlightRecording=filename="$OUT/capture-cuda.jfr",settings=profile${JFR_EVENTS:+,$JFR_EVENTS} \
        -Dbench.warmup="${PROFILE_ROUNDS:-2000}" -cp ".gpu/lib/*" dev.graphrt.examples.bench.CaptureBench cuda 15 100 \
        > "$OUT/captureprofile-cuda.md" 2>"$OUT/captureprofile-cuda.err"; echo "capture profile cuda: exit $?"
      cat "$OUT/captureprofile-cuda.md" ;;
    pdl) # issue 31: the saxpy chain opted into programmatic dependent launch beside plain launches, GraphRT (cuda,
      # then hip over cuda as the undeclared control) after the C program of the same job (plain and PDL graph), twice
      hip_env
      /usr/local/cuda/bin/nvcc -O2 -arch=sm_90 -o "$OUT/dependent_launch_floor" examples/src/main/native/dependent_launch_floor.cu -lcuda
      for pass in 1 2; do
        "$OUT/dependent_launch_floor" "${ROUNDS:-15}" ${PDL_ROWS:-1024x1000 1024x100 65536x1000} > "$OUT/pdl-c-$pass.md"
        echo "PDL C floor, pass $pass: exit $?"; cat "$OUT/pdl-c-$pass.md"
        for b in cuda ${PDL_MORE:-hip}; do
          "$JAVA" "${JOPTS[@]}" -cp ".gpu/lib/*" dev.graphrt.examples.bench.DependentLaunchBench "$b" "${ROUNDS:-15}" \
            ${PDL_ROWS:-1024x1000 1024x100 65536x1000} > "$OUT/pdl-$b-$pass.md" 2>"$OUT/pdl-$b-$pass.err"
          echo "PDL GraphRT $b, pass $pass: exit $?"; cat "$OUT/pdl-$b-$pass.md"; grep -m3 -E "Exception|Error" "$OUT/pdl-$b-$pass.err"
          awk -v pass=$pass -v b=$b '
            FNR == NR && /^c: / { for (i = 2; i <= NF; i++) { split($i, kv, "="); c[$2, kv[1]] = kv[2] } next }
            /^summary: / { for (i = 2; i <= NF; i++) { split($i, kv, "="); g[kv[1]] = kv[2] }; r = "row=" g["row"]
              printf "summary: pdl backend=%s pass=%s %s declared=%s replay_pdl_over_c_graph=%.2f replay_pdl_over_c_pdl_graph=%.2f replay_over_c_graph=%.2f eager_pdl_over_c_eager_pdl=%.2f device_replay_over_c=%.3f device_replay_pdl_over_c=%.3f\n",
                b, pass, r, g["declared"], g["replay_pdl"] / c[r, "graph"], g["replay_pdl"] / c[r, "pdl_graph"],
                g["replay"] / c[r, "graph"], g["eager_pdl"] / c[r, "eager_pdl"],
                g["device_replay"] / c[r, "device_graph"], g["device_replay_pdl"] / c[r, "device_pdl_graph"] }' \
            "$OUT/pdl-c-$pass.md" "$OUT/pdl-$b-$pass.md" | tee -a "$OUT/pdl-summary.txt"
        done
      done
      rm -f "$OUT/dependent_launch_floor" ;;
    gptbf16) # issue 32: bf16 matrices with fp32 arithmetic, cuda, hip and wgpu; PyTorch's bf16 model (eager and CUDA
      # graph) in the same job; logits against PyTorch's bf16 and fp32 ones (the fp32 ones from a gpt step before it)
      mkdir -p "$OUT/gpt"
      for b in ${GPTBF16_BACKENDS:-cuda hip wgpu}; do
        [ "$b" = hip ] && hip_env
        [ "$b" = wgpu ] && wgpu_env
        "$JAVA" "${JOPTS[@]}" -Dgpt.bf16=true -Dgpt.logitsDir="$OUT/gpt/bf16-$b" -cp ".gpu/lib/*" \
          dev.graphrt.examples.gpt.GptDecodeDemo "$b" gpt2 "${GPT_TOKENS:-64}" "${ROUNDS:-5}" \
          > "$OUT/gpt/bf16-$b.md" 2>"$OUT/gpt/bf16-$b.err"
        echo "gpt bf16 $b: exit $?"; grep -E "^kernels:|^weights:|logits of|^\| $b|greedy generation" "$OUT/gpt/bf16-$b.md"
        tail -2 "$OUT/gpt/bf16-$b.err"
      done
      if [ "${GPT_TORCH:-1}" = 1 ]; then
        python3 examples/src/main/python/decode_torch.py --bf16 --out "$OUT/gpt/torch-bf16" --tokens "${GPT_TOKENS:-64}" \
          > "$OUT/gpt/torch-bf16.log" 2>&1; echo "pytorch bf16: exit $?"; tail -8 "$OUT/gpt/torch-bf16.log"
      fi
      for b in ${GPTBF16_BACKENDS:-cuda hip wgpu}; do
        compare_logits "$OUT/gpt/torch-bf16" "$OUT/gpt/bf16-$b" "GraphRT $b bf16 against PyTorch bf16"
        compare_logits "$OUT/gpt/torch" "$OUT/gpt/bf16-$b" "GraphRT $b bf16 against PyTorch fp32"
      done ;;
    gpttune) # issue 32: the cuda step with more threads per gemv row (-Dgpt.tpr, a minimum) and other attention chunks
      mkdir -p "$OUT/gpt"
      for v in ${GPTTUNE:-gpt.tpr=64 gpt.tpr=128 gpt.chunk=16 gpt.chunk=64}; do
        gpt_variant cuda "${v%%=*}" "${v#*=}" "tune-$v"
      done
      wgpu_env # and wgpu's cap on a gemv's workgroups
      for v in ${GPTTUNE_WGPU:-gpt.workgroups=2048 gpt.workgroups=16384 gpt.workgroups=1000000}; do
        gpt_variant wgpu "${v%%=*}" "${v#*=}" "tune-wgpu-$v"
      done ;;
    gptpdl) # issue 31: the GPT-2-small decode step with its kernels plain, then opted into programmatic dependent
      # launch, on cuda (declared) and hip over cuda (not), alternating, twice
      mkdir -p "$OUT/gpt"
      hip_env
      for pass in 1 2; do
        for b in ${GPTPDL_BACKENDS:-cuda hip}; do
          for dep in false true; do
            gpt_variant "$b" gpt.dependent "$dep" "pdl-$b-$dep-$pass"
          done
        done
      done ;;
    gpttrigger) # issue 32: the step opted into programmatic dependent launch, each gemv letting the next kernel start
      # after its row loop (gpt.trigger=late) or only as its blocks exit (exit, the default), beside plain; cuda, twice
      mkdir -p "$OUT/gpt"
      for pass in 1 2; do
        gpt_variant cuda gpt.dependent false "trigger-plain-$pass"
        for t in late exit; do
          JOPTS+=(-Dgpt.trigger="$t")
          gpt_variant cuda gpt.dependent true "trigger-$t-$pass"
          unset 'JOPTS[${#JOPTS[@]}-1]'
        done
      done ;;
    pdlprofile) # issues 29 and 31: the device timeline of the chains of DependentLaunchBench and of its C floor (nsys
      # GPU trace): kernel durations, gaps between kernels and span per kernel, plain and opted in, GraphRT beside C
      NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems*/bin/nsys 2>/dev/null | head -1)
      if [ -z "$NSYS" ]; then echo "pdlprofile: no nsys on this machine"; else
        /usr/local/cuda/bin/nvcc -O2 -arch=sm_90 -o "$OUT/dependent_launch_floor" examples/src/main/native/dependent_launch_floor.cu -lcuda
        "$NSYS" profile -q -t cuda -o "$OUT/pdlprof-c" -f true "$OUT/dependent_launch_floor" 5 1024x1000 65536x1000 > "$OUT/pdlprof-c.md" 2>&1
        "$NSYS" profile -q -t cuda -o "$OUT/pdlprof-graphrt" -f true "$JAVA" "${JOPTS[@]}" -cp ".gpu/lib/*" \
          dev.graphrt.examples.bench.DependentLaunchBench cuda 5 1024x1000 65536x1000 > "$OUT/pdlprof-graphrt.md" 2>&1
        for p in c graphrt; do
          "$NSYS" stats -q -r cuda_gpu_trace -f csv -o "$OUT/pdlprof-$p" "$OUT/pdlprof-$p.nsys-rep" > /dev/null 2>&1
          python3 scripts/kernel_gaps.py "$p" "$OUT"/pdlprof-$p*cuda_gpu_trace*.csv
          "$NSYS" stats -q -r cuda_api_sum -f csv "$OUT/pdlprof-$p.nsys-rep" 2>/dev/null | cut -d, -f1-4,9 | head -16 > "$OUT/pdlprof-$p-api.csv"
          echo "== $p API calls"; cat "$OUT/pdlprof-$p-api.csv"
        done
        rm -f "$OUT/dependent_launch_floor" "$OUT"/*.sqlite "$OUT"/*.nsys-rep
      fi ;;
    floor)
      /usr/local/cuda/bin/nvcc -O2 -arch=sm_90 -o "$OUT/decode_floor" examples/src/main/native/decode_floor.cu \
        && "$OUT/decode_floor" "${ROUNDS:-15}" > "$OUT/bench-c-floor.md"; echo "C floor: exit $?"; cat "$OUT/bench-c-floor.md"
      rm -f "$OUT/decode_floor" ;;
    streamfloor) # issue 32: a chain of kernels that only stream the decode step's bytes, in its order and sizes
      /usr/local/cuda/bin/nvcc -O2 -arch=sm_90 -o "$OUT/stream_floor" examples/src/main/native/stream_floor.cu \
        && "$OUT/stream_floor" "${ROUNDS:-50}" > "$OUT/stream-floor.md"; echo "stream floor: exit $?"
      cat "$OUT/stream-floor.md"; rm -f "$OUT/stream_floor" ;;
    gptlayer) # issue 32: Nsight Compute's full sections for one replayed layer's kernels (the first layer, position 1023)
      mkdir -p "$OUT/gpt"
      ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
      timeout 500 "$ncu" --clock-control none --set full --nvtx \
        --nvtx-include "regex:graphrt cuda stream [0-9]+: replay" --launch-skip $(( ${GPT_LAUNCHES:-62} * 8 )) \
        --launch-count "${GPT_LAYER_LAUNCHES:-5}" -o "$OUT/gpt/layer" \
        "$JAVA" "${JOPTS[@]}" -cp ".gpu/lib/*" dev.graphrt.examples.gpt.GptDecodeDemo cuda gpt2 2 1 \
        > "$OUT/gpt/layer.log" 2>&1; echo "ncu layer: exit $?"
      "$ncu" --import "$OUT/gpt/layer.ncu-rep" --page details > "$OUT/gpt/layer-details.txt" 2>&1
      grep -E "^  [a-z_]+|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Waves Per SM|Block Limit|One or More|Grid Size|Elapsed Cycles|L2 Hit Rate" \
        "$OUT/gpt/layer-details.txt" | head -150 ;;
    ref) # plain FFM programs with no framework (not part of the project), when the bundle holds them in .gpu/ref
      if [ -f .gpu/ref/WebGpuPoc.class ] && [ -f .gpu/dawn/libwebgpu_wrapper.so ]; then
        VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json "$JAVA" --enable-native-access=ALL-UNNAMED \
          -cp .gpu/ref WebGpuPoc .gpu/dawn/libwebgpu_wrapper.so vulkan 1000 > "$OUT/ref-webgpu.txt" 2>&1
        echo "raw WebGPU: exit $?"; grep -E "^[A-E] |^---" "$OUT/ref-webgpu.txt"
      fi
      if [ -f .gpu/ref/Poc.class ]; then
        for n in 1024 65536; do
          "$JAVA" --enable-native-access=ALL-UNNAMED -cp .gpu/ref Poc --n $n --launches 1000 --reps 15 --no-probes \
            --no-overhead > "$OUT/ref-ffm-$n.txt" 2>&1; echo "raw FFM n=$n: exit $?"; grep -E "^\| (eager|graph: 1 x)" "$OUT/ref-ffm-$n.txt"
        done
      fi ;;
    ncu) # per-kernel GPU time of GraphRT's saxpy (NVRTC) and the C floor's (nvcc), eager launches only
      NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
      if [ -n "$NCU" ]; then
        /usr/local/cuda/bin/nvcc -O2 -arch=sm_90 -o "$OUT/decode_floor" examples/src/main/native/decode_floor.cu
        "$NCU" --metrics gpu__time_duration.sum -k saxpy -s 200 -c 50 --csv "$JAVA" "${JOPTS[@]}" -cp ".gpu/lib/*" \
          dev.graphrt.examples.bench.DecodeBench cuda 1 1024x200 > "$OUT/ncu-graphrt.csv" 2>/dev/null
        "$NCU" --metrics gpu__time_duration.sum -k saxpy -s 200 -c 50 --csv "$OUT/decode_floor" 1 1024x200 \
          > "$OUT/ncu-c.csv" 2>/dev/null
        for p in graphrt c; do
          printf 'ncu %s: kernels %s, median ns ' "$p" "$(grep -c gpu__time_duration "$OUT/ncu-$p.csv")"
          grep gpu__time_duration "$OUT/ncu-$p.csv" | awk -F'","' '{gsub(/[",]/,"",$NF); print $NF}' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
        done
        rm -f "$OUT/decode_floor"
      fi ;;
    profile) # where the time goes: CUDA API and kernel summaries of GraphRT's bench and of the C floor
      NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems*/bin/nsys 2>/dev/null | head -1)
      if [ -z "$NSYS" ]; then echo "profile: no nsys on this machine"; ls /usr/local/cuda/bin | tr '\n' ' '; echo; else
        "$NSYS" profile -q -t cuda -o "$OUT/prof-graphrt" -f true "$JAVA" "${JOPTS[@]}" -cp ".gpu/lib/*" \
          dev.graphrt.examples.bench.DecodeBench cuda 5 1024x1000 > /dev/null 2>&1
        /usr/local/cuda/bin/nvcc -O2 -arch=sm_90 -o "$OUT/decode_floor" examples/src/main/native/decode_floor.cu
        "$NSYS" profile -q -t cuda -o "$OUT/prof-c" -f true "$OUT/decode_floor" 5 1024x1000 > /dev/null 2>&1
        for p in graphrt c; do
          echo "== profile $p"; "$NSYS" stats -q -r cuda_api_sum,cuda_gpu_kern_sum -f csv "$OUT/prof-$p.nsys-rep" 2>/dev/null \
            | grep -E "cuLaunchKernel|cudaLaunchKernel|cuCtxSetCurrent|cuGraphLaunch|cudaGraphLaunch|cuStreamSynchronize|cudaStreamSynchronize|saxpy|Time \(%\)" \
            | cut -d, -f1-8 | head -14
        done
        rm -f "$OUT/decode_floor" "$OUT"/*.sqlite "$OUT"/*.nsys-rep
      fi ;;
    deviceloss) # a trap in a process of its own: the runtime is lost and contained; what a new runtime gets
      for b in cuda hip; do
        [ "$b" = hip ] && hip_env
        "$JAVA" "${JOPTS[@]}" -cp ".gpu/lib/*" dev.graphrt.examples.DeviceLossProbe "$b" > "$OUT/deviceloss-$b.txt" 2>&1
        echo "device loss $b: exit $?"; grep -vE "^(Warning|    at|\[main\] WARN)" "$OUT/deviceloss-$b.txt"
      done ;;
    demo)
      "$JAVA" "${JOPTS[@]}" -cp ".gpu/lib/*" dev.graphrt.examples.DecodeLoopDemo > "$OUT/demo.txt" 2>&1
      echo "demo: exit $?"; grep -vE "^(Warning|    at| - While)" "$OUT/demo.txt" | grep -v '^$' ;;
    bench)
      for b in cuda ${BENCH_MORE:-}; do
        if [ "$b" = wgpu ]; then wgpu_bench; continue; fi
        "$JAVA" "${JOPTS[@]}" -cp ".gpu/lib/*" dev.graphrt.examples.bench.DecodeBench "$b" "${ROUNDS:-15}" \
          > "$OUT/bench-$b.md" 2>"$OUT/bench-$b.err"; echo "bench $b: exit $?"; cat "$OUT/bench-$b.md"
      done ;;
    wgpubench) wgpu_bench ;;
    cachebench) # issue 17: a 10,000-token decode of varying lengths through the graph cache, eager beside cached
      for b in cpu cuda hip; do
        [ "$b" = hip ] && hip_env
        "$JAVA" "${JOPTS[@]}" -cp ".gpu/lib/*" dev.graphrt.examples.bench.CacheBench "$b" "${TOKENS:-10000}" 20 \
          > "$OUT/cache-$b.md" 2>"$OUT/cache-$b.err"; echo "cache bench $b: exit $?"; cat "$OUT/cache-$b.md"
      done ;;
    kernelcache) # issue 18: open + compiling the demo's kernels, a process each: cache off, then cold, then warm
      for b in cuda hip; do
        [ "$b" = hip ] && hip_env
        dir=$(mktemp -d)
        for mode in off cold warm warm warm off; do
          c=$dir; [ $mode = off ] && c=off
          "$JAVA" "${JOPTS[@]}" -cp ".gpu/lib/*" dev.graphrt.examples.bench.KernelCacheBench "$b" "$c" \
            2>>"$OUT/kernelcache-$b.err" | sed "s/^/$mode /"
        done | tee "$OUT/kernelcache-$b.txt"
        ls -l "$dir/$b" | tail -n +2 | awk '{print "entry", $5, "bytes"}' | tee -a "$OUT/kernelcache-$b.txt"
        # where a warm process spends its time: the debug log with millisecond stamps
        "$JAVA" "${JOPTS[@]}" -Dorg.slf4j.simpleLogger.defaultLogLevel=debug -Dorg.slf4j.simpleLogger.showDateTime=true \
          -Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS -cp ".gpu/lib/*" dev.graphrt.examples.bench.KernelCacheBench \
          "$b" "$dir" > "$OUT/kernelcache-$b-debug.log" 2>&1
        grep -E "probe|opened|NVRTC|hiprtc|kernel cache|compiled kernel|open_ms" "$OUT/kernelcache-$b-debug.log" | cut -c1-150 | head -16
      done ;;
    nvtx) # issue 18: the cuda backend's NVTX ranges, recorded by a stand-in libnvToolsExt, then NVIDIA's tools
      gcc -shared -fPIC -O1 -o "$OUT/libnvtx_record.so" backend-cuda/src/test/native/nvtx_record.c -lpthread
      GRAPHRT_NVTX_RECORD="$OUT/nvtx-record.txt" "$JAVA" "${JOPTS[@]}" -Dgraphrt.nvtx.recorder="$OUT/libnvtx_record.so" \
        -cp ".gpu/tests/cuda:.gpu/lib/*" org.junit.platform.console.ConsoleLauncher execute --disable-banner \
        --details=tree --details-theme=ascii --select-class dev.graphrt.backend.cuda.CudaNvtxTest > "$OUT/nvtx-tests.log" 2>&1
      echo "nvtx test: exit $?"; grep -E "tests (successful|failed|skipped)" "$OUT/nvtx-tests.log"; head -8 "$OUT/nvtx-record.txt"
      rm -f "$OUT/libnvtx_record.so"
      timeout 60 find /usr /opt -xdev \( -name 'libnvToolsExt.so*' -o -name 'libnvtx3interop.so*' -o -name nsys -o -name ncu \) 2>/dev/null \
        | head -20 | tee "$OUT/nvtx-find.txt"
      lib=$(grep -m1 -E 'libnvtx3interop.so|libnvToolsExt.so' "$OUT/nvtx-find.txt")
      nsys=$(command -v nsys || grep -m1 '/nsys$' "$OUT/nvtx-find.txt")
      ncu=$(command -v ncu || grep -m1 '/ncu$' "$OUT/nvtx-find.txt")
      # the doctor's cuda self-test: a capture of 16 launches, two replays, a synchronize; the default option
      # 'auto' marks because the tools set NVTX_INJECTION64_PATH
      run=("$JAVA" "${JOPTS[@]}" -cp ".gpu/lib/*" dev.graphrt.examples.Doctor cuda)
      if [ -n "$nsys" ]; then
        timeout 180 "$nsys" profile --trace=cuda,nvtx --force-overwrite true -o "$OUT/graphrt-nvtx" "${run[@]}" \
          > "$OUT/nsys.log" 2>&1; echo "nsys profile: exit $?"; tail -4 "$OUT/nsys.log"
        for f in "$OUT"/graphrt-nvtx.*; do echo "nsys wrote $f"; done
        timeout 120 "$nsys" stats --report nvtx_sum --format csv "$OUT/graphrt-nvtx.nsys-rep" > "$OUT/nsys-nvtx.csv" 2>&1
        echo "nsys stats: exit $?"; head -12 "$OUT/nsys-nvtx.csv"
        rm -f "$OUT"/graphrt-nvtx.qdstrm "$OUT"/graphrt-nvtx.sqlite
      fi
      if [ -n "$ncu" ]; then
        timeout 150 "$ncu" --nvtx --nvtx-include "regex:graphrt cuda stream [0-9]+: replay" --launch-count 3 \
          --section LaunchStats "${run[@]}" > "$OUT/ncu-nvtx.log" 2>&1
        echo "ncu: exit $?"; grep -E "==PROF==|==WARNING==|NVTX|graphrt|saxpy|Block Size" "$OUT/ncu-nvtx.log" | head -24
      fi ;;
    multigpu) # issue 19, on the 2-GPU machine: devices replaying at once and peer copies, each beside plain CUDA in
      # the same job (C, then Java, twice), then the cuda kit on each device by its ordinal
      nvidia-smi topo -m > "$OUT/topo.txt" 2>&1; head -6 "$OUT/topo.txt"
      /usr/local/cuda/bin/nvcc -O2 -arch=sm_90 -std=c++17 -o "$OUT/multi_gpu_floor" examples/src/main/native/multi_gpu_floor.cu
      /usr/local/cuda/bin/nvcc -O2 -std=c++17 -o "$OUT/peer_copy_floor" examples/src/main/native/peer_copy_floor.cu
      for pass in 1 2; do
        "$OUT/multi_gpu_floor" "${REPLAYS:-200}" "${ROUNDS:-7}" 1024x1000 65536x1000 > "$OUT/multigpu-c-$pass.md"
        echo "multi-GPU C floor, pass $pass: exit $?"; cat "$OUT/multigpu-c-$pass.md"
        "$JAVA" "${JOPTS[@]}" -cp ".gpu/lib/*" dev.graphrt.examples.bench.MultiDeviceBench cuda "${REPLAYS:-200}" \
          "${ROUNDS:-7}" 1024x1000 65536x1000 > "$OUT/multigpu-cuda-$pass.md" 2>"$OUT/multigpu-cuda-$pass.err"
        echo "multi-GPU GraphRT, pass $pass: exit $?"; cat "$OUT/multigpu-cuda-$pass.md"
        "$OUT/peer_copy_floor" 256 20 > "$OUT/peer-c-$pass.md"; echo "peer copy C, pass $pass: exit $?"; cat "$OUT/peer-c-$pass.md"
        "$JAVA" "${JOPTS[@]}" -cp ".gpu/lib/*" dev.graphrt.examples.bench.PeerCopyBench cuda 256 20 \
          > "$OUT/peer-cuda-$pass.md" 2>"$OUT/peer-cuda-$pass.err"
        echo "peer copy GraphRT, pass $pass: exit $?"; cat "$OUT/peer-cuda-$pass.md"
      done
      rm -f "$OUT/multi_gpu_floor" "$OUT/peer_copy_floor"
      for d in 0 1; do
        mkdir -p "$OUT/device$d"
        "$JAVA" "${JOPTS[@]}" -Dgraphrt.conformance.dir="$OUT/device$d" -Dgraphrt.kit.deviceIndex=$d \
          -cp ".gpu/tests/cuda:.gpu/lib/*" org.junit.platform.console.ConsoleLauncher execute --disable-banner \
          --details=summary --details-theme=ascii --select-class dev.graphrt.backend.cuda.CudaConformanceTest \
          > "$OUT/device$d/kit.log" 2>&1
        echo "cuda kit on device $d: exit $?"; grep -E "tests (successful|failed|aborted|skipped)" "$OUT/device$d/kit.log"
        head -6 "$OUT/device$d/cuda.md"
      done ;;
    gpt) # issue 20: the GPT-2-small decode step, captured once and replayed per token, on cuda, hip and wgpu; PyTorch
      # on the same shapes and weights (eager and CUDA graph, its logits compared with GraphRT's); the summed kernel
      # time of one replayed token (Nsight Compute, position 1023) as the floor
      mkdir -p "$OUT/gpt"
      for b in ${GPT_BACKENDS:-cuda hip wgpu}; do
        [ "$b" = hip ] && hip_env
        [ "$b" = wgpu ] && wgpu_env
        "$JAVA" "${JOPTS[@]}" -Dgpt.chunk="${GPT_CHUNK:-32}" -Dgpt.logitsDir="$OUT/gpt/$b" -cp ".gpu/lib/*" \
          dev.graphrt.examples.gpt.GptDecodeDemo \
          "$b" gpt2 "${GPT_TOKENS:-64}" "${ROUNDS:-5}" > "$OUT/gpt/$b.md" 2>"$OUT/gpt/$b.err"
        echo "gpt $b: exit $?"; cat "$OUT/gpt/$b.md"; tail -2 "$OUT/gpt/$b.err"
      done
      if [ "${GPT_TORCH:-1}" = 1 ]; then
        python3 examples/src/main/python/decode_torch.py --out "$OUT/gpt/torch" --tokens "${GPT_TOKENS:-64}" \
          > "$OUT/gpt/torch.log" 2>&1; echo "pytorch: exit $?"; tail -22 "$OUT/gpt/torch.log"
      fi
      for b in ${GPT_BACKENDS:-cuda hip wgpu}; do
        compare_logits "$OUT/gpt/torch" "$OUT/gpt/$b" "GraphRT $b against PyTorch"
      done
      ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
      skip=$(( ${GPT_LAUNCHES:-62} * 8 ))
      timeout 400 "$ncu" --clock-control none --cache-control none --csv --nvtx \
        --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
        --nvtx-include "regex:graphrt cuda stream [0-9]+: replay" --launch-skip "$skip" --launch-count "${GPT_LAUNCHES:-62}" \
        "$JAVA" "${JOPTS[@]}" -Dgpt.chunk="${GPT_CHUNK:-32}" -cp ".gpu/lib/*" dev.graphrt.examples.gpt.GptDecodeDemo cuda gpt2 2 1 \
        > "$OUT/gpt/ncu.csv" 2>"$OUT/gpt/ncu.err"; echo "ncu: exit $?"
      python3 - "$OUT/gpt/ncu.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
head, body = rows[0], rows[1:]
name, metric, unit, value = (head.index(k) for k in ("Kernel Name", "Metric Name", "Metric Unit", "Metric Value"))
launch = head.index("ID")
time_scale = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}
byte_scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9}
us, dram, launches = collections.Counter(), collections.Counter(), collections.defaultdict(set)
for r in body:
    v = float(r[value].replace(",", ""))
    launches[r[name]].add(r[launch])
    if r[metric] == "gpu__time_duration.sum":
        us[r[name]] += v * time_scale.get(r[unit], float("nan"))
    else:
        dram[r[name]] += v * byte_scale.get(r[unit], float("nan"))
total_us, total_b = sum(us.values()), sum(dram.values())
print(f"kernels profiled: {sum(len(v) for v in launches.values())}; summed kernel time of one replayed token at "
      f"position 1023: {total_us:.1f} us; DRAM {total_b / 1e6:.1f} MB, {total_b / total_us / 1e6:.2f} TB/s")
print("| kernel | launches | µs | DRAM MB | TB/s |")
print("|---|---|---|---|---|")
for k, v in us.most_common():
    print(f"| {k} | {len(launches[k])} | {v:.1f} | {dram[k] / 1e6:.1f} | {dram[k] / v / 1e6:.2f} |")
PY
      ;;
    doctor) # issue 18: every provider's probe, then each available backend's device, capabilities and self-test
      hip_env
      wgpu_env
      "$JAVA" "${JOPTS[@]}" -cp ".gpu/lib/*" dev.graphrt.examples.Doctor > "$OUT/doctor.txt" 2>"$OUT/doctor.err"
      echo "doctor: exit $?"; cat "$OUT/doctor.txt" ;;
    poolbench) # issue 17: the device memory of 8 graphs of 8 shapes, separate and in one graph pool
      for b in cuda hip; do
        [ "$b" = hip ] && hip_env
        "$JAVA" "${JOPTS[@]}" -cp ".gpu/lib/*" dev.graphrt.examples.bench.PoolBench "$b" > "$OUT/pool-$b.md" \
          2>"$OUT/pool-$b.err"; echo "pool bench $b: exit $?"; cat "$OUT/pool-$b.md"
      done ;;
    launchab) # issue 29: the launch path at two builds in one job, alternating: .gpu/base's jars first on the class
      # path (a build of an earlier commit, copied there by hand), then this bundle's; LaunchFloorBench and CaptureBench
      /usr/local/cuda/bin/nvcc -O2 -arch=sm_90 -o "$OUT/capture_floor" examples/src/main/native/capture_floor.cu \
        && "$OUT/capture_floor" "${ROUNDS:-15}" 100 1000 > "$OUT/capture-c-floor.md"; echo "capture C floor: exit $?"
      rm -f "$OUT/capture_floor"
      hip_env
      for b in ${LAUNCHAB_BACKENDS:-cuda hip}; do
        for v in ${LAUNCHAB_ORDER:-base new base new}; do
          cp=".gpu/lib/*"; [ "$v" = base ] && cp=".gpu/base/*:.gpu/lib/*"
          "$JAVA" "${JOPTS[@]}" -cp "$cp" dev.graphrt.examples.bench.LaunchFloorBench "$b" "${ROUNDS:-9}" \
            >> "$OUT/launchab-$b-$v.md" 2>>"$OUT/launchab-$b-$v.err"; echo "launch floor $b $v: exit $?"
          grep "^summary" "$OUT/launchab-$b-$v.md" | tail -3
          "$JAVA" "${JOPTS[@]}" -Dbench.cFloor="$OUT/capture-c-floor.md" -cp "$cp" \
            dev.graphrt.examples.bench.CaptureBench "$b" "${ROUNDS:-15}" 100 1000 >> "$OUT/captureab-$b-$v.md" \
            2>>"$OUT/captureab-$b-$v.err"; echo "capture bench $b $v: exit $?"
          grep "^summary" "$OUT/captureab-$b-$v.md" | tail -2
        done
      done ;;
    capturebench) # issue 15: capture, update and rebind costs beside the plain CUDA C program, in the same job
      /usr/local/cuda/bin/nvcc -O2 -arch=sm_90 -o "$OUT/capture_floor" examples/src/main/native/capture_floor.cu \
        && "$OUT/capture_floor" "${ROUNDS:-15}" 100 1000 > "$OUT/capture-c-floor.md"; echo "capture C floor: exit $?"
      cat "$OUT/capture-c-floor.md"; rm -f "$OUT/capture_floor"
      for b in cuda hip; do
        [ "$b" = hip ] && hip_env
        "$JAVA" "${JOPTS[@]}" -Dbench.cFloor="$OUT/capture-c-floor.md" -cp ".gpu/lib/*" \
          dev.graphrt.examples.bench.CaptureBench "$b" "${ROUNDS:-15}" 100 1000 > "$OUT/capture-$b.md" 2>"$OUT/capture-$b.err"
        echo "capture bench $b: exit $?"; cat "$OUT/capture-$b.md"
      done ;;
  esac
done
# Everything in one archive too (the device run returns only a few files).
tar -C "$OUT" -czf "$OUT/all-logs.tgz" --exclude=all-logs.tgz . 2>/dev/null
