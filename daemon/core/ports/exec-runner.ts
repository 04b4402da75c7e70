// Running commands and terminals in a service's containers (deploy/exec-runner.ts implements it on
// the Docker Engine API). Core has checked the key, the live deployment and the caps before it
// calls; the runner only runs.
import type { DeploymentRecord, ServiceRecord } from '../records.js';

export interface ExecTarget {
  service: ServiceRecord;
  /** The live deployment: its container (attach, terminal) or its image (run). */
  live: DeploymentRecord;
}

export interface ExecOutcome {
  /** null when the command never ran to an exit (it could not start, timed out, was stopped). */
  exitCode: number | null;
  /** Why there is no exit code, or why it failed to run (a command that does not exist). */
  error?: string;
}

interface ExecRunOptions {
  timeoutMs: number;
  /** Aborted when the client goes away: a `run` container is stopped, an `attach` command is ended. */
  signal: AbortSignal;
}

/** One output line of a command (lines are capped, see docker/output-lines.ts). */
export type OnExecLine = (line: string, stream: 'stdout' | 'stderr') => void;

/** An open TTY in a container: raw bytes both ways. */
export interface TtySession {
  /** The shell it runs (`/bin/bash` or `/bin/sh`). */
  readonly shell: string;
  /** Output as it comes; `pause`/`resume` hold it back while the client is slow. */
  onData(fn: (chunk: Buffer) => void): void;
  /** Runs once when the shell ended (or the connection to it broke), with its exit code when known. */
  onEnd(fn: (exitCode: number | null) => void): void;
  write(input: Buffer): void;
  resize(cols: number, rows: number): Promise<void>;
  pause(): void;
  resume(): void;
  /** Ends the shell: EOF, then a hang-up to its process group when it is still there. */
  close(): Promise<void>;
}

export interface ExecRunner {
  /** Runs `argv` in the live container (docker exec). */
  attach(target: ExecTarget, argv: string[], onLine: OnExecLine, opts: ExecRunOptions): Promise<ExecOutcome>;
  /** Runs `argv` in a new container from the live image, with the service's env, network, volumes, files and limits; removed afterwards. */
  run(target: ExecTarget, argv: string[], onLine: OnExecLine, opts: ExecRunOptions): Promise<ExecOutcome>;
  /** Opens a TTY in the live container with the first shell that exists (bash, then sh). */
  openTty(target: ExecTarget, size: { cols: number; rows: number }): Promise<TtySession>;
}
