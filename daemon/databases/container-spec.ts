// How each engine runs as a container: where its data lives (a named volume that survives
// redeploys), the arguments that turn on what the service asks for (logical replication, TLS,
// a password for redis), and the statement that proves it is ready. The images are the official
// ones (BERTH_IMAGE_<ENGINE>), so everything here follows their documented entrypoint contracts.
import type { DatabaseEngine } from '../../shared/types.js';

export interface DatabaseContainer {
  /** Where the engine keeps its data inside the container (the service volume's mount point). */
  dataPath: string;
  entrypoint?: string[];
  cmd?: string[];
  /** Read-only bind mounts: host directory -> container path. */
  binds: { source: string; target: string }[];
  /** A statement the adapter runs to prove the server is ready for clients. */
  readinessStatement: string;
}

export interface DatabaseOptions {
  logicalReplication: boolean;
  /** A directory holding server.crt and server.key, for engines that serve TLS; null for none. */
  tlsDir: string | null;
}

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

function postgres(opts: DatabaseOptions): DatabaseContainer {
  const args: string[] = [];
  if (opts.logicalReplication) args.push('-c', 'wal_level=logical', '-c', 'max_wal_senders=10', '-c', 'max_replication_slots=10');
  const base = { dataPath: '/var/lib/postgresql/data', readinessStatement: 'SELECT 1' };
  if (!opts.tlsDir) return { ...base, cmd: ['postgres', ...args], binds: [] };
  args.push('-c', 'ssl=on', '-c', `ssl_cert_file=${TLS_RUN}/server.crt`, '-c', `ssl_key_file=${TLS_RUN}/server.key`);
  return { ...base, entrypoint: ['sh', '-c', POSTGRES_TLS_WRAPPER, 'berth-postgres'], cmd: args, binds: [{ source: opts.tlsDir, target: TLS_MOUNT }] };
}

export function databaseContainer(engine: DatabaseEngine, opts: DatabaseOptions): DatabaseContainer {
  switch (engine) {
    case 'postgres':
    case 'timescale':
      return postgres(opts);
    case 'mysql':
      // MariaDB-compatible images default to latin1; both MySQL 8 and MariaDB take these.
      return { dataPath: '/var/lib/mysql', cmd: ['--character-set-server=utf8mb4', '--collation-server=utf8mb4_unicode_ci'], binds: [], readinessStatement: 'SELECT 1' };
    case 'redis':
      // The official image has no password variable: the server gets it from the environment,
      // never on a command line others can read in `docker inspect`.
      return {
        dataPath: '/data',
        cmd: ['sh', '-c', 'exec redis-server --appendonly yes --requirepass "$REDIS_PASSWORD"'],
        binds: [],
        readinessStatement: 'PING',
      };
    case 'mongodb':
      return { dataPath: '/data/db', binds: [], readinessStatement: '{"ping": 1}' };
    case 'clickhouse':
      return { dataPath: '/var/lib/clickhouse', binds: [], readinessStatement: 'SELECT 1' };
  }
}

/** Engines that serve TLS with a Berth-issued certificate. */
export function servesTls(engine: DatabaseEngine): boolean {
  return engine === 'postgres' || engine === 'timescale';
}
