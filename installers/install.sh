#!/usr/bin/env bash
# Berth's VPS installer: makes this server a Berth host from a release bundle, or upgrades it.
#
#   install.sh [--from FILE|URL|DIR] [--yes] [--domain HOST] [--email EMAIL] [--address IP]
#              [--dry-run] [--uninstall] [--purge] [--status FILE]
#              [--restore ARCHIVE [--passphrase-file FILE]]
#
# What it does (every step is named in /var/log/berth-install.log; secrets never are):
#   preflight (root, Debian 12/13 or Ubuntu 22.04/24.04, architecture, memory, disk, ports 80/443
#   free or Caddy's, systemd or not, Docker not from snap), a summary and a prompt (--yes skips
#   it), Docker Engine and Caddy from the distribution's packages, the bundle (checksum checked) in
#   /opt/berth/releases/<version> with /opt/berth/current switched atomically, configuration in
#   /etc/berth/berth.env (0600, kept on reruns), data in /var/lib/berth, berth.service (or, without
#   systemd, a small supervisor), Caddy resuming Berth's saved routes, the API over HTTPS only
#   (the daemon listens on 127.0.0.1), the first key, and the lines BERTH_URL=, BERTH_KEY=,
#   BERTH_CERT_SHA256= for scripts. A rerun is an upgrade that keeps data, configuration and keys.
#   Docker runs without its userland proxy ("userland-proxy": false in /etc/docker/daemon.json
#   unless the file sets the key already; README, "Docker's userland proxy"); BERTH_KEEP_ENGINE_CONFIG=1
#   leaves Docker's configuration alone (the test suite sets it: a shared Engine).
#
# An upgrade rolls back by itself: the daemon is stopped, Berth's state (the store, /etc/berth) is
# copied to /var/lib/berth/upgrade-backups/, the new release is switched in and started; when it is
# not healthy within 60 s (a migration that fails, a daemon that exits or answers another version),
# the previous release and the state copy come back and start again, and the run exits 3.
#
# The script body runs only from its last line, so a partial download does nothing.
set -euo pipefail

readonly OPT=/opt/berth
readonly ETC=/etc/berth
readonly DATA=/var/lib/berth
# Public status pages, written by the daemon and served as files by Caddy (which runs as its own
# user and cannot enter $DATA): world-readable, holding nothing but the pages themselves.
readonly STATUS_PAGES=/var/lib/berth-status-pages
readonly RUN_DIR=/run/berth
readonly LOG=/var/log/berth-install.log
readonly SUPERVISOR_LOGS=/var/log/berth
readonly UNIT=/etc/systemd/system/berth.service
# Upgrades asked for through the API: the daemon (sandboxed) writes a request in $DATA/upgrade,
# this path unit sees it and starts the service, which runs installers/upgrade.sh outside the sandbox.
readonly UPGRADE_PATH_UNIT=/etc/systemd/system/berth-upgrade.path
readonly UPGRADE_UNIT=/etc/systemd/system/berth-upgrade.service
readonly CADDY_DROPIN=/etc/systemd/system/caddy.service.d/berth.conf
readonly SYSCTL_FILE=/etc/sysctl.d/60-berth.conf
readonly CLI_LINK=/usr/local/bin/berth
readonly DAEMON_PORT=4311
readonly API_TLS_PORT=4310
readonly CADDY_ADMIN=127.0.0.1:2019
# Caddy's state where Debian's caddy.service keeps it (HOME=/var/lib/caddy); the supervisor uses the same.
readonly CADDY_HOME=/var/lib/caddy
readonly CADDY_CONFIG_HOME=/var/lib/caddy/.config
readonly CADDY_DATA_HOME=/var/lib/caddy/.local/share
readonly MIN_MEMORY_MB=900
readonly MIN_DISK_MB=2048

usage() {
  cat <<'EOF'
usage: install.sh [--from FILE|URL|DIR] [--yes] [--domain HOST] [--email EMAIL] [--address IP]
                  [--dry-run] [--insecure] [--uninstall] [--purge]
       install.sh --join URL PIN TOKEN

  --from FILE|URL|DIR  the release bundle (berth-<version>-linux-<arch>.tar.gz, with SHA256SUMS
                       beside it); default: the bundle this script was extracted from. A URL
                       must be https:// (plain http:// only with --insecure)
  --insecure           accept an http:// --from URL (bundle and checksum unauthenticated)
  --yes                do not ask for confirmation (required without a terminal)
  --domain HOST        serve the API at https://HOST (a certificate from Let's Encrypt; HOST's
                       DNS must point here); default: https://<this server's address>:4310 with
                       a certificate from Caddy's internal CA, whose fingerprint is printed
  --email EMAIL        contact address for the ACME account (with --domain)
  --address IP         the IPv4 address clients reach this server at (its API certificate, generated
                       URLs and DNS records name it); default: the address of the default route's
                       interface, detected once at the first start and kept. The address changes
                       only when you say so (this option again, `berth server set-address`, the
                       console's settings): a new one re-issues the API certificate, and clients
                       pinned to the old one must re-pin with the fingerprint printed; the same
                       address again is no change
  --dry-run            check this machine and print the plan; change nothing
  --uninstall          stop and remove Berth; keeps /etc/berth, /var/lib/berth and Docker's
                       containers, volumes and images (a later install picks them up)
  --purge              with --uninstall: also remove the data, the configuration and every
                       Docker container, volume, network and image this Berth created
  --restore ARCHIVE    a fresh install that brings back the Berth an archive of `berth server
                       backup` holds (projects, services, keys, domains, settings, Caddy's
                       routes and certificates), then deploys every service again (databases
                       from their latest backup in their storage); the address becomes this
                       server's unless --address says otherwise. Only onto a server with no Berth
  --passphrase-file F  the archive's passphrase (else BERTH_BACKUP_PASSPHRASE)
  --status FILE        also write the run's state to FILE (KEY=value lines: STATE, STEP, MESSAGE,
                       FROM_VERSION, TO_VERSION, times): how installers/upgrade.sh reports an
                       upgrade the API asked for

  --join URL PIN TOKEN  make this server a Swarm worker node of the Berth server at URL (the
                       values of the command `berth nodes join-command` prints: its https://
                       address, the sha256// pin without the prefix, the token); installs no
                       Berth here: runs that server's join script (docs/swarm.md)

Running it again upgrades Berth in place (data, configuration and keys are kept). An upgrade
whose new daemon is not healthy within 60 s rolls back to the previous release and the state it had
before (exit status 3).
EOF
}

# ---------------------------------------------------------------------------------------------
# Output and the log

logging=0          # 1 once the log may be written (never in --dry-run)
current_step="preflight"
changed_something=0
created_key_id=""  # a key this run created, revoked again if the run fails
installer_key_id=""

stamp() { date -u +%Y-%m-%dT%H:%M:%SZ; }
log() { if [ "$logging" = 1 ]; then printf '%s %s\n' "$(stamp)" "$*" >> "$LOG"; fi; }
say() { printf 'berth: %s\n' "$*" >&2; log "$*"; }
step() { current_step="$*"; say "==> $*"; write_status running; }
last_error=""
rollback_armed=0   # 1 from the switch to a new release until it answered healthy: a failure rolls back
rolled_back=0
die() {
  last_error="$*"
  say "error: $*"
  if [ "$rollback_armed" = 1 ]; then roll_back "$*"; fi
  exit 1
}

# --status FILE: the run's state as KEY=value lines, rewritten whole (a reader never sees half).
# The ID and STARTED_AT that installers/upgrade.sh wrote first are kept.
status_file=""
status_started=""
write_status() {
  [ -n "$status_file" ] || return 0
  local state="$1" message="${2:-}" id="" finished=""
  id=$(sed -n 's/^ID=//p' "$status_file" 2>/dev/null | head -n 1)
  [ -n "$status_started" ] || status_started=$(sed -n 's/^STARTED_AT=//p' "$status_file" 2>/dev/null | head -n 1)
  [ -n "$status_started" ] || status_started=$(stamp)
  [ "$state" = running ] || finished=$(stamp)
  printf 'ID=%s\nSTATE=%s\nFROM_VERSION=%s\nTO_VERSION=%s\nSTEP=%s\nMESSAGE=%s\nSTARTED_AT=%s\nFINISHED_AT=%s\n' \
    "$id" "$state" "${installed_version:-}" "${bundle_version:-}" "$current_step" "${message//$'\n'/ }" "$status_started" "$finished" > "$status_file.tmp"
  mv -f "$status_file.tmp" "$status_file"
}
# Runs a command with its output in the log only; failing is fatal. Never pass secrets here.
run() {
  log "run: $*"
  if [ "$logging" = 1 ]; then "$@" >> "$LOG" 2>&1 || die "'$*' failed (step: $current_step; see $LOG)"
  else "$@" >/dev/null 2>&1 || die "'$*' failed (step: $current_step)"; fi
}

