#!/usr/bin/env bash
# Joins this server to a Berth server's Docker Swarm as a worker node. Served by the Berth daemon
# for one join token (GET /api/nodes/join/<token>/script), with the values between @@ filled in;
# run as root:  bash -o pipefail -c "curl -fsSk --pinnedpubkey 'sha256//<pin>' https://<berth>/api/nodes/join/<token>/script | bash"
# (or `installers/install.sh --join <url> <pin> <token>`). Every call back to Berth is pinned to the
# API certificate's public key, so no CA chain is trusted.
#
# It checks the machine first (root, Debian/Ubuntu, Docker not from snap, the manager's ports,
# MTU) and says exactly what failed; installs docker.io from the distribution when Docker is
# missing (never restarts a running Docker; works with or without systemd); if this machine is
# already in this swarm it prints `no change` and stops; else it trusts Berth's registry CA
# (/etc/docker/certs.d, read per request: no restart), joins, and restricts published ports to
# the manager's address (DOCKER-USER), so apps here are reachable only through Berth's Caddy.
set -euo pipefail

BASE_URL='@@BASE_URL@@'
PIN='@@PIN@@'
TOKEN='@@TOKEN@@'
MANAGER='@@MANAGER@@'
REGISTRY='@@REGISTRY@@'

say() { echo "berth-join: $*" >&2; }
fail() { say "FAILED: $*"; exit 1; }
berth_curl() { curl -sS -k --pinnedpubkey "sha256//$PIN" --max-time 30 "$@"; }

# --- checks ------------------------------------------------------------------------------------
[ "$(id -u)" = 0 ] || fail "run it as root (sudo bash, or as root: the same command)"

[ -r /etc/os-release ] || fail "no /etc/os-release: only Debian and Ubuntu are supported"
# shellcheck disable=SC1091
os_id=$(. /etc/os-release && echo "${ID:-} ${ID_LIKE:-}")
case " $os_id " in
  *" debian "* | *" ubuntu "*) ;;
  *) fail "this is not Debian or Ubuntu (/etc/os-release says: $os_id)" ;;
esac

if command -v snap >/dev/null 2>&1 && snap list docker >/dev/null 2>&1; then
  fail "Docker is installed from snap, which cannot use /etc/docker/certs.d nor Swarm networking reliably: remove it (snap remove docker) and run this again"
