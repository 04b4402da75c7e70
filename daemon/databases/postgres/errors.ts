// PostgreSQL's errors as Berth's: engine refusals are EngineRefused (400 with the server's
// message), connection trouble DatabaseUnavailable (409).
import pg from 'pg';
import { BerthError, DatabaseUnavailable, EngineRefused } from '../../core/errors.js';

const UNREACHABLE = new Set(['ECONNREFUSED', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EAI_AGAIN', 'EPIPE']);

/** Engine errors become EngineRefused, connection trouble DatabaseUnavailable; others pass. */
export function translate(err: unknown, timeoutMs?: number): unknown {
  if (err instanceof BerthError) return err;
  if (err instanceof pg.DatabaseError) {
    const code = err.code ?? '';
    if (code === '57014' && timeoutMs !== undefined) {
      return new EngineRefused(`the statement took longer than ${timeoutMs} ms and was cancelled`);
    }
    // 08 connection exceptions (but 08P01, a protocol violation such as `$1` without a value, is
    // the statement's fault), 28 auth, 3D000 unknown database, 57P0x shutdown/starting, 53300 too many connections
    if ((/^(08|28)/.test(code) && code !== '08P01') || ['3D000', '57P01', '57P02', '57P03', '53300'].includes(code)) {
      return new DatabaseUnavailable(`postgres refused the connection: ${err.message}`);
    }
    return new EngineRefused(err.detail ? `${err.message} (${err.detail})` : err.message);
  }
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (err instanceof Error && ((code && UNREACHABLE.has(code)) || /Connection terminated|timeout expired|not queryable|was closed/.test(err.message))) {
    return new DatabaseUnavailable(`postgres is unreachable: ${err.message}`);
  }
  return err;
}
