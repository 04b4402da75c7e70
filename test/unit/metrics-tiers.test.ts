// Metrics history's tiers as pure code: the 1 min and 10 min averages are the averages of the raw
// 10 s points that went in (not averages of averages), buckets close when the next one starts or
// when a series stops, the default step follows the range, and the disk-full trend.
import { expect } from 'chai';
import { averageOf, defaultStep, hoursUntilFull, type Point, ROWS_PER_SERIES, Rollups, type SeriesValues, zeroValues } from '../../daemon/core/metrics-tiers.js';

const T0 = Date.parse('2026-03-01T00:00:00.000Z');

function values(i: number): SeriesValues {
  // uneven numbers, so an average of averages would differ from the average of the points
  return { ...zeroValues(), cpu: (i * 37) % 101, mem: 1_000_000 + ((i * 7919) % 65_536), memLimit: 2 ** 30, rx: i % 13, blkWrite: (i * i) % 977 };
}

describe('metrics tiers: rollups, steps and the disk trend', () => {
  it('10 min averages over 30 days equal the averages of the 10 s points that went in, 1 min averages likewise', () => {
    const rollups = new Rollups();
    const fed = new Map<number, SeriesValues[]>();
    const minute = new Map<number, SeriesValues[]>();
    const closed: Point[] = [];
    const points = (30 * 86_400_000) / 10_000;
    for (let i = 0; i < points; i++) {
      const at = T0 + i * 10_000;
      // a sample now and then is missing (a skipped tick): buckets then average fewer points
      if (i % 97 === 5) continue;
      const v = values(i);
      const b10 = at - (at % 600_000);
      const b1 = at - (at % 60_000);
      if (!fed.has(b10)) fed.set(b10, []);
      fed.get(b10)!.push(v);
      // the first day's minutes, whole
      if (i < 8640) {
        if (!minute.has(b1)) minute.set(b1, []);
        minute.get(b1)!.push(v);
      }
      closed.push(...rollups.add('svc', at, v));
    }
    closed.push(...rollups.flush(T0 + points * 10_000));
    const tenMin = closed.filter((p) => p.tierMs === 600_000);
    expect(tenMin).to.have.length(30 * 144);
    for (const p of tenMin) {
      const expected = averageOf(fed.get(p.atMs)!);
      for (const k of Object.keys(expected) as (keyof SeriesValues)[]) expect(p.values[k], `${k} at ${new Date(p.atMs).toISOString()}`).to.be.closeTo(expected[k], 1e-6);
    }
    const oneMin = closed.filter((p) => p.tierMs === 60_000 && minute.has(p.atMs));
    expect(oneMin).to.have.length(1440);
    for (const p of oneMin) expect(p.values.cpu).to.be.closeTo(averageOf(minute.get(p.atMs)!).cpu, 1e-9);
  });

  it('closes a bucket only when the next one starts, or once its span is over for a series that stopped', () => {
    const rollups = new Rollups();
    expect(rollups.add('a', T0, values(1))).to.deep.equal([]);
    expect(rollups.add('a', T0 + 50_000, values(2))).to.deep.equal([]);
    const closed = rollups.add('a', T0 + 60_000, values(3));
    expect(closed.map((p) => [p.tierMs, p.atMs])).to.deep.equal([[60_000, T0]]);
    expect(rollups.flush(T0 + 100_000)).to.deep.equal([]);
    const late = rollups.flush(T0 + 600_000);
    expect(late.map((p) => p.tierMs).sort()).to.deep.equal([600_000, 60_000].sort());
    rollups.add('gone', T0, values(1));
    rollups.forget((s) => s !== 'gone');
    expect(rollups.flush(T0 + 10 * 600_000).filter((p) => p.series === 'gone')).to.deep.equal([]);
  });

  it('picks the finest tier that still covers the range, and states a bound of 6,123 rows per series', () => {
    const now = T0 + 40 * 86_400_000;
    expect(defaultStep(now - 30 * 60_000, now)).to.equal('10s');
    expect(defaultStep(now - 3_600_000, now)).to.equal('10s');
    expect(defaultStep(now - 3 * 3_600_000, now)).to.equal('1m');
    expect(defaultStep(now - 7 * 86_400_000, now)).to.equal('10m');
    expect(defaultStep(now - 90 * 86_400_000, now)).to.equal('10m');
    expect(ROWS_PER_SERIES).to.equal(6123);
  });

  it('reads the hours until the disk is full from its trend, and none while it does not grow', () => {
    const GiB = 2 ** 30;
    // 1 GiB an hour, 50 GiB used of 100: 50 hours left
    const growing = Array.from({ length: 7 }, (_, h) => ({ atMs: T0 + h * 3_600_000, used: 44 * GiB + h * GiB }));
    expect(hoursUntilFull(growing, 100 * GiB)).to.be.closeTo(50, 1e-6);
    const flat = growing.map((r) => ({ ...r, used: 50 * GiB }));
    expect(hoursUntilFull(flat, 100 * GiB)).to.equal(null);
    expect(hoursUntilFull(growing.slice(0, 1), 100 * GiB)).to.equal(null);
  });
});
