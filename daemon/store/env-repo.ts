import type { Knex } from 'knex';
import { readPaged } from './paged-read.js';
import { stringSharer } from './shared-strings.js';
import type { EnvRecord } from '../core/records.js';
import type { EnvRepo } from '../core/ports/store.js';
import type { SecretBox } from '../crypto/secret-box.js';

interface EnvRow {
  id: string;
  service_id: string;
  key: string;
  value: string;
  created_at: string;
  updated_at: string;
}

export function envToRow(e: EnvRecord, box: SecretBox): EnvRow {
  return {
    id: e.id,
    service_id: e.serviceId,
    key: e.key,
    value: box.seal(e.value),
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}

export function envRepo(knex: Knex, box: SecretBox): EnvRepo {
  const toRecord = (row: EnvRow, share: ReturnType<typeof stringSharer> = (v) => v): EnvRecord => ({
    id: row.id,
    serviceId: share(row.service_id),
    key: share(row.key),
    value: share(box.open(row.value)),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
  return {
    async listByService(serviceId) {
      const rows = await knex<EnvRow>('env_vars')
        .where({ service_id: serviceId })
        .orderBy([{ column: 'created_at' }, { column: 'rowid' }]);
      return rows.map((r) => toRecord(r));
    },
    async listByServices(serviceIds) {
      if (serviceIds.length === 0) return [];
      const rows = await readPaged<EnvRow>(knex, (db) =>
        db<EnvRow>('env_vars')
          .whereIn('service_id', serviceIds as string[])
          .orderBy([{ column: 'created_at' }, { column: 'rowid' }]),
      );
      const share = stringSharer();
      return rows.map((r) => toRecord(r, share));
    },
    async upsert(e) {
      const row = envToRow(e, box);
      await knex<EnvRow>('env_vars').insert(row).onConflict(['service_id', 'key']).merge({ value: row.value, updated_at: row.updated_at });
    },
    async delete(serviceId, envId) {
      return (await knex<EnvRow>('env_vars').where({ id: envId, service_id: serviceId }).delete()) > 0;
    },
  };
}
