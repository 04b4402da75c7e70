#!/usr/bin/env bash
# Builds the local stand-ins for the official language images that autobuild's generated
# Dockerfiles start from (no registry is reachable here, so node:22, python:3.12, golang:1.23, ...
# cannot be pulled). Each stand-in honours the contract the generated Dockerfiles rely on:
#   python  `python` and `pip` on PATH; pip installs system-wide (as in python:3.12-slim)
#   go      `go` on PATH (Debian's Go 1.19)
#   java    `java`, `javac` and `jar` on PATH (OpenJDK 17)
#   rust    `cargo` and `rustc` on PATH (Debian's Rust)
#   static  `caddy` on PATH and a writable /etc/caddy (as in caddy:2-alpine), on busybox
#   node    `node` and `npm` on PATH and /usr/bin/env for npm's bin scripts: test/setup/docker.sh's
#           berth-test/node (busybox, the host's node and npm) plus /usr/bin/env
# Needs test/setup/docker.sh to have run first (it builds berth-test/node).
# Images are tagged by the hash of what they are built from (berth-test/<name>:<hash> and :latest),
# skipped when present, and built under a lock so suites running at once do not collide.
# Prints one line per image: <name> <reference>. Needs a running Docker Engine.
set -euo pipefail
cd "$(dirname "$0")/../.."

log() { echo "berth-test-setup: $*" >&2; }

base=$(bash test/setup/debian-base.sh)
base_id=$(docker image inspect --format '{{.Id}}' "$base" | cut -c8-19)

exec 8>/tmp/berth-lang-images.lock
flock 8

# build NAME DOCKERFILE: builds berth-test/NAME from a Dockerfile on top of the Debian base.
build() {
  local name=$1 dockerfile=$2
  local hash image dir started
  hash=$( (echo "$base_id"; echo "$dockerfile") | sha256sum | cut -c1-12)
  image="berth-test/$name:$hash"
  if ! docker image inspect "$image" >/dev/null 2>&1; then
    log "building $image"
    started=$(date +%s)
    dir=$(mktemp -d)
    printf '%s\n' "$dockerfile" > "$dir/Dockerfile"
    docker build -q -t "$image" "$dir" >/dev/null
    rm -rf "$dir"
    log "built $image in $(($(date +%s) - started)) s"
  fi
  docker tag "$image" "berth-test/$name:latest"
  echo "$name $image"
}

apt_install() {
  echo "RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $* && rm -rf /var/lib/apt/lists/*"
}

build python "FROM $base
$(apt_install python3 python3-pip python-is-python3)
ENV PIP_BREAK_SYSTEM_PACKAGES=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONUNBUFFERED=1"

build go "FROM $base
$(apt_install golang-go ca-certificates)
ENV GOTOOLCHAIN=local"

build java "FROM $base
$(apt_install openjdk-17-jdk-headless)"

build rust "FROM $base
$(apt_install cargo rustc libc6-dev)"

# node: test/setup/docker.sh's berth-test/node (busybox, the host's node and npm) plus what the
# official node images also have and npm packages rely on: /usr/bin/env (bin scripts start with
# #!/usr/bin/env node) and the rest of glibc's small libraries (rollup's native module needs librt).
node_id=$(docker image inspect --format '{{.Id}}' berth-test/node:latest | cut -c8-19)
glibc_libs="librt.so.1 libresolv.so.2 libutil.so.1 libanl.so.1"
node_hash=$( (echo "$node_id"; echo v2; for l in $glibc_libs; do sha256sum "/lib/x86_64-linux-gnu/$l"; done) | sha256sum | cut -c1-12)
node_image="berth-test/node-autobuild:$node_hash"
if ! docker image inspect "$node_image" >/dev/null 2>&1; then
  log "building $node_image"
  started=$(date +%s)
  dir=$(mktemp -d)
  mkdir -p "$dir/lib"
  for l in $glibc_libs; do cp "$(readlink -f "/lib/x86_64-linux-gnu/$l")" "$dir/lib/$l"; done
  printf 'FROM berth-test/node:latest\nCOPY lib/ /lib/x86_64-linux-gnu/\nRUN mkdir -p /usr/bin && ln -s /bin/env /usr/bin/env\n' > "$dir/Dockerfile"
  docker build -q -t "$node_image" "$dir" >/dev/null
  rm -rf "$dir"
  log "built $node_image in $(($(date +%s) - started)) s"
fi
docker tag "$node_image" berth-test/node-autobuild:latest
echo "node $node_image"

# static: the host's caddy (dynamically linked) with the libraries it needs, on busybox.
caddy_bin=$(readlink -f "$(command -v caddy)")
busybox_hash=$(sha256sum /bin/busybox | cut -c1-12)
caddy_hash=$( (echo "$busybox_hash"; sha256sum "$caddy_bin"; echo v1) | sha256sum | cut -c1-12)
caddy_image="berth-test/caddy:$caddy_hash"
if ! docker image inspect "$caddy_image" >/dev/null 2>&1; then
  log "building $caddy_image"
  started=$(date +%s)
  dir=$(mktemp -d)
  mkdir -p "$dir/bin" "$dir/tmp" "$dir/etc/caddy" "$dir/usr/bin" "$dir/root" "$dir/srv"
  cp /bin/busybox "$dir/bin/busybox"
  for app in $(/bin/busybox --list); do [ "$app" = busybox ] || ln -s busybox "$dir/bin/$app"; done
  cp "$caddy_bin" "$dir/usr/bin/caddy"
  for lib in $(ldd "$caddy_bin" | grep -o '/[^ ]*'); do cp --parents "$(readlink -f "$lib")" "$dir/" && [ -e "$dir$lib" ] || cp --parents "$lib" "$dir/"; done
  echo 'root:x:0:0:root:/root:/bin/sh' > "$dir/etc/passwd"
  tar -C "$dir" -c . | docker import -c 'ENV PATH=/usr/bin:/bin' -c 'ENV HOME=/root' -c 'ENV XDG_CONFIG_HOME=/config' -c 'ENV XDG_DATA_HOME=/data' - "$caddy_image" >/dev/null
  rm -rf "$dir"
  log "built $caddy_image in $(($(date +%s) - started)) s"
fi
docker tag "$caddy_image" berth-test/caddy:latest
echo "static $caddy_image"
