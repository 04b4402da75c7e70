import type { Knex } from 'knex';
import type { BackupRecord, BackupSettingsRecord, BackupsRepo, BackupVerification, ImportRecord } from '../core/ports/backups-repo.js';

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
  'verifySchedule',
  'gfs',
  'createdAt',
  'updatedAt',
] as const;
const SETTINGS_BOOLS = ['automaticEnabled', 'dailyEnabled', 'weeklyEnabled', 'monthlyEnabled'];
const IMPORT_FIELDS = ['id', 'serviceId', 'engine', 'source', 'sourceLabel', 'status', 'error', 'log', 'createdAt', 'startedAt', 'finishedAt'] as const;

/** A backup's restore test is kept in `verification_*` columns (all null before the first). */
function verificationOf(r: Row): BackupVerification | null {
  if (r.verification_status == null) return null;
  return {
    status: r.verification_status as BackupVerification['status'],
    startedAt: String(r.verification_started_at),
    finishedAt: (r.verification_finished_at as string | null) ?? null,
    tables: (r.verification_tables as number | null) ?? null,
    rows: (r.verification_rows as number | null) ?? null,
    error: (r.verification_error as string | null) ?? null,
  };
}

function verificationRow(v: BackupVerification): Row {
  return {
    verification_status: v.status,
    verification_started_at: v.startedAt,
    verification_finished_at: v.finishedAt,
    verification_tables: v.tables,
    verification_rows: v.rows,
    verification_error: v.error,
  };
}

const NEWEST_FIRST = [
  { column: 'created_at', order: 'desc' },
  { column: 'rowid', order: 'desc' },
] as const;

export function backupsRepo(knex: Knex): BackupsRepo {
  const backup = (r: Row): BackupRecord => ({ ...fromRow<Omit<BackupRecord, 'verification'>>(r, BACKUP_FIELDS), verification: verificationOf(r) });
  // a database service's settings are stored under volume '' (the key's second column); gfs is JSON or null
  const settings = (r: Row) =>
    fromRow<BackupSettingsRecord>({ ...r, volume: r.volume === '' ? null : r.volume, gfs: r.gfs == null ? null : JSON.parse(String(r.gfs)) }, SETTINGS_FIELDS, SETTINGS_BOOLS);
  const imp = (r: Row) => fromRow<ImportRecord>(r, IMPORT_FIELDS, [], ['log']);
  return {
    async insert({ verification, ...b }) {
      await knex('backups').insert({ ...toRow(b), ...(verification ? verificationRow(verification) : {}) });
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
    async setVerification(id, to, from) {
      if (from.length === 0) return false;
      const states = from.filter((f) => f !== null);
      const changed = await knex('backups')
        .where({ id })
        .where((q) => {
          if (states.length > 0) q.whereIn('verification_status', states);
          if (from.includes(null)) q.orWhereNull('verification_status');
        })
        .update(verificationRow(to));
      return changed > 0;
    },
    async listByVerification(status) {
      return (await knex('backups').where({ verification_status: status })).map(backup);
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
      const row: Row = { ...toRow(s), volume: s.volume ?? '', gfs: s.gfs === null ? null : JSON.stringify(s.gfs) };
      const { service_id: _id, volume: _v, created_at: _c, ...changes } = row;
      await knex('backup_settings').insert(row).onConflict(['service_id', 'volume']).merge(changes);
    },
    async listAutomatic() {
      return (await knex('backup_settings').where({ automatic_enabled: true })).map(settings);
    },
    async listVerifySchedules() {
      return (await knex('backup_settings').where({ volume: '' }).whereNotNull('verify_schedule')).map(settings);
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