on_exit() {
  local status=$?
  if [ -n "$installer_key_id" ]; then berth_cli keys revoke "$installer_key_id" >/dev/null 2>&1 || true; fi
  if [ "$status" = 0 ]; then write_status succeeded "$([ "$action" = no-change ] && echo "no change: build $bundle_build is the one installed")"
  elif [ "$rolled_back" = 1 ]; then
    write_status rolled_back "$last_error"
    log "ROLLED BACK to $installed_version: $last_error"
  else
    write_status failed "${last_error:-the installer stopped (exit $status) during: $current_step}"
  fi
  if [ "$status" != 0 ] && [ "$rolled_back" != 1 ]; then
    # A first key that was never shown is useless: revoke it so the next run issues a new one.
    if [ -n "$created_key_id" ]; then berth_cli keys revoke "$created_key_id" >/dev/null 2>&1 || true; fi
    if [ "$changed_something" = 1 ]; then
      printf 'berth: FAILED during "%s": nothing was reported as installed; see %s, fix the cause and run the installer again\n' "$current_step" "$LOG" >&2
    fi
    log "FAILED (exit $status) during: $current_step"
  fi
  [ -n "${tmp_dir:-}" ] && rm -rf "$tmp_dir"
  return "$status"
}

# ---------------------------------------------------------------------------------------------
# Arguments

from=""
assume_yes=0
domain=""
email=""
address=""
dry_run=0
insecure=0
mode=install
purge=0
restore_archive=""
passphrase_file=""
join_url=""
join_pin=""
join_token=""

parse_args() {
  while [ $# -gt 0 ]; do
    case "$1" in
      --from) [ $# -ge 2 ] || { usage >&2; exit 2; }; from="$2"; shift 2 ;;
      --from=*) from="${1#--from=}"; shift ;;
      --yes|-y) assume_yes=1; shift ;;
      --domain) [ $# -ge 2 ] || { usage >&2; exit 2; }; domain="$2"; shift 2 ;;
      --domain=*) domain="${1#--domain=}"; shift ;;
      --email) [ $# -ge 2 ] || { usage >&2; exit 2; }; email="$2"; shift 2 ;;
      --email=*) email="${1#--email=}"; shift ;;
      --address) [ $# -ge 2 ] || { usage >&2; exit 2; }; address="$2"; shift 2 ;;
      --address=*) address="${1#--address=}"; shift ;;
      --dry-run) dry_run=1; shift ;;
      --insecure) insecure=1; shift ;;
      --uninstall) mode=uninstall; shift ;;
      --purge) mode=uninstall; purge=1; shift ;;
      --status) [ $# -ge 2 ] || { usage >&2; exit 2; }; status_file="$2"; shift 2 ;;
      --restore) [ $# -ge 2 ] || { usage >&2; exit 2; }; restore_archive="$2"; shift 2 ;;
      --passphrase-file) [ $# -ge 2 ] || { usage >&2; exit 2; }; passphrase_file="$2"; shift 2 ;;
      --join) [ $# -ge 4 ] || { usage >&2; exit 2; }; mode="join"; join_url="$2"; join_pin="${3#sha256//}"; join_token="$4"; shift 4 ;;
      -h|--help) usage; exit 0 ;;
      *) echo "install.sh: unknown option: $1" >&2; usage >&2; exit 2 ;;
    esac
  done
  if [ -n "$domain" ] && ! [[ "$domain" =~ ^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,63}$ ]]; then
    echo "install.sh: --domain must be a hostname such as berth.example.com, got \"$domain\"" >&2; exit 2
  fi
  if [ -n "$email" ] && ! [[ "$email" =~ ^[^[:space:]@]+@[^[:space:]@]+\.[^[:space:]@]+$ ]]; then
    echo "install.sh: --email must be an email address, got \"$email\"" >&2; exit 2
  fi
  if [ -n "$email" ] && [ -z "$domain" ]; then echo "install.sh: --email goes with --domain" >&2; exit 2; fi
  if [ -n "$address" ]; then
    local why
    why=$(address_problem "$address")
    [ -z "$why" ] || { echo "install.sh: --address $why" >&2; exit 2; }
  fi
  # Over plain HTTP anyone on the path can swap the bundle and the SHA256SUMS beside it together:
  # the checksum proves nothing then. Only on purpose (a mirror on a trusted network).
  case "$from" in
    [Hh][Tt][Tt][Pp]://*)
      if [ "$insecure" != 1 ]; then
        echo "install.sh: refusing to download the bundle over plain http:// ($from): its checksum comes from the same unauthenticated server; use https://, a local file, or add --insecure if this network is trusted" >&2
        exit 2
      fi ;;
  esac
}

# Why $1 cannot be the server's address (empty when it can): the daemon's own rules
# (daemon/core/server-address.ts), checked before anything is installed.
# The IPv4 address of the default route's interface (what the daemon detects at its first start).
route_address() {
  local dev
  dev=$(ip -4 route show default 2>/dev/null | awk '{ for (i = 1; i < NF; i++) if ($i == "dev") { print $(i + 1); exit } }')
  [ -n "$dev" ] || return 0
  ip -4 -o addr show dev "$dev" 2>/dev/null | awk '{ split($4, a, "/"); print a[1]; exit }'
}

