// Migrations 001 to 005: the initial schema, deployments, AI and DNS providers, backups.
import type { Migration } from './migration.js';

export const initial: Migration = {
  name: '001_initial',
  async up(knex) {
    await knex.schema.createTable('keys', (t) => {
      t.string('id').primary();
      t.string('name').notNullable();
      t.string('access').notNullable();
      t.text('projects').notNullable(); // JSON: "all" or an array of project ids
      t.string('token_hash').notNullable().unique();
      t.string('created_at').notNullable();
      t.string('last_used_at');
    });
    await knex.schema.createTable('projects', (t) => {
      t.string('id').primary();
      t.string('name').notNullable();
      t.string('slug').notNullable().unique();
      t.text('description').notNullable();
      t.string('created_at').notNullable();
      t.string('updated_at').notNullable();
    });
    await knex.schema.createTable('services', (t) => {
      t.string('id').primary();
      t.string('project_id').notNullable().references('projects.id').onDelete('CASCADE');
      t.string('name').notNullable();
      t.string('slug').notNullable();
      t.string('kind').notNullable();
      t.string('repo_full_name');
      t.text('repo_url');
      t.text('docker_image');
      t.string('branch').notNullable();
      t.text('root_dir');
      t.text('github_token'); // sealed
      t.text('install_command');
      t.text('build_command');
      t.text('start_command');
      t.text('static_output');
      t.string('build_method').notNullable();
      t.text('dockerfile_path');
      t.string('detected_build_method');
      t.string('runtime_mode').notNullable();
      t.integer('internal_port');
      t.integer('host_port').unique();
      t.string('database_engine');
      t.boolean('database_public_enabled').notNullable().defaultTo(false);
      t.string('database_public_hostname');
      t.boolean('pg_logical_replication').notNullable().defaultTo(false);
      t.string('status').notNullable();
      t.boolean('reachable').notNullable().defaultTo(false);
      t.string('framework');
      t.string('last_deployed_at');
      t.string('created_at').notNullable();
      t.string('updated_at').notNullable();
      t.unique(['project_id', 'slug']);
      t.unique(['project_id', 'name']);
    });
    await knex.schema.createTable('env_vars', (t) => {
      t.string('id').primary();
      t.string('service_id').notNullable().references('services.id').onDelete('CASCADE');
      t.string('key').notNullable();
      t.text('value').notNullable(); // sealed
      t.string('created_at').notNullable();
      t.string('updated_at').notNullable();
      t.unique(['service_id', 'key']);
    });
    await knex.schema.createTable('domains', (t) => {
      t.string('id').primary();
      t.string('service_id').notNullable().references('services.id').onDelete('CASCADE');
      t.string('hostname').notNullable().unique();
      t.string('status').notNullable();
      t.string('created_at').notNullable();
      t.string('updated_at').notNullable();
    });
    await knex.schema.createTable('deployments', (t) => {
      t.string('id').primary();
      t.string('service_id').notNullable().references('services.id').onDelete('CASCADE');
      t.string('commit_sha');
      t.string('status').notNullable();
      t.string('trigger').notNullable();
      t.string('branch');
      t.string('image_tag');
      t.string('container_name');
      t.string('started_at');
      t.string('finished_at');
      t.string('created_at').notNullable();
      t.index(['service_id', 'created_at']);
    });
    await knex.schema.createTable('deployment_logs', (t) => {
      t.increments('id');
      t.string('deployment_id').notNullable().references('deployments.id').onDelete('CASCADE');
      t.text('line').notNullable();
      t.string('stream').notNullable();
      t.string('created_at').notNullable();
      t.index(['deployment_id', 'id']);
    });
    await knex.schema.createTable('settings', (t) => {
      t.string('key').primary();
      t.text('value').notNullable();
      t.string('updated_at').notNullable();
    });
  },
  async down(knex) {
    for (const table of ['deployment_logs', 'deployments', 'domains', 'env_vars', 'services', 'projects', 'keys', 'settings']) {
      await knex.schema.dropTableIfExists(table);
    }
  },
};

export const deploymentsRun: Migration = {
  name: '002_deployments_run',
  async up(knex) {
    await knex.schema.alterTable('deployments', (t) => {
      t.string('container_id');
      t.integer('upstream_port'); // the container's published port (Caddy routes to it)
      t.string('build_method');
      t.index(['status']);
    });
    await knex.schema.createTable('runtime_logs', (t) => {
      t.increments('id');
      t.string('service_id').notNullable().references('services.id').onDelete('CASCADE');
      t.string('deployment_id').notNullable();
      t.text('line').notNullable();
      t.string('stream').notNullable();
      t.string('created_at').notNullable();
      t.index(['service_id', 'id']);
    });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('runtime_logs');
  },
};

export const aiProviders: Migration = {
  name: '003_ai_providers',
  async up(knex) {
    await knex.schema.createTable('ai_providers', (t) => {
      t.string('id').primary();
      t.string('kind').notNullable(); // openai | anthropic | gemini
      t.string('name').notNullable();
      t.text('base_url').notNullable();
      t.text('api_key').notNullable(); // sealed
      t.string('default_model');
      t.string('created_at').notNullable();
      t.string('updated_at').notNullable();
    });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('ai_providers');
  },
};

export const dnsProviders: Migration = {
  name: '004_dns_providers',
  async up(knex) {
    await knex.schema.createTable('dns_providers', (t) => {
      t.string('id').primary(); // cloudflare | namecheap | spaceship
      t.text('base_url').notNullable();
      t.text('credentials').notNullable(); // sealed JSON
      t.string('created_at').notNullable();
      t.string('updated_at').notNullable();
    });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('dns_providers');
  },
};

export const backups: Migration = {
  name: '005_backups',
  async up(knex) {
    await knex.schema.createTable('backups', (t) => {
      t.string('id').primary();
      t.string('service_id').notNullable().references('services.id').onDelete('CASCADE');
      t.string('engine').notNullable();
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
      t.index(['service_id', 'created_at']);
    });
    await knex.schema.createTable('backup_settings', (t) => {
      t.string('service_id').primary().references('services.id').onDelete('CASCADE');
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
    });
    await knex.schema.createTable('imports', (t) => {
      t.string('id').primary();
      t.string('service_id').notNullable().references('services.id').onDelete('CASCADE');
      t.string('engine').notNullable();
      t.string('source').notNullable();
      t.text('source_label').notNullable();
      t.string('status').notNullable();
      t.text('error');
      t.text('log').notNullable(); // JSON array of lines
      t.string('created_at').notNullable();
      t.string('started_at').notNullable();
      t.string('finished_at');
    });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('imports');
    await knex.schema.dropTableIfExists('backup_settings');
    await knex.schema.dropTableIfExists('backups');
  },
};
