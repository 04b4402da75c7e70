#!/usr/bin/env bash
# Makes sure a Caddy answers on its admin API (BERTH_CADDY_ADMIN, default http://127.0.0.1:2019):
# installs Debian's caddy when missing and starts it (through systemd where there is one, else
# directly). Caddy is Berth's data plane: every app's host port and domains are served by it, so it
# always runs with `--resume`: it starts with the configuration Berth last loaded (Caddy autosaves
# every load), and apps answer after a reboot before the daemon is back. Without root it only
# reports what is missing.
set -euo pipefail

log() { echo "berth: $*" >&2; }
admin="${BERTH_CADDY_ADMIN:-http://127.0.0.1:2019}"

answers() { curl -fsS -o /dev/null --max-time 2 "$admin/config/" 2>/dev/null || wget -q -O /dev/null -T 2 "$admin/config/" 2>/dev/null; }
if answers; then exit 0; fi

if [ "$(id -u)" != 0 ]; then
  log "ERROR: no Caddy answers at $admin and installing or starting one needs root; no app's host port or domain answers until it runs"
  exit 0
fi

if ! command -v caddy >/dev/null 2>&1; then
  log "installing Caddy (caddy)"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q caddy >/dev/null
fi

if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
  # the same drop-in the VPS installer uses: Debian's caddy.service runs `caddy run --resume`
  log "starting caddy.service with Berth's drop-in (caddy run --resume)"
  install -D -m 0644 "$(dirname "$0")/caddy-berth.conf" /etc/systemd/system/caddy.service.d/berth.conf
  systemctl daemon-reload
  systemctl enable caddy.service >/dev/null 2>&1 || true
  systemctl restart caddy.service
else
  listen="${admin#*://}"
  # Caddy's own state in Berth's data dir, a fixed place whose autosave survives reboots and only
  # ever holds what Berth loaded: with the user's ~/.config/caddy, `--resume` would start from
  # whatever another Caddy on the machine saved last (another admin address: Berth locked out)
  home="${BERTH_DATA_DIR:-/var/lib/berth}/caddy"
  mkdir -p "$home/config/caddy" "$home/data"
  conf="$home/config/caddy/berth-admin.json"
  printf '{"admin":{"listen":"%s"}}\n' "$listen" > "$conf"
  log "starting caddy --resume with its admin API on $listen, its state in $home (log: /var/log/berth-caddy.log)"
  (XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" setsid caddy run --resume --config "$conf" >>/var/log/berth-caddy.log 2>&1 &)
fi
for _ in $(seq 1 40); do answers && exit 0; sleep 0.25; done
log "ERROR: Caddy did not come up at $admin; see /var/log/berth-caddy.log. No app's host port or domain answers until it runs (Berth re-applies its routes when Caddy answers)"
exit 0
