// The record of one-off commands and terminal sessions (core/execs.ts): who ran what in which
// service, when, and how it ended. Bounded per service (the repository keeps the newest).
import type { Migration } from './migration.js';

export const execs: Migration = {
  name: '016_execs',
  async up(knex) {
    await knex.schema.createTable('execs', (t) => {
      t.string('id').primary();
      t.string('service_id').notNullable().references('id').inTable('services').onDelete('CASCADE');
      t.string('project_id').notNullable();
      t.string('key_id').notNullable(); // no foreign key: the record outlives a revoked key
      t.string('key_name').notNullable();
      t.text('command').notNullable(); // JSON argv
      t.string('mode').notNullable(); // attach | run | terminal
      t.integer('exit_code');
      t.string('started_at').notNullable();
      t.string('finished_at');
      t.index(['service_id', 'started_at']);
      t.index(['finished_at']);
    });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('execs');
  },
};
