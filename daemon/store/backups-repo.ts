import type { Knex } from 'knex';
import type { BackupRecord, BackupSettingsRecord, BackupsRepo, ImportRecord } from '../core/ports/backups-repo.js';

type Row = Record<string, unknown>;

const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function toRow(patch: object, json: readonly string[] = []): Row {
  const row: Row = {};
  for (const [k, v] of Object.entries(patch)) if (v !== undefined) row[snake(k)] = json.includes(k) ? JSON.stringify(v) : v;
  return row;
}

function fromRow<T>(row: Row, fields: readonly string[], bools: readonly string[] = [], json: readonly string[] = []): T {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = row[snake(f)] ?? null;
    out[f] = bools.includes(f) ? Boolean(v) : json.includes(f) ? JSON.parse(String(v ?? '[]')) : v;
  }
  return out as T;
}

const BACKUP_FIELDS = [
  'id',
  'serviceId',
  'engine',
  'volume',
  'status',
  'trigger',
  'storage',
  'format',
  'localPath',
  'remoteKey',
  'sizeBytes',
  'checksum',
  'error',
  'createdAt',
  'startedAt',
  'finishedAt',
] as const;
const SETTINGS_FIELDS = [
  'serviceId',
  'volume',
  'storage',
  'automaticEnabled',
  'dailyEnabled',
  'weeklyEnabled',
  'monthlyEnabled',
  'keepDaily',
  'keepWeekly',
  'keepMonthly',
  'createdAt',
  'updatedAt',
] as const;
const SETTINGS_BOOLS = ['automaticEnabled', 'dailyEnabled', 'weeklyEnabled', 'monthlyEnabled'];
const IMPORT_FIELDS = ['id', 'serviceId', 'engine', 'source', 'sourceLabel', 'status', 'error', 'log', 'createdAt', 'startedAt', 'finishedAt'] as const;

const NEWEST_FIRST = [
  { column: 'created_at', order: 'desc' },
  { column: 'rowid', order: 'desc' },
] as const;

export function backupsRepo(knex: Knex): BackupsRepo {
  const backup = (r: Row) => fromRow<BackupRecord>(r, BACKUP_FIELDS);
  // a database service's settings are stored under volume '' (the key's second column)
  const settings = (r: Row) => fromRow<BackupSettingsRecord>({ ...r, volume: r.volume === '' ? null : r.volume }, SETTINGS_FIELDS, SETTINGS_BOOLS);
  const imp = (r: Row) => fromRow<ImportRecord>(r, IMPORT_FIELDS, [], ['log']);
  return {
    async insert(b) {
      await knex('backups').insert(toRow(b));
    },
    async update(id, patch) {
      await knex('backups').where({ id }).update(toRow(patch));
    },
    async setStatus(id, to, from, patch) {
      if (from.length === 0) return false;
      const changed = await knex('backups')
        .where({ id })
        .whereIn('status', from as string[])
        .update({ ...toRow(patch), status: to });
      return changed > 0;
    },
    async get(id) {
      const r = await knex('backups').where({ id }).first();
      return r ? backup(r) : null;
    },
    async listByService(serviceId) {
      return (
        await knex('backups')
          .where({ service_id: serviceId })
          .orderBy([...NEWEST_FIRST])
      ).map(backup);
    },
    async listByVolume(serviceId, volume) {
      return (
        await knex('backups')
          .where({ service_id: serviceId, volume })
          .orderBy([...NEWEST_FIRST])
      ).map(backup);
    },
    async listByStatus(status) {
      return (await knex('backups').where({ status })).map(backup);
    },
    async delete(id) {
      await knex('backups').where({ id }).delete();
    },
    async getSettings(serviceId, volume = null) {
      const r = await knex('backup_settings')
        .where({ service_id: serviceId, volume: volume ?? '' })
        .first();
      return r ? settings(r) : null;
    },
    async putSettings(s) {
      const row: Row = { ...toRow(s), volume: s.volume ?? '' };
      const { service_id: _id, volume: _v, created_at: _c, ...changes } = row;
      await knex('backup_settings').insert(row).onConflict(['service_id', 'volume']).merge(changes);
    },
    async listAutomatic() {
      return (await knex('backup_settings').where({ automatic_enabled: true })).map(settings);
    },
    async insertImport(i) {
      await knex('imports').insert(toRow(i, ['log']));
    },
    async updateImport(id, patch) {
      await knex('imports')
        .where({ id })
        .update(toRow(patch, ['log']));
    },
    async setImportStatus(id, to, from, patch) {
      if (from.length === 0) return false;
      const changed = await knex('imports')
        .where({ id })
        .whereIn('status', from as string[])
        .update({ ...toRow(patch, ['log']), status: to });
      return changed > 0;
    },
    async getImport(id) {
      const r = await knex('imports').where({ id }).first();
      return r ? imp(r) : null;
    },
    async listImports(serviceId) {
      return (
        await knex('imports')
          .where({ service_id: serviceId })
          .orderBy([...NEWEST_FIRST])
      ).map(imp);
    },
    async listImportsByStatus(status) {
      return (await knex('imports').where({ status })).map(imp);
    },
  };
}