address_problem() {
  local ip="$1" a b c d
  if ! [[ "$ip" =~ ^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$ ]]; then echo "must be an IPv4 address like 203.0.113.10, got \"$ip\""; return 0; fi
  a=$((10#${BASH_REMATCH[1]})) b=$((10#${BASH_REMATCH[2]})) c=$((10#${BASH_REMATCH[3]})) d=$((10#${BASH_REMATCH[4]}))
  if [ "$a" -gt 255 ] || [ "$b" -gt 255 ] || [ "$c" -gt 255 ] || [ "$d" -gt 255 ]; then echo "must be an IPv4 address like 203.0.113.10, got \"$ip\""; return 0; fi
  if [ "$a" = 0 ]; then echo "$ip cannot be the server's address: 0.0.0.0/8 means \"this host\" and no client can connect to it"
  elif [ "$a" = 127 ]; then echo "$ip cannot be the server's address: a loopback address is this machine itself for every client"
  elif [ "$a" = 169 ] && [ "$b" = 254 ]; then echo "$ip cannot be the server's address: a link-local address does not leave its network segment"
  elif [ "$a" -ge 224 ]; then echo "$ip cannot be the server's address: multicast and reserved addresses are not one host"
  fi
}

# ---------------------------------------------------------------------------------------------
# Facts about this machine

has_systemd() { [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; }

# "pid name" of the process listening on TCP port $1; empty when nothing listens, "? ?" when the
# owner cannot be found. Reads /proc (iproute2 may be missing on minimal images).
port_owner() {
  local hex inode link pid
  hex=$(printf '%04X' "$1")
  inode=$(awk -v p="$hex" 'FNR > 1 && $4 == "0A" { split($2, a, ":"); if (a[2] == p) { print $10; exit } }' /proc/net/tcp /proc/net/tcp6 2>/dev/null || true)
  [ -n "$inode" ] || return 0
  link=$(find /proc/[0-9]*/fd -maxdepth 1 -lname "socket:\[$inode\]" -print -quit 2>/dev/null || true)
  if [ -z "$link" ]; then echo "? ?"; return 0; fi
  pid=$(echo "$link" | cut -d/ -f3)
  echo "$pid $(cat "/proc/$pid/comm" 2>/dev/null || echo '?')"
}

# The bundle's KEY from its BUNDLE file (read, never sourced).
bundle_field() { awk -v k="$1" 'index($0, k "=") == 1 { print substr($0, length(k) + 2); exit }' "$2"; }

answers_json() { curl -fsS --max-time 3 "$@" 2>/dev/null; }

# ---------------------------------------------------------------------------------------------
# Preflight: only reads; decides what the run will do.

os_name=""
host_arch=""
init_mode=""
bundle_src=""      # a .tar.gz or a directory
bundle_info=""     # path of a copy of the bundle's BUNDLE file
bundle_version=""
bundle_build=""
installed_version=""
installed_build=""
action=""          # fresh | upgrade | no-change | reinstall
tmp_dir=""
need_packages=()
prior_domain=""
prior_email=""
prior_build=""     # the build of the last run that finished

preflight_common() {
  [ "$(id -u)" = 0 ] || die "run as root (sudo bash install.sh ...)"
  tmp_dir=$(mktemp -d /tmp/berth-install-XXXXXX)
  if has_systemd; then init_mode=systemd; else init_mode=supervisor; fi
}

preflight_install() {
  step "preflight"
  local id="" version_id="" pretty=""
  if [ -r /etc/os-release ]; then
    id=$(sed -n 's/^ID=//p' /etc/os-release | tr -d '"')
    version_id=$(sed -n 's/^VERSION_ID=//p' /etc/os-release | tr -d '"')
    pretty=$(sed -n 's/^PRETTY_NAME=//p' /etc/os-release | tr -d '"')
  fi
  case "$id:$version_id" in
    debian:12|debian:13|ubuntu:22.04|ubuntu:24.04) os_name="$pretty" ;;
    *) die "this system (${pretty:-unknown}) is not supported: Debian 12/13 or Ubuntu 22.04/24.04 are" ;;
  esac
  case "$(uname -m)" in
    x86_64|amd64) host_arch=x64 ;;
    aarch64|arm64) host_arch=arm64 ;;
    *) die "architecture $(uname -m) is not supported (x86-64 bundles exist)" ;;
  esac
  local mem_mb disk_mb path
  mem_mb=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 ))
  [ "$mem_mb" -ge "$MIN_MEMORY_MB" ] || die "${mem_mb} MB of memory; Berth needs at least ${MIN_MEMORY_MB} MB (2 GB or more to build apps)"
  for path in /opt /var/lib; do
    disk_mb=$(( $(df -Pk "$path" | awk 'NR == 2 {print $4}') / 1024 ))
    [ "$disk_mb" -ge "$MIN_DISK_MB" ] || die "${disk_mb} MB free on $path; Berth needs at least ${MIN_DISK_MB} MB"
  done

  # Docker from snap confines dockerd in ways Berth's builds and volumes do not survive.
  if [ -x /snap/bin/docker ] || { command -v snap >/dev/null 2>&1 && snap list docker >/dev/null 2>&1; }; then
    die "Docker is installed from snap; remove it (snap remove docker) and run this again: Berth installs Docker Engine from the distribution (docker.io)"
  fi
  command -v dockerd >/dev/null 2>&1 || need_packages+=(docker.io)
  command -v caddy >/dev/null 2>&1 || need_packages+=(caddy)
  command -v curl >/dev/null 2>&1 || need_packages+=(curl)
  command -v openssl >/dev/null 2>&1 || need_packages+=(openssl)
  if [[ " ${need_packages[*]} " == *" caddy "* ]]; then
    caddy_candidate() { [[ "$(apt-cache policy caddy 2>/dev/null)" == *"Candidate: "[0-9]* ]]; }
    # a fresh image often has no package lists yet: read them before saying caddy is not packaged
    if ! caddy_candidate; then apt-get update -q >/dev/null 2>&1 || true; fi
    caddy_candidate || die "this distribution has no caddy package (Ubuntu 22.04 has none, for example): add Caddy's own apt repository as docs/install.md says, then run this again"
  fi

  # What is installed now, and the options it was installed with.
  if [ -f "$OPT/current/BUILD_ID" ]; then
    installed_build=$(cat "$OPT/current/BUILD_ID")
    installed_version=$(bundle_field BERTH_VERSION "$OPT/current/BUNDLE")
  fi
  if [ -f "$ETC/install.env" ]; then
    prior_domain=$(sed -n 's/^DOMAIN=//p' "$ETC/install.env")
    prior_email=$(sed -n 's/^EMAIL=//p' "$ETC/install.env")
    prior_build=$(sed -n 's/^BUILD=//p' "$ETC/install.env")
  fi
  if [ -z "$domain" ]; then domain="$prior_domain"; [ -n "$email" ] || email="$prior_email"; fi

  if [ -n "$restore_archive" ]; then
    [ -f "$restore_archive" ] || die "no archive at $restore_archive"
    restore_archive=$(readlink -f "$restore_archive")
    [ -z "$passphrase_file" ] || [ -r "$passphrase_file" ] || die "cannot read the passphrase file $passphrase_file"
    [ -n "$passphrase_file" ] || [ -n "${BERTH_BACKUP_PASSPHRASE:-}" ] || die "--restore needs the archive's passphrase: --passphrase-file FILE or BERTH_BACKUP_PASSPHRASE"
    # a release without a store (a restore that failed half-way) is fine: the next run finishes it
    [ ! -e "$DATA/berth.sqlite" ] || die "a restore goes onto a server with no Berth data ($DATA/berth.sqlite exists): uninstall with --purge first, or use a fresh server"
    # the archive names the old server's address; this server's own, unless --address says otherwise
    [ -n "$address" ] || address=$(route_address)
    [ -n "$address" ] || die "could not tell this server's address from its default route: give it with --address IP"
  fi
  locate_bundle
  [ "$(bundle_field BERTH_ARCH "$bundle_info")" = "$host_arch" ] || die "the bundle is for linux-$(bundle_field BERTH_ARCH "$bundle_info"), this machine is linux-$host_arch"

  if [ -z "$installed_build" ]; then
    if [ -d "$DATA" ]; then action=reinstall; else action=fresh; fi
  elif [ "$installed_build" = "$bundle_build" ] && [ "$prior_build" != "$bundle_build" ]; then
    action=repair      # the last run with this bundle failed before it finished: do it all again
  elif [ "$installed_build" = "$bundle_build" ]; then
    action=no-change
    # The same bundle with another --domain/--email: only the configuration changes.
    if [ "$domain" != "$prior_domain" ] || [ "$email" != "$prior_email" ]; then action=reconfigure; fi
  else
    action=upgrade
  fi

  # Ports: Caddy's (or free) for 80/443/4310 and its admin API; the daemon's own port free or Berth's.
  local port owner want_ports=(80 443)
  [ -z "$domain" ] && want_ports+=("$API_TLS_PORT")
  for port in "${want_ports[@]}" "${CADDY_ADMIN##*:}"; do
    owner=$(port_owner "$port")
    [ -z "$owner" ] || [ "${owner#* }" = caddy ] || die "port $port is in use by ${owner#* } (pid ${owner%% *}); Berth's Caddy needs it (ports 80 and 443, $API_TLS_PORT for the API, 2019 on loopback for Caddy's admin API)"
  done
  owner=$(port_owner "$DAEMON_PORT")
  if [ -n "$owner" ] && [[ "$(readlink "/proc/${owner%% *}/cwd" 2>/dev/null)" != "$OPT/"* ]]; then
    die "port $DAEMON_PORT (loopback, the daemon's) is in use by ${owner#* } (pid ${owner%% *})"
  fi
}

# Where upgrades asked for through the API may come from (BERTH_UPGRADE_SOURCES; the daemon and
# upgrade.sh refuse any other bundle: a key chooses when to upgrade, never what runs as root): the
# folder releases sit side by side in, i.e. the parent of the bundle's own folder (GitHub's
# .../releases/download/, /root/ for /root/1.2.3/berth.tar.gz), or its folder when that parent is
# the root. Nothing for plain http:// or a folder apps or other users can write (/tmp...): set it
# by hand then.
upgrade_source_of() {
  local from="$1" src="$2" dir
  case "$from" in
    https://*)
      dir="${from%/*}"
      if [[ "${dir#https://}" == */* ]]; then echo "${dir%/*}/"; else echo "$dir/"; fi
      return 0 ;;
    http://*) return 0 ;;
  esac
  if [ -d "$src" ]; then dir=$(dirname "$src"); else dir=$(dirname "$(dirname "$src")"); if [ "$dir" = / ]; then dir=$(dirname "$src"); fi; fi
  case "$dir/" in
    /|"$DATA"/*|/var/lib/docker/*|/tmp/*|/var/tmp/*|/dev/shm/*) return 0 ;;
  esac
  echo "$dir/"
}

# Finds the bundle, checks its checksum, reads its version and build id (nothing is installed yet).
locate_bundle() {
  local here sums base
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  if [ -z "$from" ]; then
    [ -f "$here/../BUILD_ID" ] || die "give the release bundle with --from FILE|URL (this script is not inside an extracted bundle)"
    from=$(cd "$here/.." && pwd)
  fi
  case "$from" in
    http://*|https://*)
      base="${from%/*}"
      say "downloading $from"
      curl -fsSL --retry 3 -o "$tmp_dir/${from##*/}" "$from" || die "could not download $from"
      curl -fsSL --retry 3 -o "$tmp_dir/SHA256SUMS" "$base/SHA256SUMS" || die "could not download $base/SHA256SUMS"
      bundle_src="$tmp_dir/${from##*/}"
      ;;
    *)
      [ -e "$from" ] || die "no bundle at $from"
      bundle_src=$(readlink -f "$from")
      ;;
  esac
  if [ -d "$bundle_src" ]; then
    [ -f "$bundle_src/BUILD_ID" ] && [ -f "$bundle_src/BUNDLE" ] || die "$bundle_src is not an extracted Berth bundle"
    cp "$bundle_src/BUNDLE" "$tmp_dir/BUNDLE"
    bundle_build=$(cat "$bundle_src/BUILD_ID")
    say "using the extracted bundle in $bundle_src (its archive's checksum was checked when it was extracted, or not at all)"
  else
    sums="$(dirname "$bundle_src")/SHA256SUMS"
    [ -f "$tmp_dir/SHA256SUMS" ] && sums="$tmp_dir/SHA256SUMS"
    [ -f "$sums" ] || die "no SHA256SUMS beside $bundle_src: the bundle's checksum cannot be checked"
    local want got
    want=$(awk -v f="$(basename "$bundle_src")" '$2 == f || $2 == "*" f { print $1; exit }' "$sums")
    [ -n "$want" ] || die "$sums has no line for $(basename "$bundle_src")"
    got=$(sha256sum "$bundle_src" | cut -d' ' -f1)
    [ "$want" = "$got" ] || die "checksum mismatch for $(basename "$bundle_src"): SHA256SUMS says $want, the file is $got"
    # One pass over the archive for its two small description files.
    mkdir "$tmp_dir/peek"
    tar -xzf "$bundle_src" -C "$tmp_dir/peek" --wildcards --no-wildcards-match-slash '*/BUNDLE' '*/BUILD_ID' 2>/dev/null || die "$bundle_src is not a Berth bundle (no BUNDLE and BUILD_ID)"
    local top
    top=$(ls "$tmp_dir/peek")
    [[ "$top" =~ ^berth-[0-9A-Za-z.+-]+$ ]] && [ -f "$tmp_dir/peek/$top/BUNDLE" ] || die "$bundle_src is not a Berth bundle"
    cp "$tmp_dir/peek/$top/BUNDLE" "$tmp_dir/BUNDLE"
    bundle_build=$(cat "$tmp_dir/peek/$top/BUILD_ID")
  fi
  bundle_info="$tmp_dir/BUNDLE"
  upgrade_source=$(upgrade_source_of "$from" "$bundle_src")
  bundle_version=$(bundle_field BERTH_VERSION "$bundle_info")
  [[ "$bundle_version" =~ ^[0-9][0-9A-Za-z.+-]*$ ]] || die "the bundle's version \"$bundle_version\" is not valid"
  [[ "$bundle_build" =~ ^[0-9a-f]{8,64}$ ]] || die "the bundle's build id is not valid"
}

