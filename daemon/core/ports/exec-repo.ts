// The record of one-off commands and terminal sessions (store/execs-repo.ts implements it).
import type { ExecMode } from '../../../shared/types.js';

export interface ExecEntry {
  id: string;
  serviceId: string;
  projectId: string;
  keyId: string;
  keyName: string;
  command: string[];
  mode: ExecMode | 'terminal';
  exitCode: number | null;
  startedAt: string;
  finishedAt: string | null;
}

export interface ExecRepo {
  /** Records a start; older finished records of the service beyond `keep` are dropped. */
  insert(entry: ExecEntry, keep: number): Promise<void>;
  /** Records the end (once: a record already finished is left alone). */
  finish(id: string, exitCode: number | null, at: string): Promise<void>;
  /** Newest first. */
  listByService(serviceId: string, limit: number): Promise<ExecEntry[]>;
  /** Start-up: records left running by a daemon that stopped end without an exit code; answers them. */
  endRunning(at: string): Promise<ExecEntry[]>;
}
