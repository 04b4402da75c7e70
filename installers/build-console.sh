#!/usr/bin/env bash
# Typechecks the console (desktop/renderer: React + Vite, its own tsconfig with DOM and JSX) and
# builds it into dist/console, which the daemon serves at `/`. Skipped when its inputs did not
# change since the last build (a hash stamp), so `npm test` stays fast; --force builds anyway.
set -euo pipefail
cd "$(dirname "$0")/.."

stamp=dist/console/.inputs-hash
want=$( (find desktop/renderer -type f -not -path '*/node_modules/*' -print0 | sort -z | xargs -0 sha256sum; find shared -name "*.ts" -print0 | sort -z | xargs -0 sha256sum; sha256sum package-lock.json) | sha256sum | cut -d' ' -f1)
if [ "${1:-}" != "--force" ] && [ -f "$stamp" ] && [ -f dist/console/index.html ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
echo "berth: building the web console (desktop/renderer -> dist/console)" >&2
npx --no-install tsc -p desktop/renderer/tsconfig.json
npx --no-install vite build --config desktop/renderer/vite.config.ts --logLevel warn
echo "$want" > "$stamp"
