#!/usr/bin/env bash
# Set up (incl. Debian chromium for the browser test), lint and type-check, then run the
# whole test suite. ruff and mypy must report 0 (versions pinned in pyproject.toml).
# Real-data tests read ../shared/data and skip with a reason when it is absent.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --browser
. .venv/bin/activate
ruff check src tests
mypy src
python -m pytest -q -rs "$@"