# ---------------------------------------------------------------------------------------------
# Summary and confirmation

print_plan() {
  local api
  if [ -n "$domain" ]; then api="https://$domain (ACME certificate${email:+, contact $email})"; else api="https://<this server's address>:$API_TLS_PORT (Caddy's internal CA; the certificate's fingerprint is printed)"; fi
  {
    echo
    echo "Berth installer on $os_name ($host_arch), $([ "$init_mode" = systemd ] && echo "systemd" || echo "no systemd: a small supervisor will run the daemon and Caddy (started now; not at boot)")"
    case "$action" in
      fresh) echo "  install Berth $bundle_version (build $bundle_build)${restore_archive:+, restoring the state in $restore_archive and deploying its services again}" ;;
      reinstall) echo "  install Berth $bundle_version (build $bundle_build), keeping the data already in $DATA" ;;
      upgrade) echo "  upgrade Berth $installed_version (build $installed_build) -> $bundle_version (build $bundle_build); data, configuration and keys are kept" ;;
      no-change) echo "  no change: Berth $bundle_version (build $bundle_build) is already installed; services are checked and started if needed" ;;
      repair) echo "  finish installing Berth $bundle_version (build $bundle_build): the last run stopped before it was done" ;;
      reconfigure) echo "  Berth $bundle_version (build $bundle_build) is installed: change its API address to $([ -n "$domain" ] && echo "https://$domain" || echo "port $API_TLS_PORT") and restart the daemon" ;;
    esac
    [ ${#need_packages[@]} -eq 0 ] || echo "  apt-get install ${need_packages[*]} (from the distribution)"
    if [ "$action" != no-change ]; then
      echo "  $OPT/releases/<version> with $OPT/current switched to it; $OPT/uninstall.sh; $CLI_LINK"
      echo "  configuration $ETC/berth.env (0600; kept if present), data $DATA"
      if [ "$init_mode" = systemd ]; then
        echo "  units: $UNIT (enabled), $CADDY_DROPIN (Caddy resumes Berth's saved routes)"
      else
        echo "  supervisors: $RUN_DIR/berth.pid and $RUN_DIR/caddy.pid, logs in $SUPERVISOR_LOGS/"
      fi
      [ "$action" = upgrade ] && echo "  restart the daemon (apps keep serving through Caddy)"
    fi
    echo "  the daemon on 127.0.0.1:$DAEMON_PORT; the API over HTTPS at $api"
    [ -z "$address" ] || echo "  the server's address: $address (a new one re-issues the API certificate; pinned clients re-pin)"
    [ "$action" = no-change ] || [ "$action" = reconfigure ] || echo "  create the first all-projects write key (shown once) when no key exists"
    echo "  log: $LOG"
    echo
  } >&2
}

print_uninstall_plan() {
  {
    echo
    if [ "$purge" = 1 ]; then
      echo "Berth uninstall with --purge: stops the daemon$([ "$init_mode" = supervisor ] && echo " and its Caddy supervisor"), removes $OPT, $CLI_LINK,"
      echo "  $([ "$init_mode" = systemd ] && echo "$UNIT, $CADDY_DROPIN, ")Caddy's saved Berth configuration, and DELETES $ETC, $DATA (all data and keys), $STATUS_PAGES,"
      echo "  the logs, and every Docker container, volume, network and image this Berth created."
      echo "  Docker Engine and Caddy stay installed."
    else
      echo "Berth uninstall: stops the daemon$([ "$init_mode" = supervisor ] && echo " and its Caddy supervisor"), removes $OPT, $CLI_LINK$([ "$init_mode" = systemd ] && echo ", $UNIT")."
      echo "  Kept: $ETC, $DATA, Docker's containers, volumes and images$([ "$init_mode" = systemd ] && echo ", and Caddy with Berth's saved routes (apps keep serving)")."
      echo "  Installing again picks everything up; --purge removes it all."
    fi
    echo
  } >&2
}

confirm() {
  [ "$assume_yes" = 1 ] && return 0
  if ! { exec 3</dev/tty; } 2>/dev/null; then
    die "no terminal to confirm on: run again with --yes"
  fi
  local answer=""
  printf 'Continue? [y/N] ' >&2
  read -r answer <&3 || true
  exec 3<&-
  case "$answer" in y|Y|yes|YES) return 0 ;; *) die "cancelled; nothing was changed" ;; esac
}

# ---------------------------------------------------------------------------------------------
# Install steps

