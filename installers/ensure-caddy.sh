#!/usr/bin/env bash
# Makes sure a Caddy answers on its admin API (BERTH_CADDY_ADMIN, default http://127.0.0.1:2019):
# installs Debian's caddy when missing and starts it (through systemd where there is one, else
# directly). Berth loads its whole configuration through the admin API, so Caddy starts empty.
# Without root it only reports what is missing.
set -euo pipefail

log() { echo "berth: $*" >&2; }
admin="${BERTH_CADDY_ADMIN:-http://127.0.0.1:2019}"

answers() { curl -fsS -o /dev/null --max-time 2 "$admin/config/" 2>/dev/null || wget -q -O /dev/null -T 2 "$admin/config/" 2>/dev/null; }
if answers; then exit 0; fi

if [ "$(id -u)" != 0 ]; then
  log "no Caddy answers at $admin and installing or starting one needs root; domains will not route until it runs"
  exit 0
fi

if ! command -v caddy >/dev/null 2>&1; then
  log "installing Caddy (caddy)"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q caddy >/dev/null
fi

if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
  systemctl start caddy
else
  listen="${admin#*://}"
  log "starting caddy with its admin API on $listen (log: /var/log/berth-caddy.log)"
  conf=$(mktemp /tmp/berth-caddy-XXXXXX.json)
  printf '{"admin":{"listen":"%s"}}\n' "$listen" > "$conf"
  (setsid caddy run --config "$conf" >/var/log/berth-caddy.log 2>&1 &)
fi
for _ in $(seq 1 40); do answers && exit 0; sleep 0.25; done
log "Caddy did not come up at $admin; see /var/log/berth-caddy.log (Berth still runs and re-applies its routes when Caddy answers)"
exit 0
