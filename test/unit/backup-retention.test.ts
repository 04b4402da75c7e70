// Grandfather-father-son retention on a driven clock: a backup taken every 6 hours for 70 days,
// pruned as the scheduler would after each one, keeps exactly the newest backup of each of the N
// newest hours, days, ISO weeks and months; never the newest verified backup's removal; never
// another service's backup, or one whose file is outside the service's own folder; and the
// restore-test schedule's cron matching.
import { expect } from 'chai';
import { beyondGfs, gfsInUse, gfsKept, ownBackup, periodKey } from '../../daemon/core/backup-retention.js';
import { cronMatches, validCron } from '../../daemon/core/cron-match.js';
import type { BackupRecord, GfsRetention } from '../../daemon/core/ports/backups-repo.js';

const DIR = '/var/lib/berth/backups';

function backup(id: string, createdAt: string, over: Partial<BackupRecord> = {}): BackupRecord {
  return {
    id,
    serviceId: 's1',
    volume: null,
    engine: 'postgres',
    status: 'succeeded',
    trigger: 'daily',
    storage: 'disk',
    format: 'custom',
    localPath: `${DIR}/s1/${id}.dump`,
    remoteKey: null,
    sizeBytes: 1,
    checksum: 'sha256:x',
    error: null,
    createdAt,
    startedAt: createdAt,
    finishedAt: createdAt,
    verification: null,
    ...over,
  };
}

/** Runs the clock: a backup every `everyHours` from `start` for `days`, pruning after each one. Answers what is left, newest first. */
function drive(gfs: GfsRetention, start: string, days: number, everyHours: number, mark: (b: BackupRecord) => BackupRecord = (b) => b): BackupRecord[] {
  let kept: BackupRecord[] = [];
  const t0 = Date.parse(start);
  for (let h = 0; h <= days * 24; h += everyHours) {
    const at = new Date(t0 + h * 3_600_000).toISOString();
    kept = [mark(backup(`b${h}`, at)), ...kept];
    const gone = new Set(beyondGfs(gfs, 's1', DIR, kept).map((b) => b.id));
    kept = kept.filter((b) => !gone.has(b.id));
  }
  return kept;
}