apt_install() {
  step "packages: ${need_packages[*]}"
  # Non-interactive: no debconf questions, keep existing configuration files, needrestart must not
  # prompt or restart services (Ubuntu), and wait for another apt/dpkg holding the lock.
  local apt_opts=(-y -q -o DPkg::Lock::Timeout=600 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
  run env DEBIAN_FRONTEND=noninteractive NEEDRESTART_MODE=l NEEDRESTART_SUSPEND=1 apt-get "${apt_opts[@]}" update
  run env DEBIAN_FRONTEND=noninteractive NEEDRESTART_MODE=l NEEDRESTART_SUSPEND=1 apt-get "${apt_opts[@]}" install "${need_packages[@]}"
}

ensure_docker() {
  step "docker engine"
  if [ "$init_mode" = systemd ]; then
    run systemctl enable --now docker
  elif ! docker info >/dev/null 2>&1; then
    mkdir -p "$SUPERVISOR_LOGS"
    say "starting dockerd (no systemd; log: $SUPERVISOR_LOGS/dockerd.log)"
    setsid dockerd >> "$SUPERVISOR_LOGS/dockerd.log" 2>&1 < /dev/null &
  fi
  local _
  for _ in $(seq 1 120); do docker info >/dev/null 2>&1 && return 0; sleep 0.5; done
  die "Docker Engine does not answer (docker info)"
}

# Docker's userland proxy off (README, "Docker's userland proxy"; installers/engine-proxy.sh): Caddy
# reaches an app's published 127.0.0.1 port through the kernel's NAT, not a docker-proxy process
# per port. The loopback guard goes in first (berth-firewall.sh says why). An owner's own
# "userland-proxy" in daemon.json is kept. Applied at once when no container runs (a fresh server);
# otherwise at Docker's next restart, so that an upgrade never stops running apps: Caddy dials the
# same 127.0.0.1 port either way. A marker in $ETC remembers that Berth added the key, for --purge.
readonly DOCKER_DAEMON_JSON=/etc/docker/daemon.json
readonly ENGINE_PROXY_MARK=$ETC/docker-userland-proxy-added
configure_engine() {
  step "docker engine: userland proxy"
  local result _
  run bash "$release_dir/installers/berth-firewall.sh" guard
  if [ "${BERTH_KEEP_ENGINE_CONFIG:-}" = 1 ]; then
    say "BERTH_KEEP_ENGINE_CONFIG=1: Docker's configuration is left as it is"
    return 0
  fi
  result=$(bash "$release_dir/installers/engine-proxy.sh" off "$release_dir/node/bin/node" "$DOCKER_DAEMON_JSON" 2>&1) ||
    { say "left Docker's userland proxy as it is: $result"; return 0; }
  log "engine-proxy: $result"
  if [ "$result" = kept ]; then
    [ -f "$ENGINE_PROXY_MARK" ] || say "$DOCKER_DAEMON_JSON sets userland-proxy already: kept as it is"
    return 0
  fi
  mkdir -p "$ETC" && touch "$ENGINE_PROXY_MARK"
  if [ "$init_mode" != systemd ]; then
    # whoever started this dockerd chose its command line: restarting it here could lose that
    say "Docker's userland proxy goes off when its dockerd is next started (no systemd here to restart it)"
    return 0
  fi
  if [ -n "$(docker ps -q 2>/dev/null)" ]; then
    say "Docker's userland proxy goes off at Docker's next restart (a reboot): containers are running, and restarting Docker now would stop them for a moment (\`systemctl restart docker\` does it when that suits you)"
    return 0
  fi
  say "restarting Docker without its userland proxy (no container runs yet)"
  run systemctl restart docker
  for _ in $(seq 1 120); do docker info >/dev/null 2>&1 && return 0; sleep 0.5; done
  die "Docker Engine does not answer after its restart (docker info)"
}

release_dir=""

install_release() {
  step "release $bundle_version (build $bundle_build)"
  mkdir -p "$OPT/releases"
  chmod 0755 "$OPT" "$OPT/releases"
  local dir current_target incoming
  current_target=$(readlink -f "$OPT/current" 2>/dev/null || true)
  dir="$OPT/releases/$bundle_version"
  if [ -f "$dir/BUILD_ID" ] && [ "$(cat "$dir/BUILD_ID")" != "$bundle_build" ] && [ "$(readlink -f "$dir")" = "$current_target" ]; then
    dir="$OPT/releases/$bundle_version+${bundle_build:0:8}"   # same version rebuilt: keep the running one intact
  fi
  if [ -f "$dir/BUILD_ID" ] && [ "$(cat "$dir/BUILD_ID")" = "$bundle_build" ]; then
    say "$dir already holds this build"
  else
    incoming=$(mktemp -d "$OPT/releases/.incoming-XXXXXX")
    if [ -d "$bundle_src" ]; then
      run cp -a "$bundle_src/." "$incoming/"
    else
      run tar -xzf "$bundle_src" -C "$incoming" --strip-components=1 --no-same-owner
    fi
    [ "$(cat "$incoming/BUILD_ID")" = "$bundle_build" ] || die "the extracted bundle's build id differs from the archive's"
    chmod 0755 "$incoming"
    rm -rf "$dir"
    mv "$incoming" "$dir"
  fi
  release_dir="$dir"
}

switch_current() {
  step "switch $OPT/current -> $release_dir"
  # A new symlink renamed over the old one: readers see either the old or the new release.
  ln -sfn "$release_dir" "$OPT/current.new"
  mv -T "$OPT/current.new" "$OPT/current"
}

prune_releases() {
  # Keep the current release and the one before it (for a manual rollback).
  local keep_prev="$1" d
  for d in "$OPT"/releases/*; do
    [ -d "$d" ] && [ -f "$d/BUILD_ID" ] || continue
    [ "$(readlink -f "$d")" = "$(readlink -f "$OPT/current")" ] && continue
    [ -n "$keep_prev" ] && [ "$(readlink -f "$d")" = "$keep_prev" ] && continue
    log "removing old release $d"
    rm -rf "$d"
  done
}

# Sets KEY=VALUE in berth.env, replacing its line or appending one; other lines stay as they are.
env_changed=""
env_set() {
  local key="$1" value="$2" file="$ETC/berth.env"
  if grep -q "^$key=" "$file"; then
    [ "$(sed -n "s/^$key=//p" "$file" | tail -n 1)" = "$value" ] && return 0
    sed -i "s|^$key=.*|$key=$value|" "$file"
  else
    printf '%s=%s\n' "$key" "$value" >> "$file"
  fi
  env_changed=1
  say "set $key in $ETC/berth.env"
}

write_configuration() {
  step "configuration"
  mkdir -p "$ETC" "$DATA"
  chmod 0700 "$ETC" "$DATA"
  if [ ! -f "$ETC/berth.env" ]; then
    (umask 077; cat > "$ETC/berth.env" <<EOF
# Berth daemon configuration, read by berth.service (or the supervisor) at every start.
# Kept as it is by upgrades; see docs/operations.md's Configuration table for every variable.
# The daemon listens on loopback only: Caddy serves the API over HTTPS.
BERTH_HOST=127.0.0.1
BERTH_PORT=$DAEMON_PORT
BERTH_DATA_DIR=$DATA
BERTH_CADDY_ADMIN=http://$CADDY_ADMIN
BERTH_API_TLS_ADDR=$([ -z "$domain" ] && echo ":$API_TLS_PORT")
EOF
    )
    say "wrote $ETC/berth.env"
  else
    # Only the listener that --domain switches is managed on reruns; everything else is yours.
    env_set BERTH_API_TLS_ADDR "$([ -z "$domain" ] && echo ":$API_TLS_PORT")"
  fi
  # How the daemon starts an upgrade asked for through the API (installers/upgrade.sh)
  env_set BERTH_UPGRADER "$([ "$init_mode" = systemd ] && echo path-unit || echo spawn)"
  env_set BERTH_INSTALL_ROOT "$OPT"
  # set once, from the first bundle installed; yours to change afterwards
  if ! grep -q '^BERTH_UPGRADE_SOURCES=' "$ETC/berth.env"; then
    if [ -n "${upgrade_source:-}" ]; then
      env_set BERTH_UPGRADE_SOURCES "$upgrade_source"
    else
      say "note: upgrades through the API (berth server upgrade, the console) take no bundle until BERTH_UPGRADE_SOURCES is set in $ETC/berth.env (this bundle's folder, $(dirname "$bundle_src"), is not one to trust)"
    fi
  fi
  env_set BERTH_STATUS_PAGES_DIR "$STATUS_PAGES"
  mkdir -p "$DATA/upgrade" "$STATUS_PAGES"
  chmod 0700 "$DATA/upgrade"
  chmod 0755 "$STATUS_PAGES"
  chmod 0600 "$ETC/berth.env"
}

# The options this installation was made with, for the next run; written only once it succeeded,
# so a run that failed half-way (a domain whose certificate never came) is retried in full.
write_install_state() {
  local state
  state=$(printf 'DOMAIN=%s\nEMAIL=%s\nBUILD=%s' "$domain" "$email" "$bundle_build")
  if [ ! -f "$ETC/install.env" ] || [ "$(cat "$ETC/install.env")" != "$state" ]; then
    (umask 077; printf '%s\n' "$state" > "$ETC/install.env")
  fi
}

# Copies $1 to $2 when the content differs; prints "changed" when it did.
install_file() {
  if [ -f "$2" ] && cmp -s "$1" "$2"; then return 0; fi
  mkdir -p "$(dirname "$2")"
  install -m "${3:-0644}" "$1" "$2"
  echo changed
}

write_entrypoints() {
  step "uninstaller and CLI"
  printf '#!/usr/bin/env bash\n# Removes Berth (keeps data unless --purge): see install.sh --help.\nexec bash %s/current/installers/install.sh --uninstall "$@"\n' "$OPT" > "$tmp_dir/uninstall.sh"
  install_file "$tmp_dir/uninstall.sh" "$OPT/uninstall.sh" 0755 >/dev/null
  if [ -L "$CLI_LINK" ] || [ ! -e "$CLI_LINK" ]; then
    [ "$(readlink "$CLI_LINK" 2>/dev/null)" = "$OPT/current/bin/berth" ] || ln -sfn "$OPT/current/bin/berth" "$CLI_LINK"
  else
    say "$CLI_LINK exists and is not Berth's: left alone (the server CLI is $OPT/current/bin/berth)"
  fi
}

# The server-side CLI of the installed release against the installed data dir.
berth_cli() { BERTH_DATA_DIR="$DATA" "$OPT/current/node/bin/node" "$OPT/current/dist/daemon/cli.js" "$@"; }

units_changed=""
write_units() {
  [ "$init_mode" = systemd ] || return 0
  step "systemd units"
  # the one folder outside its data dir the sandboxed daemon writes (berth.service: Swarm's registry trust)
  mkdir -p /etc/docker/certs.d
  units_changed+=$(install_file "$OPT/current/installers/berth.service" "$UNIT")
  local caddy_changed upgrade_changed=""
  caddy_changed=$(install_file "$OPT/current/installers/caddy-berth.conf" "$CADDY_DROPIN")
  # a release from before upgrades through the API has no such units: nothing to install then
  if [ -f "$OPT/current/installers/berth-upgrade.path" ]; then
    upgrade_changed=$(install_file "$OPT/current/installers/berth-upgrade.path" "$UPGRADE_PATH_UNIT")
    upgrade_changed+=$(install_file "$OPT/current/installers/berth-upgrade.service" "$UPGRADE_UNIT")
  fi
  if [ -n "$units_changed$caddy_changed$upgrade_changed" ]; then run systemctl daemon-reload; fi
  run systemctl enable caddy berth
  if [ -f "$UPGRADE_PATH_UNIT" ]; then run systemctl enable --now berth-upgrade.path; fi
  # Caddy restarts only when its unit changed (first install): its saved routes come back with it.
  if [ -n "$caddy_changed" ]; then run systemctl restart caddy; else run systemctl start caddy; fi
}

# Containers on Berth's networks must not reach the metadata service, the host or the private
# network (installers/berth-firewall.sh says what and how). The unit (ExecStartPre) and
# run-daemon.sh apply it again at every start, so it holds after a reboot; here it is applied at
# once, rules included for networks made by an earlier release. Idempotent.
env_value() { sed -n "s/^$1=//p" "$ETC/berth.env" | tail -n 1 | tr -d "\"'"; }
apply_firewall() {
  step "firewall for Berth's networks (metadata service, host, private network)"
  # BERTH_FIREWALL in the installer's own environment wins (the test suite sets it off: a shared host)
  run env BERTH_EGRESS_ALLOW="$(env_value BERTH_EGRESS_ALLOW)" BERTH_FIREWALL="${BERTH_FIREWALL:-$(env_value BERTH_FIREWALL)}" \
    bash "$OPT/current/installers/berth-firewall.sh" apply
}

# Caddy reloads (every deploy's swap) hand queued connections to the new listener instead of
# resetting them: installers/tune-kernel.sh says why. Now and at every boot; idempotent.
tune_kernel() {
  step "kernel setting for Caddy reloads (net.ipv4.tcp_migrate_req)"
  run bash "$OPT/current/installers/tune-kernel.sh" apply "$SYSCTL_FILE"
}

supervisor_alive() { [ -f "$RUN_DIR/$1.pid" ] && kill -0 "$(cat "$RUN_DIR/$1.pid")" 2>/dev/null; }

start_supervised() {
  local name="$1"; shift
  mkdir -p "$SUPERVISOR_LOGS" "$RUN_DIR"
  setsid "$OPT/current/installers/supervise.sh" "$name" "$SUPERVISOR_LOGS/$name.log" "$@" < /dev/null > /dev/null 2>&1 &
  local _
  for _ in $(seq 1 50); do supervisor_alive "$name" && [ -s "$RUN_DIR/$name.child" ] && return 0; sleep 0.1; done
  die "the $name supervisor did not start (see $SUPERVISOR_LOGS/$name.log)"
}

stop_supervised() {
  local name="$1" pid _
  supervisor_alive "$name" || return 0
  pid=$(cat "$RUN_DIR/$name.pid")
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 350); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  die "the $name supervisor (pid $pid) did not stop"
}

caddy_admin_answers() { curl -fsS -o /dev/null --max-time 2 "http://$CADDY_ADMIN/config/" 2>/dev/null; }

ensure_caddy() {
  if [ "$init_mode" = systemd ]; then return 0; fi   # write_units started it
  step "caddy (supervised)"
  if supervisor_alive caddy; then say "Caddy runs under Berth's supervisor (pid $(cat "$RUN_DIR/caddy.pid"))"
  elif caddy_admin_answers; then say "a Caddy not started by Berth answers on $CADDY_ADMIN: Berth uses it as it is (it is not supervised)"
  else
    say "no systemd: starting Caddy under a supervisor (it resumes Berth's saved routes; log: $SUPERVISOR_LOGS/caddy.log)"
    # As Debian's unit runs it: user caddy, allowed to bind ports 80 and 443, state in /var/lib/caddy.
    local as_caddy=()
    if id caddy >/dev/null 2>&1; then
      as_caddy=(setpriv --reuid=caddy --regid=caddy --init-groups --inh-caps=+net_bind_service --ambient-caps=+net_bind_service)
    fi
    start_supervised caddy -- "${as_caddy[@]}" env HOME=/var/lib/caddy XDG_CONFIG_HOME="$CADDY_CONFIG_HOME" XDG_DATA_HOME="$CADDY_DATA_HOME" \
      caddy run --environ --resume --config /etc/caddy/Caddyfile
  fi
  local _
  for _ in $(seq 1 100); do caddy_admin_answers && return 0; sleep 0.2; done
  die "Caddy's admin API does not answer on $CADDY_ADMIN"
}

daemon_running() {
  if [ "$init_mode" = systemd ]; then systemctl is-active --quiet berth; else supervisor_alive berth; fi
}

# Changes whenever the daemon's process is started again.
daemon_starts() {
  if [ "$init_mode" = systemd ]; then systemctl show -p NRestarts --value berth 2>/dev/null || true
  else cat "$RUN_DIR/berth.child" 2>/dev/null || true; fi
}

stop_daemon() {
  daemon_running || return 0
  step "stop the daemon"
  if [ "$init_mode" = systemd ]; then run systemctl stop berth; else stop_supervised berth; fi
}

start_daemon() {
  step "start the daemon"
  if [ "$init_mode" = systemd ]; then
    run systemctl start berth
  else
    say "no systemd: the daemon runs under a supervisor that restarts it when it exits (log: $SUPERVISOR_LOGS/berth.log; not started at boot: run this installer again after a reboot)"
    start_supervised berth --env-file "$ETC/berth.env" -- "$OPT/current/installers/run-daemon.sh"
  fi
}

wait_local_health() {
  step "wait for the daemon (http://127.0.0.1:$DAEMON_PORT/api/health)"
  local body="" _ first
  # A daemon that exits while starting (a bad configuration, a failed migration) is restarted by
  # systemd or the supervisor; that restart is the failure, reported at once.
  first=$(daemon_starts)
  for _ in $(seq 1 120); do
    body=$(answers_json "http://127.0.0.1:$DAEMON_PORT/api/health") && break
    if ! daemon_running || [ "$(daemon_starts)" != "$first" ]; then
      if [ "$init_mode" = systemd ]; then die "the daemon exited while starting; see journalctl -u berth"; fi
      die "the daemon exited while starting; the end of $SUPERVISOR_LOGS/berth.log: $(tail -n 4 "$SUPERVISOR_LOGS/berth.log" | tr '\n' ' ')"
    fi
    sleep 0.5
  done
  [ -n "$body" ] || die "the daemon did not answer within 60 s; see $([ "$init_mode" = systemd ] && echo "journalctl -u berth" || echo "$SUPERVISOR_LOGS/berth.log")"
  [[ "$body" == *"\"version\":\"$bundle_version\""* ]] || die "the daemon answers but not as version $bundle_version: $body"
}

first_key=""
create_first_key() {
  step "first key"
  if [ -n "$(berth_cli keys list 2>>"$LOG")" ]; then
    say "keys exist already: none created (they keep working)"
    return 0
  fi
  local err="$tmp_dir/key.err"
  first_key=$(berth_cli keys create --access write --projects all --name admin 2>"$err") || { cat "$err" >> "$LOG"; die "berth keys create failed"; }
  created_key_id=$(sed -n 's/^created key \([^ ]*\) .*/\1/p' "$err")
  cat "$err" >> "$LOG"   # the id and scope only; the secret went to stdout
  [ -n "$first_key" ] && [ -n "$created_key_id" ] || die "berth keys create gave no key"
}

# The installer changes settings through the daemon's API (on loopback) with a key made for the
# call and revoked right after. The key goes to curl on stdin (a header file), never on its argv.
# Prints the answer's body; `what` names the call in the error.
installer_api() {
  local method="$1" path="$2" body="$3" what="$4" err="$tmp_dir/ikey.err" token answer="" status=0
  token=$(berth_cli keys create --access write --projects all --name "installer-$(date -u +%Y%m%d%H%M%S)" 2>"$err") || die "could not create the installer's key"
  installer_key_id=$(sed -n 's/^created key \([^ ]*\) .*/\1/p' "$err")
  answer=$(printf 'Authorization: Bearer %s\n' "$token" | curl -sS --max-time 60 -X "$method" -H @- -H 'Content-Type: application/json' \
    --data "$body" -w '\n%{http_code}' "http://127.0.0.1:$DAEMON_PORT$path" 2>>"$LOG") || status=$?
  # revoked before any failure is reported: this may run in a command substitution, whose exit skips the EXIT trap
  berth_cli keys revoke "$installer_key_id" >> "$LOG" 2>&1 || die "could not revoke the installer's key"
  installer_key_id=""
  [ "$status" = 0 ] || die "the daemon did not answer $what (curl exit $status)"
  printf '%s\n' "${answer%$'\n'*}" >> "$LOG"
  [[ "${answer##*$'\n'}" == 2* ]] || die "the daemon refused $what: ${answer%$'\n'*}"
  printf '%s' "${answer%$'\n'*}"
}

# With --domain: the daemon's settings route the hostname to its API (dashboardHostname) and use ACME.
apply_domain_settings() {
  [ -n "$domain" ] || return 0
  [ "$domain" = "$prior_domain" ] && [ "$email" = "$prior_email" ] && [ "$action" != fresh ] && [ "$action" != reinstall ] && [ "$action" != repair ] && return 0
  step "domain $domain"
  installer_api PATCH /api/system/settings "$(printf '{"dashboardHostname":"%s","httpsMode":"acme"%s}' "$domain" "${email:+,\"acmeEmail\":\"$email\"}")" "the domain settings" > /dev/null
}

# With --address: the server's address (the daemon's publicIp setting). The daemon answers whether
# it changed; the same address again changes nothing, and the certificate stays the one pinned.
address_changed=0
apply_address() {
  [ -n "$address" ] || return 0
  step "address $address"
  local answer
  answer=$(installer_api PUT /api/system/address "$(printf '{"address":"%s"}' "$address")" "the address $address")
  if [[ "$answer" == *'"changed":true'* ]]; then
    address_changed=1
    say "the server's address is now $address: the API certificate was re-issued for it; clients pinned to the old one must re-pin with the fingerprint below"
  else
    say "address $address: no change"
  fi
}

api_url=""
cert_sha256=""
wait_https_health() {
  local _ body="" pem="$tmp_dir/leaf.pem"
  if [ -n "$domain" ]; then
    step "wait for https://$domain/api/health (ACME certificate; $domain must resolve to this server)"
    for _ in $(seq 1 90); do
      body=$(answers_json --resolve "$domain:443:127.0.0.1" "https://$domain/api/health") && break
      sleep 2
    done
    [ -n "$body" ] || die "https://$domain does not answer with a valid certificate after 3 minutes: check that $domain's DNS points at this server and that ports 80 and 443 are reachable, then run this again (Caddy's log: $([ "$init_mode" = systemd ] && echo "journalctl -u caddy" || echo "$SUPERVISOR_LOGS/caddy.log"))"
    api_url="https://$domain"
    return 0
  fi
  step "wait for https://<address>:$API_TLS_PORT/api/health (Caddy's internal CA)"
  for _ in $(seq 1 120); do
    # -k: this is the loopback, and the certificate is read and pinned just below.
    if body=$(answers_json -k "https://127.0.0.1:$API_TLS_PORT/api/health"); then
      openssl s_client -connect "127.0.0.1:$API_TLS_PORT" < /dev/null 2>/dev/null | openssl x509 -outform PEM > "$pem" 2>/dev/null && break
    fi
    body=""
    sleep 0.5
  done
  [ -n "$body" ] || die "the API does not answer over HTTPS on port $API_TLS_PORT; see $([ "$init_mode" = systemd ] && echo "journalctl -u caddy" || echo "$SUPERVISOR_LOGS/caddy.log")"
  [[ "$body" == *"\"ok\":true"* ]] || die "https://127.0.0.1:$API_TLS_PORT/api/health answered $body"
  cert_sha256=$(openssl x509 -in "$pem" -noout -fingerprint -sha256 | cut -d= -f2 | tr -d ':' | tr 'A-F' 'a-f')
  local ip
  ip=$(openssl x509 -in "$pem" -noout -ext subjectAltName 2>/dev/null | awk 'match($0, /IP Address:[0-9.]+/) { print substr($0, RSTART + 11, RLENGTH - 11); exit }')
  [ -n "$ip" ] || die "the certificate on port $API_TLS_PORT names no IP address"
  [[ "$cert_sha256" =~ ^[0-9a-f]{64}$ ]] || die "could not read the certificate's fingerprint"
  api_url="https://$ip:$API_TLS_PORT"
}

print_result() {
  {
    echo
    case "$action" in
      no-change) echo "Berth $bundle_version: no change (build $bundle_build is the one installed)." ;;
      upgrade) echo "Berth upgraded from $installed_version to $bundle_version; data, configuration and keys kept." ;;
      fresh) if [ -n "$restore_archive" ]; then echo "Berth $bundle_version is installed with the state restored from $restore_archive; its services are deploying again."; else echo "Berth $bundle_version is installed."; fi ;;
      *) echo "Berth $bundle_version is installed." ;;
    esac
    [ "$init_mode" = supervisor ] && echo "No systemd here: the daemon and Caddy run under Berth's supervisor (not at boot; run the installer again after a reboot)."
    if [ -n "$first_key" ]; then
      echo "The key below is shown once: store it now."
    else
      echo "Keys are unchanged (the key printed at the first install still works; 'berth keys create' makes another)."
    fi
    echo "Connect the CLI:"
    if [ -n "$cert_sha256" ]; then echo "  berth login $api_url --fingerprint $cert_sha256"; else echo "  berth login $api_url"; fi
    [ "$address_changed" = 1 ] && echo "The address changed: every client pinned to the old certificate re-pins with the line above (desktop app: edit the server, paste the new fingerprint)."
    echo "Uninstall: $OPT/uninstall.sh (add --purge to delete data too)"
    echo
  } >&2
  log "done: $action, version $bundle_version, build $bundle_build, $api_url"
  echo "BERTH_URL=$api_url"
  [ -n "$first_key" ] && echo "BERTH_KEY=$first_key"
  [ -n "$cert_sha256" ] && echo "BERTH_CERT_SHA256=$cert_sha256"
  return 0
}

