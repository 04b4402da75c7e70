#!/usr/bin/env bash
# Keeps the containers on Berth's project networks away from what a tenant must not reach: the
# cloud metadata service and the rest of link-local (169.254.0.0/16), the host itself (the daemon's
# API, Caddy's admin API, SSH, ... on any of the host's addresses, the bridge gateway included) and
# the private network (RFC 1918, carrier-grade NAT). The internet, the DNS servers of
# /etc/resolv.conf and the containers of the same project stay reachable; Docker's own rules keep
# projects apart.
#
#   berth-firewall.sh apply     (re)builds the rules: idempotent, a rerun adds no duplicate
#   berth-firewall.sh remove    removes every rule and chain it added (not the loopback guard)
#   berth-firewall.sh status    prints them
#   berth-firewall.sh guard     adds only the loopback guard (idempotent)
#   berth-firewall.sh unguard   removes the loopback guard
#
# The loopback guard, added by every `apply` (BERTH_FIREWALL=off too) and by `guard`: one rule,
# `-t raw -I PREROUTING -d 127.0.0.0/8 ! -i lo -j DROP`. Berth runs the Engine without its userland
# proxy (README, "Docker's userland proxy"), and Docker then sets route_localnet=1 on its bridges
# so that the kernel can forward 127.0.0.1:<published port>. Without the guard, a container (a
# build step of a tenant's Dockerfile included, since it has CAP_NET_RAW) could send crafted
# packets to 127.0.0.1 and reach what listens on the host's loopback only, Caddy's admin API
# first; and a machine on the LAN could reach a port published on 127.0.0.1 (moby/moby#41872).
# Nothing legitimate arrives from outside `lo` addressed to 127/8 (the host's own connections to
# 127.0.0.1 leave through OUTPUT, replies from containers are addressed to the bridge's gateway).
# It stays after `remove` while the Engine may still run that way; `unguard` removes it.
#
# Run as root: by berth.service (ExecStartPre, so after every boot and restart), by
# installers/run-daemon.sh when `npm start` runs as root without systemd, and removed by the
# uninstaller. IPv4 (iptables); Berth's networks have no IPv6.
#
# How it works: two chains of its own, BERTH-FWD (traffic the host forwards, jumped to from
# DOCKER-USER, which Docker evaluates before its own FORWARD rules and never flushes) and BERTH-IN
# (traffic to the host's own addresses, jumped to from INPUT), each entered only for packets coming
# in on a Berth bridge: `brth+` (every project network Berth creates, see daemon/docker/networks.ts)
# plus the `br-<id>` bridges of Berth networks created before bridges were named (found by their
# dev.berth.managed label each time this runs). Other containers and the host's own traffic are
# never matched. Refused packets get an ICMP "administratively prohibited", so a tenant's request
# fails at once rather than hanging.
#
# Environment (read from /etc/berth/berth.env by the unit):
#   BERTH_EGRESS_ALLOW      comma-separated ADDRESS[/LEN][:PORT] Berth's containers may still reach,
#                           TCP and UDP (e.g. an apt/npm proxy on the host: 10.0.0.5:3142, or a
#                           private database: 10.0.2.0/24:5432)
#   BERTH_FIREWALL=off      apply removes the rules instead (nothing is blocked)
#   BERTH_FIREWALL_BRIDGES  space-separated interface names or `prefix+` patterns to match instead of
#                           the default (tests use it to match only their own network)
set -euo pipefail

readonly FWD=BERTH-FWD
readonly IN=BERTH-IN
readonly REJECT=(-j REJECT --reject-with icmp-admin-prohibited)
readonly PRIVATE=(10.0.0.0/8 172.16.0.0/12 192.168.0.0/16 100.64.0.0/10 169.254.0.0/16 0.0.0.0/8 224.0.0.0/4 240.0.0.0/4)

die() { echo "berth-firewall: $*" >&2; exit 1; }
ipt() { iptables -w 10 "$@"; }

bridges() {
  if [ -n "${BERTH_FIREWALL_BRIDGES:-}" ]; then
    printf '%s\n' $BERTH_FIREWALL_BRIDGES
    return
  fi
  echo 'brth+'
  command -v docker >/dev/null 2>&1 || return 0
  local id name
  # networks made before bridges were named: Docker calls their bridge br-<first 12 of the id>
  for id in $(docker network ls -q --no-trunc --filter label=dev.berth.managed=true --filter driver=bridge 2>/dev/null); do
    name=$(docker network inspect -f '{{index .Options "com.docker.network.bridge.name"}}' "$id" 2>/dev/null || true)
    if [ -z "$name" ]; then echo "br-${id:0:12}"; elif [[ $name != brth* ]]; then echo "$name"; fi
  done
}

# The resolvers containers use (Docker hands them the host's, or systemd-resolved's upstreams).
resolvers() {
  local f
  for f in /etc/resolv.conf /run/systemd/resolve/resolv.conf; do
    [ -r "$f" ] && awk '$1 == "nameserver" && $2 ~ /^[0-9.]+$/ && $2 !~ /^127\./ { print $2 }' "$f"
  done | sort -u
}

