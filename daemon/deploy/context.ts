// What a deployment run needs, passed in once by the composition root.
import type Docker from 'dockerode';
import type { Clock } from '../core/clock.js';
import type { Store } from '../core/store.js';
import type { Ownership } from '../docker/labels.js';
import type { DaemonEvents } from './events.js';
import type { LogBook } from './log-book.js';
import type { PortProxies } from './port-proxy.js';
import type { RuntimeLogs } from './runtime-logs.js';

export interface DeployDeps {
  store: Store;
  docker: Docker;
  /** Labels that prove this daemon made a Docker object. */
  own: Ownership;
  clock: Clock;
  /** The daemon's own log (not a deployment's). */
  log: (message: string, err?: unknown) => void;
  buildLogs: LogBook;
  runtimeLogs: RuntimeLogs;
  proxies: PortProxies;
  events: DaemonEvents;
  gitBaseUrl: string;
  buildCaFile: string | null;
  /** Where checkouts live while they build (removed afterwards). */
  buildsDir: string;
  /** How long a new container gets to answer on its port. */
  healthTimeoutMs: number;
}
