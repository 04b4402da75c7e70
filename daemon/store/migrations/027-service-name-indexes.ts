// Migration 027: indexes for the look-ups that keep a name one service's (core/generated-names.ts):
// a generated label, and a database's public hostname in any case. Before them every new service
// read the whole services table to pick its label, so each creation cost more as the store grew.
import type { Migration } from './migration.js';

export const serviceNameIndexes: Migration = {
  name: '027_service_name_indexes',
  async up(knex) {
    await knex.schema.alterTable('services', (t) => {
      t.index(['generated_label'], 'services_generated_label');
    });
    await knex.raw('CREATE INDEX services_database_hostname ON services (lower(database_public_hostname))');
  },
  async down(knex) {
    await knex.raw('DROP INDEX services_database_hostname');
    await knex.schema.alterTable('services', (t) => {
      t.dropIndex(['generated_label'], 'services_generated_label');
    });
  },
};
