// Migration 020: the runs of Berth's own backup taken by the daemon (issue 31): one row per run,
// `running` until it ends `succeeded` or `failed` (core/server-backup-rules.ts writes every status).
// The settings and the sealed passphrase live in the settings table.
import type { Migration } from './migration.js';

export const serverBackups: Migration = {
  name: '020_server_backups',
  async up(knex) {
    await knex.schema.createTable('server_backups', (t) => {
      t.string('id').primary();
      t.string('status').notNullable();
      // manual | schedule
      t.string('trigger').notNullable();
      t.string('started_at').notNullable();
      t.string('finished_at');
      t.string('file_name');
      t.integer('size_bytes');
      t.string('sha256');
      // disk | s3
      t.string('location').notNullable();
      t.string('storage_id');
      t.string('berth_version').notNullable();
      // {projects, services, keys, domains} as JSON
      t.text('counts');
      t.text('error');
      t.index(['status']);
      t.index(['started_at']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('server_backups');
  },
};
