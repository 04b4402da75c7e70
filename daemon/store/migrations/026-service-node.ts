// Migration 026: the Swarm node a database runs on, chosen at creation (issue 29). Every service
// created before runs on this server, as it always did (null).
import type { Migration } from './migration.js';

export const serviceNode: Migration = {
  name: '026_service_node',
  async up(knex) {
    await knex.schema.alterTable('services', (t) => {
      t.text('node_id');
    });
  },
  async down(knex) {
    await knex.schema.alterTable('services', (t) => {
      t.dropColumn('node_id');
    });
  },
};
