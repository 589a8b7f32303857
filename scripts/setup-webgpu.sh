#!/usr/bin/env bash
# Installs what the wgpu backend needs to run on a machine without a GPU, into .natives/ (ignored by git).
# Idempotent: a second run only checks. Run it from anywhere; as root on Debian 12 (bookworm) it also
# installs the few system packages the drivers need. CI runs it before the wgpu tests.
#
#   .natives/dawn/libwebgpu_wrapper.so   Google Dawn (webgpu.h C API) from the npm package
#                                        bun-webgpu-linux-x64@0.1.7, sha256-checked
#   .natives/lavapipe/root/...           Mesa >= 25 lavapipe (CPU Vulkan) from the <codename>-backports
#                                        suite of the machine's own Debian mirror, unpacked privately
#                                        (the system's Mesa is left alone)
#   .natives/lavapipe/lvp_icd.json       its Vulkan ICD manifest with an absolute library_path
#   .natives/webgpu.env                  the environment below, to `source` before running Java
#
# The environment (the wgpu backend finds Dawn under .natives/ of the working directory or any parent
# without it; the Vulkan loader needs the driver variables):
#   GRAPHRT_WEBGPU_LIB   path of libwebgpu_wrapper.so (or of a libwgpu_native.so of the same header generation)
#   VK_ICD_FILENAMES     the private lavapipe manifest: Dawn's Vulkan backend then sees only lavapipe
#   LD_LIBRARY_PATH      the private lib dir first (lavapipe wants libdrm >= 2.4.121)
#   LP_NUM_THREADS=0     llvmpipe runs tiny dispatches inline: much faster for test suites
#   EGL_PLATFORM=surfaceless  for the headless OpenGL ES fallback (stock Mesa llvmpipe) when Vulkan is absent
#
# Without root, or when the backports suite cannot be reached, the script still fetches Dawn and says
# what is missing; the backend then falls back to OpenGL ES on whatever Mesa the machine has.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

ROOT=$(cd "$(dirname "$0")/.." && pwd)
NATIVES=${GRAPHRT_NATIVES_DIR:-$ROOT/.natives}
DAWN_PACKAGE=bun-webgpu-linux-x64@0.1.7
DAWN_TGZ=bun-webgpu-linux-x64-0.1.7.tgz
DAWN_SHA256=3190c3777f2c07fcf6a0640833cbf5d0cde859dc53aed6d9083946d093198788
DAWN_LIB=$NATIVES/dawn/libwebgpu_wrapper.so
LVP=$NATIVES/lavapipe
LVP_LIBDIR=$LVP/root/usr/lib/x86_64-linux-gnu
LVP_ICD=$LVP/lvp_icd.json
# Packages unpacked privately from backports; every other dependency of the driver comes from the system.
PRIVATE_PKGS=(mesa-vulkan-drivers libdrm2 libdrm-amdgpu1)
# Headless OpenGL ES fallback on stock Mesa (EGL + llvmpipe); Dawn dlopens the unversioned libEGL.so (libegl-dev).
GLES_PKGS=(libegl1 libegl-dev libegl-mesa0 libgl1-mesa-dri)

log() { printf 'setup-webgpu: %s\n' "$*" >&2; }
is_root() { [ "$(id -u)" -eq 0 ]; }
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

system_apt_updated=0
apt_install() { # installs missing system packages (root only)
  local missing=() p
  for p in "$@"; do installed "$p" || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if ! is_root; then log "not root: cannot install ${missing[*]} (install them, or run as root)"; return 1; fi
  if [ $system_apt_updated -eq 0 ]; then apt-get update -qq; system_apt_updated=1; fi
  log "installing ${missing[*]}"
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# ---- 1. Dawn ------------------------------------------------------------------------------------------
sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$DAWN_SHA256" ]; }
fetch_dawn() {
  if sha_ok "$DAWN_LIB"; then return 0; fi
  command -v npm >/dev/null || apt_install npm
  local tmp; tmp=$(mktemp -d)
  log "fetching $DAWN_PACKAGE with npm pack"
  (cd "$tmp" && npm pack --silent "$DAWN_PACKAGE" >/dev/null)
  tar -xzf "$tmp/$DAWN_TGZ" -C "$tmp" package/libwebgpu_wrapper.so
  if ! sha_ok "$tmp/package/libwebgpu_wrapper.so"; then
    rm -rf "$tmp"
    log "sha256 of libwebgpu_wrapper.so from $DAWN_PACKAGE does not match $DAWN_SHA256: refusing it"
    exit 1
  fi
  mkdir -p "$(dirname "$DAWN_LIB")"
  mv "$tmp/package/libwebgpu_wrapper.so" "$DAWN_LIB.part" && mv "$DAWN_LIB.part" "$DAWN_LIB"
  rm -rf "$tmp"
}

# ---- 2. The Debian mirror the machine already uses, and the suite's backports --------------------------
codename() { . /etc/os-release && printf '%s' "${VERSION_CODENAME:-}"; }
# Prints the first URI of an enabled "deb" source for suite $1, from one-line and deb822 source files.
mirror_uri() {
  local suite=$1 f
  {
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk -v s="$suite" '$1 == "deb" { i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
                                     if ($(i + 1) == s) { print $i; exit } }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v s="$suite" '
      function flush() { if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " s " ") && enabled != "no" && uri != "") print uri
                         types = suites = uri = enabled = "" }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      tolower($1) == "types:"   { $1 = ""; types = $0 }
      tolower($1) == "suites:"  { $1 = ""; suites = $0 }
      tolower($1) == "uris:"    { uri = $2 }
      tolower($1) == "enabled:" { enabled = tolower($2) }
      END { flush() }' "$f"
  done
  } | grep -E '^https?://' | head -n1
}

