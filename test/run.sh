#!/usr/bin/env bash
# Runs every test suite from a fresh machine: prepares the checkout, then mocha over the compiled
# tests. The last line of output is "N passed, N failed, N skipped".
set -euo pipefail
cd "$(dirname "$0")/.."
bash installers/prepare.sh
exec npx --no-install mocha "$@"
