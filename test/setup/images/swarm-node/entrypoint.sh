#!/usr/bin/env bash
# Entrypoint of the swarm-node test image: gives the container its own machine id (the join flow
# tells machines apart by /etc/machine-id, and every container of one image would otherwise share
# the image's), starts the inner dockerd with the vfs storage driver (overlay on overlay does not
# work here), and stays in the foreground with it. No systemd: the join script must cope.
set -euo pipefail

if [ ! -s /etc/machine-id ]; then
  head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' > /etc/machine-id
  echo >> /etc/machine-id
fi
# a stale pid file from an earlier run of this container would stop dockerd from starting
rm -f /var/run/docker.pid /var/run/docker/containerd/containerd.pid
exec dockerd --storage-driver=vfs "$@"
