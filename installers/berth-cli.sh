#!/usr/bin/env bash
# `berth` on an installed server (/usr/local/bin/berth -> /opt/berth/current/bin/berth): the
# server-side CLI (keys create|list|revoke) run by the bundled Node.js against the installed
# data dir (BERTH_DATA_DIR from /etc/berth/berth.env).
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
if [ -z "${BERTH_DATA_DIR:-}" ] && [ -r /etc/berth/berth.env ]; then
  dir=$(sed -n 's/^BERTH_DATA_DIR=//p' /etc/berth/berth.env | tail -n 1)
  [ -n "$dir" ] && export BERTH_DATA_DIR="$dir"
fi
exec "$root/node/bin/node" "$root/dist/daemon/cli.js" "$@"
