// Grandfather-father-son retention of a database's backups, and the rule that retention only ever
// removes a service's own backups. Pure functions over the backups' records: the scheduler
// (daemon/backups/schedule.ts) removes what they answer. The anchors' users lost other projects'
// backups when a prune matched files by a shared prefix (Dokploy #3855, #2686): here a backup is a
// candidate only when its row is this service's and its files are under this service's own folder
// (on disk `<backups dir>/<serviceId>/`, remotely `<serviceId>/`).
import type { BackupRecord, GfsRetention } from './ports/backups-repo.js';

type Period = keyof GfsRetention;
const PERIODS: readonly Period[] = ['hourly', 'daily', 'weekly', 'monthly'];

/** The period a moment falls in (UTC): the hour, the day, the ISO week (its Monday) or the month. */
export function periodKey(period: Period, iso: string): string {
  const d = new Date(iso);
  if (period === 'hourly') return d.toISOString().slice(0, 13);
  if (period === 'daily') return d.toISOString().slice(0, 10);
  if (period === 'monthly') return d.toISOString().slice(0, 7);
  const monday = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - ((d.getUTCDay() + 6) % 7)));
  return monday.toISOString().slice(0, 10);
}

/** True when some period keeps backups (GFS is in use); otherwise the per-schedule keep counts apply. */
export function gfsInUse(gfs: GfsRetention | null): gfs is GfsRetention {
  return gfs !== null && PERIODS.some((p) => gfs[p] !== null);
}

/** True when the backup's row and every file it has are the service's own (see the top of this file). */
export function ownBackup(backup: BackupRecord, serviceId: string, backupsDir: string): boolean {
  if (backup.serviceId !== serviceId || backup.volume !== null) return false;
  const folder = `${backupsDir.replace(/\/+$/, '')}/${serviceId}/`;
  if (backup.localPath !== null && (!backup.localPath.startsWith(folder) || backup.localPath.slice(folder.length).includes('/'))) return false;
  if (backup.remoteKey !== null && (!backup.remoteKey.startsWith(`${serviceId}/`) || backup.remoteKey.slice(serviceId.length + 1).includes('/'))) return false;
  return true;
}

/**
 * The succeeded backups GFS keeps: for each period with a count N, the newest backup of each of the
 * N newest periods that have one; and always the newest verified backup. `history` is any order.
 */
export function gfsKept(gfs: GfsRetention, history: readonly BackupRecord[]): Set<string> {
  const succeeded = history.filter((b) => b.status === 'succeeded').sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
  const kept = new Set<string>();
  for (const period of PERIODS) {
    const n = gfs[period];
    if (n === null || n <= 0) continue;
    const seen = new Set<string>();
    for (const b of succeeded) {
      const key = periodKey(period, b.createdAt);
      if (seen.has(key)) continue;
      if (seen.size >= n) break;
      seen.add(key);
      kept.add(b.id);
    }
  }
  const lastVerified = succeeded.find((b) => b.verification?.status === 'verified');
  if (lastVerified) kept.add(lastVerified.id);
  return kept;
}

/**
 * What GFS removes of a database service's backups: succeeded ones it does not keep, only this
 * service's own (rows and files), never a backup whose restore test is running.
 */
export function beyondGfs(gfs: GfsRetention, serviceId: string, backupsDir: string, history: readonly BackupRecord[]): BackupRecord[] {
  const own = history.filter((b) => ownBackup(b, serviceId, backupsDir));
  const kept = gfsKept(gfs, own);
  return own.filter((b) => b.status === 'succeeded' && !kept.has(b.id) && b.verification?.status !== 'running');
}
