#!/usr/bin/env bash
# Makes a Docker Engine available for the tests on a fresh machine: installs docker.io (and caddy,
# which the routing tests run themselves on loopback ports) when missing,
# starts dockerd when it is not answering, and builds the small local images the tests use (no
# registry is reachable here). Images are tagged by the hash of what they are built from, so a
# machine that built them once reuses them.
set -euo pipefail
cd "$(dirname "$0")/../.."

log() { echo "berth-test-setup: $*" >&2; }

need_pkg() {
  local missing=()
  for pair in "$@"; do
    local cmd=${pair%%:*} pkg=${pair##*:}
    command -v "$cmd" >/dev/null 2>&1 || [ -x "$cmd" ] || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
  fi
}

need_pkg /bin/busybox:busybox-static git:git ip:iproute2 openssl:openssl caddy:caddy
bash installers/ensure-docker.sh
# Caddy reloads hand queued connections to the new listener (the zero-failed-requests tests rely on it)
bash installers/tune-kernel.sh apply

# busybox: a 2 MB image with sh, httpd (CGI too) and nc; enough for the deploy fixtures.
busybox_hash=$(sha256sum /bin/busybox | cut -c1-12)
busybox_image="berth-test/busybox:$busybox_hash"
if ! docker image inspect "$busybox_image" >/dev/null 2>&1; then
  log "building $busybox_image"
  dir=$(mktemp -d)
  mkdir -p "$dir/bin" "$dir/tmp" "$dir/etc"
  cp /bin/busybox "$dir/bin/busybox"
  for app in $(/bin/busybox --list); do [ "$app" = busybox ] || ln -s busybox "$dir/bin/$app"; done
  echo 'root:x:0:0:root:/root:/bin/sh' > "$dir/etc/passwd"
  echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> "$dir/etc/passwd"
  tar -C "$dir" -c . | docker import -c 'ENV PATH=/bin' - "$busybox_image" >/dev/null
  rm -rf "$dir"
fi
docker tag "$busybox_image" berth-test/busybox:latest
echo "$busybox_image"

# httpd: an image service fixture that answers "image ok" on $PORT (default 8080).
httpd_hash=$( (echo "$busybox_hash"; echo v1) | sha256sum | cut -c1-12)
httpd_image="berth-test/httpd:$httpd_hash"
if ! docker image inspect "$httpd_image" >/dev/null 2>&1; then
  log "building $httpd_image"
  dir=$(mktemp -d)
  mkdir -p "$dir/www"
  echo "image ok" > "$dir/www/index.html"
  printf 'FROM %s\nCOPY www /www\nENV PORT=8080\nCMD ["sh", "-c", "exec httpd -f -p ${PORT} -h /www"]\n' "$busybox_image" > "$dir/Dockerfile"
  docker build -q -t "$httpd_image" "$dir" >/dev/null
  rm -rf "$dir"
fi
docker tag "$httpd_image" berth-test/httpd:latest

# node: the host's own Node.js binary and the libraries it links, on top of busybox. A client that
# verifies TLS certificates (busybox wget does not), for the build CA test. It also carries the
# host's npm (its package directory, run through a small wrapper), so fixtures can fail the way npm
# really fails (a missing script, a dependency that cannot be installed) without any registry.
node_bin=$(readlink -f "$(command -v node)")
npm_dir=$(readlink -f "$(dirname "$(readlink -f "$(command -v npm)")")/..")
npm_version=$(node -p "require('$npm_dir/package.json').version")
node_hash=$( (echo "$busybox_hash"; sha256sum "$node_bin"; echo "npm $npm_version") | sha256sum | cut -c1-12)
node_image="berth-test/node:$node_hash"
if ! docker image inspect "$node_image" >/dev/null 2>&1; then
  log "building $node_image"
  dir=$(mktemp -d)
  mkdir -p "$dir/bin" "$dir/tmp"
  cp /bin/busybox "$dir/bin/busybox"
  for app in $(/bin/busybox --list); do [ "$app" = busybox ] || ln -s busybox "$dir/bin/$app"; done
  mkdir -p "$dir/usr/bin" && cp "$node_bin" "$dir/usr/bin/node"
  for lib in $(ldd "$node_bin" | grep -o '/[^ ]*'); do cp --parents "$(readlink -f "$lib")" "$dir/" && [ -e "$dir$lib" ] || cp --parents "$lib" "$dir/"; done
  mkdir -p "$dir/usr/lib/node_modules" "$dir/root" && cp -a "$npm_dir" "$dir/usr/lib/node_modules/npm"
  printf '#!/bin/sh\nexec /usr/bin/node /usr/lib/node_modules/npm/bin/npm-cli.js "$@"\n' > "$dir/usr/bin/npm" && chmod 755 "$dir/usr/bin/npm"
  tar -C "$dir" -c . | docker import -c 'ENV PATH=/usr/bin:/bin' -c 'ENV HOME=/root' - "$node_image" >/dev/null
  rm -rf "$dir"
fi
docker tag "$node_image" berth-test/node:latest
