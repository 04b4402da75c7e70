// Migration 018: how many instances a service runs and where (issue 29, Swarm mode). A service
// created before runs one instance anywhere, as it always did.
import type { Migration } from './migration.js';

export const replicas: Migration = {
  name: '018_replicas',
  async up(knex) {
    await knex.schema.alterTable('services', (t) => {
      t.integer('replicas').notNullable().defaultTo(1);
      // JSON of the node labels its instances need; null: any node
      t.text('placement');
    });
  },
  async down(knex) {
    await knex.schema.alterTable('services', (t) => {
      t.dropColumn('replicas');
      t.dropColumn('placement');
    });
  },
};
