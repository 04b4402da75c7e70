#!/usr/bin/env bash
# Entrypoint of the mysql stand-in image (MariaDB 10.11): the same contract as the official
# `mysql` / `mariadb` images' docker-entrypoint.sh (a reduced copy of their logic).
#
#   MYSQL_ROOT_PASSWORD    root password, for root@localhost and root@MYSQL_ROOT_HOST; one of it,
#                          MYSQL_ALLOW_EMPTY_PASSWORD or MYSQL_RANDOM_ROOT_PASSWORD is required
#   MYSQL_ROOT_HOST        host part of the second root account, default '%' (TCP from anywhere)
#   MYSQL_DATABASE         database created on first start (utf8mb4)
#   MYSQL_USER, MYSQL_PASSWORD  user@'%' created with ALL PRIVILEGES on MYSQL_DATABASE
#   MYSQL_INITDB_SKIP_TZINFO    skip loading the time zone tables
#   MARIADB_*              the official mariadb image's names for the same (MARIADB_ROOT_PASSWORD...)
#   *_FILE                 MYSQL_ROOT_PASSWORD_FILE etc. read the value from a file
#   data directory         /var/lib/mysql (a VOLUME)
#
# First start (no /var/lib/mysql/mysql directory): mariadb-install-db, a socket-only temporary
# server, root/user/database setup, /docker-entrypoint-initdb.d/*.sh|*.sql|*.sql.gz|*.sql.xz in
# name order (SQL run as root, in MYSQL_DATABASE when set), shutdown. Later starts reuse the data.
#
# Arguments: first one starting with `-` -> `mariadbd "$@"` (`docker run IMAGE --max-connections=50`);
# `mariadbd ...` / `mysqld ...` run the server as user mysql (uid 999) in the foreground on
# 0.0.0.0:3306 (config: /etc/mysql/mariadb.conf.d/99-docker.cnf); anything else is exec'd as given.
# MySQL-8-only server options (e.g. --default-authentication-plugin) are unknown to MariaDB and
# make it refuse to start.
set -eo pipefail
shopt -s nullglob

mysql_log() { printf '%s [%s] [Entrypoint]: %s\n' "$(date --rfc-3339=seconds)" "$1" "$2"; }
mysql_note() { mysql_log Note "$*"; }
mysql_warn() { mysql_log Warn "$*" >&2; }
mysql_error() { mysql_log ERROR "$*" >&2; exit 1; }

# usage: file_env VAR [DEFAULT]: VAR or VAR_FILE (not both)
file_env() {
  local var="$1" fileVar="${1}_FILE" def="${2:-}"
  if [ "${!var:-}" ] && [ "${!fileVar:-}" ]; then
    mysql_error "Both $var and $fileVar are set (but are exclusive)"
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

# the official mariadb image's MARIADB_X names: used when MYSQL_X / MYSQL_X_FILE is not set
alias_env() {
  local mysql="MYSQL_$1" maria="MARIADB_$1"
  local mysqlFile="${mysql}_FILE" mariaFile="${maria}_FILE"
  if [ -z "${!mysql:-}" ] && [ -z "${!mysqlFile:-}" ]; then
    if [ -n "${!maria:-}" ]; then export "$mysql"="${!maria}"; fi
    if [ -n "${!mariaFile:-}" ]; then export "$mysqlFile"="${!mariaFile}"; fi
  fi
}

mysql_want_help() {
  local arg
  for arg; do
    case "$arg" in
      -'?'|--help|--print-defaults|-V|--version) return 0 ;;
    esac
  done
  return 1
}

# server option as the server sees it with the caller's arguments (e.g. --datadir=/x)
mysql_get_config() {
  local conf="$1"; shift
  "$@" --verbose --help 2>/dev/null | awk -v conf="$conf" '$1 == conf && /^[^ \t]/ { sub(/^[^ \t]+[ \t]+/, ""); print; exit }'
}

