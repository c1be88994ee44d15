#!/usr/bin/env bash
# Fake of Dressage's prepare_claude_code_sandbox_artifacts.sh (recipe §1.2): same variables, defaults, outputs,
# result lines and error messages; the downloads come from local files (FAKE_CLAUDE_SOURCE) instead of the network.
# Test knobs: FAKE_CLAUDE_SOURCE (file "downloaded" as the binary), FAKE_NO_UV=1, FAKE_UV_NO_PYTHON=1, FAKE_CURL_FAIL=1.
set -euo pipefail

ARTIFACT_DIR="${CLAUDE_CODE_ARTIFACT_DIR:-/tmp/dressage/claude_code_artifacts}"
VERSION="${CLAUDE_CODE_VERSION:-2.1.207}"
EXPECTED_SHA="${CLAUDE_CODE_BINARY_SHA256:-85e7e988a392d859f90802ca21fb26e89d3c9ab527f5ed0b08df3955e34d5c83}"
BBS_VERSION="${CLAUDE_CODE_BBS_VERSION:-custom}"
WHEEL="${CLAUDE_CODE_BBS_WHEEL_URL:?Set CLAUDE_CODE_BBS_WHEEL_URL to a Blackbox Server wheel URL or path}"
PY_VERSION="${CLAUDE_CODE_PORTABLE_PYTHON_VERSION:-3.10.20}"
REBUILD="${CLAUDE_CODE_REBUILD_RUNTIME:-0}"

mkdir -p "$ARTIFACT_DIR"
BINARY="$ARTIFACT_DIR/claude-$VERSION-linux-x64"
RUNTIME="$ARTIFACT_DIR/claude-code-runtime-python-$PY_VERSION-bbs-$BBS_VERSION.tar.gz"

if [[ -f "$BINARY" ]]; then
  have="$(sha256sum "$BINARY" | cut -d' ' -f1)"
  if [[ "$have" != "$EXPECTED_SHA" ]]; then
    echo "Discarding Claude Code binary with unexpected sha256=$have" >&2
    rm -f "$BINARY"
  fi
fi
if [[ ! -f "$BINARY" ]]; then
  echo "Downloading Claude Code $VERSION" >&2
  if [[ "${FAKE_CURL_FAIL:-0}" == 1 ]]; then
    echo "curl: (6) Could not resolve host: downloads.claude.ai" >&2
    exit 6
  fi
  tmp="$BINARY.tmp.$$"
  cp "${FAKE_CLAUDE_SOURCE:?fake needs FAKE_CLAUDE_SOURCE}" "$tmp"
  if ! echo "$EXPECTED_SHA  $tmp" | sha256sum -c - >&2; then
    rm -f "$tmp"
    exit 1
  fi
  chmod 0755 "$tmp"
  mv "$tmp" "$BINARY"
fi

if [[ ! -f "$RUNTIME" || "$REBUILD" == 1 ]]; then
  if [[ "${FAKE_NO_UV:-0}" == 1 ]]; then
    echo "uv is required to prepare the portable Claude Code sandbox runtime" >&2
    exit 1
  fi
  if [[ "${FAKE_UV_NO_PYTHON:-0}" == 1 ]]; then
    echo "uv did not materialize the expected portable Python $PY_VERSION" >&2
    exit 1
  fi
  work="$(mktemp -d)"
  mkdir -p "$work/cc-runtime/python/bin" "$work/cc-runtime/bbs-site"
  echo "cpython-$PY_VERSION-linux-x86_64-gnu" > "$work/cc-runtime/python/VERSION"
  echo "installed from $(basename "$WHEEL")" > "$work/cc-runtime/bbs-site/blackbox_server.txt"
  echo "Installing $(basename "$WHEEL") into cc-runtime/bbs-site"
  tar -czf "$RUNTIME.tmp" -C "$work" cc-runtime
  mv "$RUNTIME.tmp" "$RUNTIME"
  rm -rf "$work"
fi

echo "claude_code_binary_file=$BINARY"
echo "claude_code_binary_sha256=$(sha256sum "$BINARY" | cut -d' ' -f1)"
echo "claude_code_runtime_file=$RUNTIME"
