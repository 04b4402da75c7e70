#!/usr/bin/env bash
# A minimal supervisor for hosts without systemd (containers, CI): runs one command, restarts it
# whenever it exits, and stops it on SIGTERM. install.sh starts one for Berth's daemon and one for
# Caddy, each detached with setsid:
#   supervise.sh NAME LOGFILE [--env-file FILE] -- COMMAND [ARG...]
# /run/berth/NAME.pid holds the supervisor's pid, /run/berth/NAME.child the running command's.
# The env file (KEY=VALUE lines, as systemd's EnvironmentFile) is read again at every start, so a
# changed configuration takes effect at the next restart. Output goes to LOGFILE.
set -euo pipefail

name="${1:?usage: supervise.sh NAME LOGFILE [--env-file FILE] -- COMMAND...}"
logfile="${2:?usage: supervise.sh NAME LOGFILE [--env-file FILE] -- COMMAND...}"
shift 2
env_file=""
if [ "${1:-}" = --env-file ]; then env_file="$2"; shift 2; fi
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || { echo "supervise: no command given" >&2; exit 2; }

run_dir=/run/berth
pidfile="$run_dir/$name.pid"
childfile="$run_dir/$name.child"
mkdir -p "$run_dir"
if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
  echo "supervise: $name is already supervised by pid $(cat "$pidfile")" >&2
  exit 1
fi
echo $$ > "$pidfile"

note() { printf '%s supervise[%s]: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$name" "$*" >> "$logfile"; }

# KEY=VALUE lines; blank lines and comments skipped; surrounding quotes removed; never evaluated.
load_env() {
  [ -n "$env_file" ] && [ -r "$env_file" ] || return 0
  local line key value
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in ''|'#'*) continue ;; esac
    key="${line%%=*}"
    value="${line#*=}"
    [[ "$key" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || continue
    if [[ "$value" =~ ^\"(.*)\"$ ]] || [[ "$value" =~ ^\'(.*)\'$ ]]; then value="${BASH_REMATCH[1]}"; fi
    export "$key=$value"
  done < "$env_file"
}

child=""
stopping=0
stop() {
  stopping=1
  if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
    note "stopping $name (pid $child)"
    kill -TERM "$child" 2>/dev/null || true
    for _ in $(seq 1 300); do kill -0 "$child" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$child" 2>/dev/null || true
  fi
  rm -f "$pidfile" "$childfile"
  exit 0
}
trap stop TERM INT

delay=1
while :; do
  started=$SECONDS
  ( load_env; exec "$@" ) >> "$logfile" 2>&1 < /dev/null &
  child=$!
  echo "$child" > "$childfile"
  note "started $name (pid $child)"
  status=0
  wait "$child" || status=$?
  [ "$stopping" = 1 ] && stop
  # Quick repeated failures back off up to 10 s; a process that ran a while restarts after 1 s.
  if [ $((SECONDS - started)) -lt 10 ]; then delay=$((delay * 2 > 10 ? 10 : delay * 2)); else delay=1; fi
  note "$name exited with status $status; restarting in ${delay}s"
  sleep "$delay" &
  wait $! || true
  [ "$stopping" = 1 ] && stop
done
