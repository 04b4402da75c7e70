// A database backup's restore test in the backups list (its badge: "verified · 12 tables, 3,401
// rows · <when>", "restore test failed: <why>", running; and the "Test restore" action), and the
// schedule form's restore-test schedule and grandfather-father-son retention. Volume backups have
// neither (their routes name no `verify`).
import { verificationText } from '../../../../../shared/backup-verification.js';
import type { Backup, BackupSettings, GfsRetention } from '../../../../../shared/types.js';
import { useAction } from '../../api/context';
import { Button, Field, Status, timeAgo } from '../../ui/kit';

/** The badge of a backup's newest restore test, and why it failed. */
export function VerificationCell({ backup: b }: { backup: Backup }) {
  const v = b.verification;
  if (!v) return <span className="muted small">not tested</span>;
  if (v.status === 'failed') {
    return (
      <>
        <Status value="failed" label="restore test failed" />
        <div className="tone-bad-text small">{v.error}</div>
      </>
    );
  }
  return <Status value={v.status} label={verificationText(v, (iso) => timeAgo(iso))} />;
}

/** "Test restore": restores the backup into a throwaway container (the live database is not touched). */
export function TestRestoreButton({ backup: b, path, listKey }: { backup: Backup; path: string; listKey: readonly unknown[] }) {
  const verify = useAction('POST', path, { invalidate: [listKey], success: 'Restore test started' });
  const running = b.verification?.status === 'running';
  return (
    <Button className="btn-small" busy={verify.isPending || running} onClick={() => verify.mutate(undefined)} title="Restore into a throwaway container and count its tables and rows">
      {running ? 'Testing…' : 'Test restore'}
    </Button>
  );
}

export type RestoreTestFields = Pick<BackupSettings, 'verifySchedule' | 'gfs'>;

const PERIODS: [keyof GfsRetention, string][] = [
  ['hourly', 'Hours'],
  ['daily', 'Days'],
  ['weekly', 'Weeks'],
  ['monthly', 'Months'],
];

/** The restore-test schedule and GFS keep counts; a blank count is "not used", all blank turns GFS off. */
export function RestoreTestSettings({ value: f, onChange }: { value: RestoreTestFields; onChange: (next: RestoreTestFields) => void }) {
  const gfs = f.gfs ?? { hourly: null, daily: null, weekly: null, monthly: null };
  const setKeep = (period: keyof GfsRetention, text: string) => {
    const next = { ...gfs, [period]: text === '' ? null : Math.max(0, Math.floor(Number(text))) };
    onChange({ ...f, gfs: Object.values(next).every((n) => n === null) ? null : next });
  };
  return (
    <fieldset className="stack">
      <legend className="h3">Restore tests and retention</legend>
      <Field label="Test the newest backup on a schedule" hint="5-field cron, UTC (for example 0 4 * * * daily at 04:00); blank for none">
        {(id) => (
          <input
            id={id}
            value={f.verifySchedule ?? ''}
            onChange={(e) => onChange({ ...f, verifySchedule: e.target.value.trim() === '' ? null : e.target.value })}
            placeholder="0 4 * * *"
            className="mono"
          />
        )}
      </Field>
      <p className="muted small">
        Grandfather-father-son: keep the newest backup of each of the last N hours, days, weeks and months. Blank keeps none by that period; all blank uses the keep counts above. The newest verified
        backup is always kept.
      </p>
      <div className="row wrap align-end">
        {PERIODS.map(([period, label]) => (
          <Field key={period} label={label}>
            {(id) => <input id={id} type="number" min={0} max={1000} value={gfs[period] ?? ''} onChange={(e) => setKeep(period, e.target.value)} className="short" />}
          </Field>
        ))}
      </div>
    </fieldset>
  );
}
