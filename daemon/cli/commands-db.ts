// db tables|query|import|imports, backup list|create|download|restore|verify|schedule.
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { BACKUP_STORAGES } from '../../shared/constants.js';
import { IMPORT_SOURCE_NAMES, IMPORT_SOURCES, importSourceOfUrl } from '../../shared/engines.js';
import { jobInProgress } from '../../shared/statuses.js';
import type { BackupSettings, BackupStorageKind, DataImport, DbCell, ImportSource, JobStatus } from '../../shared/types.js';
import { parseCount, parseDuration, sleep } from './durations.js';
import { saveDownload } from './save-download.js';
import { CliError, usageError } from './exit-codes.js';
import { table } from './output.js';
import { openSession } from './session.js';
import { verificationText } from '../../shared/backup-verification.js';
import { gfsCount, registerBackupVerify, restoreTestLines, restoreTestPatch } from './commands-restore-tests.js';

function cellText(v: DbCell): string {
  if (v === null) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** RFC 4180: quote a field holding a comma, quote or line break. */
function csvField(v: DbCell): string {
  const t = cellText(v);
  return /[",\r\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
}

export function storageOption(v: string): BackupStorageKind {
  if (!(BACKUP_STORAGES as readonly string[]).includes(v)) throw usageError(`--storage must be one of ${BACKUP_STORAGES.join(', ')}`);
  return v as BackupStorageKind;
}

/**
 * Polls a background job (a backup, an import) until it is no longer `running`, backing off from
 * 250 ms to 2 s; `seen` gets each answer. Past `deadline` it gives up waiting (the job goes on).
 */
export async function waitForJob<T extends { status: JobStatus }>(what: string, read: () => Promise<T | undefined>, deadline: number, seen: (job: T) => void = () => undefined): Promise<T> {
  for (let delay = 250; ; delay = Math.min(delay * 2, 2000)) {
    const job = await read();
    if (!job) throw new CliError(`${what} disappeared`);
    seen(job);
    if (!jobInProgress(job.status)) return job;
    if (Date.now() > deadline) throw new CliError(`${what} still running after the timeout; it goes on`);
    await sleep(delay);
  }
}

export const deadlineOf = (timeout: number | undefined) => (timeout === undefined ? Infinity : Date.now() + timeout);

/** The import endpoint a source URL's scheme names. */
function importSource(url: string): ImportSource {
  const source = importSourceOfUrl(url);
  if (source) return source;
  const schemes = IMPORT_SOURCE_NAMES.flatMap((s) => IMPORT_SOURCES[s].schemes).map((x) => `${x}://`);
  throw usageError(`the source must be a ${schemes.slice(0, -1).join(', ')} or ${schemes.at(-1)} URL`);
}

const onOff = (v: string): boolean => {
  if (v === 'on' || v === 'true') return true;
  if (v === 'off' || v === 'false') return false;
  throw usageError('expected on or off');
};

export function registerDatabaseCommands(program: Command): void {
  const db = program.command('db').description("a database service's tables and queries");

  db.command('tables')
    .argument('<service>')
    .option('--database <n>', "redis's logical database", parseCount)
    .action(async (ref: string, o: { database?: number }, cmd: Command) => {
      const s = openSession(cmd);
      const { tables } = await s.client.databaseTables((await s.service(ref)).id, o);
      if (s.out.json) return tables.forEach((t) => s.out.event(t));
      s.out.line(
        table(
          ['SCHEMA', 'NAME', 'ROWS'],
          tables.map((t) => [t.schema, t.name, `${t.rowCountEstimated ? '~' : ''}${t.rowCount}`]),
        ),
      );
    });

  db.command('query')
    .description('run a query (SQL, or the engine’s command language); from stdin when not given')
    .argument('<service>')
    .argument('[sql]')
    .option('--csv', 'print CSV with a header line')
    .option('--database <n>', "redis's logical database", parseCount)
    .action(async (ref: string, sqlArg: string | undefined, o: { csv?: boolean; database?: number }, cmd: Command) => {
      const s = openSession(cmd);
      const sql = sqlArg ?? readFileSync(0, 'utf8');
      if (sql.trim() === '') throw usageError('no query given');
      const res = await s.client.databaseQuery((await s.service(ref)).id, sql, o.database === undefined ? {} : { database: o.database });
      if (s.out.json) return s.out.result(res, () => '');
      const names = res.columns.map((c) => c.name);
      if (o.csv) {
        s.out.line([names.map((n) => csvField(n)).join(','), ...res.rows.map((r) => names.map((n) => csvField(r[n] ?? null)).join(','))].join('\n'));
      } else if (names.length > 0) {
        s.out.line(
          table(
            names,
            res.rows.map((r) => names.map((n) => r[n] ?? null)),
          ),
        );
      }
      s.out.info(`(${res.rowCount} row${res.rowCount === 1 ? '' : 's'}${res.truncated ? ', truncated' : ''})`);
    });

  db.command('import')
    .description("copy another database's data into this one (its scheme picks postgres or redis); the URL from stdin when not given")
    .argument('<service>')
    .argument('[source-url]', 'e.g. postgresql://user:password@host:5432/db; prefer stdin: argv is visible to other users')
    .option('--wait', 'wait until the import has finished, printing its log; exit 1 when it failed')
    .option('--timeout <duration>', 'with --wait, give up waiting after this long (the import goes on)', parseDuration)
    .action(async (ref: string, urlArg: string | undefined, o: { wait?: boolean; timeout?: number }, cmd: Command) => {
      const s = openSession(cmd);
      const sourceUrl = (urlArg ?? readFileSync(0, 'utf8')).trim();
      if (sourceUrl === '') throw usageError('no source URL given');
      const source = importSource(sourceUrl);
      const service = await s.service(ref);
      const { result } = await s.client.importFrom(service.id, source, sourceUrl);
      if (!o.wait) {
        s.out.result(result, () => result.id);
        return s.out.success(`import ${result.id} started; \`berth db imports ${service.slug}\` shows how it goes`);
      }
      s.out.info(`importing into ${service.slug} (${result.id})...`);
      const printed = new Set<string>();
      const printNew = (job: DataImport) => {
        for (const line of job.log.filter((l) => !printed.has(l))) {
          printed.add(line);
          s.out.info(line);
        }
      };
      const done = await waitForJob(`import ${result.id}`, async () => (await s.client.listImports(service.id)).imports.find((x) => x.id === result.id), deadlineOf(o.timeout), printNew);
      s.out.result(done, () => '');
      // the log printed above ends with the reason; with --quiet it was not printed
      if (done.status === 'failed') throw new CliError(s.out.quiet ? `import ${done.id} failed: ${done.error ?? 'unknown error'}` : `import ${done.id} failed (its log is above)`);
      s.out.success(`imported ${done.sourceLabel} into ${service.slug}`);
    });

  db.command('imports')
    .description("a database's imports, newest first")
    .argument('<service>')
    .action(async (ref: string, _o, cmd: Command) => {
      const s = openSession(cmd);
      const { imports } = await s.client.listImports((await s.service(ref)).id);
      if (s.out.json) return imports.forEach((i) => s.out.event(i));
      s.out.line(
        table(
          ['ID', 'STATUS', 'SOURCE', 'STARTED', 'FINISHED', 'ERROR'],
          imports.map((i) => [i.id, i.status, i.sourceLabel, i.startedAt, i.finishedAt ?? '', i.error ?? '']),
        ),
      );
    });

  const backup = program.command('backup').description("a database service's backups");

  backup
    .command('list')
    .argument('<service>')
    .action(async (ref: string, _o, cmd: Command) => {
      const s = openSession(cmd);
      const { backups } = await s.client.listBackups((await s.service(ref)).id);
      if (s.out.json) return backups.forEach((b) => s.out.event(b));
      s.out.line(
        table(
          ['ID', 'STATUS', 'TRIGGER', 'STORAGE', 'SIZE', 'CREATED', 'RESTORE TEST'],
          backups.map((b) => [b.id, b.status, b.trigger, b.storage, b.sizeBytes, b.createdAt, verificationText(b.verification)]),
        ),
      );
    });

  backup
    .command('create')
    .argument('<service>')
    .option('--storage <kind>', BACKUP_STORAGES.join(', '), storageOption, 'disk')
    .option('--wait', 'wait until the backup has finished; exit 1 when it failed')
    .option('--timeout <duration>', 'with --wait, give up after this long', parseDuration)
    .action(async (ref: string, o: { storage: BackupStorageKind; wait?: boolean; timeout?: number }, cmd: Command) => {
      const s = openSession(cmd);
      const service = await s.service(ref);
      let { backup: b } = await s.client.createBackup(service.id, o.storage);
      if (o.wait) {
        s.out.info(`backing up ${service.slug} (${b.id})...`);
        const id = b.id;
        b = await waitForJob(`backup ${id}`, async () => (await s.client.listBackups(service.id)).backups.find((x) => x.id === id), deadlineOf(o.timeout));
      }
      s.out.result(b, () => b.id);
      if (b.status === 'failed') throw new CliError(`backup ${b.id} failed: ${b.error ?? 'unknown error'}`);
      s.out.success(o.wait ? `backup ${b.id} ${b.status} (${b.sizeBytes} bytes, ${b.checksum})` : `backup ${b.id} started`);
    });

  backup
    .command('download')
    .argument('<service>')
    .argument('<backup>', 'backup id')
    .option('-o, --output <file>', 'where to write it (- for stdout; default: the name the server gives)')
    .action(async (ref: string, backupId: string, o: { output?: string }, cmd: Command) => {
      // a backup is bytes for a file or a pipe: on a terminal its control characters would act
      if (o.output === '-' && process.stdout.isTTY) throw usageError('-o - writes the backup to stdout, which is a terminal here: redirect it to a file or a pipe');
      const s = openSession(cmd);
      const res = await s.client.openBackupDownload((await s.service(ref)).id, backupId);
      const { file } = await saveDownload(res, o.output, `${backupId}.backup`);
      if (file !== '-') {
        s.out.result({ file, backupId }, () => '');
        s.out.success(`wrote ${file}`);
      }
    });

  backup
    .command('restore')
    .description("replace the database's data with a backup (asks for --yes)")
    .argument('<service>')
    .argument('<backup>', 'backup id')
    .action(async (ref: string, backupId: string, _o, cmd: Command) => {
      const s = openSession(cmd);
      if (!s.opts.yes) throw usageError(`restore replaces the data of ${ref} with backup ${backupId}: pass --yes to do it`);
      const res = await s.client.restoreBackup((await s.service(ref)).id, backupId);
      s.out.result(res, () => '');
      s.out.success(`restored ${backupId} at ${res.restoredAt}`);
    });

  registerBackupVerify(backup);

  backup
    .command('schedule')
    .description('show or change automatic backups')
    .argument('<service>')
    .option('--automatic <on|off>', 'automatic backups at all', onOff)
    .option('--daily <on|off>', 'daily backups', onOff)
    .option('--weekly <on|off>', 'weekly backups', onOff)
    .option('--monthly <on|off>', 'monthly backups', onOff)
    .option('--keep-daily <n>', 'how many daily backups to keep', parseCount)
    .option('--keep-weekly <n>', 'how many weekly backups to keep', parseCount)
    .option('--keep-monthly <n>', 'how many monthly backups to keep', parseCount)
    .option('--storage <kind>', BACKUP_STORAGES.join(', '), storageOption)
    .option('--verify-schedule <cron|off>', 'restore-test the newest backup on this 5-field cron schedule (UTC)')
    .option('--gfs-hourly <n|off>', 'GFS retention: keep the newest backup of each of the n newest hours', gfsCount)
    .option('--gfs-daily <n|off>', '... of the n newest days', gfsCount)
    .option('--gfs-weekly <n|off>', '... of the n newest weeks (Monday first)', gfsCount)
    .option('--gfs-monthly <n|off>', '... of the n newest months', gfsCount)
    .option('--no-gfs', 'turn GFS retention off (the keep counts apply again)')
    .action(async (ref: string, o: Record<string, unknown>, cmd: Command) => {
      const s = openSession(cmd);
      const service = await s.service(ref);
      const map: Record<string, keyof BackupSettings> = {
        automatic: 'automaticEnabled',
        daily: 'dailyEnabled',
        weekly: 'weeklyEnabled',
        monthly: 'monthlyEnabled',
        keepDaily: 'keepDaily',
        keepWeekly: 'keepWeekly',
        keepMonthly: 'keepMonthly',
        storage: 'storage',
      };
      const patch = Object.fromEntries(
        Object.entries(map)
          .filter(([opt]) => o[opt] !== undefined)
          .map(([opt, field]) => [field, o[opt]]),
      );
      const current = (await s.client.listBackups(service.id)).settings;
      Object.assign(patch, restoreTestPatch(o, current));
      const settings = Object.keys(patch).length > 0 ? (await s.client.patchBackupSettings(service.id, patch)).settings : current;
      s.out.result(settings, () =>
        [
          `automatic  ${settings.automaticEnabled ? 'on' : 'off'} (storage ${settings.storage})`,
          `daily      ${settings.dailyEnabled ? 'on' : 'off'}, keep ${settings.keepDaily}`,
          `weekly     ${settings.weeklyEnabled ? 'on' : 'off'}, keep ${settings.keepWeekly}`,
          `monthly    ${settings.monthlyEnabled ? 'on' : 'off'}, keep ${settings.keepMonthly}`,
          ...restoreTestLines(settings),
        ].join('\n'),
      );
    });
}