docker_setup_env() {
  local name
  for name in ROOT_PASSWORD ROOT_HOST DATABASE USER PASSWORD ALLOW_EMPTY_PASSWORD RANDOM_ROOT_PASSWORD INITDB_SKIP_TZINFO; do
    alias_env "$name"
  done
  DATADIR="$(mysql_get_config 'datadir' "$@")"
  DATADIR="${DATADIR:-/var/lib/mysql/}"
  SOCKET="$(mysql_get_config 'socket' "$@")"
  SOCKET="${SOCKET:-/run/mysqld/mysqld.sock}"
  file_env 'MYSQL_ROOT_HOST' '%'
  file_env 'MYSQL_DATABASE'
  file_env 'MYSQL_USER'
  file_env 'MYSQL_PASSWORD'
  file_env 'MYSQL_ROOT_PASSWORD'
  DATABASE_ALREADY_EXISTS=
  if [ -d "$DATADIR/mysql" ]; then DATABASE_ALREADY_EXISTS=true; fi
}

docker_verify_minimum_env() {
  if [ -z "$MYSQL_ROOT_PASSWORD" ] && [ -z "${MYSQL_ALLOW_EMPTY_PASSWORD:-}" ] && [ -z "${MYSQL_RANDOM_ROOT_PASSWORD:-}" ]; then
    mysql_error $'Database is uninitialized and password option is not specified\n\tYou need to specify one of MYSQL_ROOT_PASSWORD, MYSQL_ALLOW_EMPTY_PASSWORD and MYSQL_RANDOM_ROOT_PASSWORD'
  fi
  if [ "$MYSQL_USER" = 'root' ]; then
    mysql_error $'MYSQL_USER="root", MYSQL_USER and MYSQL_PASSWORD are for configuring a regular user and cannot be used for the root user\n\tRemove MYSQL_USER="root" and use MYSQL_ROOT_PASSWORD to set the password for root'
  fi
  if [ -n "$MYSQL_USER" ] && [ -z "$MYSQL_PASSWORD" ]; then
    mysql_warn 'MYSQL_USER specified, but missing MYSQL_PASSWORD; MYSQL_USER will not be created'
  elif [ -z "$MYSQL_USER" ] && [ -n "$MYSQL_PASSWORD" ]; then
    mysql_warn 'MYSQL_PASSWORD specified, but missing MYSQL_USER; MYSQL_PASSWORD will be ignored'
  fi
}

docker_create_db_directories() {
  mkdir -p "$DATADIR"
  if [ "$(id -u)" = '0' ]; then
    find "$DATADIR" \! -user mysql -exec chown mysql: '{}' +
    local socketdir; socketdir="$(dirname "$SOCKET")"
    mkdir -p "$socketdir"
    find "$socketdir" -maxdepth 0 \! -user mysql -exec chown mysql: '{}' \;
  fi
}

docker_init_database_dir() {
  mysql_note "Initializing database files"
  # the caller's server arguments (e.g. --innodb-page-size) apply to the new data directory too
  mariadb-install-db --datadir="$DATADIR" --rpm --auth-root-authentication-method=normal \
    --skip-test-db --skip-name-resolve --default-time-zone=SYSTEM --skip-log-bin \
    --expire-logs-days=0 --loose-innodb_buffer_pool_load_at_startup=0 \
    --loose-innodb_buffer_pool_dump_at_shutdown=0 "${@:2}"
  mysql_note "Database files initialized"
}

docker_temp_server_start() {
  "$@" --skip-networking --default-time-zone=SYSTEM --socket="$SOCKET" --wsrep_on=OFF \
    --expire-logs-days=0 --loose-innodb_buffer_pool_load_at_startup=0 \
    --loose-innodb_buffer_pool_dump_at_shutdown=0 &
  MARIADB_PID=$!
  mysql_note "Waiting for server startup"
  local i
  for i in {30..0}; do
    if docker_process_sql --dont-use-mysql-root-password --database=mysql <<<'SELECT 1' &>/dev/null; then break; fi
    if ! kill -0 "$MARIADB_PID" 2>/dev/null; then mysql_error "Unable to start server."; fi
    sleep 1
  done
  if [ "$i" = 0 ]; then mysql_error "Unable to start server."; fi
}

