// Migration 021: the audit log (issue 30). Append-only through the API; ids increase (AUTOINCREMENT:
// never reused after a prune), so the newest-first cursor is `id < before`.
import type { Migration } from './migration.js';

export const auditLog: Migration = {
  name: '021_audit_log',
  async up(knex) {
    await knex.schema.createTable('audit_log', (t) => {
      t.increments('id');
      t.string('at').notNullable();
      t.string('actor_kind').notNullable();
      t.string('key_id');
      t.string('key_name');
      t.string('client_address');
      t.string('method').notNullable();
      t.string('route').notNullable();
      t.string('path').notNullable();
      t.string('project_id');
      t.string('service_id');
      t.string('detail');
      t.integer('status').notNullable();
      t.string('outcome').notNullable();
      t.string('error_code');
      t.integer('duration_ms').notNullable();
      t.index(['at']);
      t.index(['project_id', 'id']);
      t.index(['key_id', 'id']);
      t.index(['route', 'id']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('audit_log');
  },
};
