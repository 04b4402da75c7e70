// Migration 019: join tokens for Swarm worker nodes (issue 29). Only a keyed hash of the token is
// kept; a token is single-use: the first machine that completes a join with it is recorded, and
// only that machine gets the answer again.
import type { Migration } from './migration.js';

export const nodeJoins: Migration = {
  name: '019_node_joins',
  async up(knex) {
    await knex.schema.createTable('node_joins', (t) => {
      t.string('token_hash').primary();
      t.string('created_at').notNullable();
      t.string('expires_at').notNullable();
      // the machine that used it (/etc/machine-id) and its hostname; null until used
      t.string('machine_id');
      t.string('hostname');
      t.string('used_at');
      t.index(['expires_at']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('node_joins');
  },
};
