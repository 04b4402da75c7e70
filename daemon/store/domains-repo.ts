import type { Knex } from 'knex';
import { readPaged } from './paged-read.js';
import { stringSharer } from './shared-strings.js';
import type { DomainRecord } from '../core/records.js';
import type { DomainRepo } from '../core/ports/store.js';

interface DomainRow {
  id: string;
  service_id: string;
  hostname: string;
  status: 'active';
  created_at: string;
  updated_at: string;
}

const toRecord = (r: DomainRow, share: ReturnType<typeof stringSharer> = (v) => v): DomainRecord => ({
  id: r.id,
  serviceId: share(r.service_id),
  hostname: r.hostname,
  status: share(r.status),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export function domainRepo(knex: Knex): DomainRepo {
  const ordered = (db: Knex = knex) => db<DomainRow>('domains').orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return {
    async listByServices(serviceIds) {
      if (serviceIds.length === 0) return [];
      const share = stringSharer();
      return (await readPaged<DomainRow>(knex, (db) => ordered(db).whereIn('service_id', serviceIds as string[]))).map((r) => toRecord(r, share));
    },
    async listAll() {
      const share = stringSharer();
      return (await readPaged<DomainRow>(knex, ordered)).map((r) => toRecord(r, share));
    },
    async get(serviceId, domainId) {
      const row = await knex<DomainRow>('domains').where({ id: domainId, service_id: serviceId }).first();
      return row ? toRecord(row) : null;
    },
    async findByHostname(hostname) {
      const row = await knex<DomainRow>('domains').where({ hostname }).first();
      return row ? toRecord(row) : null;
    },
    async insert(d) {
      await knex<DomainRow>('domains').insert({
        id: d.id,
        service_id: d.serviceId,
        hostname: d.hostname,
        status: d.status,
        created_at: d.createdAt,
        updated_at: d.updatedAt,
      });
    },
    async update(id, patch) {
      await knex<DomainRow>('domains').where({ id }).update({ hostname: patch.hostname, updated_at: patch.updatedAt });
    },
    async delete(id) {
      await knex<DomainRow>('domains').where({ id }).delete();
    },
  };
}
