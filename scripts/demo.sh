#!/usr/bin/env bash
# Set up, then run every benchmark on the shipped samples with the embedded models
# and print the path of the HTML report. Extra arguments go to `noveval demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
noveval demo "$@"
