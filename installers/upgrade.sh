#!/usr/bin/env bash
# Runs an upgrade the API asked for (POST /api/system/upgrade). The daemon cannot upgrade itself (it
# is stopped during the switch, and under systemd it runs sandboxed), so it writes a request file
# and this script, started outside the daemon (berth-upgrade.service through berth-upgrade.path, or
# detached by the daemon where there is no systemd), takes it and runs the installed release's
# install.sh with the bundle it names. install.sh does the work (checksum, a copy of Berth's state,
# the new release beside the current one, the switch, and the rollback when the new daemon is not
# healthy) and reports its state to <dir>/status; its output goes to <dir>/log.
#
#   upgrade.sh <dir>     <dir>/request: ID=<id>, FROM=<https URL or absolute path>, REQUESTED_AT=
set -uo pipefail

dir="${1:?usage: upgrade.sh <upgrade dir>}"
request="$dir/request"
[ -f "$request" ] || exit 0
opt="${BERTH_INSTALL_ROOT:-/opt/berth}"

stamp() { date -u +%Y-%m-%dT%H:%M:%SZ; }
field() { sed -n "s/^$1=//p" "$request" | head -n 1 | tr -d '\r'; }
id=$(field ID)
from=$(field FROM)
rm -f "$request"

status() {
  # $1 state, $2 message: the whole file at once
  printf 'ID=%s\nSTATE=%s\nFROM_VERSION=%s\nTO_VERSION=\nSTEP=%s\nMESSAGE=%s\nSTARTED_AT=%s\nFINISHED_AT=%s\n' \
    "$id" "$1" "$from_version" "$3" "$2" "$started" "$([ "$1" = running ] || stamp)" > "$dir/status.tmp"
  mv -f "$dir/status.tmp" "$dir/status"
}
started=$(stamp)
from_version=$(sed -n 's/^BERTH_VERSION=//p' "$opt/current/BUNDLE" 2>/dev/null | head -n 1)
umask 077
touch "$dir/log"   # appended run after run: the daemon shows each run the lines after its request

# The daemon checked the request; it is checked again here (the file is in the daemon's data dir).
if ! [[ "$id" =~ ^[A-Za-z0-9-]{1,64}$ ]]; then id=""; status failed "the upgrade request has no valid ID" "request"; exit 1; fi
case "$from" in
  https://*|/*) ;;
  *) status failed "the bundle must be an https:// URL or an absolute path on the server" "request"; exit 1 ;;
esac
if [[ "$from" == *[[:cntrl:]]* ]] || [[ "$from" == */../* ]]; then status failed "the bundle's location is not acceptable" "request"; exit 1; fi
# Only from where root said (BERTH_UPGRADE_SOURCES in berth.env, which the daemon cannot write),
# never from a folder apps or other users can write: the same rule as the daemon's
# (daemon/core/upgrade-text.ts), applied again outside it.
sources=$(sed -n 's/^BERTH_UPGRADE_SOURCES=//p' "${BERTH_ETC_DIR:-/etc/berth}/berth.env" 2>/dev/null | tail -n 1 | tr -d "\"'")
allowed=""
for s in ${sources//,/ }; do
  if [ "$from" = "$s" ] || [[ "$from" == "${s%/}/"* ]]; then allowed=1; fi
done
[ -n "$allowed" ] || { status failed "$from is not an upgrade source this server accepts (BERTH_UPGRADE_SOURCES: ${sources:-none})" "request"; exit 1; }
if [[ "$from" == /* ]]; then
  real=$(readlink -f "$from" 2>/dev/null || echo "$from")
  for p in "$(dirname "$dir")" /var/lib/docker /tmp /var/tmp /dev/shm; do
    case "$from/" in "$p"/*) ;; *) case "$real/" in "$p"/*) ;; *) continue ;; esac ;; esac
    status failed "a bundle in $p is never installed: apps or other users can write there" "request"; exit 1
  done
fi

status running "" "starting"
echo "$(stamp) berth: upgrade $id from $from_version with $from" >> "$dir/log"
# A copy of the installed release's installer: the switch replaces $opt/current while it runs.
work=$(mktemp -d /tmp/berth-upgrade-XXXXXX)
trap 'rm -rf "$work"' EXIT
cp "$opt/current/installers/install.sh" "$work/install.sh"
bash "$work/install.sh" --from "$from" --yes --status "$dir/status" >> "$dir/log" 2>&1
rc=$?
# install.sh writes its end state itself; if it could not (killed), say so here
if grep -q '^STATE=running$' "$dir/status" 2>/dev/null; then
  status failed "the installer stopped (exit $rc) before it finished; see $dir/log" "$(sed -n 's/^STEP=//p' "$dir/status" | head -n 1)"
fi
echo "$(stamp) berth: upgrade $id ended (exit $rc): $(sed -n 's/^STATE=//p' "$dir/status" | head -n 1)" >> "$dir/log"
exit "$rc"
