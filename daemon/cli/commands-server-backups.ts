// `berth server backups ...`: Berth's own backup through the API, from any machine (a key over all
// projects; a write key to act): the settings and runs, a run now (optionally followed to its end),
// the schedule with its destination, retention and stored passphrase, an archive's download
// (checked against the run's SHA-256) and its deletion. Not `berth server backup` (singular): that
// one runs on the server itself as root, with no daemon and no key (daemon/server-tools/server-backup.ts).
import type { Command } from 'commander';
import { readFileSync, rmSync } from 'node:fs';
import { jobInProgress } from '../../shared/statuses.js';
import type { ServerBackupRun, ServerBackups, ServerBackupsPatch } from '../../shared/types.js';
import { confirm } from './confirm.js';
import { parseCount, sleep } from './durations.js';
import { saveDownload } from './save-download.js';
import { CliError, EXIT, usageError } from './exit-codes.js';
import { table } from './output.js';
import { openSession, type Session } from './session.js';

const POLL_MS = 1_000;
const RESTORE_LINE = 'restore on a fresh server: install.sh --from <bundle> --restore <archive> --passphrase-file <file>';

function readPassphrase(file: string): string {
  const value = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  if (value.length < 12) throw usageError(`the passphrase in ${file} must be at least 12 characters`);
  return value;
}

