// What a deployment run needs, passed in once by the composition root.
import type Docker from 'dockerode';
import type { DatabaseEngine } from '../../shared/types.js';
import type { OpenAdapter } from '../core/ports/database-adapter.js';
import type { BerthCa } from '../databases/tls.js';
import type { Clock } from '../core/clock.js';
import type { DeployLimitsRead } from '../core/deploy-limits.js';
import type { BaseImages } from '../builder/autobuild/base-images.js';
import type { CloneLimits } from '../builder/checkout.js';
import type { Store } from '../core/ports/store.js';
import type { ImageRegistryPort, SwarmPort } from '../core/ports/swarm.js';
import type { LimitPolicy, LimitValues } from '../core/limits.js';
import type { Ownership } from '../docker/labels.js';
import type { DaemonEvents } from './events.js';
import type { LogBook } from './log-book.js';
import type { LogRate } from './log-gate.js';
import type { ProxyResult } from '../../shared/types.js';
import type { LoadOutcome } from '../proxy/caddy.js';
import type { RuntimeLogs } from './runtime-logs.js';
import type { ReachFacts } from '../backups/source-reach.js';
import type { DeploymentRecord } from '../core/records.js';

export interface DeployDeps {
  store: Store;
  docker: Docker;
  /** Labels that prove this daemon made a Docker object. */
  own: Ownership;
  clock: Clock;
  /** Swarm mode on this server (off: containers as before; on: services, see daemon/swarm/). */
  swarm: SwarmPort;
  /** Berth's registry on the manager (Swarm mode only): where built images are pushed for the workers. */
  registry: ImageRegistryPort;
  /** An image with sh and the docker CLI (BERTH_IMAGE_DOCKER_CLI): the job that prunes images on every Swarm node runs it (docker/node-prune.ts). */
  dockerCliImage: string;
  /** The daemon's own log (not a deployment's). */
  log: (message: string, err?: unknown) => void;
  buildLogs: LogBook;
  runtimeLogs: RuntimeLogs;
  /** How fast one build may write its log (lines past it are dropped and counted in a marker line). */
  logRate: LogRate;
  /** Caddy: routes each web service's host port and hostnames to its live container. */
  dataPlane: DataPlane;
  events: DaemonEvents;
  gitBaseUrl: string;
  /** This host's addresses and Docker's networks: where a clone within a reach may not connect. */
  reachFacts: ReachFacts;
  buildCaFile: string | null;
  /** Where checkouts live while they build (removed afterwards). */
  buildsDir: string;
  /** Where each deployment's config files are written (deploy/service-files.ts): `<serviceId>/<deploymentId>/`. */
  filesDir: string;
  /** Size a clone may take (its time: `deployLimits`). */
  cloneLimits: CloneLimits;
  /** Build, pull and clone time limits (system settings), read when a step starts. */
  deployLimits: () => Promise<DeployLimitsRead>;
  /** How long a new container gets to answer on its port. */
  healthTimeoutMs: number;
  /** The images autobuild's generated Dockerfiles start from (BERTH_AUTOBUILD_IMAGE_<KEY>). */
  autobuildImages: BaseImages;
  /** The image each database engine runs (BERTH_IMAGE_<ENGINE>). */
  databaseImages: Record<DatabaseEngine, string>;
  /** Signs the database services' TLS certificates. */
  ca: BerthCa;
  openAdapter: OpenAdapter;
  /** Where database backups live, one folder per service (removed with the service). */
  backupsDir: string;
  /** The address a public database is reached at when it has no hostname (its TLS certificate covers it). */
  publicIp: () => Promise<string>;
  /** Container limits: the server's defaults, applied where a service sets none. */
  limits: LimitPolicy;
  /** Images of this many last successful deployments per service of a project are kept for rollbacks (its quota maxImagesPerService). */
  keepImages: (projectId: string) => Promise<number>;
  /** Why new work must wait for disk space ("<what> refused: low disk ..."), or null (core/disk-space.ts). */
  diskLow: (what: string) => Promise<string | null>;
  /** What one image build may use. */
  buildLimits: Pick<LimitValues, 'memoryMb' | 'cpus'>;
  /** The task watcher (swarm/task-watcher.ts): Caddy's pools of Swarm tasks. */
  swarmTasks: SwarmTaskFollower;
  /** The Docker Engine of another Swarm node: where a database created there runs (deploy/service-host.ts). */
  nodeEngines: NodeEngineSource;
}

/** What the deployment engine asks of the task watcher. */
/** The Docker Engine of any Swarm node (swarm/node-engines.ts): this daemon's own for the manager's node, a relay for a worker. */
export interface NodeEngineSource {
  engine(nodeId: string): Promise<Docker>;
  /** The address the node advertises (its published ports answer the manager there). */
  address(nodeId: string): Promise<string>;
}

export interface SwarmTaskFollower {
  /** One pass now: pools follow the tasks that answer (Caddy reloads when one changed). */
  refresh(): Promise<void>;
  /** Takes a service's pool out of Caddy now (its Swarm service is about to be removed). */
  drop(serviceId: string): Promise<void>;
  /** Whether a deployment ran as the service's Swarm service (its containerId is the Swarm service's id). */
  isSwarmDeployment(dep: DeploymentRecord): Promise<boolean>;
}

/** What the deployment engine asks of the data plane (daemon/proxy/caddy.ts). */
interface DataPlane {
  /** Loads the routing the store describes. */
  apply(): Promise<ProxyResult>;
  /** Routes a service to a new container before the store records it live. */
  routeAhead(serviceId: string, upstreamPort: number): Promise<LoadOutcome>;
  /** Ends routeAhead's override once the store says the same (or the container was dropped). */
  settle(serviceId: string, upstreamPort: number): void;
}
