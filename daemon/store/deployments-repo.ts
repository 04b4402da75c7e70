import type { Knex } from 'knex';
import type { DeploymentRecord } from '../core/records.js';
import type { DeploymentPatch, DeploymentRepo } from '../core/ports/store.js';

const LIVE_CHUNK = 10_000;

type Row = Record<string, unknown>;

const COLUMN: { [K in keyof DeploymentRecord]-?: string } = {
  id: 'id',
  serviceId: 'service_id',
  commitSha: 'commit_sha',
  status: 'status',
  trigger: 'trigger',
  imageTag: 'image_tag',
  containerName: 'container_name',
  startedAt: 'started_at',
  finishedAt: 'finished_at',
  createdAt: 'created_at',
  branch: 'branch',
  containerId: 'container_id',
  upstreamPort: 'upstream_port',
  buildMethod: 'build_method',
  filesFrom: 'files_from',
};
const FIELDS = Object.keys(COLUMN) as (keyof DeploymentRecord)[];

function toRow(patch: DeploymentPatch | DeploymentRecord): Row {
  const row: Row = {};
  for (const f of FIELDS) if (f in patch) row[COLUMN[f]] = (patch as Partial<DeploymentRecord>)[f];
  return row;
}

function toRecord(row: Row): DeploymentRecord {
  const rec: Record<string, unknown> = {};
  for (const f of FIELDS) rec[f] = row[COLUMN[f]] ?? null;
  return rec as unknown as DeploymentRecord;
}

const NEWEST_FIRST = [
  { column: 'created_at', order: 'desc' },
  { column: 'rowid', order: 'desc' },
] as const;

export function deploymentRepo(knex: Knex): DeploymentRepo {
  return {
    async listByService(serviceId) {
      return (
        (await knex('deployments')
          .where({ service_id: serviceId })
          .orderBy([...NEWEST_FIRST])) as Row[]
      ).map(toRecord);
    },
    async get(id) {
      const row = (await knex('deployments').where({ id }).first()) as Row | undefined;
      return row ? toRecord(row) : null;
    },
    async listByStatus(statuses) {
      const rows = (await knex('deployments')
        .whereIn('status', statuses as string[])
        .orderBy('created_at')) as Row[];
      return rows.map(toRecord);
    },
    async live(serviceIds) {
      // newest first, so the first row seen of each service is its live deployment
      // in chunks: SQLite caps the bound variables of one statement (32,766), a server may hold more services
      const rows: Row[] = [];
      for (let i = 0; i < serviceIds.length; i += LIVE_CHUNK) {
        const ids = serviceIds.slice(i, i + LIVE_CHUNK) as string[];
        rows.push(
          ...((await knex('deployments')
            .whereIn('service_id', ids)
            .andWhere({ status: 'running' })
            .whereNotNull('container_id')
            .orderBy([...NEWEST_FIRST])) as Row[]),
        );
      }
      const seen = new Set<unknown>();
      const out: DeploymentRecord[] = [];
      for (const row of rows) {
        if (seen.has(row.service_id)) continue;
        seen.add(row.service_id);
        out.push(toRecord(row));
      }
      return out;
    },
    async insert(d) {
      await knex('deployments').insert(toRow(d));
    },
    async update(id, patch) {
      await knex('deployments').where({ id }).update(toRow(patch));
    },
    async setStatus(id, to, from, patch) {
      if (from.length === 0) return false;
      const changed = await knex('deployments')
        .where({ id })
        .whereIn('status', from as string[])
        .update({ ...toRow(patch), status: to });
      return changed > 0;
    },
  };
}
