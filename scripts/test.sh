#!/usr/bin/env bash
# Runs every test of every module. Prepares what the tests need first (idempotent): the WebGPU library
# and a Vulkan driver for the wgpu backend's tests (scripts/setup-webgpu.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x scripts/setup-webgpu.sh ]; then
  scripts/setup-webgpu.sh >&2
  [ -f .natives/webgpu.env ] && . .natives/webgpu.env
fi
exec scripts/mvn.sh verify "$@"
