// berth backup verify (a restore test of one backup, optionally waited for) and the restore-test
// and GFS options of `berth backup schedule` (added to that command in commands-db.ts).
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { verificationText } from '../../shared/backup-verification.js';
import type { Backup, BackupSettings, GfsRetention } from '../../shared/types.js';
import { parseDuration, sleep } from './durations.js';
import { CliError } from './exit-codes.js';
import { openSession } from './session.js';

/** A GFS count, or `off` (kept as the word: commander turns a parser's null into ''; restoreTestPatch makes it null). */
export function gfsCount(value: string): number | 'off' {
  if (value === 'off') return 'off';
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number or off');
  return n;
}

const GFS_OPTIONS = { gfsHourly: 'hourly', gfsDaily: 'daily', gfsWeekly: 'weekly', gfsMonthly: 'monthly' } as const;

/** The settings fields the schedule command's restore-test and GFS options change (`current` fills the GFS periods not named). */
export function restoreTestPatch(o: Record<string, unknown>, current: BackupSettings): Partial<BackupSettings> {
  const patch: Partial<BackupSettings> = {};
  // `off` clears the restore-test schedule; anything else is a cron expression the server checks
  if (typeof o.verifySchedule === 'string') patch.verifySchedule = o.verifySchedule === 'off' ? null : o.verifySchedule;
  const named = Object.entries(GFS_OPTIONS).filter(([opt]) => o[opt] !== undefined);
  if (o.gfs === false) patch.gfs = null;
  else if (named.length > 0) {
    const gfs: GfsRetention = { ...(current.gfs ?? { hourly: null, daily: null, weekly: null, monthly: null }) };
    for (const [opt, period] of named) gfs[period] = o[opt] === 'off' ? null : (o[opt] as number);
    patch.gfs = gfs;
  }
  return patch;
}

/** The schedule command's lines about restore tests and GFS. */
export function restoreTestLines(settings: BackupSettings): string[] {
  const g = settings.gfs;
  const n = (v: number | null) => (v === null ? '-' : String(v));
  return [
    `restore    ${settings.verifySchedule ? `tests the newest backup at "${settings.verifySchedule}" (UTC)` : 'no scheduled tests'}`,
    `gfs        ${g ? `hourly ${n(g.hourly)}, daily ${n(g.daily)}, weekly ${n(g.weekly)}, monthly ${n(g.monthly)} (replaces the keep counts)` : 'off (the keep counts apply)'}`,
  ];
}

export function registerBackupVerify(backup: Command): void {
  backup
    .command('verify')
    .description('restore a backup into a throwaway container and count its tables and rows (the live database is not touched)')
    .argument('<service>')
    .argument('<backup>', 'backup id')
    .option('--wait', 'wait until the restore test has ended; exit 1 when it failed')
    .option('--timeout <duration>', 'with --wait, give up after this long', parseDuration)
    .action(async (ref: string, backupId: string, o: { wait?: boolean; timeout?: number }, cmd: Command) => {
      const s = openSession(cmd);
      const service = await s.service(ref);
      let { backup: b } = await s.client.verifyBackup(service.id, backupId);
      if (o.wait) {
        s.out.info(`restore-testing ${backupId} of ${service.slug}...`);
        const deadline = o.timeout === undefined ? Infinity : Date.now() + o.timeout;
        for (let delay = 250; b.verification?.status === 'running'; delay = Math.min(delay * 2, 2000)) {
          if (Date.now() > deadline) throw new CliError(`the restore test of ${backupId} is still running after the timeout; it goes on`);
          await sleep(delay);
          const found: Backup | undefined = (await s.client.listBackups(service.id)).backups.find((x) => x.id === backupId);
          if (!found) throw new CliError(`backup ${backupId} disappeared`);
          b = found;
        }
      }
      s.out.result(b, () => b.id);
      if (b.verification?.status === 'failed') throw new CliError(`backup ${b.id}: ${verificationText(b.verification)}`);
      s.out.success(o.wait ? `backup ${b.id} ${verificationText(b.verification)}` : `restore test of ${b.id} started`);
    });
}
