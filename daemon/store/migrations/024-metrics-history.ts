// Migration 024: metrics history (issue 30). One table of points: a series (a service's id, or
// `host`), its tier (the step in ms: 10 s raw points, 1 min and 10 min averages), the bucket's start
// in ms, and the numbers. Bounded by pruning (core/metrics-tiers.ts: ROWS_PER_SERIES per series).
// Numbered 024: the uptime checks take 023; knex runs migrations in the listed order.
import type { Migration } from './migration.js';

export const metricsHistory: Migration = {
  name: '024_metrics_history',
  async up(knex) {
    await knex.schema.createTable('metric_points', (t) => {
      t.string('series').notNullable();
      t.integer('tier_ms').notNullable();
      t.bigInteger('at_ms').notNullable();
      for (const c of ['cpu', 'mem', 'mem_limit', 'rx', 'tx', 'blk_read', 'blk_write', 'disk_used', 'disk_total']) t.double(c).notNullable().defaultTo(0);
      t.primary(['series', 'tier_ms', 'at_ms']);
      t.index(['tier_ms', 'at_ms']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('metric_points');
  },
};
