// ClickHouse's errors as Berth's: both the 18.x and the current exception formats are recognised.
import { ClickHouseError } from '@clickhouse/client';
import { DatabaseUnavailable, EngineRefused, InvalidInput, NotFound } from '../../core/errors.js';

/** ClickHouse's message without its code prefix and stack: both the 18.x and the current formats. */
function serverMessage(err: unknown): { code: number; message: string } | null {
  if (err instanceof ClickHouseError) return { code: Number(err.code), message: err.message.trim() };
  const text = err instanceof Error ? err.message : '';
  const m = /^Code: (\d+)[,.] (?:e\.displayText\(\) = )?(?:DB::Exception: )?([\s\S]*?)(?:, e\.what\(\) = [\s\S]*|\s*Stack trace:[\s\S]*)?$/.exec(text.trim());
  return m ? { code: Number(m[1]), message: m[2]!.trim() } : null;
}

/** Unknown user, wrong password, authentication failed, database does not exist. */
const UNAVAILABLE_CODES = new Set([192, 193, 194, 516]);

export function toError(err: unknown): Error {
  if (err instanceof InvalidInput || err instanceof NotFound || err instanceof EngineRefused || err instanceof DatabaseUnavailable) return err;
  const server = serverMessage(err);
  if (server) {
    return UNAVAILABLE_CODES.has(server.code) ? new DatabaseUnavailable(`clickhouse: ${server.message}`) : new EngineRefused(server.message);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new DatabaseUnavailable(`clickhouse is unreachable: ${message}`);
}
