// Build and runtime log lines as core reads them: numbered lines per owner (a deployment, or a
// service for runtime logs), read back and followed live. daemon/deploy/log-book.ts implements
// LogFeed; daemon/deploy/runtime-logs.ts implements RuntimeLogState.
import type { LogLineRecord } from '../records.js';

export interface LogReader {
  /** Lines of an owner with id > afterId, oldest first. */
  read(owner: string, afterId: number, limit?: number): Promise<LogLineRecord[]>;
  /** The newest `limit` lines of an owner with id < beforeId, oldest first. */
  before(owner: string, beforeId: number, limit: number): Promise<LogLineRecord[]>;
  /** The newest `n` lines of an owner, oldest first. */
  tail(owner: string, n: number): Promise<LogLineRecord[]>;
}

export interface LogFeed extends LogReader {
  /** New lines of an owner as they are appended; returns the unsubscribe. */
  subscribe(owner: string, fn: (line: LogLineRecord) => void): () => void;
}

/** Whether a service's followed container log is still open. */
export interface RuntimeLogState {
  /** Null when nothing is followed for the service. */
  isOpen(serviceId: string): boolean | null;
  /** Called once the followed container's log ends; returns the unsubscribe. */
  onClosed(serviceId: string, fn: () => void): () => void;
}
