// `berth server backup`, `berth server restore-archive` and `berth server redeploy-restored`: Berth's
// own backup on the server itself (root, the data dir; no URL, no key), like `berth keys`.
// backup: one encrypted archive of Berth's state (server-archive.ts says what is inside).
// restore-archive: the installer's `--restore` step on a fresh server, before the first start.
// redeploy-restored: the installer's last `--restore` step: every service deployed again through
// the daemon's API on loopback (a key made for it and revoked after), each database then given
// its latest backup when its backup storage holds one.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BerthClient } from '../../shared/client.js';
import { terminalSafe } from '../cli/terminal-text.js';
import { readConfig } from '../config.js';
import { systemClock } from '../core/clock.js';
import { isFinal } from '../core/deployment-states.js';
import { KeyService } from '../core/keys.js';
import { openDataDir } from '../runtime.js';
import { passphraseProblem } from '../core/server-backup-rules.js';
import { createServerArchive, defaultServerPaths, restoreServerArchive } from './server-archive.js';

const USAGE = `usage (on the server, as root):
  berth server backup [--out DIR] [--passphrase-file FILE] [--json]
  berth server restore-archive ARCHIVE [--passphrase-file FILE] [--json]
  berth server redeploy-restored [--json]
The passphrase comes from --passphrase-file or BERTH_BACKUP_PASSPHRASE (at least 12 characters);
keep it apart from the archive: nothing else opens it. Default --out: <data dir>/server-backups.
These run on the server itself, with no daemon and no key. From any machine, through the API (a key
over all projects; runs now or on a schedule, to disk or S3): berth server backups --help.`;

class UsageError extends Error {}

function passphraseFrom(file: string | undefined): string {
  const value = file ? readFileSync(file, 'utf8').replace(/\r?\n$/, '') : process.env.BERTH_BACKUP_PASSPHRASE;
  if (!value) throw new UsageError('give the passphrase with --passphrase-file FILE or BERTH_BACKUP_PASSPHRASE');
  const problem = passphraseProblem(value);
  if (problem) throw new UsageError(problem);
  return value;
}

const say = (line: string) => process.stderr.write(`berth: ${terminalSafe(line)}\n`);

async function backup(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { out: { type: 'string' }, 'passphrase-file': { type: 'string' }, json: { type: 'boolean' } } });
  const config = readConfig();
  const passphrase = passphraseFrom(values['passphrase-file']);
  const out = values.out ?? join(config.dataDir, 'server-backups');
  const made = await createServerArchive(defaultServerPaths(config.dataDir), passphrase, out);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(made)}\n`);
    return;
  }
  const c = made.manifest.counts;
  say(`archive of Berth ${made.manifest.berthVersion}: ${c.projects} projects, ${c.services} services, ${c.keys} keys, ${c.domains} domains (${made.sizeBytes} bytes, encrypted)`);
  for (const left of made.manifest.left) say(`not in the archive: ${left}`);
  say(`checksum in ${made.file}.sha256; restore on a fresh server: install.sh --from <bundle> --restore ${made.file} --passphrase-file <file>`);
  process.stdout.write(`${made.file}\n`);
}

async function restore(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, options: { 'passphrase-file': { type: 'string' }, json: { type: 'boolean' } }, allowPositionals: true });
  if (positionals.length !== 1) throw new UsageError(USAGE);
  const config = readConfig();
  const manifest = await restoreServerArchive(positionals[0]!, passphraseFrom(values['passphrase-file']), defaultServerPaths(config.dataDir));
  if (values.json) {
    process.stdout.write(`${JSON.stringify(manifest)}\n`);
    return;
  }
  const c = manifest.counts;
  say(
    `restored Berth's state from ${manifest.hostname} at ${manifest.createdAt} (Berth ${manifest.berthVersion}): ${c.projects} projects, ${c.services} services, ${c.keys} keys, ${c.domains} domains`,
  );
}

async function redeployRestored(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean' } } });
  const config = readConfig();
  const store = await openDataDir(config.dataDir);
  const keys = new KeyService(store, systemClock);
  const { key, token } = await keys.create({ name: `restore-${new Date().toISOString()}`, access: 'write', projects: 'all' });
  const results: { service: string; project: string; deployment: string | null; database: string | null; error: string | null }[] = [];
  try {
    const client = new BerthClient(`http://127.0.0.1:${config.port}`, token);
    for (const project of (await client.listProjects()).projects) {
      for (const service of project.services ?? []) {
        const row = { service: service.name, project: project.name, deployment: null as string | null, database: null as string | null, error: null as string | null };
        try {
          row.deployment = (await client.deploy(service.id)).deployment.id;
          if (service.repoUrl === 'database') row.database = await restoreLatestBackup(client, service.id, row.deployment);
        } catch (err) {
          row.error = err instanceof Error ? err.message : String(err);
        }
        results.push(row);
        if (!values.json) say(`${project.name}/${service.name}: ${row.error ? `not redeployed: ${row.error}` : `deploying (${row.deployment})${row.database ? `; ${row.database}` : ''}`}`);
      }
    }
  } finally {
    await keys.revoke(key.id).catch(() => undefined);
    await store.close();
  }
  if (values.json) process.stdout.write(`${JSON.stringify({ services: results })}\n`);
}

/** Waits for the database's deployment, then restores its newest finished backup; says what it did. */
async function restoreLatestBackup(client: BerthClient, serviceId: string, deploymentId: string): Promise<string> {
  for (let i = 0; i < 240; i++) {
    const overview = await client.overview(serviceId);
    const dep = overview.deployments.find((d) => d.id === deploymentId);
    if (dep?.status === 'running') break;
    if (dep && isFinal(dep.status)) return `its deployment ended ${dep.status}: no backup restored`;
    await new Promise((r) => setTimeout(r, 500));
  }
  const { backups } = await client.listBackups(serviceId);
  const done = backups.filter((b) => b.status === 'succeeded').sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  // a backup kept only on the lost server's disk is not here: the newest one with a copy that is
  const usable = done.findIndex((b) => b.remoteKey !== null || (b.localPath !== null && existsSync(b.localPath)));
  if (usable < 0) return done.length === 0 ? 'no backup in its storage: it starts empty' : `its ${done.length} backups were on the old server's disk only (none in S3 storage): it starts empty`;
  const latest = done[usable]!;
  await client.restoreBackup(serviceId, latest.id);
  return `backup ${latest.id} of ${latest.createdAt} restored${usable > 0 ? ` (${usable} newer ${usable === 1 ? 'one was' : 'ones were'} on the old server's disk only)` : ''}`;
}

/** `argv` starts with `server` and one of the commands above. */
export function runServerBackupTool(argv: string[]): Promise<void> {
  const [, command, ...rest] = argv;
  const run = command === 'backup' ? backup : command === 'restore-archive' ? restore : command === 'redeploy-restored' ? redeployRestored : null;
  if (!run) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  return run(rest).catch((err: unknown) => {
    const usage = err instanceof UsageError || (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'));
    say(`error: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(usage ? 2 : 1);
  });
}