docker_temp_server_stop() {
  kill "$MARIADB_PID"
  wait "$MARIADB_PID"
}

# runs SQL as root over the socket; --dont-use-mysql-root-password before the password is set
docker_process_sql() {
  local passfileArgs=()
  if [ "$1" = '--dont-use-mysql-root-password' ]; then
    passfileArgs+=("$1"); shift
  fi
  if [ -n "$MYSQL_DATABASE" ]; then set -- --database="$MYSQL_DATABASE" "$@"; fi
  mariadb --defaults-extra-file=<(_mysql_passfile "${passfileArgs[@]}") --protocol=socket -uroot \
    -hlocalhost --socket="$SOCKET" --comments "$@"
}

_mysql_passfile() {
  if [ "$1" != '--dont-use-mysql-root-password' ] && [ -n "$MYSQL_ROOT_PASSWORD" ]; then
    cat <<EOF
[client]
password="${MYSQL_ROOT_PASSWORD//\\/\\\\}"
EOF
  fi
}

# '...' string literal contents: backslash and quote escaped
docker_sql_escape_string_literal() {
  local newline=$'\n'
  local escaped=${1//\\/\\\\}
  escaped="${escaped//$newline/\\n}"
  echo "${escaped//\'/\\\'}"
}

docker_setup_db() {
  if [ -z "${MYSQL_INITDB_SKIP_TZINFO:-}" ] && [ -d /usr/share/zoneinfo ]; then
    # --skip-write-binlog: the statements are local to this server
    mariadb-tzinfo-to-sql --skip-write-binlog /usr/share/zoneinfo 2>/dev/null \
      | docker_process_sql --dont-use-mysql-root-password --database=mysql
  fi
  if [ -n "${MYSQL_RANDOM_ROOT_PASSWORD:-}" ]; then
    MYSQL_ROOT_PASSWORD="$(head -c 24 /dev/urandom | base64 | tr -d '\n/+=' | head -c 32)"
    export MYSQL_ROOT_PASSWORD
    mysql_note "GENERATED ROOT PASSWORD: $MYSQL_ROOT_PASSWORD"
  fi

  local rootPass rootCreate=
  rootPass="$(docker_sql_escape_string_literal "$MYSQL_ROOT_PASSWORD")"
  if [ -n "$MYSQL_ROOT_HOST" ] && [ "$MYSQL_ROOT_HOST" != 'localhost' ]; then
    local rootHost; rootHost="$(docker_sql_escape_string_literal "$MYSQL_ROOT_HOST")"
    rootCreate="CREATE USER 'root'@'${rootHost}' IDENTIFIED BY '${rootPass}' ;
      GRANT ALL ON *.* TO 'root'@'${rootHost}' WITH GRANT OPTION ;
      GRANT PROXY ON ''@'%' TO 'root'@'${rootHost}' WITH GRANT OPTION ;"
  fi

  # install-db made passwordless root@127.0.0.1, root@::1, root@<hostname> and anonymous users:
  # only root@localhost (with the password) and root@MYSQL_ROOT_HOST stay, like the official image
  docker_process_sql --dont-use-mysql-root-password --database=mysql --binary-mode <<-EOSQL
	SET @orig_sql_log_bin= @@SESSION.SQL_LOG_BIN;
	SET @@SESSION.SQL_LOG_BIN=0;
	SET @@SESSION.SQL_MODE=REPLACE(@@SESSION.SQL_MODE, 'NO_BACKSLASH_ESCAPES', '');
	DROP USER IF EXISTS root@'127.0.0.1', root@'::1', ''@'localhost';
	EXECUTE IMMEDIATE CONCAT('DROP USER IF EXISTS root@\'', @@hostname,'\'');
	EXECUTE IMMEDIATE CONCAT('DROP USER IF EXISTS \'\'@\'', @@hostname,'\'');
	SET PASSWORD FOR 'root'@'localhost'= PASSWORD('${rootPass}') ;
	${rootCreate}
	DROP DATABASE IF EXISTS test ;
	SET @@SESSION.SQL_LOG_BIN=@orig_sql_log_bin;
	EOSQL

  if [ -n "$MYSQL_DATABASE" ]; then
    mysql_note "Creating database ${MYSQL_DATABASE}"
    local db="${MYSQL_DATABASE//\`/\`\`}"
    MYSQL_DATABASE= docker_process_sql --database=mysql <<<"CREATE DATABASE IF NOT EXISTS \`$db\` ;"
  fi

  if [ -n "$MYSQL_USER" ] && [ -n "$MYSQL_PASSWORD" ]; then
    mysql_note "Creating user ${MYSQL_USER}"
    local user pass
    user="$(docker_sql_escape_string_literal "$MYSQL_USER")"
    pass="$(docker_sql_escape_string_literal "$MYSQL_PASSWORD")"
    local sql="SET @@SESSION.SQL_MODE=REPLACE(@@SESSION.SQL_MODE, 'NO_BACKSLASH_ESCAPES', ''); CREATE USER '$user'@'%' IDENTIFIED BY '$pass';"
    if [ -n "$MYSQL_DATABASE" ]; then
      mysql_note "Giving user ${MYSQL_USER} access to schema ${MYSQL_DATABASE}"
      local db="${MYSQL_DATABASE//\`/\`\`}"
      db="${db//_/\\_}"
      sql+=" GRANT ALL ON \`$db\`.* TO '$user'@'%';"
    fi
    MYSQL_DATABASE= docker_process_sql --database=mysql --binary-mode <<<"$sql"
  fi
}

docker_process_init_files() {
  echo
  local f
  for f; do
    case "$f" in
      *.sh)
        if [ -x "$f" ]; then
          mysql_note "$0: running $f"; "$f"
        else
          mysql_note "$0: sourcing $f"
          # shellcheck disable=SC1090
          . "$f"
        fi
        ;;
      *.sql) mysql_note "$0: running $f"; docker_process_sql <"$f"; echo ;;
      *.sql.gz) mysql_note "$0: running $f"; gunzip -c "$f" | docker_process_sql; echo ;;
      *.sql.xz) mysql_note "$0: running $f"; xz -dc "$f" | docker_process_sql; echo ;;
      *) mysql_warn "$0: ignoring $f" ;;
    esac
    echo
  done
}

