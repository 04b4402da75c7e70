#!/usr/bin/env bash
# The console tests drive Debian's Chromium through playwright-core (no browser download):
# installs the chromium package when /usr/bin/chromium is missing.
set -euo pipefail
if [ ! -x /usr/bin/chromium ]; then
  echo "berth-test-setup: installing chromium" >&2
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null
fi
