// MySQL and MariaDB: a logical SQL dump of the service's database with mysqldump (MariaDB 11
// images name it mariadb-dump only) and a restore with the mysql client (`mariadb`), run inside the
// container over its local socket as root. The password travels in the exec's Env as MYSQL_PWD,
// which both clients read (MySQL 8 documents it as deprecated but still honours it); root's is
// MYSQL_ROOT_PASSWORD, the variable the official images set it from.
//
//   dump:    mysqldump -u root --default-character-set=utf8mb4 --single-transaction --routines
//              --triggers --events --hex-blob --add-drop-database --databases <db>
//   restore: mysql -u root --default-character-set=utf8mb4        (the dump on stdin)
//
// --databases writes CREATE DATABASE / USE into the dump and --add-drop-database a DROP DATABASE
// before them: the restore replaces the whole database, tables created since the dump included.
// mysqldump ends a complete dump with a `-- Dump completed` comment: a dump without it is refused.
import type { EngineBackupTool, ToolContext } from '../backup-tool.js';
import { execInContainer, execText, readHead, TailKeeper } from '../../docker/exec.js';

const TRAILER = /-- Dump completed[^\n]*\n?$/;
/** mysqldump's first line (MariaDB >= 10.5.25 / 11 may precede it with a sandbox-mode comment). */
const HEADER = /^(\/\*M!999999\\- enable the sandbox mode \*\/ ?\r?\n)?-- (MySQL|MariaDB) dump /;

function mysqlEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  return { MYSQL_PWD: env.MYSQL_ROOT_PASSWORD ?? env.MARIADB_ROOT_PASSWORD ?? '' };
}

/** The first of `names` the container has on its PATH. */
async function whichTool(ctx: ToolContext, names: string[]): Promise<string> {
  const found = await execText(ctx.docker, ctx.containerId, {
    tool: 'sh',
    cmd: ['sh', '-c', 'for t in "$@"; do if command -v "$t" >/dev/null 2>&1; then echo "$t"; exit 0; fi; done; exit 1', 'berth-which', ...names],
    signal: ctx.signal,
  }).catch(() => '');
  const name = found.trim();
  if (!names.includes(name)) throw new Error(`none of ${names.join(', ')} is installed in the database container`);
  return name;
}

export const mysqlTool: EngineBackupTool = {
  format: 'sql',
  extension: 'sql',

  async dump(ctx, out) {
    const database = ctx.env.MYSQL_DATABASE ?? ctx.env.MARIADB_DATABASE ?? '';
    if (!database) throw new Error('the service has no MYSQL_DATABASE: there is no database to dump');
    const tool = await whichTool(ctx, ['mysqldump', 'mariadb-dump']);
    const tail = new TailKeeper(256);
    await execInContainer(ctx.docker, ctx.containerId, {
      tool,
      cmd: [tool, '-u', 'root', '--default-character-set=utf8mb4', '--single-transaction', '--routines', '--triggers', '--events', '--hex-blob', '--add-drop-database', '--databases', database],
      env: mysqlEnv(ctx.env),
      stdout: out,
      through: [tail],
      signal: ctx.signal,
    });
    if (!TRAILER.test(tail.tail.bytes().toString('utf8'))) throw new Error(`${tool} exited 0 but the dump does not end with its "-- Dump completed" line: it is incomplete`);
  },

  async restore(ctx, input) {
    const { head, rest } = await readHead(input, 256);
    if (!HEADER.test(head.toString('utf8'))) {
      rest.destroy();
      throw new Error('the backup file is not a mysqldump SQL dump (no "-- MySQL dump" / "-- MariaDB dump" header); nothing was restored');
    }
    const tool = await whichTool(ctx, ['mysql', 'mariadb']);
    await execInContainer(ctx.docker, ctx.containerId, {
      tool,
      cmd: [tool, '-u', 'root', '--default-character-set=utf8mb4'],
      env: mysqlEnv(ctx.env),
      stdin: rest,
      signal: ctx.signal,
    });
  },
};
