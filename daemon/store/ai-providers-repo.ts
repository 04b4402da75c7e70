import type { Knex } from 'knex';
import type { AiProviderRecord, AiProviderRepo } from '../core/ports/ai-provider-repo.js';
import type { SecretBox } from '../crypto/secret-box.js';

interface Row {
  id: string;
  kind: AiProviderRecord['kind'];
  name: string;
  base_url: string;
  api_key: string;
  default_model: string | null;
  created_at: string;
  updated_at: string;
}

/** The API key is sealed on the way in and opened on the way out; the table never holds it plain. */
export function aiProviderRepo(knex: Knex, box: SecretBox): AiProviderRepo {
  const toRecord = (r: Row): AiProviderRecord => ({
    id: r.id,
    kind: r.kind,
    name: r.name,
    baseUrl: r.base_url,
    apiKey: box.open(r.api_key),
    defaultModel: r.default_model,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });
  return {
    async list() {
      return (
        await knex<Row>('ai_providers')
          .select('*')
          .orderBy([{ column: 'created_at' }, { column: 'id' }])
      ).map(toRecord);
    },
    async get(id) {
      const row = await knex<Row>('ai_providers').where({ id }).first();
      return row ? toRecord(row) : null;
    },
    async upsert(p) {
      const row: Row = {
        id: p.id,
        kind: p.kind,
        name: p.name,
        base_url: p.baseUrl,
        api_key: box.seal(p.apiKey),
        default_model: p.defaultModel,
        created_at: p.createdAt,
        updated_at: p.updatedAt,
      };
      const { id: _id, created_at: _created, ...changes } = row;
      await knex<Row>('ai_providers').insert(row).onConflict('id').merge(changes);
    },
    async delete(id) {
      return (await knex<Row>('ai_providers').where({ id }).delete()) > 0;
    },
  };
}
