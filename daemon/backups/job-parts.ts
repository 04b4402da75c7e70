// What the backup runner's jobs share: the live database they run against, and an error's text.
import type Docker from 'dockerode';
import type { ToolContext } from '../databases/backup-tool.js';

/** The live container of a database service, its resolved variables, its host port, and the Engine and address it runs at (another Swarm node's for a database created there). */
export type LiveDb = { containerId: string; env: Record<string, string>; hostPort: number; docker: Docker; host: string };

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The context an engine's backup tool runs in. */
export function toolContext(live: LiveDb, signal: AbortSignal, restarted: () => Promise<void> | void, log: (line: string) => void = () => undefined): ToolContext {
  return { docker: live.docker, containerId: live.containerId, env: live.env, signal, log, restarted: async () => restarted() };
}