fi
if command -v docker >/dev/null 2>&1 && [[ "$(readlink -f "$(command -v docker)")" == /snap/* ]]; then
  fail "the docker command comes from snap ($(command -v docker)): remove it (snap remove docker) and run this again"
fi

machine_id=$(tr -d '[:space:]' </etc/machine-id 2>/dev/null || true)
[[ "$machine_id" =~ ^[0-9a-f]{32}$ ]] || fail "/etc/machine-id is missing or malformed (systemd-machine-id-setup makes one)"
host_name=$(hostname)
[[ "$host_name" =~ ^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$ ]] || fail "the hostname '$host_name' is not a plain host name"

for port in 2377 7946; do
  timeout 5 bash -c "exec 3<>/dev/tcp/$MANAGER/$port" 2>/dev/null ||
    fail "cannot reach the manager at $MANAGER:$port/tcp (Swarm needs 2377/tcp and 7946/tcp+udp to the manager, and 4789/udp both ways): open them in the firewalls between the two servers"
done
say "manager reachable on 2377/tcp and 7946/tcp (4789/udp, the overlay traffic, cannot be probed from here: make sure it is open both ways)"

iface=$(ip route show default 2>/dev/null | awk '{for (i = 1; i < NF; i++) if ($i == "dev") { print $(i + 1); exit }}')
if [ -n "$iface" ] && [ -r "/sys/class/net/$iface/mtu" ]; then
  mtu=$(cat "/sys/class/net/$iface/mtu")
  if [ "$mtu" -lt 1450 ]; then
    say "WARNING: $iface has MTU $mtu; the overlay network (VXLAN) needs 50 bytes: under 1450, large requests between services may hang"
  fi
fi

# --- Docker Engine -----------------------------------------------------------------------------
if ! command -v dockerd >/dev/null 2>&1; then
  say "installing Docker Engine (docker.io) from the distribution"
  apt-get update -q >/dev/null || fail "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io iptables >/dev/null || fail "installing docker.io failed"
fi
if ! docker info >/dev/null 2>&1; then
  # started only when it is not running: a running Docker is never restarted
  if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
    systemctl enable --now docker >/dev/null 2>&1 || fail "systemctl could not start docker (journalctl -u docker says why)"
  else
    say "starting dockerd (no systemd; log: /var/log/berth-dockerd.log)"
    (setsid dockerd >/var/log/berth-dockerd.log 2>&1 &)
  fi
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
  docker info >/dev/null 2>&1 || fail "Docker Engine did not start (see /var/log/berth-dockerd.log or journalctl -u docker)"
fi

# --- published ports answer only the manager ----------------------------------------------------
# Its Caddy routes to them: new connections that Docker forwards to a container (DNAT) from any
# other address are dropped. The rule lives in a script that a boot unit runs again after Docker
# starts (iptables is empty after a reboot); without systemd, running this command again restores it.
guard_published_ports() {
  cat > /usr/local/sbin/berth-worker-firewall <<GUARD
#!/bin/sh
# Written by Berth's join script: published ports of this worker answer only the manager ($MANAGER).
rule="-m conntrack --ctstate DNAT -m conntrack --ctstate NEW ! -s $MANAGER -m comment --comment berth-only-manager -j DROP"
iptables -C DOCKER-USER \$rule 2>/dev/null || iptables -I DOCKER-USER \$rule
GUARD
  chmod 755 /usr/local/sbin/berth-worker-firewall
  /usr/local/sbin/berth-worker-firewall || fail "could not add the DOCKER-USER rule (iptables)"
  if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
    cat > /etc/systemd/system/berth-worker-firewall.service <<'UNIT'
[Unit]
Description=Berth: published ports of this Swarm worker answer only the manager
After=docker.service
Requires=docker.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/berth-worker-firewall

[Install]
WantedBy=multi-user.target
UNIT
    systemctl daemon-reload && systemctl enable berth-worker-firewall.service >/dev/null 2>&1 || fail "could not enable berth-worker-firewall.service"
  fi
}

# --- already joined? ---------------------------------------------------------------------------
state=$(docker info --format '{{.Swarm.LocalNodeState}}')
if [ "$state" = active ]; then
  if docker info --format '{{range .Swarm.RemoteManagers}}{{.Addr}} {{end}}' | tr ' ' '\n' | grep -qx "$MANAGER:2377"; then
    # after a reboot without systemd the rule is gone: it comes back here
    guard_published_ports
    echo "no change: this server is already a node of the swarm managed by $MANAGER"
    exit 0
  fi
  fail "this server is already in another swarm (leave it first: docker swarm leave)"
fi
[ "$state" = inactive ] || fail "Docker's Swarm state here is '$state': wait for it to settle or run docker swarm leave --force"

# --- trust Berth's registry, get the join token, join ------------------------------------------
ca_dir="/etc/docker/certs.d/$REGISTRY"
mkdir -p "$ca_dir"
berth_curl -f -o "$ca_dir/ca.crt.tmp" "$BASE_URL/api/nodes/join/$TOKEN/ca" || fail "could not fetch Berth's registry CA from $BASE_URL (the join command may have expired: create a new one with \`berth nodes join-command\`)"
mv "$ca_dir/ca.crt.tmp" "$ca_dir/ca.crt"

answer=$(mktemp)
trap 'rm -f "$answer"' EXIT
code=$(berth_curl -o "$answer" -w '%{http_code}' -X POST -H 'content-type: application/json' \
  --data "{\"hostname\":\"$host_name\",\"machineId\":\"$machine_id\"}" "$BASE_URL/api/nodes/join/$TOKEN") || fail "could not reach Berth at $BASE_URL"
if [ "$code" != 200 ]; then
  message=$(sed -n 's/.*"message":"\([^"]*\)".*/\1/p' "$answer")
  fail "${message:-Berth answered HTTP $code}"
fi
join_token=$(sed -n 's/.*"joinToken":"\([A-Za-z0-9-]*\)".*/\1/p' "$answer")
[ -n "$join_token" ] || fail "Berth's answer had no join token"

say "joining the swarm at $MANAGER:2377"
docker swarm join --token "$join_token" "$MANAGER:2377" >/dev/null || fail "docker swarm join failed (see above)"

guard_published_ports

echo "joined: this server is now a worker node of $MANAGER's swarm"
