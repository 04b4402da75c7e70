// Issue 28: backups of service volumes share the database backups' tables. A backup gains `volume`
// (null for a database's) and its `engine` may be null (a volume's); backup settings are kept per
// (service, volume), `volume` '' standing for a database service's own settings (SQLite compares
// NULLs in a key as distinct, so '' keeps the key unique). SQLite cannot change a column's
// nullability or a primary key in place: both tables are rebuilt, rows copied as they are.
import type { Knex } from 'knex';
import type { Migration } from './migration.js';

const BACKUP_COLUMNS = 'id, service_id, engine, status, "trigger", storage, format, local_path, remote_key, size_bytes, checksum, error, created_at, started_at, finished_at';
const SETTINGS_COLUMNS = 'service_id, storage, automatic_enabled, daily_enabled, weekly_enabled, monthly_enabled, keep_daily, keep_weekly, keep_monthly, created_at, updated_at';

export const volumeBackups: Migration = {
  name: '017_volume_backups',
  async up(knex: Knex) {
    await knex.schema.createTable('backups_017', (t) => {
      t.string('id').primary();
      t.string('service_id').notNullable().references('services.id').onDelete('CASCADE');
      t.string('engine');
      t.string('volume');
      t.string('status').notNullable();
      t.string('trigger').notNullable();
      t.string('storage').notNullable();
      t.string('format').notNullable();
      t.text('local_path');
      t.text('remote_key');
      t.integer('size_bytes').notNullable();
      t.string('checksum').notNullable();
      t.text('error');
      t.string('created_at').notNullable();
      t.string('started_at').notNullable();
      t.string('finished_at');
    });
    await knex.raw(`INSERT INTO backups_017 (${BACKUP_COLUMNS}) SELECT ${BACKUP_COLUMNS} FROM backups`);
    await knex.schema.dropTable('backups');
    await knex.schema.renameTable('backups_017', 'backups');
    await knex.schema.alterTable('backups', (t) => {
      t.index(['service_id', 'created_at']);
      t.index(['service_id', 'volume', 'created_at']);
    });
    await knex.schema.createTable('backup_settings_017', (t) => {
      t.string('service_id').notNullable().references('services.id').onDelete('CASCADE');
      t.string('volume').notNullable().defaultTo('');
      t.string('storage').notNullable();
      t.boolean('automatic_enabled').notNullable();
      t.boolean('daily_enabled').notNullable();
      t.boolean('weekly_enabled').notNullable();
      t.boolean('monthly_enabled').notNullable();
      t.integer('keep_daily').notNullable();
      t.integer('keep_weekly').notNullable();
      t.integer('keep_monthly').notNullable();
      t.string('created_at').notNullable();
      t.string('updated_at').notNullable();
      t.primary(['service_id', 'volume']);
    });
    await knex.raw(`INSERT INTO backup_settings_017 (${SETTINGS_COLUMNS}) SELECT ${SETTINGS_COLUMNS} FROM backup_settings`);
    await knex.schema.dropTable('backup_settings');
    await knex.schema.renameTable('backup_settings_017', 'backup_settings');
  },
  async down(knex: Knex) {
    // database backups only, as before: volume backups and their settings go
    await knex('backups').whereNotNull('volume').delete();
    await knex('backup_settings').whereNot('volume', '').delete();
    await knex.schema.alterTable('backups', (t) => t.dropColumn('volume'));
    await knex.schema.alterTable('backup_settings', (t) => t.dropColumn('volume'));
  },
};
