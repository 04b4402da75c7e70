#!/usr/bin/env bash
# Builds the Debian 12 base image that the stand-in images (databases, language toolchains) start
# from: no registry is reachable, so it is made with debootstrap and `docker import`. Built once
# per machine; prints the image reference. Needs a running Docker Engine.
set -euo pipefail

BASE_IMAGE=berth-test/debian:bookworm-v2
log() { echo "berth-test-setup: $*" >&2; }

if ! docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
  command -v debootstrap >/dev/null 2>&1 || {
    log "installing debootstrap"
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null
  }
  # one builder at a time (suites may run in parallel)
  exec 9>/tmp/berth-debian-base.lock
  flock 9
  if ! docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
    log "building $BASE_IMAGE with debootstrap (about a minute)"
    dir=$(mktemp -d)
    debootstrap --variant=minbase bookworm "$dir" http://deb.debian.org/debian >/tmp/berth-debootstrap.log 2>&1 || {
      tail -20 /tmp/berth-debootstrap.log >&2
      exit 1
    }
    printf 'deb http://deb.debian.org/debian bookworm main\ndeb http://deb.debian.org/debian bookworm-updates main\ndeb http://deb.debian.org/debian-security bookworm-security main\n' > "$dir/etc/apt/sources.list"
    rm -rf "$dir/var/cache/apt/archives/"*.deb "$dir/var/lib/apt/lists/"*
    # mktemp made the root 0700: the image's / would be too, and on the vfs storage driver (the
    # Swarm suites' Docker-in-Docker workers) a process that drops root (postgres) could not reach
    # its own libc. Official images have / at 0755.
    chmod 0755 "$dir"
    tar -C "$dir" -c . | docker import -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' -c 'ENV LANG=C.UTF-8' - "$BASE_IMAGE" >/dev/null
    rm -rf "$dir"
  fi
fi
echo "$BASE_IMAGE"
