// Issue 30: backups that prove they restore. A backup gains its newest restore test (the
// `verification_*` columns, all null before the first), and backup settings gain the restore-test
// schedule and grandfather-father-son retention (a JSON object, null when not used). Added columns
// only: existing rows keep every value they had.
// Numbered 022: main has 020 (Berth's own backups) and 021 (the audit log); it runs after them once merged.
import type { Knex } from 'knex';
import type { Migration } from './migration.js';

export const backupVerification: Migration = {
  name: '022_backup_verification',
  async up(knex: Knex) {
    await knex.schema.alterTable('backups', (t) => {
      t.string('verification_status');
      t.string('verification_started_at');
      t.string('verification_finished_at');
      t.integer('verification_tables');
      t.integer('verification_rows');
      t.text('verification_error');
    });
    await knex.schema.alterTable('backup_settings', (t) => {
      t.string('verify_schedule');
      t.text('gfs');
    });
  },
  async down(knex: Knex) {
    await knex.schema.alterTable('backups', (t) => {
      for (const c of ['status', 'started_at', 'finished_at', 'tables', 'rows', 'error']) t.dropColumn(`verification_${c}`);
    });
    await knex.schema.alterTable('backup_settings', (t) => {
      t.dropColumn('verify_schedule');
      t.dropColumn('gfs');
    });
  },
};
