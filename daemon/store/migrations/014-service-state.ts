// Migration 014: a service's volumes, config files, deploy strategy and release command (issue 28).
// Volumes have a table of their own, keyed by project and name: a volume kept when its service is
// deleted (`keepVolumes`) stays its project's, with no service, until another service mounts it.
import type { Migration } from './migration.js';

export const serviceState: Migration = {
  name: '014_service_state',
  async up(knex) {
    await knex.schema.createTable('volumes', (t) => {
      t.string('project_id').notNullable().references('projects.id').onDelete('CASCADE');
      t.string('name').notNullable();
      // the service that mounts it; null for a kept volume (a deleted service's rows are detached or deleted by the store first)
      t.string('service_id').references('services.id').onDelete('SET NULL');
      t.string('mount_path');
      t.boolean('read_only').notNullable().defaultTo(false);
      // the order the service lists its volumes in
      t.integer('position').notNullable().defaultTo(0);
      t.string('created_at').notNullable();
      t.primary(['project_id', 'name']);
      t.index(['service_id']);
    });
    await knex.schema.alterTable('services', (t) => {
      // JSON of the files, sealed like env values (contents may hold secrets); null: none
      t.text('config_files');
      t.string('deploy_strategy').notNullable().defaultTo('rolling');
      // JSON argv; null: none
      t.text('release_command');
      t.integer('release_timeout_seconds');
    });
    // a rollback's source deployment: the one whose config files it mounts
    await knex.schema.alterTable('deployments', (t) => {
      t.string('files_from');
    });
  },
  async down(knex) {
    await knex.schema.alterTable('deployments', (t) => {
      t.dropColumn('files_from');
    });
    await knex.schema.alterTable('services', (t) => {
      t.dropColumn('config_files');
      t.dropColumn('deploy_strategy');
      t.dropColumn('release_command');
      t.dropColumn('release_timeout_seconds');
    });
    await knex.schema.dropTableIfExists('volumes');
  },
};
