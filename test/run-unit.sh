#!/usr/bin/env bash
# The fast suites (test/unit.mocharc.cjs says which): prepares the checkout like `npm test`, then
# mocha with Docker out of reach. No lint (`npm run lint`). The last line is "N passed, N failed, N skipped".
set -euo pipefail
cd "$(dirname "$0")/.."
bash installers/prepare.sh
# requireDocker() refuses to run, and the test daemons get a Docker socket that does not exist
export BERTH_TEST_NO_DOCKER=1 BERTH_DOCKER_SOCKET=/nonexistent/docker.sock
exec npx --no-install mocha --config test/unit.mocharc.cjs "$@"
