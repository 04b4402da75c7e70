#!/usr/bin/env bash
# Entrypoint of the postgres stand-in image: the same contract as the official `postgres` image's
# docker-entrypoint.sh (a reduced copy of its logic).
#
#   POSTGRES_PASSWORD      required (unless POSTGRES_HOST_AUTH_METHOD=trust); superuser password
#   POSTGRES_USER          superuser name, default postgres
#   POSTGRES_DB            database created on first start, default = POSTGRES_USER
#   POSTGRES_INITDB_ARGS   extra initdb arguments; POSTGRES_INITDB_WALDIR: --waldir
#   POSTGRES_HOST_AUTH_METHOD  method of the `host all all all` pg_hba line, default scram-sha-256
#   *_FILE                 POSTGRES_PASSWORD_FILE etc. read the value from a file
#   PGDATA                 /var/lib/postgresql/data (a VOLUME)
#
# First start (no $PGDATA/PG_VERSION): initdb (superuser = POSTGRES_USER, password set,
# password_encryption scram-sha-256), append `host all all all scram-sha-256` to pg_hba.conf
# (initdb's own local/loopback `trust` lines stay, as in the official image: the entrypoint's
# init and `docker exec psql` use them), start a socket-only server, create POSTGRES_DB, run
# /docker-entrypoint-initdb.d/*.sh|*.sql|*.sql.gz|*.sql.xz in name order, stop it.
# listen_addresses = '*' comes from postgresql.conf.sample (set in the Dockerfile).
#
# Arguments: first one starting with `-` -> `postgres "$@"` (`docker run IMAGE -c wal_level=logical`);
# `postgres ...` runs the server as user postgres (uid 999), in the foreground; anything else is
# exec'd as given (`docker run IMAGE psql --version`).
#
# TLS: with `-c ssl=on -c ssl_cert_file=... -c ssl_key_file=...` the key file must be readable by
# uid 999 (owner 999 mode 0600, or owner root group 999 mode 0640); postgres refuses a key that is
# root-owned 0600 because it cannot read it. The official image has the same limitation.
set -Eeo pipefail

# usage: file_env VAR [DEFAULT]: VAR or VAR_FILE (not both)
file_env() {
  local var="$1" fileVar="${1}_FILE" def="${2:-}"
  if [ "${!var:-}" ] && [ "${!fileVar:-}" ]; then
    echo >&2 "error: both $var and $fileVar are set (but are exclusive)"
    exit 1
  fi
  local val="$def"
  if [ "${!var:-}" ]; then
    val="${!var}"
  elif [ "${!fileVar:-}" ]; then
    val="$(<"${!fileVar}")"
  fi
  export "$var"="$val"
  unset "$fileVar"
}

# `postgres --help`, `-V`, `--describe-config`, `-C x` must not trigger initialisation.
pg_want_help() {
  local arg
  for arg; do
    case "$arg" in
      -'?'|--help|--describe-config|-V|--version) return 0 ;;
    esac
  done
  return 1
}

docker_setup_env() {
  file_env 'POSTGRES_PASSWORD'
  file_env 'POSTGRES_USER' 'postgres'
  file_env 'POSTGRES_DB' "$POSTGRES_USER"
  file_env 'POSTGRES_INITDB_ARGS'
  : "${POSTGRES_HOST_AUTH_METHOD:=}"
  DATABASE_ALREADY_EXISTS=
  if [ -s "$PGDATA/PG_VERSION" ]; then DATABASE_ALREADY_EXISTS=true; fi
}

docker_create_db_directories() {
  local user; user="$(id -u)"
  mkdir -p "$PGDATA"
  chmod 00700 "$PGDATA" || :
  mkdir -p /var/run/postgresql || :
  chmod 03775 /var/run/postgresql || :
  if [ -n "${POSTGRES_INITDB_WALDIR:-}" ]; then
    mkdir -p "$POSTGRES_INITDB_WALDIR"
    if [ "$user" = '0' ]; then find "$POSTGRES_INITDB_WALDIR" \! -user postgres -exec chown postgres '{}' +; fi
    chmod 700 "$POSTGRES_INITDB_WALDIR"
  fi
  if [ "$user" = '0' ]; then
    find "$PGDATA" \! -user postgres -exec chown postgres '{}' +
    find /var/run/postgresql \! -user postgres -exec chown postgres '{}' +
  fi
}

