import type { Knex } from 'knex';
import type { KeyRecord } from '../core/records.js';
import type { KeyRepo } from '../core/ports/store.js';

interface KeyRow {
  id: string;
  name: string;
  access: KeyRecord['access'];
  projects: string;
  token_hash: string;
  bootstrap: boolean | number;
  created_at: string;
  last_used_at: string | null;
}

const COLUMNS = ['id', 'name', 'access', 'projects', 'created_at', 'last_used_at'] as const;

function toRecord(row: Omit<KeyRow, 'token_hash' | 'bootstrap'>): KeyRecord {
  return {
    id: row.id,
    name: row.name,
    access: row.access,
    projects: JSON.parse(row.projects) as KeyRecord['projects'],
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

export function keyRepo(knex: Knex): KeyRepo {
  return {
    async list() {
      const rows = await knex<KeyRow>('keys')
        .select(...COLUMNS)
        .orderBy([{ column: 'created_at' }, { column: 'id' }]);
      return rows.map(toRecord);
    },
    async get(id) {
      const row = await knex<KeyRow>('keys')
        .select(...COLUMNS)
        .where({ id })
        .first();
      return row ? toRecord(row) : null;
    },
    async findByTokenHash(hash) {
      const row = await knex<KeyRow>('keys')
        .select(...COLUMNS)
        .where({ token_hash: hash })
        .first();
      return row ? toRecord(row) : null;
    },
    async bootstrapKeyIds() {
      return (await knex<KeyRow>('keys').select('id').where({ bootstrap: true })).map((r) => r.id);
    },
    async insert(key, tokenHash, origin) {
      await knex<KeyRow>('keys').insert({
        id: key.id,
        name: key.name,
        access: key.access,
        projects: JSON.stringify(key.projects),
        token_hash: tokenHash,
        bootstrap: origin?.bootstrap ?? false,
        created_at: key.createdAt,
        last_used_at: key.lastUsedAt,
      });
    },
    async touch(id, at) {
      await knex<KeyRow>('keys').where({ id }).update({ last_used_at: at });
    },
    async delete(id) {
      return (await knex<KeyRow>('keys').where({ id }).delete()) > 0;
    },
  };
}
