// What the backup runner (backups/backups.ts) asks of an engine: its own backup tool, run inside the
// database's live container through `docker exec`, streamed both ways (never buffered whole in
// memory). One implementation per engine (daemon/databases/<engine>/backup.ts).
import type Docker from 'dockerode';
import type { Readable, Writable } from 'node:stream';

export interface ToolContext {
  docker: Docker;
  /** The live container of the database service. */
  containerId: string;
  /** The service's resolved variables: the credentials the official image was started with. */
  env: Readonly<Record<string, string>>;
  signal: AbortSignal;
  /** A line for the backup/import log (progress, the tool's warnings). Never pass secrets. */
  log: (line: string) => void;
  /**
   * For tools that must restart the container (a redis RDB restore): call after the container
   * runs again, so the daemon points the service's host port at its new published port.
   */
  restarted: () => Promise<void>;
}

export interface EngineBackupTool {
  /** The Backup's `format` field: `custom` (pg_dump -Fc), `sql`, `rdb`, `archive`, `native`. */
  format: string;
  /** File extension, without the dot. */
  extension: string;
  /**
   * Writes the dump to `out` as the tool produces it. Resolves only when the tool exited 0 and
   * every byte was written; rejects with an Error naming the tool and the tail of its stderr
   * otherwise (the caller then discards the file). Does not end `out`.
   */
  dump(ctx: ToolContext, out: Writable): Promise<void>;
  /** Replaces the database's data with the dump read from `input`, the way the engine's tool does it. */
  restore(ctx: ToolContext, input: Readable): Promise<void>;
}
