import type { Knex } from 'knex';
import type { DnsProviderId } from '../core/ports/dns-provider.js';
import type { DnsProviderRecord, DnsProviderRepo } from '../core/ports/dns-provider-repo.js';
import type { SecretBox } from '../crypto/secret-box.js';

interface Row {
  id: DnsProviderId;
  base_url: string;
  credentials: string; // sealed JSON
  created_at: string;
  updated_at: string;
}

/** The credentials are sealed (as one JSON object) on the way in and opened on the way out. */
export function dnsProviderRepo(knex: Knex, box: SecretBox): DnsProviderRepo {
  const toRecord = (r: Row): DnsProviderRecord => ({
    id: r.id,
    baseUrl: r.base_url,
    credentials: JSON.parse(box.open(r.credentials)) as Record<string, string>,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });
  return {
    async list() {
      return (await knex<Row>('dns_providers').select('*').orderBy('id')).map(toRecord);
    },
    async get(id) {
      const row = await knex<Row>('dns_providers').where({ id }).first();
      return row ? toRecord(row) : null;
    },
    async upsert(p) {
      const row: Row = { id: p.id, base_url: p.baseUrl, credentials: box.seal(JSON.stringify(p.credentials)), created_at: p.createdAt, updated_at: p.updatedAt };
      const { id: _id, created_at: _created, ...changes } = row;
      await knex<Row>('dns_providers').insert(row).onConflict('id').merge(changes);
    },
    async delete(id) {
      return (await knex<Row>('dns_providers').where({ id }).delete()) > 0;
    },
    async recordCreated(r) {
      const row = { domain_id: r.domainId, provider: r.provider, hostname: r.hostname, zone: r.zone, host: r.host, address: r.address, created_at: r.createdAt };
      await knex('dns_records_created').insert(row).onConflict(['domain_id', 'provider']).merge();
    },
    async createdFor(domainIds) {
      if (domainIds.length === 0) return [];
      const rows = (await knex('dns_records_created')
        .whereIn('domain_id', [...domainIds])
        .select('*')) as Record<string, string>[];
      return rows.map((r) => ({ domainId: r.domain_id!, provider: r.provider as DnsProviderId, hostname: r.hostname!, zone: r.zone!, host: r.host!, address: r.address!, createdAt: r.created_at! }));
    },
    async forgetCreated(domainId, provider) {
      await knex('dns_records_created').where({ domain_id: domainId, provider }).delete();
    },
  };
}
