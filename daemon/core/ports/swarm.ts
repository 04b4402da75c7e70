// What the deploy machinery and core need from Swarm mode (the adapter: daemon/swarm/). On a server
// that never turned Swarm on, `enabled()` is false and nothing else is called.

export interface SwarmPort {
  /** Whether this server is an active Swarm manager (Docker's own view, read fresh or cached briefly). */
  enabled(): Promise<boolean>;
  /** The address nodes reach the manager at (the swarm's advertise address); null when off. */
  managerAddress(): Promise<string | null>;
}

/** Docker's registry auth, as the Engine API's X-Registry-Auth and service create/update take it. */
export interface RegistryAuth {
  username: string;
  password: string;
  serveraddress: string;
}

/** Berth's own image registry on the manager (TLS from Berth's CA, credentials only Berth holds). */
export interface ImageRegistryPort {
  /** Starts it when it is not running (idempotent) and answers where it is and how to log in. */
  ensure(): Promise<{ address: string; auth: RegistryAuth }>;
  /**
   * Runs `push` (which pushes to the registry `ensure()` answers) while no garbage collection runs:
   * a collection deletes the blobs of an upload no manifest names yet.
   */
  pushing<T>(push: (registry: { address: string; auth: RegistryAuth }) => Promise<T>): Promise<T>;
  /**
   * Runs `collect` once no push is under way, holding new pushes back until it ends; null (and
   * nothing run) when the registry's container is not running (Swarm off, or never used).
   */
  whileNoPush<T>(collect: (registry: RunningRegistry) => Promise<T>): Promise<T | null>;
}

/** The running registry, as a garbage collection reaches it. */
export interface RunningRegistry {
  address: string;
  auth: RegistryAuth;
  containerId: string;
  caPem: string;
}