describe('GFS retention (driven clock)', () => {
  it('keeps exactly the newest backup of the N newest hours, days, weeks and months', () => {
    // 2026-01-01 is a Thursday; the last backup is at 2026-03-12T00:00Z (70 days later), a Thursday
    const left = drive({ hourly: 2, daily: 3, weekly: 2, monthly: 3 }, '2026-01-01T00:00:00.000Z', 70, 6);
    const at = left.map((b) => b.createdAt.slice(0, 16));
    expect(at).to.deep.equal([
      // hourly 2: 03-12T00, 03-11T18; daily 3: 03-12, 03-11 (18:00), 03-10 (18:00)
      '2026-03-12T00:00',
      '2026-03-11T18:00',
      '2026-03-10T18:00',
      // weekly 2: the week of Monday 03-09 (its newest: 03-12T00) and of Monday 03-02 (its newest: Sunday 03-08T18)
      '2026-03-08T18:00',
      // monthly 3: March (03-12T00), February (02-28T18), January (01-31T18)
      '2026-02-28T18:00',
      '2026-01-31T18:00',
    ]);
  });

  it('never removes the newest verified backup, nor one whose restore test runs', () => {
    const verifiedAt = '2026-01-05T06:00:00.000Z';
    const left = drive({ hourly: null, daily: 1, weekly: null, monthly: null }, '2026-01-01T00:00:00.000Z', 10, 6, (b) =>
      b.createdAt === verifiedAt ? { ...b, verification: { status: 'verified', startedAt: b.createdAt, finishedAt: b.createdAt, tables: 1, rows: 1, error: null } } : b,
    );
    expect(left.map((b) => b.createdAt)).to.deep.equal(['2026-01-11T00:00:00.000Z', verifiedAt]);
    const history = [
      backup('new', '2026-02-02T00:00:00.000Z'),
      backup('testing', '2026-01-01T00:00:00.000Z', { verification: { status: 'running', startedAt: 'x', finishedAt: null, tables: null, rows: null, error: null } }),
    ];
    expect(beyondGfs({ hourly: null, daily: 1, weekly: null, monthly: null }, 's1', DIR, history)).to.deep.equal([]);
  });

  it("never removes another service's backup, a volume's, or one whose file is outside the service's own folder", () => {
    const history = [
      backup('newest', '2026-02-02T00:00:00.000Z'),
      backup('other-service', '2026-01-01T00:00:00.000Z', { serviceId: 's2', localPath: `${DIR}/s2/x.dump` }),
      backup('volume', '2026-01-01T00:00:00.000Z', { volume: 'data' }),
      backup('shared-prefix', '2026-01-01T00:00:00.000Z', { localPath: `${DIR}/s10/x.dump` }),
      backup('nested', '2026-01-01T00:00:00.000Z', { localPath: `${DIR}/s1/../s2/x.dump` }),
      backup('remote-elsewhere', '2026-01-01T00:00:00.000Z', { localPath: null, remoteKey: 's2/x.dump' }),
      backup('own-remote', '2026-01-01T00:00:00.000Z', { localPath: null, remoteKey: 's1/y.dump' }),
      backup('failed', '2026-01-01T00:00:00.000Z', { status: 'failed' }),
    ];
    const gone = beyondGfs({ hourly: null, daily: 1, weekly: null, monthly: null }, 's1', DIR, history).map((b) => b.id);
    expect(gone).to.deep.equal(['own-remote']);
    expect(ownBackup(history[0]!, 's1', `${DIR}/`)).to.equal(true);
  });

  it('is off when no period has a count; 0 keeps nothing for that period', () => {
    expect(gfsInUse(null)).to.equal(false);
    expect(gfsInUse({ hourly: null, daily: null, weekly: null, monthly: null })).to.equal(false);
    expect(gfsInUse({ hourly: 0, daily: null, weekly: null, monthly: null })).to.equal(true);
    expect([...gfsKept({ hourly: 0, daily: 0, weekly: 0, monthly: 0 }, [backup('a', '2026-01-01T00:00:00.000Z')])]).to.deep.equal([]);
  });

  it('weeks are ISO weeks starting on Monday, in UTC', () => {
    expect(periodKey('weekly', '2026-03-08T23:59:59.000Z')).to.equal('2026-03-02');
    expect(periodKey('weekly', '2026-03-09T00:00:00.000Z')).to.equal('2026-03-09');
    expect(periodKey('monthly', '2026-03-09T00:00:00.000Z')).to.equal('2026-03');
    expect(periodKey('hourly', '2026-03-09T05:59:00.000Z')).to.equal('2026-03-09T05');
  });
});

describe('the restore-test schedule (cron, UTC)', () => {
  it('accepts 5-field expressions and refuses others', () => {
    for (const ok of ['0 4 * * *', '*/15 * * * *', '30 2 * * mon-fri', '0 0 1 jan,jul *', '5 3 * * 7']) expect(validCron(ok), ok).to.equal(true);
    for (const bad of ['', '* * * *', '0 4 * * * *', '60 * * * *', '0 24 * * *', '0 0 0 * *', '*/0 * * * *', 'a b c d e', '5-1 * * * *']) expect(validCron(bad), bad).to.equal(false);
  });

  it('matches the minutes it names', () => {
    const at = (iso: string) => new Date(iso);
    expect(cronMatches('0 4 * * *', at('2026-03-09T04:00:30Z'))).to.equal(true);
    expect(cronMatches('0 4 * * *', at('2026-03-09T04:01:00Z'))).to.equal(false);
    expect(cronMatches('*/15 * * * *', at('2026-03-09T10:45:00Z'))).to.equal(true);
    expect(cronMatches('0 3 * * sun', at('2026-03-08T03:00:00Z'))).to.equal(true);
    expect(cronMatches('0 3 * * 7', at('2026-03-08T03:00:00Z'))).to.equal(true);
    expect(cronMatches('0 3 * * sun', at('2026-03-09T03:00:00Z'))).to.equal(false);
    // day-of-month and day-of-week both restricted: either matches
    expect(cronMatches('0 3 1 * mon', at('2026-03-09T03:00:00Z'))).to.equal(true);
  });
});
