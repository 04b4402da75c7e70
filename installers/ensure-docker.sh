#!/usr/bin/env bash
# Makes sure a Docker Engine answers: installs Debian's docker.io when dockerd is missing, and
# starts the daemon when it is not running (through systemd where there is one, else directly).
# Used by `npm start` and by the test setup. Without root it only reports what is missing.
#
# An Engine this script starts itself (no systemd) runs without its userland proxy
# (--userland-proxy=false) unless /etc/docker/daemon.json says otherwise: Caddy then reaches an
# app's published loopback port through the kernel's NAT instead of a docker-proxy process copying
# every connection (README, "Docker's userland proxy"). An Engine that already runs, or that
# systemd starts, is the machine owner's and is left as it is configured.
set -euo pipefail

log() { echo "berth: $*" >&2; }

if docker info >/dev/null 2>&1; then exit 0; fi

if [ "$(id -u)" != 0 ]; then
  log "no Docker Engine answers and installing or starting one needs root; deployments will fail until it runs"
  exit 0
fi

if ! command -v dockerd >/dev/null 2>&1; then
  log "installing Docker Engine (docker.io)"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io iproute2 >/dev/null
fi

if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
  systemctl start docker
else
  log "starting dockerd (log: /var/log/berth-dockerd.log)"
  flags=()
  grep -qs '"userland-proxy"' /etc/docker/daemon.json || flags+=(--userland-proxy=false)
  (setsid dockerd "${flags[@]}" >/var/log/berth-dockerd.log 2>&1 &)
  # its companion: nothing from outside lo may be addressed to 127/8 (berth-firewall.sh says why)
  if [ ${#flags[@]} -gt 0 ] && ! bash "$(dirname "$0")/berth-firewall.sh" guard; then
    log "could not add the loopback guard (iptables): containers on this Engine may reach the host's loopback (README, \"Docker's userland proxy\")"
  fi
fi
for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && exit 0; sleep 0.5; done
log "dockerd did not come up; see /var/log/berth-dockerd.log"
tail -20 /var/log/berth-dockerd.log >&2 || true
exit 1
