#!/usr/bin/env bash
# Set up (incl. Debian chromium for the browser test), then run the whole test suite.
# Real-data tests read ../shared/data and skip with a reason when it is absent.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --browser
. .venv/bin/activate
python -m pytest -q -rs "$@"
