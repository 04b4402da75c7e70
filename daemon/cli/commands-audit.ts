// berth audit: the server's audit log (a key over all projects), newest first as a table, or one
// JSON object per entry with --json; --follow then prints new entries as they are recorded (the
// `audit` events of /api/events say when), oldest first, until interrupted.
import { InvalidArgumentError, type Command } from 'commander';
import { apiPath } from '../../shared/api-routes.js';
import { actionWords } from '../../shared/audit-actions.js';
import type { AuditEntry, AuditQuery } from '../../shared/types.js';
import { parseSince, sleep } from './durations.js';
import { table } from './output.js';
import { openSession, type Session } from './session.js';

interface AuditOptions {
  project?: string;
  key?: string;
  action?: string;
  since?: Date;
  errors?: boolean;
  limit: number;
  follow?: boolean;
}

function parseLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 200) throw new InvalidArgumentError('expected a whole number from 1 to 200');
  return n;
}

function who(e: AuditEntry): string {
  if (e.actor.kind === 'webhook' || e.actor.kind === 'server') return e.actor.kind;
  const name = e.actor.keyName ?? (e.actor.keyId === null ? 'no valid key' : e.actor.keyId);
  return e.actor.kind === 'session' ? `${name} (console)` : name;
}

function target(e: AuditEntry): string {
  return [e.projectId, e.serviceId].filter((v) => v !== null).join('/') || '-';
}

function result(e: AuditEntry): string {
  return e.errorCode === null ? String(e.status) : `${e.status} ${e.errorCode}`;
}

const HEADERS = ['TIME', 'WHO', 'FROM', 'ACTION', 'TARGET', 'RESULT'];
const row = (e: AuditEntry) => [e.at, who(e), e.clientAddress, e.detail && e.detail !== 'terminal' ? `${actionWords(e.route)}: ${e.detail}` : actionWords(e.route), target(e), result(e)];

function queryOf(o: AuditOptions): AuditQuery {
  return {
    ...(o.project ? { projectId: o.project } : {}),
    ...(o.key ? { keyId: o.key } : {}),
    ...(o.action ? { action: o.action } : {}),
    ...(o.since ? { from: o.since.toISOString() } : {}),
    ...(o.errors ? { outcome: 'error' as const } : {}),
  };
}

/** Prints what was recorded after `afterId`, oldest first, until interrupted; answers nothing. */
async function follow(s: Session, query: AuditQuery, afterId: number): Promise<void> {
  const ac = new AbortController();
  process.once('SIGINT', () => ac.abort());
  let last = afterId;
  const printNew = async () => {
    // newest first, a page at a time, back to what was printed
    const fresh: AuditEntry[] = [];
    let before: string | undefined;
    for (;;) {
      const page = await s.client.auditLog({ ...query, limit: 200, ...(before ? { before } : {}) });
      const newer = page.entries.filter((e) => Number(e.id) > last);
      fresh.push(...newer);
      if (newer.length < page.entries.length || page.nextCursor === null) break;
      before = page.nextCursor;
    }
    for (const e of fresh.reverse()) {
      last = Math.max(last, Number(e.id));
      if (s.out.json) s.out.event(e);
      else s.out.line(table(HEADERS, [row(e)]).split('\n')[1]!);
    }
  };
  while (!ac.signal.aborted) {
    try {
      await printNew(); // also what came while the stream was away
      for await (const ev of s.client.stream(apiPath('events'), { signal: ac.signal })) if (ev.event === 'audit' || ev.event === 'reset') await printNew();
    } catch (err) {
      if (ac.signal.aborted) return;
      s.out.warn(`event stream dropped (${(err as Error).message}); reconnecting`);
    }
    if (!ac.signal.aborted) await sleep(1000);
  }
}

function parseDays(value: string): number | null {
  if (value === 'default') return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 3650) throw new InvalidArgumentError('expected a whole number of days from 1 to 3650, or "default" (90)');
  return n;
}

export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit');
  audit
    .command('retention')
    .description('how many days the audit log keeps its entries; with DAYS (or "default": 90), sets it (a write key over all projects)')
    .argument('[days]', 'days to keep entries (1-3650) or "default"', parseDays)
    .action(async (days: number | null | undefined, _o: unknown, cmd: Command) => {
      const s = openSession(cmd);
      const { settings } = days === undefined ? await s.client.systemSettings() : await s.client.patchSystemSettings({ auditRetentionDays: days });
      s.out.result({ auditRetentionDays: settings.auditRetentionDays }, () => `audit entries are kept ${settings.auditRetentionDays} days`);
    });
  audit
    .description('the audit log: who changed what, from where, how it ended (a key over all projects)')
    .option('--project <id>', 'only calls about this project')
    .option('--key <id>', 'only calls made with this key')
    .option('--action <action>', 'a route id (services.create) or a prefix (services.)')
    .option('--since <when>', 'only entries since a duration ago (1h, 2d) or an ISO time', (v) => parseSince(v))
    .option('--errors', 'only calls that failed or were refused')
    .option('--limit <n>', 'entries shown (1-200)', parseLimit, 50)
    .option('-f, --follow', 'keep printing new entries as they are recorded')
    .action(async (o: AuditOptions, cmd: Command) => {
      const s = openSession(cmd);
      const query = queryOf(o);
      const { entries } = await s.client.auditLog({ ...query, limit: o.limit });
      const newest = entries.length > 0 ? Number(entries[0]!.id) : 0;
      if (s.out.json) entries.forEach((e) => s.out.event(e));
      else if (entries.length === 0 && !o.follow) s.out.info('no audit entries match');
      else if (o.follow) {
        // oldest first, so that followed entries continue the table below
        s.out.line(table(HEADERS, [...entries].reverse().map(row)));
      } else s.out.line(table(HEADERS, entries.map(row)));
      if (o.follow) await follow(s, query, newest);
    });
}
