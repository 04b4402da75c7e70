import type { Knex } from 'knex';
import type { SessionRecord, SessionRepo } from '../core/ports/store.js';

interface SessionRow {
  secret_hash: string;
  key_id: string;
  created_at: string;
  expires_at: string;
}

export function sessionRepo(knex: Knex): SessionRepo {
  return {
    async insert(s) {
      await knex<SessionRow>('sessions').insert({ secret_hash: s.secretHash, key_id: s.keyId, created_at: s.createdAt, expires_at: s.expiresAt });
    },
    async get(secretHash) {
      const row = await knex<SessionRow>('sessions').where({ secret_hash: secretHash }).first();
      return row ? ({ secretHash: row.secret_hash, keyId: row.key_id, createdAt: row.created_at, expiresAt: row.expires_at } satisfies SessionRecord) : null;
    },
    async delete(secretHash) {
      await knex<SessionRow>('sessions').where({ secret_hash: secretHash }).delete();
    },
    async deleteExpired(now) {
      await knex<SessionRow>('sessions').where('expires_at', '<=', now).delete();
    },
  };
}
