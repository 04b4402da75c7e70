// The audit log's table (core/ports/audit-repo.ts). Written in batches by core/audit.ts; never
// updated; pruned by age and past a row cap. Not cached: it changes with every mutating call, and a
// write here must not start the read cache over (a flood of refused calls would).
import type { Knex } from 'knex';
import type { AuditActorKind, AuditEntry, AuditOutcome } from '../../shared/types.js';
import type { AuditDraft, AuditRepo } from '../core/ports/audit-repo.js';

interface AuditRow {
  id: number;
  at: string;
  actor_kind: string;
  key_id: string | null;
  key_name: string | null;
  client_address: string | null;
  method: string;
  route: string;
  path: string;
  project_id: string | null;
  service_id: string | null;
  detail: string | null;
  status: number;
  outcome: string;
  error_code: string | null;
  duration_ms: number;
}

const TABLE = 'audit_log';

function rowOf(e: AuditDraft): Omit<AuditRow, 'id'> {
  return {
    at: e.at,
    actor_kind: e.actor.kind,
    key_id: e.actor.keyId,
    key_name: e.actor.keyName,
    client_address: e.clientAddress,
    method: e.method,
    route: e.route,
    path: e.path,
    project_id: e.projectId,
    service_id: e.serviceId,
    detail: e.detail,
    status: e.status,
    outcome: e.outcome,
    error_code: e.errorCode,
    duration_ms: e.durationMs,
  };
}

function entryOf(r: AuditRow): AuditEntry {
  return {
    id: String(r.id),
    at: r.at,
    actor: { kind: r.actor_kind as AuditActorKind, keyId: r.key_id, keyName: r.key_name },
    clientAddress: r.client_address,
    method: r.method,
    route: r.route,
    path: r.path,
    projectId: r.project_id,
    serviceId: r.service_id,
    detail: r.detail,
    status: r.status,
    outcome: r.outcome as AuditOutcome,
    errorCode: r.error_code,
    durationMs: r.duration_ms,
  };
}

/** `LIKE` with the prefix's own wildcards escaped. */
const likePrefix = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function auditRepo(knex: Knex): AuditRepo {
  return {
    async insert(entries) {
      if (entries.length === 0) return [];
      // one statement: the rows get consecutive ids ending at the one sqlite answers
      const [last] = (await knex<AuditRow>(TABLE).insert(entries.map(rowOf))) as number[];
      const first = last! - entries.length + 1;
      return entries.map((_e, i) => String(first + i));
    },
    async page(f) {
      const q = knex<AuditRow>(TABLE).orderBy('id', 'desc').limit(f.limit);
      if (f.before !== undefined) q.where('id', '<', f.before);
      if (f.projectId !== undefined) q.where('project_id', f.projectId);
      if (f.keyId !== undefined) q.where('key_id', f.keyId);
      if (f.route !== undefined) q.where('route', f.route);
      if (f.routePrefix !== undefined) q.whereRaw("route LIKE ? ESCAPE '\\'", [likePrefix(f.routePrefix)]);
      if (f.outcome !== undefined) q.where('outcome', f.outcome);
      if (f.from !== undefined) q.where('at', '>=', f.from);
      if (f.to !== undefined) q.where('at', '<', f.to);
      return ((await q) as AuditRow[]).map(entryOf);
    },
    async pruneBefore(at) {
      return knex<AuditRow>(TABLE).where('at', '<', at).delete();
    },
    async pruneToRows(maxRows) {
      // the id of the newest entry past the cap: it and everything older go
      const edge = (await knex<AuditRow>(TABLE).orderBy('id', 'desc').offset(maxRows).limit(1).select('id').first()) as Pick<AuditRow, 'id'> | undefined;
      if (!edge) return 0;
      return knex<AuditRow>(TABLE).where('id', '<=', edge.id).delete();
    },
  };
}
