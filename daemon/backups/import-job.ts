// A data import's job: pg_dump from the source into the tenant's postgres (in its container), or a
// redis copy from the daemon; its log kept on the record (the source URL masked), a time limit,
// and the end written through core's state table.
import type { Clock } from '../core/clock.js';
import { recordImportStatus } from '../core/backup-states.js';
import type { ImportRecord } from '../core/ports/backups-repo.js';
import type { Store } from '../core/ports/store.js';
import type { ToolContext } from '../databases/backup-tool.js';
import { messageOf, type LiveDb } from './job-parts.js';

const IMPORT_LOG_LINES = 200;

export interface ImportJobDeps {
  store: Store;
  clock: Clock;
  importTimeoutMs: number;
  importPostgres(ctx: ToolContext, sourceUrl: string): Promise<void>;
  importRedis(sourceUrl: string, address: string | null, target: { host: string; port: number; password: string }, log: (line: string) => void, signal: AbortSignal): Promise<unknown>;
}

/** Runs an import recorded `running` to its end and answers how it ended; `context` builds the tool context with the given log and signal. */
export async function runImport(
  d: ImportJobDeps,
  record: ImportRecord,
  live: LiveDb,
  sourceUrl: string,
  address: string | null,
  stop: AbortSignal,
  context: (log: (line: string) => void) => ToolContext,
): Promise<'succeeded' | 'failed'> {
  const lines: string[] = [];
  let saving = Promise.resolve();
  const log = (line: string) => {
    lines.push(`${d.clock.now()} ${line.replaceAll(sourceUrl, record.sourceLabel)}`);
    const snapshot = lines.slice(-IMPORT_LOG_LINES);
    saving = saving.then(() => d.store.backups.updateImport(record.id, { log: snapshot })).catch(() => undefined);
  };
  // A source that accepts and never answers must not hold the database's busy lock forever.
  const seconds = Math.round(d.importTimeoutMs / 1000);
  const expired = new AbortController();
  const timer = setTimeout(() => expired.abort(new Error(`the import did not finish within ${seconds} s (BERTH_IMPORT_TIMEOUT) and was stopped`)), d.importTimeoutMs);
  const signal = AbortSignal.any([stop, expired.signal]);
  try {
    log(`Importing from ${record.sourceLabel}`);
    if (record.source === 'postgres-url') await d.importPostgres({ ...context(log), signal }, sourceUrl);
    else await d.importRedis(sourceUrl, address, { host: live.host, port: live.hostPort, password: live.env.REDIS_PASSWORD ?? '' }, log, signal);
    log('Import finished');
    await saving;
    await recordImportStatus(d.store.backups, record.id, 'succeeded', { log: lines.slice(-IMPORT_LOG_LINES), finishedAt: d.clock.now() });
    return 'succeeded';
  } catch (err) {
    const reason = (expired.signal.aborted ? messageOf(expired.signal.reason) : messageOf(err)).replaceAll(sourceUrl, record.sourceLabel);
    log(`Import failed: ${reason}`);
    await saving;
    await recordImportStatus(d.store.backups, record.id, 'failed', { error: reason, log: lines.slice(-IMPORT_LOG_LINES), finishedAt: d.clock.now() });
    return 'failed';
  } finally {
    clearTimeout(timer);
  }
}
