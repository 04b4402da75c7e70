#!/usr/bin/env bash
# Runs every test suite from a fresh machine: prepares the checkout, lints it, then mocha over the
# compiled tests. The last line of output is "N passed, N failed, N skipped".
# The lint is `npm run lint` (eslint, the biome format check, knip). BERTH_SKIP_LINT=1 skips it (while iterating on one suite: `npm test -- dist/test/x.test.js`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash installers/prepare.sh
if [ "${BERTH_SKIP_LINT:-}" != 1 ]; then
  echo "berth: linting (npm run lint)" >&2
  if ! npm run --silent lint; then
    echo "berth: lint failed (findings above; run \`npm run lint\` to see them again): no test was run" >&2
    # the closing line CI reads: the lint counts as one failure
    echo
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
  fi
fi
exec npx --no-install mocha "$@"