# ---- 3. lavapipe from backports, unpacked privately ----------------------------------------------------
fetch_lavapipe() {
  if [ -f "$LVP_LIBDIR/libvulkan_lvp.so" ] && [ -f "$LVP_ICD" ] && [ -f "$LVP/.complete" ]; then
    return 0
  fi
  local code uri apt_dir
  code=$(codename)
  if [ -z "$code" ]; then log "no VERSION_CODENAME in /etc/os-release: skipping lavapipe"; return 1; fi
  uri=$(mirror_uri "$code" || true)
  if [ -z "$uri" ]; then log "no enabled 'deb' source for suite $code: skipping lavapipe"; return 1; fi
  apt_dir=$NATIVES/apt
  rm -rf "$apt_dir" && mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/parts" "$apt_dir/debs"
  printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s-backports main\n' "$uri" "$code" \
    >"$apt_dir/sources.list"
  local o=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=$apt_dir/parts"
           -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o "Debug::NoLocking=1")
  is_root && o+=(-o "APT::Sandbox::User=root")
  log "reading $code-backports from the machine's mirror"
  if ! apt-get "${o[@]}" update -qq >/dev/null 2>&1; then log "apt-get update of $code-backports failed"; return 1; fi
  # The driver's other dependencies (Vulkan loader, LLVM, xcb, ...) are ordinary system libraries.
  local deps
  deps=$(apt-cache "${o[@]}" show "mesa-vulkan-drivers/$code-backports" 2>/dev/null | sed -n 's/^Depends: //p' | head -n1 \
         | tr ',' '\n' | sed -E 's/\|.*//; s/\(.*\)//; s/:any//; s/[[:space:]]//g' | grep -v '^$' \
         | grep -vxF -e libdrm2 -e libdrm-amdgpu1 || true)
  if [ -z "$deps" ]; then log "mesa-vulkan-drivers not found in $code-backports"; return 1; fi
  # shellcheck disable=SC2086
  apt_install $deps || return 1
  (cd "$apt_dir/debs" && apt-get "${o[@]}" download -qq -t "$code-backports" "${PRIVATE_PKGS[@]}" >/dev/null 2>&1) \
    || { log "apt-get download of ${PRIVATE_PKGS[*]} failed"; return 1; }
  rm -rf "$LVP" && mkdir -p "$LVP/root"
  local d
  for d in "$apt_dir"/debs/*.deb; do dpkg-deb -x "$d" "$LVP/root"; done
  [ -f "$LVP_LIBDIR/libvulkan_lvp.so" ] || { log "libvulkan_lvp.so missing from the unpacked packages"; return 1; }
  sed -E "s#\"library_path\": *\"[^\"]*\"#\"library_path\": \"$LVP_LIBDIR/libvulkan_lvp.so\"#" \
    "$LVP/root/usr/share/vulkan/icd.d/lvp_icd.json" >"$LVP_ICD"
  ls "$apt_dir"/debs/*.deb | xargs -n1 basename >"$LVP/.complete"
  rm -rf "$apt_dir"
}

# ---- 4. env file ---------------------------------------------------------------------------------------
write_env() {
  local have_lvp=$1
  {
    echo "# written by scripts/setup-webgpu.sh; source it before running the wgpu backend"
    echo "export GRAPHRT_WEBGPU_LIB=$DAWN_LIB"
    echo "export LP_NUM_THREADS=0"
    echo "export EGL_PLATFORM=surfaceless"
    if [ "$have_lvp" = 1 ]; then
      echo "export VK_ICD_FILENAMES=$LVP_ICD"
      echo "export LD_LIBRARY_PATH=$LVP_LIBDIR\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
    fi
  } >"$NATIVES/webgpu.env"
}

main() {
  mkdir -p "$NATIVES"
  fetch_dawn
  local have_lvp=0
  if fetch_lavapipe; then
    have_lvp=1
  else
    log "no private lavapipe: the backend will use OpenGL ES (EGL surfaceless) on the system's Mesa"
  fi
  apt_install "${GLES_PKGS[@]}" || log "OpenGL ES fallback packages missing: ${GLES_PKGS[*]}"
  write_env $have_lvp
  log "Dawn:     $DAWN_LIB (sha256 ok)"
  [ $have_lvp = 1 ] && log "lavapipe: $LVP_ICD ($(tr '\n' ' ' <"$LVP/.complete"))"
  log "env:      source $NATIVES/webgpu.env"
  cat "$NATIVES/webgpu.env"
}

main "$@"
