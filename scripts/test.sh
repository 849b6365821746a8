#!/usr/bin/env bash
# Set up (incl. Debian chromium for the browser test), lint and type-check, then run the
# whole test suite on every core (pytest-xdist; NOVEVAL_TEST_WORKERS overrides, 1 = one process;
# a costly session fixture is built once and shared by the workers: tests/validate/conftest.py).
# ruff and mypy must report 0 (versions pinned in pyproject.toml).
# Real-data tests read ../shared/data and skip with a reason when it is absent.
#   bash scripts/test.sh           everything (what CI runs)
#   bash scripts/test.sh --fast    the edit loop: no setup once .venv exists, ruff, and the tests
#                                  not marked slow, integration, realdata or browser (~2 min)
# Further arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
if [ "${1:-}" = "--fast" ]; then
  fast=1
  shift
fi
if [ "$fast" = 1 ] && [ -x .venv/bin/python ]; then
  :
else
  bash scripts/setup.sh --browser
fi
. .venv/bin/activate
workers=${NOVEVAL_TEST_WORKERS:-$(python -c "import os; print(min(4, os.cpu_count() or 1))")}
par=()
if [ "$workers" -gt 1 ]; then
  par=(-n "$workers" --dist worksteal)
fi
ruff check src tests
if [ "$fast" = 1 ]; then
  python -m pytest -q "${par[@]}" -m "not (slow or integration or realdata or browser)" "$@"
else
  # mypy (~40 CPU-s cold) runs beside the tests; both must pass
  log=$(mktemp)
  mypy src >"$log" 2>&1 &
  mypy_pid=$!
  status=0
  python -m pytest -q -rs "${par[@]}" "$@" || status=$?
  if ! wait "$mypy_pid"; then
    status=1
  fi
  cat "$log"
  rm -f "$log"
  exit "$status"
fi
