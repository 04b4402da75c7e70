// MySQL/MariaDB errors as Berth's: statement refusals are EngineRefused (400 with the server's
// message), connection trouble DatabaseUnavailable (409), timeouts say so.
import { BerthError, DatabaseUnavailable, EngineRefused } from '../../core/errors.js';

export interface MysqlError extends Error {
  code?: string;
  errno?: number;
  sqlState?: string;
  fatal?: boolean;
}
const UNREACHABLE = new Set(['ECONNREFUSED', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EAI_AGAIN', 'EPIPE', 'PROTOCOL_CONNECTION_LOST']);
// access denied (db, user, host), unknown database, too many connections, server shutting down
const REFUSED_CONNECTION = new Set([1044, 1045, 1049, 1130, 1040, 1053]);
// MariaDB ER_STATEMENT_TIMEOUT, MySQL ER_QUERY_TIMEOUT
const TIMED_OUT = new Set([1969, 3024]);
const UNREADABLE_NAME = /can't be the same as an object's private property/;

export function translate(err: unknown, timeoutMs?: number): unknown {
  if (err instanceof BerthError || !(err instanceof Error)) return err;
  const e = err as MysqlError;
  if (UNREADABLE_NAME.test(e.message)) return new EngineRefused(`${e.message} Give the column another name with AS.`);
  if (timeoutMs !== undefined && ((e.errno !== undefined && TIMED_OUT.has(e.errno)) || e.code === 'PROTOCOL_SEQUENCE_TIMEOUT')) {
    return new EngineRefused(`the statement took longer than ${timeoutMs} ms and was cancelled`);
  }
  if (e.errno !== undefined && REFUSED_CONNECTION.has(e.errno)) return new DatabaseUnavailable(`mysql refused the connection: ${e.message}`);
  if ((e.code && UNREACHABLE.has(e.code)) || /closed state|connection is in closed/i.test(e.message)) {
    return new DatabaseUnavailable(`mysql is unreachable: ${e.message}`);
  }
  if (e.sqlState && !e.fatal) return new EngineRefused(e.message);
  if (e.fatal) return new DatabaseUnavailable(`mysql connection failed: ${e.message}`);
  return err;
}
