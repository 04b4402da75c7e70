#!/usr/bin/env bash
# Builds the local stand-ins for the official database images (no registry is reachable on the test
# machines, so `postgres`, `mysql`, `redis` and `clickhouse/clickhouse-server` cannot be pulled):
#
#   berth-test/postgres    Debian postgresql-15      contract of `postgres`
#   berth-test/mysql       Debian mariadb-server     contract of `mysql` / `mariadb`
#   berth-test/redis       Debian redis-server 7     contract of `redis`
#   berth-test/clickhouse  Debian clickhouse 18.16   contract of `clickhouse/clickhouse-server`
#
# Each image is built from test/setup/images/<name>/ (Dockerfile with `ARG BASE`, entrypoint.sh) on
# top of the Debian base image from debian-base.sh, and tagged berth-test/<name>:<hash> (first 12
# hex of a sha256 over that directory's files and the base image id) and berth-test/<name>:latest.
# A build is skipped when the hashed tag exists; a per-image flock keeps concurrent runs from
# building the same image twice. Prints the hashed image references on stdout, one per line, in
# the order above. Usage: db-images.sh [name...] (default: all four; swarm-images.sh passes its own names).
# Also installs the PostgreSQL client (psql) on the host when missing: tests use the real client.
set -euo pipefail
cd "$(dirname "$0")/../.."

log() { echo "berth-test-setup: $*" >&2; }

ALL_IMAGES=(postgres mysql redis clickhouse)
IMAGES_DIR=test/setup/images
LOCK_DIR=/tmp/berth-db-images.locks
# the classic builder (BuildKit/buildx is not packaged here)
export DOCKER_BUILDKIT=0

if ! command -v psql >/dev/null 2>&1; then
  log "installing postgresql-client"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends postgresql-client >/dev/null
fi

if [ -f installers/ensure-docker.sh ]; then bash installers/ensure-docker.sh; fi

base_image=$(bash test/setup/debian-base.sh)
base_id=$(docker image inspect -f '{{.Id}}' "$base_image")

image_hash() {
  local dir=$1
  {
    (cd "$dir" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
    echo "base $base_id"
  } | sha256sum | cut -c1-12
}

# build_image NAME: builds (or finds) berth-test/NAME:<hash>, tags :latest, prints the reference
build_image() {
  local name=$1 dir="$IMAGES_DIR/$1" hash ref start logfile
  [ -f "$dir/Dockerfile" ] || { log "no $dir/Dockerfile"; return 1; }
  hash=$(image_hash "$dir")
  ref="berth-test/$name:$hash"
  if ! docker image inspect "$ref" >/dev/null 2>&1; then
    mkdir -p "$LOCK_DIR"
    # fd 9 is private to this function's subshell (builds run in parallel, see below)
    exec 9>"$LOCK_DIR/$name.lock"
    flock 9
    if docker image inspect "$ref" >/dev/null 2>&1; then
      log "$ref was built by a concurrent run"
    else
      log "building $ref"
      start=$SECONDS
      logfile=$(mktemp "/tmp/berth-db-image-$name.XXXXXX.log")
      if ! docker build --force-rm --build-arg "BASE=$base_image" -t "$ref" "$dir" >"$logfile" 2>&1; then
        log "building $ref failed (full log: $logfile):"
        tail -30 "$logfile" | sed "s/^/berth-test-setup: [$name] /" >&2
        return 1
      fi
      rm -f "$logfile"
      log "built $ref in $((SECONDS - start)) s"
    fi
    exec 9>&-
  fi
  docker tag "$ref" "berth-test/$name:latest"
  echo "$ref"
}

names=("$@")
[ ${#names[@]} -gt 0 ] || names=("${ALL_IMAGES[@]}")

# Build in parallel (the time goes into apt downloads and unpacking), report in a fixed order.
out_dir=$(mktemp -d)
trap 'rm -rf "$out_dir"' EXIT
pids=()
for name in "${names[@]}"; do
  (build_image "$name" >"$out_dir/$name") &
  pids+=($!)
done
failed=()
for i in "${!names[@]}"; do
  wait "${pids[$i]}" || failed+=("${names[$i]}")
done
if [ ${#failed[@]} -gt 0 ]; then
  log "failed to build: ${failed[*]}"
  exit 1
fi
for name in "${names[@]}"; do cat "$out_dir/$name"; done
