#!/usr/bin/env bash
# Tools the installer suite checks the installer with: shellcheck, and systemd-analyze (Debian's
# systemd package; nothing here runs systemd as PID 1, the unit is only verified statically).
set -euo pipefail
missing=()
command -v shellcheck >/dev/null 2>&1 || missing+=(shellcheck)
command -v systemd-analyze >/dev/null 2>&1 || missing+=(systemd)
command -v setsid >/dev/null 2>&1 || missing+=(util-linux)
if [ ${#missing[@]} -gt 0 ]; then
  echo "berth-test-setup: installing ${missing[*]}" >&2
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
fi
