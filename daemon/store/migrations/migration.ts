// The shape of one migration, and what some need beyond the database.
import type { Knex } from 'knex';
import type { TokenHasher } from '../../crypto/token-hash.js';

/** What some migrations need beyond the database (the data dir's keys). */
export interface MigrationContext {
  tokens: TokenHasher;
}

export interface Migration {
  name: string;
  /** `transaction: false` for a migration that cannot run inside one (VACUUM). */
  config?: { transaction: boolean };
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}
