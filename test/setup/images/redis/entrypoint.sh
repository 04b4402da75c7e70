#!/bin/sh
# Entrypoint of the redis stand-in image: the same contract as the official `redis` image.
#
#   - first argument starting with `-` or ending in `.conf`: `redis-server` is prepended
#     (`docker run IMAGE --requirepass x` == `docker run IMAGE redis-server --requirepass x`)
#   - `redis-server ...` runs as user redis (uid 999) in the foreground, in /data (its `dir`),
#     with umask 0077; anything else is exec'd as given (`docker run IMAGE redis-cli -h ...`)
#   - no config file unless the caller passes one: Debian's /etc/redis/redis.conf (bind 127.0.0.1,
#     daemonize, log file) is NOT used, so the server listens on all interfaces, port 6379.
#   - protected mode off: the official image compiles redis with protected-mode defaulting to
#     "no"; Debian's build defaults to "yes" (which refuses non-loopback clients when no password
#     is set), so `--protected-mode no` is added in front of the caller's arguments. The caller's
#     own `--protected-mode yes` still wins (later arguments override), and it is not added when
#     the caller's config file sets protected-mode.
set -e

if [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then
  set -- redis-server "$@"
fi

# allow the container to be started with `--user`
if [ "$1" = 'redis-server' ] && [ "$(id -u)" = '0' ]; then
  find . \! -user redis -exec chown redis '{}' +
  exec setpriv --reuid=redis --regid=redis --init-groups "$0" "$@"
fi

if [ "$1" = 'redis-server' ]; then
  shift
  if [ -n "${1:-}" ] && [ "${1%.conf}" != "$1" ] && [ -f "$1" ] && grep -qiE '^[[:space:]]*protected-mode' "$1"; then
    set -- redis-server "$@"
  elif [ -n "${1:-}" ] && [ "${1#-}" = "$1" ]; then
    # a config file must stay the first argument
    conf=$1; shift
    set -- redis-server "$conf" --protected-mode no "$@"
  else
    set -- redis-server --protected-mode no "$@"
  fi
fi

# set an appropriate umask (if one isn't set already)
um="$(umask)"
if [ "$um" = '0022' ]; then
  umask 0077
fi

exec "$@"
