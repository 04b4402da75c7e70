// `berth keys create|list|revoke`: key management on the server itself, against the same data dir
// (no server URL, no key: whoever can read the data dir manages keys). Unchanged since before the
// client commands; loaded only for `berth keys`, so the client commands never load sqlite.
import { parseArgs } from 'node:util';
import { ConfigError, readConfig } from '../config.js';
import { BerthError } from '../core/errors.js';
import { systemClock } from '../core/clock.js';
import { KeyService } from '../core/keys.js';
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
      const { key, token } = await keys.create({ name: values.name, access: values.access, projects });
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
      await keys.revoke(id);
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
