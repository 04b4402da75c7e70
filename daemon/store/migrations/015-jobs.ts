// Migration 015: scheduled jobs, their runs and the runs' output. Each goes with its owner (a
// service's jobs with the service, a job's runs with the job, a run's lines with the run).
import type { Migration } from './migration.js';

export const jobs: Migration = {
  name: '015_jobs',
  async up(knex) {
    await knex.schema.createTable('jobs', (t) => {
      t.string('id').primary();
      t.string('service_id').notNullable().references('services.id').onDelete('CASCADE');
      t.string('name').notNullable();
      t.string('schedule').notNullable();
      t.string('timezone').notNullable();
      t.text('command').notNullable(); // JSON argv
      t.integer('timeout_seconds').notNullable();
      t.boolean('enabled').notNullable();
      t.string('concurrency').notNullable();
      t.string('created_at').notNullable();
      t.string('updated_at').notNullable();
      t.unique(['service_id', 'name']);
    });
    await knex.schema.createTable('job_runs', (t) => {
      t.string('id').primary();
      t.string('job_id').notNullable().references('jobs.id').onDelete('CASCADE');
      t.string('status').notNullable();
      t.integer('exit_code');
      t.string('trigger').notNullable();
      t.string('started_at').notNullable();
      t.string('finished_at');
      t.text('error');
      // insertion order, for paging newest first with ties of started_at
      t.integer('seq').notNullable();
      t.index(['job_id', 'seq']);
      t.index(['status']);
    });
    await knex.schema.createTable('job_run_logs', (t) => {
      t.increments('id');
      t.string('run_id').notNullable().references('job_runs.id').onDelete('CASCADE');
      t.text('line').notNullable();
      t.string('stream').notNullable();
      t.string('created_at').notNullable();
      t.index(['run_id', 'id']);
    });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('job_run_logs');
    await knex.schema.dropTableIfExists('job_runs');
    await knex.schema.dropTableIfExists('jobs');
  },
};
