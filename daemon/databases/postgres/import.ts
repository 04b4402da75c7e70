// Imports another PostgreSQL database (a URL the user gives) into the service's database, inside
// the service's container: pg_dump from the source piped into pg_restore into the local database.
// The pipe needs a shell; the script is a constant and the URL reaches it only through the exec's
// Env ($BERTH_SOURCE_URL), never spliced into the script or argv. POSIX sh (dash) has no pipefail,
// so pg_dump's exit code is written to a temporary file from its side of the pipe and both codes are
// checked. pg_restore runs in one transaction: a failed or truncated transfer changes nothing.
// The container's pg_dump must be at least the source server's major version (pg_dump refuses
// newer servers with a clear message).
import type { ToolContext } from '../backup-tool.js';
import { execInContainer } from '../../docker/exec.js';
import { dbnameConninfo, postgresLogin } from './backup.js';

const IMPORT_SCRIPT = [
  'rc_file=$(mktemp) || exit 1',
  '{ pg_dump -Fc --no-password "$BERTH_SOURCE_URL"; echo $? > "$rc_file"; } |',
  '  PGUSER="$BERTH_TARGET_USER" PGPASSWORD="$BERTH_TARGET_PASSWORD" PGHOST= PGHOSTADDR= \\',
  '  pg_restore --no-owner --clean --if-exists --single-transaction --exit-on-error --no-password -d "$BERTH_TARGET_DB"',
  'restore_rc=$?',
  'dump_rc=$(cat "$rc_file" 2>/dev/null)',
  'rm -f "$rc_file"',
  'if [ "${dump_rc:-1}" != 0 ]; then echo "pg_dump (source) exited with code ${dump_rc:-unknown}" >&2; exit 1; fi',
  'if [ "$restore_rc" != 0 ]; then echo "pg_restore (target) exited with code $restore_rc" >&2; exit "$restore_rc"; fi',
].join('\n');

export async function importPostgresUrl(ctx: ToolContext, sourceUrl: string): Promise<void> {
  const login = postgresLogin(ctx.env);
  const database = login.database;
  ctx.log('postgres: importing from the source database (pg_dump | pg_restore)');
  await execInContainer(ctx.docker, ctx.containerId, {
    tool: 'pg_dump | pg_restore',
    cmd: ['sh', '-c', IMPORT_SCRIPT, 'berth-import'],
    // The target's login is given to pg_restore alone: pg_dump, connecting to someone else's
    // server, must not fall back to the target's PGPASSWORD when the URL has no password.
    env: { BERTH_SOURCE_URL: sourceUrl, BERTH_TARGET_DB: dbnameConninfo(database), BERTH_TARGET_USER: login.user, BERTH_TARGET_PASSWORD: login.password },
    signal: ctx.signal,
  });
  ctx.log('postgres: import finished');
}
