// The metrics history's points (core/ports/metrics-history.ts). Not cached: written every 10 s, and
// a write here must not start the read cache over. A point written twice for one bucket (a tick
// after a clock step) replaces the first.
import type { Knex } from 'knex';
import type { MetricsRepo } from '../core/ports/metrics-history.js';
import type { Point } from '../core/metrics-tiers.js';

const TABLE = 'metric_points';
/** SQLite allows 999 bound variables per statement: 12 columns a row. */
const ROWS_PER_INSERT = 80;

interface Row {
  series: string;
  tier_ms: number;
  at_ms: number;
  cpu: number;
  mem: number;
  mem_limit: number;
  rx: number;
  tx: number;
  blk_read: number;
  blk_write: number;
  disk_used: number;
  disk_total: number;
}

function rowOf(p: Point): Row {
  const v = p.values;
  return {
    series: p.series,
    tier_ms: p.tierMs,
    at_ms: p.atMs,
    cpu: v.cpu,
    mem: v.mem,
    mem_limit: v.memLimit,
    rx: v.rx,
    tx: v.tx,
    blk_read: v.blkRead,
    blk_write: v.blkWrite,
    disk_used: v.diskUsed,
    disk_total: v.diskTotal,
  };
}

function pointOf(r: Row): Point {
  return {
    series: r.series,
    tierMs: r.tier_ms,
    atMs: Number(r.at_ms),
    values: { cpu: r.cpu, mem: r.mem, memLimit: r.mem_limit, rx: r.rx, tx: r.tx, blkRead: r.blk_read, blkWrite: r.blk_write, diskUsed: r.disk_used, diskTotal: r.disk_total },
  };
}

export function metricsRepo(knex: Knex): MetricsRepo {
  return {
    async insert(points) {
      if (points.length === 0) return;
      await knex.transaction(async (trx) => {
        for (let i = 0; i < points.length; i += ROWS_PER_INSERT) {
          await trx(TABLE)
            .insert(points.slice(i, i + ROWS_PER_INSERT).map(rowOf))
            .onConflict(['series', 'tier_ms', 'at_ms'])
            .merge();
        }
      });
    },
    async range(series, tierMs, fromMs, toMs) {
      const rows = (await knex(TABLE).where({ series, tier_ms: tierMs }).andWhere('at_ms', '>=', fromMs).andWhere('at_ms', '<=', toMs).orderBy('at_ms')) as Row[];
      return rows.map(pointOf);
    },
    async prune(bounds) {
      let gone = 0;
      for (const b of bounds) gone += await knex(TABLE).where('tier_ms', b.tierMs).andWhere('at_ms', '<', b.beforeMs).delete();
      return gone;
    },
    async keepOnly(series) {
      return knex(TABLE).whereNotIn('series', series).delete();
    },
    async count() {
      const row = (await knex(TABLE).count({ n: '*' }).first()) as { n: number | string } | undefined;
      return Number(row?.n ?? 0);
    },
  };
}
