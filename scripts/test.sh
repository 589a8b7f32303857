#!/usr/bin/env bash
# Runs every test of every module. Prepares what the tests need first (idempotent, installs as root on
# Debian): the HIP runtime and headers for the hip backend's tests (scripts/setup-hip.sh), the WebGPU
# library and a Vulkan driver for the wgpu backend's tests (scripts/setup-webgpu.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-hip.sh
scripts/setup-webgpu.sh >&2
[ -f .natives/webgpu.env ] && . .natives/webgpu.env
exec scripts/mvn.sh clean verify "$@"
