#!/usr/bin/env bash
# Builds the images the multi-node (Swarm) suites use (no registry is reachable on the test machines):
#
#   berth-test/swarm-node  Debian docker.io, a Docker-in-Docker second server that joins as a worker
#   berth-test/registry    Debian docker-registry (distribution 2.8), contract of `registry:2`
#   berth-test/docker-cli  berth-test/busybox plus the host's static docker CLI, contract of
#                          `docker:27-cli` as Berth uses it (sh and `docker` on the PATH): the
#                          image-pruning job on every node runs it (BERTH_IMAGE_DOCKER_CLI)
#
# The first two exactly as db-images.sh builds the database stand-ins, with its builder, from
# test/setup/images/<name>/. Each is tagged by content hash and skipped when built already.
# Prints the hashed references on stdout, one per line, in the order above.
# Usage: swarm-images.sh [name...] (default: all three).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ $# -eq 0 ]; then set -- swarm-node registry docker-cli; fi

log() { echo "berth-test-setup: $*" >&2; }

# berth-test/docker-cli:<hash of busybox image id, docker binary, this recipe>
docker_cli_image() {
  local busybox cli hash ref dir
  busybox=$(docker image inspect -f '{{.Id}}' berth-test/busybox:latest 2>/dev/null) || {
    bash test/setup/docker.sh >/dev/null
    busybox=$(docker image inspect -f '{{.Id}}' berth-test/busybox:latest)
  }
  cli=$(command -v docker)
  # the image has no libc: a dynamically linked CLI would not start in it
  if ! file -L "$cli" | grep -q 'statically linked'; then
    log "$cli is not statically linked: berth-test/docker-cli needs a static docker CLI"
    return 1
  fi
  hash=$( (echo "$busybox"; sha256sum "$cli" | cut -d' ' -f1; echo v1) | sha256sum | cut -c1-12)
  ref="berth-test/docker-cli:$hash"
  if ! docker image inspect "$ref" >/dev/null 2>&1; then
    log "building $ref"
    dir=$(mktemp -d)
    cp "$cli" "$dir/docker"
    printf 'FROM berth-test/busybox:latest\nCOPY docker /usr/local/bin/docker\nENV PATH=/usr/local/bin:/bin\n' > "$dir/Dockerfile"
    DOCKER_BUILDKIT=0 docker build -q -t "$ref" "$dir" >/dev/null
    rm -rf "$dir"
  fi
  docker tag "$ref" berth-test/docker-cli:latest
  echo "$ref"
}

built=()
for name in "$@"; do [ "$name" = docker-cli ] || built+=("$name"); done
out=()
if [ ${#built[@]} -gt 0 ]; then
  text=$(bash test/setup/db-images.sh "${built[@]}")
  mapfile -t out <<<"$text"
fi
i=0
for name in "$@"; do
  if [ "$name" = docker-cli ]; then
    docker_cli_image
  else
    echo "${out[$i]}"
    i=$((i + 1))
  fi
done
