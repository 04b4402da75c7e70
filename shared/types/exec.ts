// One-off commands and terminals in a service's containers. `attach` runs in the live container
// (docker exec); `run` starts a new container from the live image with the service's env, network,
// volumes and limits (like `heroku run`). Every one is recorded: who, when, what, exit code.

import type { Timestamp } from './common.js';

export type ExecMode = 'attach' | 'run';

/** POST /api/services/:serviceId/exec: answers an SSE stream of `output` events, then one `exit`. */
export interface ExecInput {
  /** argv: never a shell string (to use a shell, say so: ["sh", "-c", "..."]). */
  command: string[];
  /** Default "attach". */
  mode?: ExecMode;
}

/** GET /api/services/:serviceId/exec -> {execs}, newest first. A terminal session is recorded with mode `terminal`. */
export interface ExecRecord {
  id: string;
  keyId: string;
  keyName: string;
  command: string[];
  mode: ExecMode | 'terminal';
  /** null while running, or when it ended without one (the daemon stopped, the client left). */
  exitCode: number | null;
  startedAt: Timestamp;
  finishedAt: Timestamp | null;
}

/** The exec stream's events. */
export interface ExecStreamPayloads {
  output: { stream: 'stdout' | 'stderr'; line: string };
  /** The last event; `error` says why there is no exit code (the command could not start, it timed out). */
  exit: { exitCode: number | null; error?: string };
}

/** GET /api/services/:serviceId/terminal (WebSocket): a JSON text frame that resizes the TTY; every other frame is raw terminal input. */
export interface TerminalResize {
  type: 'resize';
  cols: number;
  rows: number;
}
