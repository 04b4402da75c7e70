// Exec and terminal records (core/ports/exec-repo.ts): one row per command or session, bounded per
// service (the newest `keep` are kept; a running one is never dropped).
import type { Knex } from 'knex';
import type { ExecEntry, ExecRepo } from '../core/ports/exec-repo.js';

interface ExecRow {
  id: string;
  service_id: string;
  project_id: string;
  key_id: string;
  key_name: string;
  command: string;
  mode: string;
  exit_code: number | null;
  started_at: string;
  finished_at: string | null;
}

function entry(row: ExecRow): ExecEntry {
  return {
    id: row.id,
    serviceId: row.service_id,
    projectId: row.project_id,
    keyId: row.key_id,
    keyName: row.key_name,
    command: JSON.parse(row.command) as string[],
    mode: row.mode as ExecEntry['mode'],
    exitCode: row.exit_code,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

export function execRepo(knex: Knex): ExecRepo {
  return {
    async insert(e, keep) {
      await knex<ExecRow>('execs').insert({
        id: e.id,
        service_id: e.serviceId,
        project_id: e.projectId,
        key_id: e.keyId,
        key_name: e.keyName,
        command: JSON.stringify(e.command),
        mode: e.mode,
        exit_code: e.exitCode,
        started_at: e.startedAt,
        finished_at: e.finishedAt,
      });
      const kept = knex<ExecRow>('execs')
        .where({ service_id: e.serviceId })
        .orderBy([
          { column: 'started_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(keep)
        .select('id');
      await knex<ExecRow>('execs').where({ service_id: e.serviceId }).whereNotNull('finished_at').whereNotIn('id', kept).delete();
    },
    async finish(id, exitCode, at) {
      await knex<ExecRow>('execs').where({ id }).whereNull('finished_at').update({ exit_code: exitCode, finished_at: at });
    },
    async listByService(serviceId, limit) {
      const rows = await knex<ExecRow>('execs')
        .where({ service_id: serviceId })
        .orderBy([
          { column: 'started_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(limit);
      return rows.map(entry);
    },
    async endRunning(at) {
      const rows = await knex<ExecRow>('execs').whereNull('finished_at');
      if (rows.length > 0) await knex<ExecRow>('execs').whereNull('finished_at').update({ exit_code: null, finished_at: at });
      return rows.map((r) => entry({ ...r, exit_code: null, finished_at: at }));
    },
  };
}
