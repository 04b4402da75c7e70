#!/usr/bin/env bash
# Runs the compiled daemon with the memory settings it is meant to run with (npm start, the systemd
# unit, the installed supervisor and the benchmark all come through here):
# - MALLOC_ARENA_MAX=1: sqlite3 works on libuv's thread pool, and glibc would give each thread its
#   own malloc arena; one arena keeps the resident size flat at no measurable cost.
# - --max-semi-space-size=2: V8's young generation otherwise grows to 3 x 16 MB under load and
#   stays resident; 2 MB semi-spaces hold a request's garbage (1 MB costs throughput).
# - --no-allocation-site-pretenuring: with semi-spaces this small, a burst of concurrent writes
#   (a script creating services 8 at a time) lets V8 decide that the objects every request
#   allocates outlive the young generation, and it then allocates them straight in old space for
#   the life of the process: every later request paid a share of a full mark-compact, twice a
#   second, and cached reads served half as many requests per second (24k instead of 46k). A
#   request's objects die young in a server like this one, so the decision is only ever wrong.
# - --optimize-for-size: V8's memory reducer then returns an idle heap's free pages once a burst is
#   over. Without it, it waits while it still rates the allocation "high": after bench:api's
#   seeding of 1,000 services, Node 22 held 129.6 MB 12 s later (101 MB at 30 s), Node 24 held
#   141-216 MB with 24 MB of freed pages pooled for a minute and more; with it, 102.8 and 105.6 MB
#   at 12 s. Request throughput was within the noise (docs/benchmarks.md, session 23).
# - BERTH_HOST defaults to 127.0.0.1 here (the daemon's own default, for a process started some
#   other way, is 0.0.0.0): `npm start` on a developer's machine must not offer the API to the
#   whole network. The installed daemon sets BERTH_HOST=127.0.0.1 in /etc/berth/berth.env behind
#   Caddy anyway; to expose a development daemon on purpose: BERTH_HOST=0.0.0.0 npm start.
set -euo pipefail
cd "$(dirname "$0")/.."
# As root without systemd (`npm start`, the installer's supervisor): the firewall for Berth's
# networks, applied before every start (berth.service does it in ExecStartPre, with the privileges
# its sandbox takes from this process). BERTH_FIREWALL=off skips it.
if [ "$(id -u)" = 0 ] && [ -z "${INVOCATION_ID:-}" ] && [ "${BERTH_FIREWALL:-on}" != off ]; then
  bash installers/berth-firewall.sh apply >&2
fi
export BERTH_HOST="${BERTH_HOST:-127.0.0.1}"
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-1}"
node=node
[ -x node/bin/node ] && node=node/bin/node   # a release bundle carries its own Node.js
exec "$node" --max-semi-space-size=2 --no-allocation-site-pretenuring --optimize-for-size dist/daemon/main.js "$@"
