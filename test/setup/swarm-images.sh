#!/usr/bin/env bash
# Builds the images the multi-node (Swarm) suites use, exactly as db-images.sh builds the database
# stand-ins (no registry is reachable on the test machines), with its builder:
#
#   berth-test/swarm-node  Debian docker.io, a Docker-in-Docker second server that joins as a worker
#   berth-test/registry    Debian docker-registry (distribution 2.8), contract of `registry:2`
#
# Each from test/setup/images/<name>/, tagged by content hash, skipped when built already (see
# db-images.sh). Prints the hashed references on stdout, one per line, in the order above.
# Usage: swarm-images.sh [name...] (default: both).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ $# -eq 0 ]; then set -- swarm-node registry; fi
exec bash test/setup/db-images.sh "$@"
