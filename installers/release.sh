#!/usr/bin/env bash
# Builds the release bundle a VPS installs: release/berth-<version>-linux-<arch>.tar.gz,
# release/install.sh and release/SHA256SUMS. The bundle carries everything the server runs, so nothing is fetched at
# install time and the host's Node.js does not matter:
#   dist/daemon, dist/shared (compiled), dist/console (the web console, when built),
#   node_modules (production dependencies only), node/bin/node (Node.js 22 LTS from the npm
#   registry's node-linux-<arch> package), installers/ (install.sh and what it installs),
#   bin/berth (the server-side CLI), BUNDLE (version, arch, runtime) and BUILD_ID (a hash of
#   every other file: the same content always gets the same id, which is how a rerun of the
#   installer recognises the bundle it already runs).
# sqlite3 6 is an N-API addon: the binary compiled in this checkout's node_modules loads under any
# Node.js with its N-API version, so it is copied in and then loaded by the bundled runtime before
# the bundle is written (a bundle whose runtime cannot open a database is never produced).
# Only x64: an arm64 sqlite3 binary cannot be produced on these (x86-64) build machines.
#
# usage: installers/release.sh [--version V] [--out DIR]   (expects `npx tsc` to have run)
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "release: $*" >&2; exit 1; }

version=""
out=release
arch=x64
while [ $# -gt 0 ]; do
  case "$1" in
    --version) version="${2:-}"; shift 2 ;;
    --out) out="${2:-}"; shift 2 ;;
    --arch) arch="${2:-}"; shift 2 ;;
    *) die "unknown option $1 (usage: release.sh [--version V] [--out DIR])" ;;
  esac
done
[ "$arch" = x64 ] || die "only x64 bundles can be built here (sqlite3 is compiled on this x86-64 machine; see docs/install.md)"
[ -n "$version" ] || version=$(node -p 'require("./package.json").version')
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-.+][0-9A-Za-z.-]+)?$ ]] || die "version \"$version\" is not a semantic version"
[ -f dist/daemon/main.js ] || die "dist/daemon/main.js is missing: run npx tsc -p tsconfig.json first"
sqlite_node=node_modules/sqlite3/build/Release/node_sqlite3.node
[ -f "$sqlite_node" ] || die "$sqlite_node is missing: run npm install first"

name="berth-$version-linux-$arch"
work=$(mktemp -d /tmp/berth-release-XXXXXX)
trap 'rm -rf "$work"' EXIT
stage="$work/$name"
mkdir -p "$stage/dist" "$stage/installers" "$stage/bin" "$stage/node/bin"

echo "release: staging $name" >&2
cp -a dist/daemon dist/shared "$stage/dist/"
if [ -d dist/console ]; then cp -a dist/console "$stage/dist/"; echo "release: including the web console (dist/console)" >&2; fi
cp package-lock.json README.md "$stage/"
cp -a docs "$stage/"
# The bundle's package.json carries the bundle's version (the daemon reports it in /api/health).
node -e 'const fs=require("fs");const p=JSON.parse(fs.readFileSync("package.json","utf8"));p.version=process.argv[1];fs.writeFileSync(process.argv[2],JSON.stringify(p,null,2)+"\n")' "$version" "$stage/package.json"
cp installers/install.sh installers/upgrade.sh installers/supervise.sh installers/run-daemon.sh installers/berth-firewall.sh installers/engine-proxy.sh installers/tune-kernel.sh installers/berth.service installers/berth-upgrade.path installers/berth-upgrade.service installers/caddy-berth.conf installers/join-node.sh "$stage/installers/"
cp installers/berth-cli.sh "$stage/bin/berth"
chmod 0755 "$stage/installers/"*.sh "$stage/bin/berth"

echo "release: production dependencies (npm install --omit=dev: see prepare.sh for why not npm ci)" >&2
(cd "$stage" && npm install --no-save --omit=dev --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error >&2)
want=$(node -p 'require("./node_modules/sqlite3/package.json").version')
got=$(node -p 'require(process.argv[1]).version' "$stage/node_modules/sqlite3/package.json")
[ "$want" = "$got" ] || die "sqlite3 $got in the bundle but $want compiled here"
mkdir -p "$stage/node_modules/sqlite3/build/Release"
cp "$sqlite_node" "$stage/node_modules/sqlite3/build/Release/"
rm -rf "$stage/node_modules/sqlite3/deps" "$stage/node_modules/sqlite3/src"

echo "release: Node.js 22 runtime (npm pack node-linux-$arch@22)" >&2
(cd "$work" && npm pack --prefer-offline --silent "node-linux-$arch@22" >/dev/null)
tar -xzf "$work"/node-linux-"$arch"-*.tgz -C "$work" package/bin/node package/LICENSE
mv "$work/package/bin/node" "$stage/node/bin/node"
mv "$work/package/LICENSE" "$stage/node/LICENSE"
rm -rf "$work/package" "$work"/node-linux-*.tgz
node_version=$("$stage/node/bin/node" -v)

# The bundled runtime must open a database with the bundled sqlite3 (N-API compatibility).
(cd "$stage" && ./node/bin/node -e '
  const sqlite3 = require("sqlite3");
  const db = new sqlite3.Database(":memory:");
  db.get("select sqlite_version() as v", (err, row) => { if (err || !row) { console.error(err); process.exit(1); } db.close(); });
') || die "the bundled Node.js $node_version cannot load the bundled sqlite3"

printf 'BERTH_VERSION=%s\nBERTH_ARCH=%s\nBERTH_NODE=%s\n' "$version" "$arch" "$node_version" > "$stage/BUNDLE"
build_id=$(cd "$stage" && { find . -type f ! -path ./BUILD_ID -print0 | LC_ALL=C sort -z | xargs -0 sha256sum; find . -type l -printf '%p -> %l\n' | LC_ALL=C sort; } | sha256sum | cut -c1-16)
echo "$build_id" > "$stage/BUILD_ID"

mkdir -p "$out"
echo "release: writing $out/$name.tar.gz" >&2
tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner -czf "$out/$name.tar.gz.part" "$name"
mv "$out/$name.tar.gz.part" "$out/$name.tar.gz"
# install.sh beside the bundles, for `curl .../install.sh | sudo bash -s -- --from .../<bundle>`.
cp installers/install.sh "$out/install.sh"
(cd "$out" && sha256sum -- berth-*-linux-*.tar.gz install.sh > SHA256SUMS.part && mv SHA256SUMS.part SHA256SUMS)
echo "release: $out/$name.tar.gz (version $version, build $build_id, Node.js $node_version)" >&2
echo "$out/$name.tar.gz"
