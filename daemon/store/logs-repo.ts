// Build and runtime log lines. Not behind the read cache: lines arrive many times a second and no
// cached read depends on them. Ids are assigned by the writer (one daemon process writes logs), so
// a line has its id before it reaches the disk and live streams can use it at once.
import type { Knex } from 'knex';
import type { LogLineRecord } from '../core/records.js';
import type { LogSize, LogsRepo, LogTable } from '../core/ports/store.js';

const OWNER: Record<LogTable, string> = { deployment_logs: 'deployment_id', runtime_logs: 'service_id' };
/** A line's size in bytes (UTF-8), as retention counts it. */
const BYTES = 'length(CAST(line AS BLOB))';

type Row = { id: number; line: string; stream: LogLineRecord['stream']; created_at: string };
const toRecord = (r: Row): LogLineRecord => ({ id: r.id, line: r.line, stream: r.stream, createdAt: r.created_at });

export function logsRepo(knex: Knex): LogsRepo {
  async function sizeOf(table: LogTable, owner: string): Promise<LogSize> {
    const row = (await knex(table)
      .where(OWNER[table], owner)
      .select(knex.raw(`count(*) AS lines, coalesce(sum(${BYTES}), 0) AS bytes`))
      .first()) as { lines: number; bytes: number } | undefined;
    return { lines: Number(row?.lines ?? 0), bytes: Number(row?.bytes ?? 0) };
  }
  return {
    async maxId(table) {
      const row = (await knex(table).max({ max: 'id' }).first()) as { max: number | null } | undefined;
      return row?.max ?? 0;
    },
    async insert(table, lines) {
      if (lines.length === 0) return;
      const rows = lines.map((l) => {
        const row: Record<string, unknown> = { id: l.id, line: l.line, stream: l.stream, created_at: l.createdAt, deployment_id: l.deploymentId };
        if (table === 'runtime_logs') row.service_id = l.owner;
        return row;
      });
      // SQLite allows 999 variables per statement: insert in chunks of at most 150 rows and, so
      // that a statement's copies of long lines stay small, about 256 KB of text
      for (let i = 0; i < rows.length; ) {
        let end = i;
        let size = 0;
        while (end < rows.length && end - i < 150 && (end === i || size + (rows[end]!.line as string).length <= 262_144)) size += (rows[end++]!.line as string).length;
        const chunk = rows.slice(i, end);
        i = end;
        try {
          await knex(table).insert(chunk);
        } catch (err) {
          if (!isForeignKeyError(err)) throw err;
          // Lines of a service or deployment deleted meanwhile (its container still printed): they
          // have nowhere to go and are dropped quietly; the others are kept.
          for (const row of chunk)
            await knex(table)
              .insert(row)
              .catch((e: unknown) => {
                if (!isForeignKeyError(e)) throw e;
              });
        }
      }
    },
    async list(table, owner, afterId, limit) {
      const rows = (await knex(table).select('id', 'line', 'stream', 'created_at').where(OWNER[table], owner).andWhere('id', '>', afterId).orderBy('id').limit(limit)) as {
        id: number;
        line: string;
        stream: LogLineRecord['stream'];
        created_at: string;
      }[];
      return rows.map((r) => ({ id: r.id, line: r.line, stream: r.stream, createdAt: r.created_at }));
    },
    async tail(table, owner, limit) {
      const rows = (await knex(table).select('id', 'line', 'stream', 'created_at').where(OWNER[table], owner).orderBy('id', 'desc').limit(limit)) as {
        id: number;
        line: string;
        stream: LogLineRecord['stream'];
        created_at: string;
      }[];
      return rows.reverse().map((r) => ({ id: r.id, line: r.line, stream: r.stream, createdAt: r.created_at }));
    },
    async before(table, owner, beforeId, limit) {
      const rows = (await knex(table).select('id', 'line', 'stream', 'created_at').where(OWNER[table], owner).andWhere('id', '<', beforeId).orderBy('id', 'desc').limit(limit)) as Row[];
      return rows.reverse().map(toRecord);
    },
    sizeOf,
    async trimOwner(table, owner, keep) {
      const column = OWNER[table];
      // the newest line past either budget, counted from the newest line back: it and every older
      // line of the owner go (the index on (owner, id) walks the owner's lines newest first)
      await knex(table)
        .where(column, owner)
        .andWhereRaw(
          `id <= (SELECT id FROM (
             SELECT id, SUM(${BYTES}) OVER (ORDER BY id DESC) AS run, ROW_NUMBER() OVER (ORDER BY id DESC) AS n
             FROM ${table} WHERE ${column} = ?
           ) WHERE run > ? OR n > ? ORDER BY id DESC LIMIT 1)`,
          [owner, keep.bytes, keep.lines],
        )
        .delete();
      return sizeOf(table, owner);
    },
    async trimServiceBuildLogs(deploymentId, keep) {
      const ofService = 'SELECT id FROM deployments WHERE service_id = (SELECT service_id FROM deployments WHERE id = ?)';
      return knex('deployment_logs')
        .whereRaw(`deployment_id IN (${ofService})`, [deploymentId])
        .andWhereRaw(
          `id <= (SELECT id FROM (
             SELECT id, SUM(${BYTES}) OVER (ORDER BY id DESC) AS run, ROW_NUMBER() OVER (ORDER BY id DESC) AS n
             FROM deployment_logs WHERE deployment_id IN (${ofService})
           ) WHERE run > ? OR n > ? ORDER BY id DESC LIMIT 1)`,
          [deploymentId, keep.bytes, keep.lines],
        )
        .delete();
    },
    async tailOfDeployment(table, owner, deploymentId, limit) {
      const rows = (await knex(table).select('id', 'line', 'stream', 'created_at').where(OWNER[table], owner).andWhere('deployment_id', deploymentId).orderBy('id', 'desc').limit(limit)) as {
        id: number;
        line: string;
        stream: LogLineRecord['stream'];
        created_at: string;
      }[];
      return rows.reverse().map((r) => ({ id: r.id, line: r.line, stream: r.stream, createdAt: r.created_at }));
    },
    async releaseFreePages() {
      await knex.raw('PRAGMA incremental_vacuum');
    },
    async trim(table, keep) {
      const column = OWNER[table];
      return knex(table).whereRaw(`id <= (SELECT t2.id FROM ${table} t2 WHERE t2.${column} = ${table}.${column} ORDER BY t2.id DESC LIMIT 1 OFFSET ?)`, [keep]).delete();
    },
  };
}

function isForeignKeyError(err: unknown): boolean {
  return (err as { code?: string }).code === 'SQLITE_CONSTRAINT' && /FOREIGN KEY/i.test((err as Error).message);
}
