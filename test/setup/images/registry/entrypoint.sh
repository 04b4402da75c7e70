#!/bin/sh
# The official registry:2 image's entrypoint: a config file (or nothing) -> `registry serve <it>`;
# `serve ...`, `garbage-collect ...` and the rest go to `registry` as given.
set -e

case "$1" in
  *.yaml|*.yml) set -- registry serve "$@" ;;
  serve|garbage-collect|help|-*) set -- registry "$@" ;;
esac

exec "$@"
