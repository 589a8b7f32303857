#!/usr/bin/env bash
# Builds the HIP-on-CUDA test library (hip_on_cuda.cpp) as libamdhip64.so: HIP's declared ABI over the CUDA
# driver API and NVRTC, so GraphRT's hip backend runs for real on an NVIDIA GPU. Runs ON THE GPU MACHINE
# (or anywhere with a C++17 g++, ROCm's HIP headers and CUDA's cuda.h).
#
#   build-hip-on-cuda.sh HIP_INCLUDE [OUT_DIR]
#
#   HIP_INCLUDE  the directory holding hip/hip_runtime_api.h (a copy of Debian's /usr/include, or the hip
#                directory itself); also read from $HIP_INCLUDE when no argument is given
#   OUT_DIR      where libamdhip64.so goes (default: backend-hip/target/hip-on-cuda next to this script)
# Environment:
#   CUDA_HOME=/usr/local/cuda      for include/cuda.h (and include/nvrtc.h when present: then the NVRTC
#                                  declarations are checked against it at compile time)
#   CUDA_LINK="..."                how to link libcuda (default: $CUDA_HOME/lib64/stubs/libcuda.so, else the
#                                  libcuda.so.1 ldconfig knows); e.g. /tmp/fakecuda/libcuda.so.1 for the fake driver
#   HIP_ON_CUDA_EXTRAS=0           leave out hipGraphUpload and hipGraphDebugDotPrint, as in ROCm 5.2
#   CXX=g++
# Then point the backend at it: export GRAPHRT_HIP_LIB=OUT_DIR/libamdhip64.so
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
hip_include=${1:-${HIP_INCLUDE:-}}
if [ -z "$hip_include" ]; then
  echo "usage: $0 HIP_INCLUDE [OUT_DIR]   (HIP_INCLUDE holds hip/hip_runtime_api.h)" >&2
  exit 2
fi
if [ -f "$hip_include/hip_runtime_api.h" ] && [ ! -f "$hip_include/hip/hip_runtime_api.h" ]; then
  hip_include=$(dirname "$hip_include")   # given the hip directory itself
fi
if [ ! -f "$hip_include/hip/hip_runtime_api.h" ]; then
  echo "error: $hip_include/hip/hip_runtime_api.h not found (copy Debian's /usr/include/hip from libamdhip64-dev)" >&2
  exit 2
fi
out=${2:-$here/../../../target/hip-on-cuda}
cuda_home=${CUDA_HOME:-/usr/local/cuda}
if [ ! -f "$cuda_home/include/cuda.h" ]; then
  echo "error: $cuda_home/include/cuda.h not found (set CUDA_HOME)" >&2
  exit 2
fi
link=${CUDA_LINK:-}
if [ -z "$link" ]; then
  if [ -f "$cuda_home/lib64/stubs/libcuda.so" ]; then
    link="-L$cuda_home/lib64/stubs -lcuda"
  else
    lib=$( (ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null || true) | awk '/libcuda\.so\.1 .*x86-64/ {print $NF; exit}')
    for candidate in "$lib" /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 /usr/local/nvidia/lib64/libcuda.so.1; do
      if [ -n "$candidate" ] && [ -f "$candidate" ]; then link=$candidate; break; fi
    done
  fi
fi
if [ -z "$link" ]; then
  echo "error: no libcuda to link (set CUDA_LINK)" >&2
  exit 2
fi
mkdir -p "$out"
# shellcheck disable=SC2086 # $link may be two words
${CXX:-g++} -std=c++17 -O2 -Wall -Wextra -shared -fPIC \
  -D__HIP_PLATFORM_AMD__ -DHIP_ON_CUDA_EXTRAS="${HIP_ON_CUDA_EXTRAS:-1}" \
  -I"$hip_include" -I"$cuda_home/include" \
  "$here/hip_on_cuda.cpp" -o "$out/libamdhip64.so" \
  -Wl,--no-undefined $link -ldl -lpthread
echo "built $out/libamdhip64.so"
echo "export GRAPHRT_HIP_LIB=$(cd "$out" && pwd)/libamdhip64.so"
