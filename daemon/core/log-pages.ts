// Every answer that carries stored log lines is bounded in lines and in bytes: a page of the REST
// log (`GET /api/deployments/:id/logs`) and a stream's `snapshot`. A line is at most 16 KB, but
// 100,000 of them in one JSON body took 45 s and 2 GB; a page holds at most LOG_PAGE_LINES lines
// and LOG_PAGE_BYTES of encoded line text, and always at least one line, so reading on progresses.
import type { LogLineRecord } from './records.js';

export const LOG_PAGE_LINES = 1000;
const LOG_PAGE_BYTES = 1024 * 1024;
/** What a line's fields other than its text add to the answer (id, stream, createdAt, keys). */
const LINE_OVERHEAD = 120;

/** Bytes a line takes in a JSON answer (its text as JSON encodes it, plus the other fields). */
function answerBytes(l: LogLineRecord): number {
  return Buffer.byteLength(JSON.stringify(l.line)) + LINE_OVERHEAD;
}

/**
 * The lines (oldest first) that fit in `maxBytes`, kept from the start (reading forward) or from
 * the end (a tail, or reading back); at least one line when there is one.
 */
export function withinBytes(lines: readonly LogLineRecord[], keep: 'first' | 'last', maxBytes = LOG_PAGE_BYTES): LogLineRecord[] {
  let total = 0;
  if (keep === 'first') {
    let n = 0;
    while (n < lines.length && (n === 0 || total + answerBytes(lines[n]!) <= maxBytes)) total += answerBytes(lines[n++]!);
    return lines.slice(0, n);
  }
  let start = lines.length;
  while (start > 0 && (start === lines.length || total + answerBytes(lines[start - 1]!) <= maxBytes)) total += answerBytes(lines[--start]!);
  return lines.slice(start);
}

/** Which page of a log a request asks for: after a line id, before one, or the newest lines. */
export type LogPageQuery = { after: number } | { before: number } | { tail: true };

export interface LogPage {
  lines: LogLineRecord[];
  /** Pass as `after` for the lines that follow this page; null when none is stored now. */
  nextCursor: string | null;
  /** Pass as `before` for the lines that precede this page; null when this page starts the log. */
  prevCursor: string | null;
}

/** What a page is read from: one owner's lines (core/ports/log-feeds.ts). */
export interface PagedLog {
  after(afterId: number, limit: number): Promise<LogLineRecord[]>;
  before(beforeId: number, limit: number): Promise<LogLineRecord[]>;
  tail(limit: number): Promise<LogLineRecord[]>;
}

export async function readLogPage(log: PagedLog, query: LogPageQuery, limit = LOG_PAGE_LINES): Promise<LogPage> {
  const n = Math.max(1, Math.min(limit, LOG_PAGE_LINES));
  const lines = 'after' in query ? withinBytes(await log.after(query.after, n), 'first') : withinBytes('before' in query ? await log.before(query.before, n) : await log.tail(n), 'last');
  const first = lines[0];
  const last = lines.at(-1);
  // an empty page: nothing stored after (or before) the cursor now; read on from the same cursor later
  if (!first || !last) return { lines, nextCursor: null, prevCursor: null };
  const [later, earlier] = await Promise.all([log.after(last.id, 1), log.before(first.id, 1)]);
  return { lines, nextCursor: later.length > 0 ? String(last.id) : null, prevCursor: earlier.length > 0 ? String(first.id) : null };
}