# The state an upgrade may change, copied while the daemon is stopped (the store is consistent):
# the store and /etc/berth (configuration and the secrets that seal stored credentials). The last
# three copies are kept.
state_backup=""
backup_state() {
  step "back up Berth's state ($DATA/berth.sqlite, $ETC) before the switch"
  state_backup="$DATA/upgrade-backups/$installed_version-$(date -u +%Y%m%dT%H%M%SZ)"
  mkdir -p "$state_backup/data"
  chmod 0700 "$DATA/upgrade-backups" "$state_backup"
  local f
  for f in "$DATA"/berth.sqlite "$DATA"/berth.sqlite-wal "$DATA"/berth.sqlite-shm; do
    [ -f "$f" ] && run cp -a "$f" "$state_backup/data/"
  done
  run cp -a "$ETC" "$state_backup/etc"
  # keep the newest three
  local old
  while read -r old; do [ -n "$old" ] && rm -rf "$old"; done < <(ls -1dt "$DATA"/upgrade-backups/*/ 2>/dev/null | tail -n +4)
  say "state copied to $state_backup"
}

# The new release did not come up: the previous release and the state copied before the switch
# come back, the daemon starts again and must answer as the previous version. Exits 3.
previous_release=""
roll_back() {
  local reason="$1" failed_release="$release_dir" failed_version="$bundle_version"
  rollback_armed=0
  step "roll back to $installed_version (the new release $failed_version did not come up)"
  # unconditionally: a daemon that keeps exiting is "activating", not "active", between restarts
  if [ "$init_mode" = systemd ]; then run systemctl stop berth; systemctl reset-failed berth >/dev/null 2>&1 || true
  else stop_supervised berth; fi
  rm -f "$DATA"/berth.sqlite-wal "$DATA"/berth.sqlite-shm
  run cp -a "$state_backup/data/." "$DATA/"
  rm -rf "$ETC"
  run cp -a "$state_backup/etc" "$ETC"
  release_dir="$previous_release"
  switch_current
  write_entrypoints
  write_units
  start_daemon
  bundle_version="$installed_version"
  wait_local_health
  [ "$(readlink -f "$failed_release")" = "$(readlink -f "$previous_release")" ] || rm -rf "$failed_release"
  bundle_version="$failed_version"
  last_error="$reason"
  current_step="done"
  rolled_back=1
  say "rolled back: Berth $installed_version runs again, with the state it had before the upgrade (copy kept in $state_backup). The upgrade to $failed_version failed: $reason"
  exit 3
}

# --restore: the archive's state in place before the first start (berth server restore-archive).
restore_state() {
  step "restore Berth's state from $restore_archive"
  local err="$tmp_dir/restore.err"
  if ! BERTH_DATA_DIR="$DATA" BERTH_ETC_DIR="$ETC" BERTH_CADDY_HOME="$CADDY_HOME" "$OPT/current/node/bin/node" "$OPT/current/dist/daemon/cli.js" \
    server restore-archive "$restore_archive" ${passphrase_file:+--passphrase-file "$passphrase_file"} 2>"$err"; then
    cat "$err" >> "$LOG"
    die "$(sed -n 's/^berth: error: //p' "$err" | head -n 1)"
  fi
  cat "$err" >> "$LOG"
  sed 's/^berth: //' "$err" | while IFS= read -r line; do say "$line"; done
  chmod 0600 "$ETC/berth.env"
}

# --restore, once the daemon answers: every service deployed again (databases from their latest backup).
redeploy_restored() {
  step "deploy the restored services again"
  local err="$tmp_dir/redeploy.err"
  ( set -a; . "$ETC/berth.env"; set +a; berth_cli server redeploy-restored ) 2>"$err" || { cat "$err" >> "$LOG"; die "redeploying the restored services failed: $(tail -n 1 "$err")"; }
  cat "$err" >> "$LOG"
  sed 's/^berth: //' "$err" | while IFS= read -r line; do say "$line"; done
}

do_install() {
  preflight_install
  print_plan
  if [ "$dry_run" = 1 ]; then say "dry run: nothing was changed"; return 0; fi
  confirm
  mkdir -p "$(dirname "$LOG")"
  touch "$LOG" && chmod 0600 "$LOG"
  logging=1
  log "---- install.sh $action: $bundle_version (build $bundle_build) on $os_name, $init_mode"
  changed_something=1
  [ ${#need_packages[@]} -eq 0 ] || apt_install
  ensure_docker
  local previous=""
  previous=$(readlink -f "$OPT/current" 2>/dev/null || true)
  if [ "$action" != no-change ]; then
    install_release
    write_configuration
  else
    release_dir=$previous
  fi
  configure_engine
  local switch=0
  [ "$(readlink -f "$OPT/current" 2>/dev/null || true)" = "$(readlink -f "${release_dir:-/nonexistent}")" ] || switch=1
  if [ "$switch" = 1 ]; then
    # The daemon stops before the switch and starts after it: migrations run once, by the new code.
    stop_daemon
    if [ "$action" = upgrade ] && [ -n "$previous" ] && [ -f "$DATA/berth.sqlite" ]; then
      backup_state
      previous_release="$previous"
      rollback_armed=1
    fi
    switch_current
  fi
  [ -z "$restore_archive" ] || restore_state
  write_entrypoints
  write_units
  apply_firewall
  tune_kernel
  ensure_caddy
  if [ "$action" = fresh ] || [ "$action" = reinstall ] || [ "$action" = repair ] || ! daemon_running; then
    stop_daemon
    # Before the first start, so the daemon never writes a key of its own into the data dir.
    create_first_key
    start_daemon
  elif [ -n "$units_changed$env_changed" ]; then
    step "restart the daemon (its configuration changed)"
    if [ "$init_mode" = systemd ]; then run systemctl restart berth; else stop_supervised berth; start_daemon; fi
  fi
  wait_local_health
  apply_domain_settings
  apply_address
  wait_https_health
  [ -z "$restore_archive" ] || redeploy_restored
  rollback_armed=0
  [ "$switch" = 1 ] && prune_releases "$previous"
  write_install_state
  current_step="done"
  print_result
  created_key_id=""
}

# ---------------------------------------------------------------------------------------------
# Uninstall

do_uninstall() {
  step "preflight (uninstall)"
  [ -e "$OPT" ] || [ -e "$ETC" ] || [ -e "$DATA" ] || [ -e "$UNIT" ] || supervisor_alive berth || supervisor_alive caddy || { say "Berth is not installed here"; return 0; }
  # The purge finds this Berth's Docker objects with its own code (purge.js): the installed release's,
  # or, when an earlier --uninstall removed it, a bundle's (this script's own, or --from).
  local purge_runtime=""
  if [ "$purge" = 1 ] && { [ -f "$DATA/berth.sqlite" ] || [ -f "$ENGINE_PROXY_MARK" ]; }; then
    if [ -x "$OPT/current/node/bin/node" ]; then purge_runtime="$OPT/current"
    else
      [ -n "$from" ] || [ -f "$(dirname "${BASH_SOURCE[0]}")/../BUILD_ID" ] || die "Berth's release is gone (uninstalled): give the bundle with --from FILE so the purge can find this Berth's Docker objects"
      locate_bundle
    fi
  fi
  print_uninstall_plan
  if [ "$dry_run" = 1 ]; then say "dry run: nothing was changed"; return 0; fi
  confirm
  if [ -f "$LOG" ] || [ -d "$(dirname "$LOG")" ]; then touch "$LOG" && chmod 0600 "$LOG" && logging=1; fi
  log "---- install.sh --uninstall$([ "$purge" = 1 ] && echo " --purge")"
  changed_something=1

  step "stop Berth"
  if [ "$init_mode" = systemd ]; then
    if [ -f "$UNIT" ]; then run systemctl disable --now berth; fi
    if [ -f "$UPGRADE_PATH_UNIT" ]; then run systemctl disable --now berth-upgrade.path; fi
  else
    stop_supervised berth
    # Caddy was started by Berth's installer and nothing else would ever manage it.
    stop_supervised caddy
  fi

  step "remove the firewall rules for Berth's networks"
  local firewall
  firewall="$(dirname "${BASH_SOURCE[0]}")/berth-firewall.sh"
  [ -f "$firewall" ] || firewall="$OPT/current/installers/berth-firewall.sh"
  if [ -f "$firewall" ]; then run bash "$firewall" remove; else say "skipped: no berth-firewall.sh (a release from before it)"; fi

  if [ "$purge" = 1 ] && [ -z "$purge_runtime" ] && [ -n "$bundle_src" ]; then
    if [ -d "$bundle_src" ]; then purge_runtime="$bundle_src"
    else
      mkdir "$tmp_dir/runtime"
      run tar -xzf "$bundle_src" -C "$tmp_dir/runtime" --strip-components=1 --no-same-owner
      purge_runtime="$tmp_dir/runtime"
    fi
  fi

  if [ "$purge" = 1 ] && [ -f "$ENGINE_PROXY_MARK" ] && [ -n "$purge_runtime" ]; then
    step "give Docker its userland proxy back (Berth turned it off)"
    run bash "$purge_runtime/installers/engine-proxy.sh" restore "$purge_runtime/node/bin/node" "$DOCKER_DAEMON_JSON" ||
      say "left $DOCKER_DAEMON_JSON as it is (see $LOG)"
    say "it comes back at Docker's next restart; the loopback guard (raw PREROUTING) stays until then"
  fi

  if [ "$purge" = 1 ]; then
    step "remove this Berth's Docker objects"
    if [ ! -f "$DATA/berth.sqlite" ]; then
      say "skipped: no data dir, so no daemon ever made anything"
    elif ! docker info >/dev/null 2>&1; then
      die "Docker Engine does not answer: start it and run this again (nothing was removed yet)"
    else
      BERTH_DATA_DIR="$DATA" run "$purge_runtime/node/bin/node" "$purge_runtime/dist/daemon/purge.js"
    fi
  fi

  step "remove $OPT"
  rm -f "$UNIT" "$UPGRADE_PATH_UNIT" "$UPGRADE_UNIT" "$SYSCTL_FILE"
  [ "$(readlink "$CLI_LINK" 2>/dev/null)" = "$OPT/current/bin/berth" ] && rm -f "$CLI_LINK"
  rm -rf "$OPT"
  rm -rf "$RUN_DIR"

  if [ "$purge" = 1 ]; then
    step "remove data, configuration and Caddy's saved Berth routes"
    rm -f "$CADDY_CONFIG_HOME/caddy/autosave.json"
    if [ -f "$CADDY_DROPIN" ]; then
      rm -f "$CADDY_DROPIN"
      rmdir "$(dirname "$CADDY_DROPIN")" 2>/dev/null || true
      if [ "$init_mode" = systemd ]; then run systemctl daemon-reload; run systemctl restart caddy; fi
    fi
    rm -rf "$ETC" "$DATA" "$STATUS_PAGES" "$SUPERVISOR_LOGS"
  fi
  if [ "$init_mode" = systemd ] && [ "$purge" = 0 ]; then run systemctl daemon-reload; fi
  current_step="done"
  if [ "$purge" = 1 ]; then
    logging=0
    rm -f "$LOG"
    say "Berth is removed, with its data, configuration and Docker objects (Docker Engine and Caddy stay installed)"
  else
    say "Berth is removed; kept: $ETC, $DATA and Docker's containers, volumes and images (install again to pick them up, or --purge)"
  fi
}

# The same flow as the one-line join command: the manager's join script for this token, fetched
# over HTTPS pinned to its API certificate (no CA is trusted), run as is. Nothing of Berth is
# installed on a worker node.
do_join() {
  local url_re='^https://[][A-Za-z0-9.:-]+$'
  [[ "$join_url" =~ $url_re ]] || { echo "install.sh: --join URL must be https://<address>:<port>, got \"$join_url\"" >&2; exit 2; }
  [[ "$join_pin" =~ ^[A-Za-z0-9+/=]{44}$ ]] || { echo "install.sh: --join PIN must be the base64 SHA-256 of the API key (44 characters)" >&2; exit 2; }
  [[ "$join_token" =~ ^[A-Za-z0-9_-]{32,64}$ ]] || { echo "install.sh: --join TOKEN is not a join token" >&2; exit 2; }
  local script
  script=$(curl -fsSk --pinnedpubkey "sha256//$join_pin" "$join_url/api/nodes/join/$join_token/script") ||
    { echo "install.sh: could not fetch the join script from $join_url (expired or used token, wrong pin, or unreachable)" >&2; exit 1; }
  exec bash -c "$script"
}

main() {
  parse_args "$@"
  if [ "$mode" = join ]; then do_join; fi
  trap on_exit EXIT
  preflight_common
  if [ "$mode" = uninstall ]; then do_uninstall; else do_install; fi
}

main "$@"
