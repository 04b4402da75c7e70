// The runs of Berth's own backup (core/server-backups.ts). Status writes are conditional: the
// UPDATE names the statuses the run may move from (core/server-backup-rules.ts).
import type { Knex } from 'knex';
import type { JobStatus, ServerBackupCounts } from '../../shared/types.js';
import type { ServerBackupPatch, ServerBackupRecord, ServerBackupsRepo } from '../core/ports/server-backups.js';

interface Row {
  id: string;
  status: string;
  trigger: string;
  started_at: string;
  finished_at: string | null;
  file_name: string | null;
  size_bytes: number | null;
  sha256: string | null;
  location: string;
  storage_id: string | null;
  berth_version: string;
  counts: string | null;
  error: string | null;
}

const TABLE = 'server_backups';

function counts(raw: string | null): ServerBackupCounts | null {
  if (raw === null) return null;
  try {
    const c = JSON.parse(raw) as Partial<ServerBackupCounts>;
    return { projects: c.projects ?? 0, services: c.services ?? 0, keys: c.keys ?? 0, domains: c.domains ?? 0 };
  } catch {
    return null;
  }
}

function record(r: Row): ServerBackupRecord {
  return {
    id: r.id,
    status: r.status as JobStatus,
    trigger: r.trigger === 'schedule' ? 'schedule' : 'manual',
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    fileName: r.file_name,
    sizeBytes: r.size_bytes,
    sha256: r.sha256,
    location: r.location === 's3' ? 's3' : 'disk',
    storageId: r.storage_id === 'remote' ? 'remote' : null,
    berthVersion: r.berth_version,
    counts: counts(r.counts),
    error: r.error,
  };
}

function patchRow(p: ServerBackupPatch): Partial<Row> {
  const out: Partial<Row> = {};
  if (p.finishedAt !== undefined) out.finished_at = p.finishedAt;
  if (p.fileName !== undefined) out.file_name = p.fileName;
  if (p.sizeBytes !== undefined) out.size_bytes = p.sizeBytes;
  if (p.sha256 !== undefined) out.sha256 = p.sha256;
  if (p.counts !== undefined) out.counts = p.counts === null ? null : JSON.stringify(p.counts);
  if (p.error !== undefined) out.error = p.error;
  if (p.berthVersion !== undefined) out.berth_version = p.berthVersion;
  return out;
}

export function serverBackupsRepo(knex: Knex): ServerBackupsRepo {
  // newest first; the id breaks ties of one millisecond
  const newest = () =>
    knex<Row>(TABLE).orderBy([
      { column: 'started_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
  return {
    async insert(run) {
      await knex<Row>(TABLE).insert({
        id: run.id,
        status: run.status,
        trigger: run.trigger,
        started_at: run.startedAt,
        location: run.location,
        storage_id: run.storageId,
        berth_version: run.berthVersion,
        ...patchRow(run),
      });
    },
    async get(id) {
      const row = await knex<Row>(TABLE).where({ id }).first();
      return row ? record(row) : null;
    },
    async list(limit) {
      return (await newest().limit(limit)).map(record);
    },
    async byStatus(status) {
      return (await newest().where({ status })).map(record);
    },
    async setStatus(id, to, from, patch) {
      const n = await knex<Row>(TABLE)
        .where({ id })
        .whereIn('status', [...from])
        .update({ ...patchRow(patch), status: to });
      return n === 1;
    },
    async noteFile(id, fileName) {
      return (await knex<Row>(TABLE).where({ id, status: 'running' }).update({ file_name: fileName })) === 1;
    },
    async delete(id) {
      await knex<Row>(TABLE).where({ id }).delete();
    },
  };
}
