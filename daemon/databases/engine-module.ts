// What one database engine brings to Berth: how it runs as a container, how its
// readiness is proven, how it is browsed (its adapter) and backed up (its tool). Each engine is one
// module implementing this (daemon/databases/<engine>/index.ts), listed in one registry
// (daemon/databases/engines.ts). What core itself computes about an engine as a service (its port,
// variables, connection URLs and login) stays in core/engines.ts: plain data core needs everywhere.
import type { DatabaseEngine } from '../../shared/types.js';
import type { EngineBackupTool } from './backup-tool.js';
import type { Connection, DatabaseAdapter } from '../core/ports/database-adapter.js';

/** How an engine's server runs as a container (the official image's documented contract). */
export interface DatabaseContainer {
  /** Where the engine keeps its data inside the container (the service volume's mount point). */
  dataPath: string;
  entrypoint?: string[];
  cmd?: string[];
  /** Read-only bind mounts: host directory -> container path. */
  binds: { source: string; target: string }[];
}

export interface DatabaseOptions {
  logicalReplication: boolean;
  /** A directory holding server.crt and server.key, for engines that serve TLS; null for none. */
  tlsDir: string | null;
}

export interface EngineModule {
  engine: DatabaseEngine;
  /** The container the daemon runs for a service of this engine. */
  container(opts: DatabaseOptions): DatabaseContainer;
  /** True when the server serves TLS with a Berth-issued certificate. */
  servesTls: boolean;
  /** A statement the adapter runs, with the service's own credentials, to prove the server ready for clients. */
  readinessStatement: string;
  /** Opens an adapter to a running server; the engine's driver is imported on first use (idle memory). */
  open(conn: Connection): Promise<DatabaseAdapter>;
  /** The engine's own dump and restore programs. */
  backup: EngineBackupTool;
}
