// PostgreSQL (and TimescaleDB) as a container: the official image's data directory, the
// arguments that turn on logical replication, and TLS with a Berth-issued certificate.
import type { DatabaseContainer, DatabaseOptions } from '../engine-module.js';

const TLS_MOUNT = '/berth-tls';
const TLS_RUN = '/run/berth-tls';

/**
 * PostgreSQL refuses a key file that another user could read, and the server runs as the image's
 * `postgres` user (uid 999 in the Debian images, 70 in the Alpine ones): the key is copied for that
 * user, whatever its uid, before the official entrypoint starts. No user input is in this script;
 * the server arguments travel as "$@".
 */
const POSTGRES_TLS_WRAPPER = [
  'set -e',
  `install -d -m 0700 -o postgres -g postgres ${TLS_RUN}`,
  `install -m 0600 -o postgres -g postgres ${TLS_MOUNT}/server.key ${TLS_RUN}/server.key`,
  `install -m 0644 -o postgres -g postgres ${TLS_MOUNT}/server.crt ${TLS_RUN}/server.crt`,
  'exec docker-entrypoint.sh postgres "$@"',
].join('\n');

export function postgresContainer(opts: DatabaseOptions): DatabaseContainer {
  const args: string[] = [];
  if (opts.logicalReplication) args.push('-c', 'wal_level=logical', '-c', 'max_wal_senders=10', '-c', 'max_replication_slots=10');
  const base = { dataPath: '/var/lib/postgresql/data' };
  if (!opts.tlsDir) return { ...base, cmd: ['postgres', ...args], binds: [] };
  args.push('-c', 'ssl=on', '-c', `ssl_cert_file=${TLS_RUN}/server.crt`, '-c', `ssl_key_file=${TLS_RUN}/server.key`);
  return { ...base, entrypoint: ['sh', '-c', POSTGRES_TLS_WRAPPER, 'berth-postgres'], cmd: args, binds: [{ source: opts.tlsDir, target: TLS_MOUNT }] };
}
