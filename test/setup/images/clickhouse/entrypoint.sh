#!/usr/bin/env bash
# Entrypoint of the clickhouse stand-in image (ClickHouse 18.16 from Debian): the contract of the
# official `clickhouse/clickhouse-server` image's entrypoint.sh.
#
#   CLICKHOUSE_USER       user name, default `default`
#   CLICKHOUSE_PASSWORD   its password, default empty
#     When either is set, users.d/default-user.xml (written on every start, like the official
#     image) removes the built-in `default` user and defines CLICKHOUSE_USER with that password
#     (stored as <password_sha256_hex>), access from any address (::/0), profile and quota
#     `default`, all databases. Nothing set: the stock passwordless `default` user.
#   CLICKHOUSE_DB         database created on first start (CREATE DATABASE IF NOT EXISTS `name`)
#   CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT  accepted and ignored: 18.16 has no SQL-driven access
#     control (CREATE USER / GRANT came in 20.4), users are only defined in XML.
#   CLICKHOUSE_CONFIG     server config, default /etc/clickhouse-server/config.xml
#   data                  /var/lib/clickhouse (a VOLUME); HTTP on 0.0.0.0:8123, native on 0.0.0.0:9000
#     (config.d/docker_related_config.xml); logs also on stdout/stderr.
#
# First start (no /var/lib/clickhouse/data) with CLICKHOUSE_DB or /docker-entrypoint-initdb.d files:
# a temporary server listening on 127.0.0.1 only, wait for /ping, create the database, run
# /docker-entrypoint-initdb.d/*.sh|*.sql|*.sql.gz with clickhouse-client as CLICKHOUSE_USER, stop it.
#
# Arguments: none or first one starting with `--` -> `clickhouse-server --config-file=... "$@"`
# in the foreground as user clickhouse (uid 101), e.g. `docker run IMAGE -- --http_port=8124`;
# anything else is exec'd as given (`docker run IMAGE clickhouse-client --host x`).
set -eo pipefail
shopt -s nullglob

DO_CHOWN=1
if [ "${CLICKHOUSE_DO_NOT_CHOWN:-0}" = "1" ]; then DO_CHOWN=0; fi

CLICKHOUSE_CONFIG="${CLICKHOUSE_CONFIG:-/etc/clickhouse-server/config.xml}"
DATA_DIR=/var/lib/clickhouse
LOG_DIR=/var/log/clickhouse-server

CLICKHOUSE_USER="${CLICKHOUSE_USER:-default}"
CLICKHOUSE_PASSWORD="${CLICKHOUSE_PASSWORD:-}"
CLICKHOUSE_DB="${CLICKHOUSE_DB:-}"
# accepted for compatibility with the official image; this version cannot do SQL access management
CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT="${CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT:-0}"

# the command prefix that runs a program as user clickhouse (nothing when not root)
as_clickhouse=()
if [ "$(id -u)" = 0 ]; then
  as_clickhouse=(setpriv --reuid=clickhouse --regid=clickhouse --init-groups)
fi

write_user_config() {
  if [ "$CLICKHOUSE_USER" = 'default' ] && [ -z "$CLICKHOUSE_PASSWORD" ]; then
    rm -f /etc/clickhouse-server/users.d/default-user.xml
    return
  fi
  # the name becomes an XML element name
  if ! [[ "$CLICKHOUSE_USER" =~ ^[A-Za-z_][A-Za-z0-9_.-]*$ ]]; then
    echo "$0: CLICKHOUSE_USER '$CLICKHOUSE_USER' is not a valid user name for this ClickHouse version" >&2
    exit 1
  fi
  local hash
  hash="$(printf '%s' "$CLICKHOUSE_PASSWORD" | sha256sum | cut -d' ' -f1)"
  echo "$0: create new user '$CLICKHOUSE_USER' instead 'default'"
  cat > /etc/clickhouse-server/users.d/default-user.xml <<EOT
<?xml version="1.0"?>
<yandex>
  <users>
    <default remove="remove"></default>
    <${CLICKHOUSE_USER}>
      <profile>default</profile>
      <networks>
        <ip>::/0</ip>
      </networks>
      <password_sha256_hex>${hash}</password_sha256_hex>
      <quota>default</quota>
    </${CLICKHOUSE_USER}>
  </users>
</yandex>
EOT
  chmod 0644 /etc/clickhouse-server/users.d/default-user.xml
}

http_port() {
  local port
  port="$(sed -n 's:.*<http_port>\([0-9]*\)</http_port>.*:\1:p' "$CLICKHOUSE_CONFIG" /etc/clickhouse-server/config.d/*.xml | tail -1)"
  echo "${port:-8123}"
}

init_database() {
  [ ! -d "$DATA_DIR/data" ] || return 0
  local initfiles=(/docker-entrypoint-initdb.d/*)
  [ -n "$CLICKHOUSE_DB" ] || [ ${#initfiles[@]} -gt 0 ] || return 0

  local port pid tries
  port="$(http_port)"
  # listen on loopback only until the initialisation is done
  # (a plain command, not a function: $! must be the server itself, setpriv execs it)
  "${as_clickhouse[@]}" clickhouse-server --config-file="$CLICKHOUSE_CONFIG" -- --listen_host=127.0.0.1 &
  pid=$!
  tries=${CLICKHOUSE_INIT_TIMEOUT:-120}
  until wget -q -O /dev/null -T 1 "http://127.0.0.1:$port/ping" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo >&2 "$0: the temporary clickhouse-server exited during initialisation"
      exit 1
    fi
    tries=$((tries - 1))
    if [ "$tries" -le 0 ]; then
      echo >&2 "$0: clickhouse-server did not answer on http://127.0.0.1:$port/ping during initialisation"
      kill "$pid" || true
      exit 1
    fi
    sleep 0.5
  done

  local client=(clickhouse-client --multiquery --host 127.0.0.1 --user "$CLICKHOUSE_USER" --password "$CLICKHOUSE_PASSWORD")
  if [ -n "$CLICKHOUSE_DB" ]; then
    echo "$0: create database '$CLICKHOUSE_DB'"
    "${client[@]}" --query "CREATE DATABASE IF NOT EXISTS \`${CLICKHOUSE_DB//\`/\\\`}\`"
  fi
  local f
  for f in "${initfiles[@]}"; do
    case "$f" in
      *.sh)
        if [ -x "$f" ]; then
          echo "$0: running $f"; "$f"
        else
          echo "$0: sourcing $f"
          # shellcheck disable=SC1090
          . "$f"
        fi
        ;;
      *.sql) echo "$0: running $f"; "${client[@]}" < "$f"; echo ;;
      *.sql.gz) echo "$0: running $f"; gunzip -c "$f" | "${client[@]}"; echo ;;
      *) echo "$0: ignoring $f" ;;
    esac
    echo
  done

  if ! kill -s TERM "$pid" || ! wait "$pid"; then
    echo >&2 "$0: finishing the temporary clickhouse-server failed"
    exit 1
  fi
}

if [ $# -lt 1 ] || [[ "$1" == --* ]]; then
  mkdir -p "$DATA_DIR" "$LOG_DIR"
  if [ "$(id -u)" = 0 ] && [ "$DO_CHOWN" = 1 ]; then
    find "$DATA_DIR" "$LOG_DIR" \! -user clickhouse -exec chown clickhouse:clickhouse '{}' +
  fi
  write_user_config
  init_database
  exec "${as_clickhouse[@]}" clickhouse-server --config-file="$CLICKHOUSE_CONFIG" "$@"
fi

exec "$@"
