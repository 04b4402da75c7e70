#!/usr/bin/env bash
# npm run desktop (run the app) and npm run desktop:dist (build installers). Both need the
# Electron binary, which electron's install script downloads from GitHub: the Berth build
# machines cannot reach GitHub, so there this says so and stops.
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=${1:-run}
if [ ! -f node_modules/electron/path.txt ]; then
  cat >&2 <<'MSG'
berth: the Electron binary is not installed (node_modules/electron/path.txt is missing).
  `npm run desktop` and `npm run desktop:dist` need it, and electron's install script downloads it
  from GitHub, which this machine cannot reach. On a machine with network access run
  `node node_modules/electron/install.js` (or `npm rebuild electron`), then try again.
  Everything else of the desktop app is compiled (`npm run build`) and tested in Node and Chromium:
  npx mocha --no-config --exit dist/test/desktop/*.test.js
MSG
  exit 1
fi
npx --no-install tsc -p tsconfig.json
bash installers/build-console.sh
case "$mode" in
  run) exec npx --no-install electron dist/desktop/main/electron-main.js ;;
  dist) exec npx --no-install electron-builder --config desktop/electron-builder.yml --publish never "${@:2}" ;;
  *) echo "usage: $0 run|dist" >&2; exit 2 ;;
esac