_main() {
  if [ "${1:0:1}" = '-' ]; then
    set -- mariadbd "$@"
  fi

  if { [ "$1" = 'mariadbd' ] || [ "$1" = 'mysqld' ]; } && ! mysql_want_help "$@"; then
    mysql_note "Entrypoint script for MariaDB Server (stand-in for mysql) started."
    docker_setup_env "$@"
    docker_create_db_directories
    if [ "$(id -u)" = '0' ]; then
      mysql_note "Switching to dedicated user 'mysql'"
      exec setpriv --reuid=mysql --regid=mysql --init-groups "$BASH_SOURCE" "$@"
    fi

    if [ -z "$DATABASE_ALREADY_EXISTS" ]; then
      docker_verify_minimum_env
      ls /docker-entrypoint-initdb.d/ >/dev/null
      docker_init_database_dir "$@"
      mysql_note "Starting temporary server"
      docker_temp_server_start "$@"
      mysql_note "Temporary server started."
      docker_setup_db
      docker_process_init_files /docker-entrypoint-initdb.d/*
      mysql_note "Stopping temporary server"
      docker_temp_server_stop
      mysql_note "Temporary server stopped"
      echo
      mysql_note "MariaDB init process done. Ready for start up."
      echo
    fi
  fi
  exec "$@"
}

_main "$@"
