// `berth keys create|list|revoke`: key management on the server itself, against the same data dir
// (no server URL, no key: whoever can read the data dir manages keys). Unchanged since before the
// client commands; loaded only for `berth keys`, so the client commands never load sqlite. A key
// created or revoked here is in the audit log like one done through the API (actor `server`).
import { parseArgs } from 'node:util';
import { ConfigError, readConfig } from '../config.js';
import { apiPath } from '../../shared/api-routes.js';
import { AuditLog, type AuditCall } from '../core/audit.js';
import { BerthError } from '../core/errors.js';
import { NO_EVENTS } from '../core/events.js';
import type { Store } from '../core/ports/store.js';
import { systemClock } from '../core/clock.js';
import { KeyService, type NewKey } from '../core/keys.js';
import { keyView } from '../core/views.js';
import { openDataDir } from '../runtime.js';
import { terminalSafe } from '../cli/terminal-text.js';

const USAGE = `usage:
  berth keys create --access read|write --projects all|ID,ID [--name NAME] [--json]
  berth keys list [--json]
  berth keys revoke ID [--json]
--json prints what the API answers for keys: {key, token} for create, one key per line for list,
{ok, id} for revoke.
Environment: BERTH_DATA_DIR selects the data dir (default /var/lib/berth for root).`;

/** Runs one key change and records it in the audit log (also when it failed), written before the store closes. */
async function audited<T>(audit: AuditLog, call: Pick<AuditCall, 'method' | 'route' | 'path'>, run: () => Promise<T>, detail: (result: T) => string | null): Promise<T> {
  const started = performance.now();
  const base = { ...call, actor: { kind: 'server', keyId: null, keyName: null }, clientAddress: null } as const;
  const durationMs = () => Math.round(performance.now() - started);
  try {
    const result = await run();
    audit.record({ ...base, detail: detail(result), status: 200, outcome: 'ok', errorCode: null, durationMs: durationMs() });
    return result;
  } catch (err) {
    const known = err instanceof BerthError;
    audit.record({ ...base, detail: null, status: known ? err.status : 500, outcome: 'error', errorCode: known ? err.code : 'internal', durationMs: durationMs() });
    throw err;
  } finally {
    await audit.flush();
  }
}

function auditLog(store: Store, maxRows: number): AuditLog {
  const log = (message: string, err?: unknown) => process.stderr.write(`berth: ${message}${err instanceof Error ? `: ${err.message}` : ''}\n`);
  return new AuditLog({ repo: store.audit, store, clock: systemClock, events: NO_EVENTS, log, maxRows });
}

function fail(message: string, code = 2): never {
  process.stderr.write(`berth: ${terminalSafe(message)}\n`);
  process.exit(code);
}

async function main(argv: string[]): Promise<void> {
  const [group, command, ...rest] = argv;
  if (group !== 'keys' || !command) fail(USAGE);
  const config = readConfig();
  const store = await openDataDir(config.dataDir);
  const keys = new KeyService(store, systemClock);
  const audit = auditLog(store, config.auditMaxRows);
  try {
    if (command === 'create') {
      const { values } = parseArgs({
        args: rest,
        options: { access: { type: 'string' }, projects: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } },
      });
      if (values.access !== 'read' && values.access !== 'write') fail('--access must be read or write');
      if (!values.projects) fail('--projects must be "all" or a comma-separated list of project ids');
      const projects =
        values.projects === 'all'
          ? 'all'
          : values.projects
              .split(',')
              .map((p) => p.trim())
              .filter(Boolean);
      const input: NewKey = { name: values.name, access: values.access, projects };
      const { key, token } = await audited(
        audit,
        { method: 'POST', route: 'keys.create', path: apiPath('keys.create') },
        () => keys.create(input),
        (created) => `key ${created.key.id}`,
      );
      if (values.json) {
        process.stdout.write(JSON.stringify({ key: keyView(key), token }) + '\n');
        return;
      }
      process.stderr.write(`created key ${key.id} (${key.access}, projects: ${key.projects === 'all' ? 'all' : key.projects.join(',')}); the secret is shown once:\n`);
      process.stdout.write(token + '\n');
    } else if (command === 'list') {
      const { values } = parseArgs({ args: rest, options: { json: { type: 'boolean' } } });
      for (const k of await keys.list()) {
        if (values.json) {
          process.stdout.write(JSON.stringify(keyView(k)) + '\n');
          continue;
        }
        const scope = k.projects === 'all' ? 'all' : k.projects.join(',');
        // a key's name is text someone typed: shown with its control characters escaped
        process.stdout.write(`${k.id}\t${k.access}\t${scope}\t${terminalSafe(k.name, true)}\tcreated ${k.createdAt}\tlast used ${k.lastUsedAt ?? 'never'}\n`);
      }
    } else if (command === 'revoke') {
      const { values, positionals } = parseArgs({ args: rest, options: { json: { type: 'boolean' } }, allowPositionals: true });
      const id = positionals[0];
      if (!id || positionals.length > 1) fail('usage: berth keys revoke ID [--json]');
      await audited(
        audit,
        { method: 'DELETE', route: 'keys.revoke', path: apiPath('keys.revoke', { keyId: id }) },
        () => keys.revoke(id),
        () => null,
      );
      process.stdout.write(values.json ? JSON.stringify({ ok: true, id }) + '\n' : `revoked ${id}\n`);
    } else {
      fail(USAGE);
    }
  } finally {
    await store.close();
  }
}

/** `argv` starts with `keys`. */
export function runKeys(argv: string[]): Promise<void> {
  return main(argv).catch((err: unknown) => {
    if (err instanceof ConfigError || err instanceof BerthError) fail(err.message);
    if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) fail(`${err.message}\n${USAGE}`);
    fail(err instanceof Error ? (err.stack ?? err.message) : String(err), 1);
  });
}
