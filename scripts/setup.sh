#!/usr/bin/env bash
# Brings a machine to the point where `npm start` and `npm test` can run. Runs before each of
# them, so every step first checks whether there is anything to do and returns at once if not.
# `--tests` also builds what only the tests need (MinIO, the S3-compatible server).
# The slow independent steps (apt, npm, the Temporal CLI build) run side by side; each says how long it took.
set -euo pipefail

FOR_TESTS=false
if [ "${1:-}" = "--tests" ]; then
  FOR_TESTS=true
fi

cd "$(dirname "$0")/.."

log() { printf 'setup: %s\n' "$*" >&2; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

ensure_node_modules() {
  if [ -f node_modules/.package-lock.json ] && [ ! package.json -nt node_modules/.package-lock.json ] \
    && { [ ! -f package-lock.json ] || [ ! package-lock.json -nt node_modules/.package-lock.json ]; } \
    && [ -z "$(find patches -newer node_modules/.package-lock.json -print -quit 2>/dev/null)" ]; then
    return
  fi
  # Not `npm ci`: the registry mirror these machines reach lacks other platforms' optional packages
  # (@swc/core-darwin-*), which `npm ci` demands to see in the lock file; `npm install` follows the
  # lock file's versions all the same. Its postinstall applies patches/ (patch-package); a patch
  # newer than the last install brings it here again.
  log "installing npm packages"
  npm install --no-audit --no-fund >&2
}

# Renders run in chrome-headless-shell (the same pixels as full Chromium for half its CPU; video
# frames are drawn on demand in it), video needs ffmpeg, and templates name common font families that must resolve
# to real fonts rather than a fallback, or images differ from what designers expect. The world's
# scripts draw as glyphs, not boxes: fonts-noto-core has Thai, Devanagari, Bengali, Tamil, Arabic and
# Hebrew, fonts-noto-cjk Chinese, Japanese and Korean, fonts-noto-color-emoji colour emoji.
# poppler-utils (pdftoppm, pdftotext, pdfinfo, pdffonts) and qpdf let the tests look inside rendered
# PDFs, and check PDF/A files structurally (veraPDF is not packaged by Debian).
SYSTEM_PACKAGES=(
  chromium-headless-shell ffmpeg fontconfig
  fonts-dejavu-core fonts-liberation2 fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji
  fonts-roboto fonts-open-sans fonts-lato
  poppler-utils qpdf
)
# The multi-host fault test (npm run test:faults) makes hosts of network namespaces (iproute2) and
# cuts faults into their links with nftables. The studio's tests drive it in full Chromium, the
# browser its users have, which the service itself does not need.
if [ "$FOR_TESTS" = true ]; then
  SYSTEM_PACKAGES+=(chromium iproute2 nftables)
fi

is_installed() {
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

has_candidate() {
  local candidate
  candidate="$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2 }')"
  [ -n "$candidate" ] && [ "$candidate" != "(none)" ]
}

ensure_system_packages() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    [ -x /usr/lib/chromium/chromium-headless-shell ] || log "warning: no chrome-headless-shell and no apt; install it yourself and set CHROMIUM_PATH"
    return
  fi
  local missing=()
  local pkg
  for pkg in "${SYSTEM_PACKAGES[@]}"; do
    is_installed "$pkg" || missing+=("$pkg")
  done
  if [ -x /usr/lib/chromium/chromium-headless-shell ] && command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1 \
    && [ "${#missing[@]}" -eq 0 ]; then
    return
  fi
  # A package this Debian release does not ship stays "missing" forever; with package lists present
  # that is known without a network round trip, so only refresh the lists when it can help.
  local lists_present=false
  if compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
    lists_present=true
  fi
  local installable=()
  for pkg in "${missing[@]}"; do
    if [ "$lists_present" = false ] || has_candidate "$pkg"; then
      installable+=("$pkg")
    fi
  done
  if [ "${#installable[@]}" -eq 0 ]; then
    return
  fi
  if [ -n "$SUDO" ] && ! command -v sudo >/dev/null 2>&1; then
    log "warning: missing ${installable[*]}; run as root or install sudo to install them"
    return
  fi
  log "installing system packages: ${installable[*]}"
  $SUDO apt-get -o DPkg::Lock::Timeout=120 update -qq >&2
  local available=()
  for pkg in "${installable[@]}"; do
    if has_candidate "$pkg"; then
      available+=("$pkg")
    else
      log "skipping $pkg: not available in this Debian release"
    fi
  done
  if [ "${#available[@]}" -gt 0 ]; then
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 install -y -qq \
      --no-install-recommends "${available[@]}" >&2
  fi
}

ensure_temporal_cli() {
  if [ -n "${TEMPORAL_CLI:-}" ] && [ -x "${TEMPORAL_CLI}" ]; then
    return
  fi
  if command -v temporal >/dev/null 2>&1; then
    return
  fi
  # Go's own installer puts it here, outside the default PATH of non-login shells.
  if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
    PATH="/usr/local/go/bin:$PATH"
  fi
  if ! command -v go >/dev/null 2>&1; then
    if [ -x "${HOME}/go/bin/temporal" ]; then
      return
    fi
    log "warning: no Temporal CLI and no Go toolchain; set TEMPORAL_ADDRESS or TEMPORAL_CLI"
    return
  fi
  local gopath
  gopath="$(go env GOPATH)"
  if [ -x "${gopath}/bin/temporal" ]; then
    return
  fi
  log "building the Temporal CLI (once, takes a few minutes)"
  go install github.com/temporalio/cli/cmd/temporal@v1.5.1 >&2
}

# Tests of the S3 storage adapter run against a real S3-compatible server. MinIO builds with plain
# `go install` (no replace directives), so a Go toolchain is all it takes; unlike the Temporal CLI it is
# only needed by tests, so without Go this is a warning and TEST_S3_ENDPOINT can point at a server.
ensure_minio() {
  if [ -n "${MINIO_BINARY:-}" ] && [ -x "${MINIO_BINARY}" ]; then
    return
  fi
  if command -v minio >/dev/null 2>&1 || [ -x "${HOME}/go/bin/minio" ]; then
    return
  fi
  if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
    PATH="/usr/local/go/bin:$PATH"
  fi
  if ! command -v go >/dev/null 2>&1; then
    log "warning: no MinIO and no Go toolchain; S3 storage tests need TEST_S3_ENDPOINT or MINIO_BINARY"
    return
  fi
  if [ -x "$(go env GOPATH)/bin/minio" ]; then
    return
  fi
  log "building MinIO for the storage tests (once, takes several minutes)"
  go install github.com/minio/minio@latest >&2
}

# The studio (/studio) is a built page: build it when it is missing or older than its sources.
ensure_studio() {
  if [ -f studio/dist/index.html ] && [ -z "$(find studio domain -newer studio/dist/index.html -type f -not -path 'studio/dist/*' -print -quit)" ]; then
    return
  fi
  log "building the studio"
  node_modules/.bin/node node_modules/vite/bin/vite.js build --config studio/vite.config.ts --logLevel warn >&2
}

# Runs a step and says how long it took, when it had anything to do (a step with nothing to do returns at once).
timed() {
  local name="$1"
  shift
  local started=$SECONDS
  "$@"
  local took=$((SECONDS - started))
  if [ "$took" -gt 0 ]; then
    log "$name: done in ${took} s"
  fi
}

started_all=$SECONDS
# apt and the Go build need nothing of npm's, nor npm of theirs: they go on in the background.
timed "system packages" ensure_system_packages &
packages_job=$!
timed "Temporal CLI" ensure_temporal_cli &
temporal_job=$!
timed "npm packages" ensure_node_modules
timed "studio" ensure_studio
failed=false
wait "$packages_job" || failed=true
wait "$temporal_job" || failed=true
if [ "$failed" = true ]; then
  log "a setup step failed (see above)"
  exit 1
fi
if [ "$FOR_TESTS" = true ]; then
  timed "MinIO" ensure_minio
fi
if [ $((SECONDS - started_all)) -gt 0 ]; then
  log "ready in $((SECONDS - started_all)) s"
fi
