#!/usr/bin/env bash
# Installs what the hip backend's tests need on a Debian machine without an AMD GPU (idempotent; root only,
# else it says what is missing and the tests that need it are skipped with that reason):
#   libamdhip64-5    the real ROCm 5.2 HIP runtime: the probe loads it and must report "no HIP device" cleanly
#   libamdhip64-dev  hip_runtime_api.h and hiprtc.h: every FFM downcall signature and error code is checked
#                    against these headers (HipSignaturesTest, HipErrorMappingTest)
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
PKGS=(libamdhip64-5 libamdhip64-dev)

log() { printf 'setup-hip: %s\n' "$*" >&2; }
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

command -v dpkg-query >/dev/null || { log "not a Debian machine: install ${PKGS[*]} (or the distribution's equivalent) yourself"; exit 0; }
missing=()
for p in "${PKGS[@]}"; do installed "$p" || missing+=("$p"); done
[ ${#missing[@]} -eq 0 ] && { log "ok (${PKGS[*]})"; exit 0; }
if [ "$(id -u)" -ne 0 ]; then
  log "not root: cannot install ${missing[*]}; the tests that need them are skipped with that reason"
  exit 0
fi
log "installing ${missing[*]}"
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
log "ok (${PKGS[*]})"