docker_verify_minimum_env() {
  if [ "${#POSTGRES_PASSWORD}" -ge 100 ]; then
    echo >&2 "WARNING: The supplied POSTGRES_PASSWORD is 100+ characters."
  fi
  if [ -z "$POSTGRES_PASSWORD" ] && [ 'trust' != "$POSTGRES_HOST_AUTH_METHOD" ]; then
    cat >&2 <<'EOE'
Error: Database is uninitialized and superuser password is not specified.
       You must specify POSTGRES_PASSWORD to a non-empty value for the
       superuser. For example, "-e POSTGRES_PASSWORD=password" on "docker run".

       You may also use "POSTGRES_HOST_AUTH_METHOD=trust" to allow all
       connections without a password. This is *not* recommended.
EOE
    exit 1
  fi
}

docker_init_database_dir() {
  if [ -n "${POSTGRES_INITDB_WALDIR:-}" ]; then
    set -- --waldir "$POSTGRES_INITDB_WALDIR" "$@"
  fi
  # --pwfile refuses an empty file, hence the trailing newline
  # shellcheck disable=SC2086
  eval 'initdb --username="$POSTGRES_USER" --pwfile=<(printf "%s\n" "$POSTGRES_PASSWORD") '"$POSTGRES_INITDB_ARGS"' "$@"'
}

docker_pg_hba() {
  if [ "$1" = 'postgres' ]; then shift; fi
  local auth
  auth="$(postgres -C password_encryption "$@")"
  : "${POSTGRES_HOST_AUTH_METHOD:=$auth}"
  {
    echo
    if [ 'trust' = "$POSTGRES_HOST_AUTH_METHOD" ]; then
      echo '# warning trust is enabled for all connections'
    fi
    echo "host all all all $POSTGRES_HOST_AUTH_METHOD"
  } >> "$PGDATA/pg_hba.conf"
}

docker_temp_server_start() {
  if [ "$1" = 'postgres' ]; then shift; fi
  # socket only: nothing outside the container sees the half-initialised server
  set -- "$@" -c listen_addresses='' -p "${PGPORT:-5432}"
  PGUSER="${PGUSER:-$POSTGRES_USER}" pg_ctl -D "$PGDATA" -o "$(printf '%q ' "$@")" -w start
}

docker_temp_server_stop() {
  PGUSER="${PGUSER:-postgres}" pg_ctl -D "$PGDATA" -m fast -w stop
}

docker_process_sql() {
  local query_runner=(psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc)
  if [ -n "$POSTGRES_DB" ]; then query_runner+=(--dbname "$POSTGRES_DB"); fi
  PGHOST= PGHOSTADDR= "${query_runner[@]}" "$@"
}

docker_setup_db() {
  local dbAlreadyExists
  dbAlreadyExists="$(POSTGRES_DB='postgres' docker_process_sql --dbname postgres --set db="$POSTGRES_DB" --tuples-only <<-'EOSQL'
		SELECT 1 FROM pg_database WHERE datname = :'db' ;
	EOSQL
  )"
  if [ -z "$dbAlreadyExists" ]; then
    POSTGRES_DB='postgres' docker_process_sql --dbname postgres --set db="$POSTGRES_DB" <<-'EOSQL'
			CREATE DATABASE :"db" ;
		EOSQL
    echo
  fi
}

docker_process_init_files() {
  echo
  local f
  for f; do
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
      *.sql) echo "$0: running $f"; docker_process_sql -f "$f"; echo ;;
      *.sql.gz) echo "$0: running $f"; gunzip -c "$f" | docker_process_sql; echo ;;
      *.sql.xz) echo "$0: running $f"; xz -dc "$f" | docker_process_sql; echo ;;
      *) echo "$0: ignoring $f" ;;
    esac
    echo
  done
}

_main() {
  if [ "${1:0:1}" = '-' ]; then
    set -- postgres "$@"
  fi

  if [ "$1" = 'postgres' ] && ! pg_want_help "$@"; then
    docker_setup_env
    docker_create_db_directories
    if [ "$(id -u)" = '0' ]; then
      # re-run this script as postgres (uid 999)
      exec setpriv --reuid=postgres --regid=postgres --init-groups "$BASH_SOURCE" "$@"
    fi

    if [ -z "$DATABASE_ALREADY_EXISTS" ]; then
      docker_verify_minimum_env
      ls /docker-entrypoint-initdb.d/ >/dev/null
      docker_init_database_dir
      docker_pg_hba "$@"
      export PGPASSWORD="${PGPASSWORD:-$POSTGRES_PASSWORD}"
      docker_temp_server_start "$@"
      docker_setup_db
      shopt -s nullglob
      docker_process_init_files /docker-entrypoint-initdb.d/*
      shopt -u nullglob
      docker_temp_server_stop
      unset PGPASSWORD
      echo
      echo 'PostgreSQL init process complete; ready for start up.'
      echo
    else
      echo
      echo 'PostgreSQL Database directory appears to contain a database; Skipping initialization'
      echo
    fi
  fi

  exec "$@"
}

_main "$@"