function size(bytes: number | null): string {
  if (bytes === null) return '-';
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

const where = (r: ServerBackupRun) => (r.location === 's3' ? 'S3 (berth-server/)' : 'disk');

function listing(b: ServerBackups): string {
  const s = b.serverBackups;
  const rows: [string, string][] = [
    ['schedule', s.schedule === null ? 'off' : `${s.schedule} (UTC)${s.nextRunAt ? `, next ${s.nextRunAt}` : ''}`],
    ['storage', s.storageId === null ? "this server's disk (<data dir>/server-backups)" : 'the S3 storage (under berth-server/)'],
    ['keep', `the newest ${s.keep}`],
    ['passphrase', s.passphraseSet ? 'set' : 'not set (berth server backups schedule ... --passphrase-file F)'],
  ];
  const head = rows.map(([k, v]) => `${k.padEnd(12)}${v}`).join('\n');
  if (b.runs.length === 0) return `${head}\n\nno backups of Berth yet (berth server backups run)`;
  const runs = table(
    ['ID', 'STARTED', 'TRIGGER', 'STATUS', 'SIZE', 'WHERE', 'FILE / ERROR'],
    b.runs.map((r) => [r.id, r.startedAt, r.trigger, r.status, size(r.sizeBytes), where(r), r.status === 'failed' ? (r.error ?? '-') : (r.fileName ?? '-')]),
  );
  return `${head}\n\n${runs}`;
}

async function follow(s: Session, id: string): Promise<ServerBackupRun> {
  for (;;) {
    await sleep(POLL_MS);
    const run = (await s.client.serverBackups()).runs.find((r) => r.id === id);
    if (!run) throw new CliError(`backup ${id} is no longer listed (deleted meanwhile?)`);
    if (!jobInProgress(run.status)) return run;
    s.out.progress(`backup ${id} running`);
  }
}

async function run(s: Session, o: { passphraseFile?: string; wait?: boolean }): Promise<void> {
  const started = (await s.client.runServerBackup(o.passphraseFile ? readPassphrase(o.passphraseFile) : undefined)).run;
  if (!o.wait) {
    s.out.result(started, () => started.id);
    s.out.success(`backup ${started.id} started (berth server backups shows how it stands)`);
    return;
  }
  const done = await follow(s, started.id);
  s.out.result(done, () => done.id);
  if (done.status === 'failed') throw new CliError(`backup ${done.id} failed: ${done.error ?? 'no reason given'}`, EXIT.failed);
  s.out.success(`backup ${done.id} succeeded: ${done.fileName ?? ''} (${size(done.sizeBytes)}, sha256 ${done.sha256 ?? '-'}) on ${where(done)}`);
  s.out.info(RESTORE_LINE);
}

async function schedule(s: Session, cron: string, o: { storage?: string; keep?: number; passphraseFile?: string }): Promise<void> {
  const patch: ServerBackupsPatch = { schedule: cron === 'off' ? null : cron };
  if (o.storage !== undefined) {
    if (o.storage !== 'disk' && o.storage !== 'remote') throw usageError('--storage is disk or remote (the S3 storage of berth storage set)');
    patch.storageId = o.storage === 'disk' ? null : 'remote';
  }
  if (o.keep !== undefined) patch.keep = o.keep;
  if (o.passphraseFile) patch.passphrase = readPassphrase(o.passphraseFile);
  const b = await s.client.patchServerBackups(patch);
  s.out.result(b.serverBackups, () => listing({ ...b, runs: [] }).split('\n\n')[0]!);
}

async function download(s: Session, runId: string, output: string | undefined): Promise<void> {
  if (output === '-' && process.stdout.isTTY) throw usageError('-o - writes the archive to stdout, which is a terminal here: redirect it to a file or a pipe');
  const listed = (await s.client.serverBackups()).runs.find((r) => r.id === runId);
  const res = await s.client.openServerBackupDownload(runId);
  const { file, sha256: actual } = await saveDownload(res, output, `${runId}.tar.gz.enc`);
  if (listed?.sha256 && actual !== listed.sha256) {
    if (file !== '-') rmSync(file, { force: true });
    throw new CliError(`the download's SHA-256 is ${actual}, the server recorded ${listed.sha256}: nothing was kept`, EXIT.failed);
  }
  if (file === '-') return;
  s.out.result({ file, runId, sha256: actual }, () => '');
  s.out.success(`wrote ${file} (sha256 ${actual})`);
  s.out.info(RESTORE_LINE.replace('<archive>', file));
}

export function registerServerBackupsCommands(server: Command): void {
  const backups = server
    .command('backups')
    .description(
      "Berth's own backup through the API, from any machine (a key over all projects): settings and runs. " +
        "Not 'berth server backup' (singular), which runs on the server itself as root with no daemon or key",
    )
    .action(async (_o, cmd: Command) => {
      const s = openSession(cmd);
      const b = await s.client.serverBackups();
      if (s.out.json) return s.out.event(b);
      s.out.line(listing(b));
    });
  backups
    .command('run')
    .description('back up Berth now: one encrypted archive of its state (a write key over all projects)')
    .option('--passphrase-file <file>', 'the passphrase for this run only (at least 12 characters); default: the stored one')
    .option('--wait', 'follow the run to its end (exit 1 when it fails)')
    .action(async (o: { passphraseFile?: string; wait?: boolean }, cmd: Command) => {
      await run(openSession(cmd), o);
    });
  backups
    .command('schedule')
    .description('back up Berth on a schedule: a 5-field cron expression in UTC (e.g. "0 3 * * *"), or off')
    .argument('<cron|off>')
    .option('--storage <remote|disk>', "where archives go: disk (this server's) or remote (the S3 storage)")
    .option('--keep <n>', 'how many succeeded backups are kept (1-100)', parseCount)
    .option('--passphrase-file <file>', 'store this passphrase (sealed on the server; at least 12 characters)')
    .action(async (cron: string, o: { storage?: string; keep?: number; passphraseFile?: string }, cmd: Command) => {
      await schedule(openSession(cmd), cron, o);
    });
  backups
    .command('download')
    .description('download an encrypted archive, checked against its SHA-256')
    .argument('<run>', 'the run id (berth server backups)')
    .option('-o, --output <file>', 'where to write it (- for stdout; default: the name the server gives)')
    .action(async (runId: string, o: { output?: string }, cmd: Command) => {
      await download(openSession(cmd), runId, o.output);
    });
  backups
    .command('delete')
    .description('delete an archive (and its .sha256) from where it is kept; asks unless --yes')
    .argument('<run>', 'the run id')
    .action(async (runId: string, _o, cmd: Command) => {
      const s = openSession(cmd);
      await confirm(s, `delete Berth's backup ${runId}`, 'nothing was deleted');
      s.out.result(await s.client.deleteServerBackup(runId), () => '');
      s.out.success(`deleted ${runId}`);
    });
}
