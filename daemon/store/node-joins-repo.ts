import type { Knex } from 'knex';
import type { NodeJoinRecord, NodeJoinRepo } from '../core/ports/store.js';

interface NodeJoinRow {
  token_hash: string;
  created_at: string;
  expires_at: string;
  machine_id: string | null;
  hostname: string | null;
  used_at: string | null;
}

function record(row: NodeJoinRow): NodeJoinRecord {
  return { tokenHash: row.token_hash, createdAt: row.created_at, expiresAt: row.expires_at, machineId: row.machine_id, hostname: row.hostname, usedAt: row.used_at };
}

export function nodeJoinRepo(knex: Knex): NodeJoinRepo {
  return {
    async insert(j) {
      await knex<NodeJoinRow>('node_joins').insert({ token_hash: j.tokenHash, created_at: j.createdAt, expires_at: j.expiresAt, machine_id: null, hostname: null, used_at: null });
    },
    async get(tokenHash) {
      const row = await knex<NodeJoinRow>('node_joins').where({ token_hash: tokenHash }).first();
      return row ? record(row) : null;
    },
    async claim(tokenHash, machineId, hostname, at) {
      // conditional: of two machines racing with one token, exactly one is recorded
      const n = await knex<NodeJoinRow>('node_joins').where({ token_hash: tokenHash }).whereNull('machine_id').update({ machine_id: machineId, hostname, used_at: at });
      return n === 1;
    },
    async deleteExpired(now) {
      await knex<NodeJoinRow>('node_joins').where('expires_at', '<=', now).delete();
    },
  };
}
