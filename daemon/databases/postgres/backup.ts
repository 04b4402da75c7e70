// PostgreSQL and TimescaleDB: pg_dump's custom format (-Fc: compressed, restorable table by table)
// and pg_restore, both run inside the database's container over its local socket, where the
// official image trusts local connections. The user and database travel in the exec's Env
// (PGUSER) or as a quoted conninfo (`dbname='...'`), so a database name can never be read as a
// connection string; PGPASSWORD is set anyway, for images that ask for it on the socket.
//
//   dump:    pg_dump -Fc --no-password -d "dbname='<db>'"            (Env PGUSER, PGPASSWORD)
//   restore: pg_restore --clean --if-exists --no-owner --single-transaction --exit-on-error
//              --no-password -d "dbname='<db>'"                         (the dump on stdin)
//
// TimescaleDB's documented procedure wraps the restore in timescaledb_pre_restore() /
// timescaledb_post_restore() when the extension is installed (not testable here: no TimescaleDB
// server can run on the test machines).
import type { DatabaseEngine } from '../../../shared/types.js';
import type { EngineBackupTool, ToolContext } from '../backup-tool.js';
import { execInContainer, readHead } from '../../docker/exec.js';

const MAGIC = Buffer.from('PGDMP');

/** The login the official image was started with (POSTGRES_USER defaults to postgres, POSTGRES_DB to the user). */
export function postgresLogin(env: Readonly<Record<string, string>>): { user: string; password: string; database: string } {
  const user = env.POSTGRES_USER || 'postgres';
  return { user, password: env.POSTGRES_PASSWORD ?? '', database: env.POSTGRES_DB || user };
}

/** A libpq conninfo naming only the database, quoted: `dbname='it''s'` cannot smuggle other keys. */
export function dbnameConninfo(database: string): string {
  return `dbname='${database.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Env for libpq tools inside the container: the local socket (no PGHOST), the service's login. */
function postgresEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  const login = postgresLogin(env);
  return { PGUSER: login.user, PGPASSWORD: login.password, PGHOST: '', PGHOSTADDR: '' };
}

export function postgresTool(engine: DatabaseEngine): EngineBackupTool {
  return {
    format: 'custom',
    extension: 'dump',

    async dump(ctx: ToolContext, out) {
      const { database } = postgresLogin(ctx.env);
      await execInContainer(ctx.docker, ctx.containerId, {
        tool: 'pg_dump',
        cmd: ['pg_dump', '-Fc', '--no-password', '-d', dbnameConninfo(database)],
        env: postgresEnv(ctx.env),
        stdout: out,
        signal: ctx.signal,
      });
    },

    async restore(ctx: ToolContext, input) {
      const { head, rest } = await readHead(input, MAGIC.length);
      if (!head.equals(MAGIC)) rest.destroy();
      if (head.length === 0) throw new Error('the backup file is empty: not a pg_dump custom-format archive; nothing was restored');
      if (!head.equals(MAGIC)) throw new Error('the backup file is not a pg_dump custom-format archive (no PGDMP header); nothing was restored');
      const { database } = postgresLogin(ctx.env);
      const timescale = engine === 'timescale';
      if (timescale) await timescaleHook(ctx, 'timescaledb_pre_restore');
      try {
        await execInContainer(ctx.docker, ctx.containerId, {
          tool: 'pg_restore',
          cmd: ['pg_restore', '--clean', '--if-exists', '--no-owner', '--single-transaction', '--exit-on-error', '--no-password', '-d', dbnameConninfo(database)],
          env: postgresEnv(ctx.env),
          stdin: rest,
          signal: ctx.signal,
        });
      } finally {
        if (timescale) await timescaleHook(ctx, 'timescaledb_post_restore');
      }
    },
  };
}

/** Calls a TimescaleDB restore hook when the extension is installed in the service's database. */
async function timescaleHook(ctx: ToolContext, fn: 'timescaledb_pre_restore' | 'timescaledb_post_restore'): Promise<void> {
  const { database } = postgresLogin(ctx.env);
  // PL/pgSQL resolves the function only when the branch runs: no error without the extension.
  const sql = `DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'timescaledb') THEN PERFORM ${fn}(); END IF; END $$`;
  await execInContainer(ctx.docker, ctx.containerId, {
    tool: 'psql',
    cmd: ['psql', '-X', '-v', 'ON_ERROR_STOP=1', '--no-password', '-d', dbnameConninfo(database), '-c', sql],
    env: postgresEnv(ctx.env),
    signal: ctx.signal,
  });
}
