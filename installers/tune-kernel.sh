#!/usr/bin/env bash
# Caddy 2.6 opens a new SO_REUSEPORT socket at every configuration load and closes the old one
# (Berth loads one at every swap: a deploy, a rollback, a domain change). Connections still in the
# old socket's accept queue are then reset: measured here, about 1 in 250 new connections during
# back-to-back loads failed with ECONNRESET, i.e. a failed request through a zero-downtime deploy.
# net.ipv4.tcp_migrate_req=1 (Linux 5.14+) hands those connections to the new socket instead.
#
#   tune-kernel.sh apply [sysctl.d file]   sets it now (and, given a file, at every boot)
#   tune-kernel.sh remove <sysctl.d file>  removes the boot-time file (the running value stays)
# Without root, or on a kernel without the setting, it says so and changes nothing.
set -uo pipefail

log() { echo "berth: $*" >&2; }
key=net.ipv4.tcp_migrate_req
proc=/proc/sys/net/ipv4/tcp_migrate_req

case "${1:-apply}" in
  apply)
    if [ ! -e "$proc" ]; then
      log "this kernel has no $key (Linux 5.14+): a Caddy reload may reset a few new connections"
      exit 0
    fi
    if [ "$(cat "$proc")" != 1 ]; then
      if [ "$(id -u)" != 0 ] || ! echo 1 > "$proc" 2>/dev/null; then
        log "could not set $key=1 (needs root): a Caddy reload may reset a few new connections during a deploy"
        exit 0
      fi
    fi
    if [ -n "${2:-}" ] && ! grep -qsx "$key = 1" "$2"; then
      mkdir -p "$(dirname "$2")"
      printf '# Berth: Caddy reloads hand queued connections to the new listener (installers/tune-kernel.sh)\n%s = 1\n' "$key" > "$2"
    fi
    ;;
  remove)
    [ -n "${2:-}" ] && rm -f "$2"
    ;;
  *)
    log "usage: tune-kernel.sh apply [file] | remove <file>"
    exit 2
    ;;
esac
exit 0