# "ADDR[/LEN][:PORT]" -> "ADDR[/LEN] PORT" (PORT empty for any)
allowed() {
  local entry
  local IFS=,
  for entry in ${BERTH_EGRESS_ALLOW:-}; do
    entry=${entry//[[:space:]]/}
    [ -z "$entry" ] && continue
    [[ $entry =~ ^([0-9]{1,3}(\.[0-9]{1,3}){3}(/[0-9]{1,2})?)(:([0-9]{1,5}))?$ ]] || die "BERTH_EGRESS_ALLOW: '$entry' is not ADDRESS[/LEN][:PORT] (IPv4)"
    echo "${BASH_REMATCH[1]} ${BASH_REMATCH[5]}"
  done
}

# Lets traffic to ADDR [PORT] through chain $1 (TCP and UDP when a port is given).
allow_rule() {
  local chain=$1 addr=$2 port=${3:-}
  if [ -z "$port" ]; then ipt -A "$chain" -d "$addr" -j RETURN; return; fi
  ipt -A "$chain" -d "$addr" -p tcp --dport "$port" -j RETURN
  ipt -A "$chain" -d "$addr" -p udp --dport "$port" -j RETURN
}

# Removes every copy of one rule.
delete_all() { while ipt -D "$@" 2>/dev/null; do :; done; }

remove_jumps() {
  local base chain target rule args
  # every jump to our chains, whichever bridges they were added for (iptables -S prints them as
  # `-A CHAIN -i NAME -j TARGET`, no quoting)
  for base in DOCKER-USER:$FWD INPUT:$IN; do
    chain=${base%%:*} target=${base#*:}
    while read -r rule; do
      read -ra args <<< "${rule#-A }"
      delete_all "${args[@]}"
    done < <(ipt -S "$chain" 2>/dev/null | grep -E -- "-j $target( |\$)" || true)
  done
}

do_remove() {
  remove_jumps
  local c
  for c in $FWD $IN; do
    if ipt -S "$c" >/dev/null 2>&1; then ipt -F "$c"; ipt -X "$c"; fi
  done
}

do_apply() {
  command -v iptables >/dev/null 2>&1 || die "iptables is not installed (apt-get install iptables)"
  [ "$(id -u)" = 0 ] || die "run as root"
  mapfile -t brs < <(bridges)
  mapfile -t dns < <(resolvers)
  local allow_text
  allow_text=$(allowed)   # a bad entry stops here (exit 1), before any rule changes
  allows=()
  [ -z "$allow_text" ] || mapfile -t allows <<< "$allow_text"

  ipt -N DOCKER-USER 2>/dev/null || true   # Docker keeps a chain that exists and jumps to it from FORWARD
  ipt -N $FWD 2>/dev/null || true
  ipt -N $IN 2>/dev/null || true
  ipt -F $FWD
  ipt -F $IN

  local b a ns
  # forwarded: replies, the same project's containers (Docker isolates the others), what is allowed, DNS; then no private or link-local address
  ipt -A $FWD -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN
  for b in "${brs[@]}"; do ipt -A $FWD -o "$b" -j RETURN; done
  # shellcheck disable=SC2086 # "ADDRESS PORT": two words on purpose
  for a in "${allows[@]}"; do allow_rule $FWD $a; done
  for ns in "${dns[@]}"; do allow_rule $FWD "$ns" 53; done
  for a in "${PRIVATE[@]}"; do ipt -A $FWD -d "$a" "${REJECT[@]}"; done
  # to the host itself (any of its addresses): replies, what is allowed, DNS; nothing else
  ipt -A $IN -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN
  # shellcheck disable=SC2086
  for a in "${allows[@]}"; do allow_rule $IN $a; done
  for ns in "${dns[@]}"; do allow_rule $IN "$ns" 53; done
  ipt -A $IN -p icmp --icmp-type echo-request -j RETURN
  ipt -A $IN "${REJECT[@]}"

  # the jumps: only packets coming in on a Berth bridge, each added once, first in its chain
  remove_jumps
  for b in "${brs[@]}"; do
    ipt -I DOCKER-USER 1 -i "$b" -j $FWD
    ipt -I INPUT 1 -i "$b" -j $IN
  done
  echo "berth-firewall: applied for ${brs[*]} (DNS allowed to: ${dns[*]:-none}; allowed: ${allows[*]:-nothing else})"
}

readonly GUARD=(PREROUTING -d 127.0.0.0/8 ! -i lo -m comment --comment berth-loopback-guard -j DROP)
do_guard() { ipt -t raw -C "${GUARD[@]}" 2>/dev/null || ipt -t raw -I "${GUARD[@]}"; }
do_unguard() { while ipt -t raw -D "${GUARD[@]}" 2>/dev/null; do :; done; }

do_status() {
  ipt -t raw -S PREROUTING | grep -- berth-loopback-guard || echo "no loopback guard"
  ipt -S DOCKER-USER 2>/dev/null | grep -- "-j $FWD" || true
  ipt -S INPUT | grep -- "-j $IN" || true
  ipt -S $FWD 2>/dev/null || echo "no $FWD chain"
  ipt -S $IN 2>/dev/null || echo "no $IN chain"
}

case "${1:-}" in
  apply)
    if command -v iptables >/dev/null 2>&1; then do_guard; fi
    if [ "${BERTH_FIREWALL:-on}" = off ]; then do_remove; echo "berth-firewall: BERTH_FIREWALL=off, rules removed (the loopback guard stays)"; else do_apply; fi ;;
  remove) command -v iptables >/dev/null 2>&1 || exit 0; do_remove ;;
  guard) command -v iptables >/dev/null 2>&1 || die "iptables is not installed (apt-get install iptables)"; do_guard ;;
  unguard) command -v iptables >/dev/null 2>&1 || exit 0; do_unguard ;;
  status) do_status ;;
  *) echo "usage: berth-firewall.sh apply|remove|status|guard|unguard" >&2; exit 2 ;;
esac
