// Migration 023: uptime checks (issue 30), their raw results (kept 48 h), daily rollups (kept 90
// days) and incidents. Each goes with its owner: a check with its service, and with its domain when
// it targets one (a check of a deleted domain is removed with it); results, rollups and incidents
// with their check.
// Numbered 023: main has 022 (backup verification); 024 is metrics history.
import type { Migration } from './migration.js';

export const uptimeChecks: Migration = {
  name: '023_uptime_checks',
  async up(knex) {
    await knex.schema.createTable('checks', (t) => {
      t.string('id').primary();
      t.string('service_id').notNullable().references('services.id').onDelete('CASCADE');
      t.string('name').notNullable();
      t.string('target_kind').notNullable();
      t.string('domain_id').references('domains.id').onDelete('CASCADE');
      t.string('path').notNullable();
      t.integer('expected_status');
      t.text('keyword');
      t.integer('interval_seconds').notNullable();
      t.integer('timeout_seconds').notNullable();
      t.integer('failures_before_incident').notNullable();
      t.boolean('enabled').notNullable();
      t.string('status').notNullable();
      t.string('last_checked_at');
      t.integer('last_response_ms');
      t.text('last_error');
      t.integer('certificate_days_left');
      t.integer('consecutive_failures').notNullable().defaultTo(0);
      t.string('open_incident_id');
      t.string('created_at').notNullable();
      t.index(['service_id']);
    });
    await knex.schema.createTable('check_results', (t) => {
      t.increments('id');
      t.string('check_id').notNullable().references('checks.id').onDelete('CASCADE');
      t.string('at').notNullable();
      t.boolean('ok').notNullable();
      t.integer('status');
      t.integer('response_ms');
      t.text('error');
      t.integer('certificate_days_left');
      t.index(['check_id', 'at']);
      t.index(['at']);
    });
    await knex.schema.createTable('check_daily', (t) => {
      t.string('check_id').notNullable().references('checks.id').onDelete('CASCADE');
      t.string('day').notNullable();
      t.integer('checks').notNullable();
      t.integer('up').notNullable();
      t.integer('response_ms_sum').notNullable();
      t.integer('responses').notNullable();
      t.primary(['check_id', 'day']);
    });
    await knex.schema.createTable('check_incidents', (t) => {
      t.string('id').primary();
      t.string('check_id').notNullable().references('checks.id').onDelete('CASCADE');
      t.string('service_id').notNullable();
      t.string('started_at').notNullable();
      t.string('resolved_at');
      t.text('cause').notNullable();
      t.integer('failures').notNullable();
      t.index(['check_id', 'started_at']);
    });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('check_incidents');
    await knex.schema.dropTableIfExists('check_daily');
    await knex.schema.dropTableIfExists('check_results');
    await knex.schema.dropTableIfExists('checks');
  },
};
