#!/usr/bin/env bash
# Makes a checkout runnable: installs npm dependencies when package-lock.json changed since the
# last install, then compiles TypeScript into dist/. Safe to run again; used by `npm start` and
# `npm test`.
set -euo pipefail
cd "$(dirname "$0")/.."

export ELECTRON_SKIP_BINARY_DOWNLOAD=1   # Electron's binary cannot be downloaded on build machines

if ! command -v node >/dev/null 2>&1; then
  echo "berth: Node.js 20.19 or newer is required (apt-get install nodejs, or see docs/testing.md)" >&2
  exit 1
fi

stamp=node_modules/.berth-lock-hash
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "berth: installing npm dependencies (sqlite3 compiles from source the first time: a few minutes)" >&2
  # npm install, not npm ci: the lock lists only the platform packages the registry serves here
  # (rollup's optional android/darwin/win32 builds answer 404), which npm ci refuses as out of sync;
  # npm install --no-save installs exactly the locked versions and leaves the lock as it is.
  npm install --no-save --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi

npx --no-install tsc -p tsconfig.json
bash installers/build-console.sh
