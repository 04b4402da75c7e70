// Services: their settings, status, limits, overview and build plan.

import type { Timestamp } from './common.js';
import type { Deployment } from './deployments.js';
import type { Domain } from './domains.js';
import type { EnvVar } from './env.js';
import type { ServicePlacement } from './swarm.js';

export type BuildMethod = 'auto' | 'dockerfile' | 'autobuild';

export type DetectedBuildMethod = 'dockerfile' | 'autobuild';

export type RuntimeMode = 'web' | 'worker' | 'static';

export type ServiceStatus = 'idle' | 'building' | 'active' | 'failed';

/**
 * How a new deployment replaces the live one: `rolling` starts the new container, waits until it
 * answers, then retires the old one (no downtime); `recreate` stops the old container first (for
 * volumes two containers must not share, such as an SQLite writer's), and its log says the
 * downtime it caused.
 */
export type DeployStrategy = 'rolling' | 'recreate';

/** A named volume of the service's project mounted into its containers; kept across redeploys and rollbacks. */
export interface ServiceVolume {
  /** The volume's name, unique within its project. */
  name: string;
  /** Absolute path inside the container. */
  mountPath: string;
  readOnly: boolean;
  /** Bytes used, when Docker has measured it recently; null when not known. */
  sizeBytes: number | null;
}

/** A file mounted read-only into the service's containers; `${VAR}` and `${service.VAR}` references resolve like env values. */
export interface ConfigFile {
  /** Absolute path inside the container. */
  path: string;
  content: string;
  /** Octal permission bits as text, such as "0644" (the default) or "0755". */
  mode: string;
}

/** A container's resource limits: memory in MiB (no swap beyond it), CPUs (1.0 = one core), processes. */
export interface ServiceLimits {
  memoryMb: number;
  cpus: number;
  pids: number;
}

export interface Service {
  id: string;
  projectId: string;
  name: string;
  slug: string;
  repoFullName: string | null;
  repoUrl: string | null;
  dockerImage: string | null;
  branch: string;
  rootDir: string | null;
  hasGithubToken: boolean;
  installCommand: string | null;
  buildCommand: string | null;
  startCommand: string | null;
  staticOutput: string | null;
  buildMethod: BuildMethod;
  dockerfilePath: string | null;
  detectedBuildMethod: DetectedBuildMethod | null;
  runtimeMode: RuntimeMode;
  internalPort: number | null;
  hostPort: number | null;
  databasePublicEnabled: boolean;
  databasePublicHostname: string | null;
  postgresLogicalReplicationEnabled: boolean;
  status: ServiceStatus;
  reachable: boolean;
  localUrl: string;
  primaryUrl: string;
  preferredDomain: string | null;
  /**
   * The hostname Berth generated for the service, `<service>-<project>.<rootDomain>` (unique to its
   * project; services created before keep `<service>.<rootDomain>`); null without a root domain.
   */
  generatedHostname: string | null;
  framework: string | null;
  lastDeployedAt: Timestamp | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** The limits its containers run with (the service's own, else the server's defaults). */
  limits: ServiceLimits;
  volumes: ServiceVolume[];
  files: ConfigFile[];
  /** `rolling` when unset. */
  deployStrategy: DeployStrategy;
  /** Run once per deployment in a new container from the new image before it goes live (argv); null when unset. */
  releaseCommand: string[] | null;
  /** How long the release command may run before the deployment fails. */
  releaseTimeoutSeconds: number;
  /** How many instances run (above 1 only with Swarm on); 1 by default. */
  replicas: number;
  /** Which Swarm nodes its instances may run on (`nodeLabels` empty: any). */
  placement: ServicePlacement;
  /**
   * The Swarm node a database runs on, next to its data volume, chosen at creation (null: this
   * server, the manager). Always null for other kinds.
   */
  nodeId: string | null;
}

export interface ServiceOverview {
  service: Service;
  deployments: Deployment[];
  env: EnvVar[];
  domains: Domain[];
  publicIp: string;
}

/** GET /api/services/:serviceId/build-plan: what a deployment of the branch's head would build, computed without building. */
export interface BuildPlanPreview {
  /** The builder a deployment would run under the service's buildMethod; null when it would fail before choosing (see error). */
  buildMethod: DetectedBuildMethod | null;
  /** Whether the service's directory has the Dockerfile it would use (dockerfilePath, <SERVICE>_DOCKERFILE_PATH or Dockerfile). */
  dockerfileExists: boolean;
  branch: string;
  commitSha: string;
  /** What autobuild detected (filled even when the Dockerfile would be used); null when it could not place the repository. */
  stack: string | null;
  framework: string | null;
  /** Package manager or build tool: npm, yarn, pnpm, pip, poetry, go, bundler, composer, maven, gradle, javac, cargo, dotnet, none. */
  tool: string | null;
  installCommand: string | null;
  buildCommand: string | null;
  startCommand: string | null;
  /** The port the app is expected to listen on (PORT is set to it). */
  port: number | null;
  staticOutput: string | null;
  /** The images the generated Dockerfile starts from. */
  baseImages: string[];
  /** The generated Dockerfile, as a deployment would log and build it. */
  dockerfile: string | null;
  notes: string[];
  /** Why a deployment would fail at this stage (no Dockerfile for buildMethod dockerfile, nothing autobuild recognises, ...). */
  error: string | null;
}

/** A request's `limits`: a number sets a field, null goes back to the server's default, absent keeps it. */
export interface ServiceLimitsInput {
  memoryMb?: number | null;
  cpus?: number | null;
  pids?: number | null;
}

/** POST /api/projects/:projectId/services: the service's own fields (any kind); `env` and `limits` come beside them. */
export interface NewServiceInput {
  name: string;
  repoFullName?: string | null;
  repoUrl?: string | null;
  dockerImage?: string | null;
  branch?: string;
  rootDir?: string | null;
  githubToken?: string | null;
  installCommand?: string | null;
  buildCommand?: string | null;
  startCommand?: string | null;
  staticOutput?: string | null;
  buildMethod?: BuildMethod;
  dockerfilePath?: string | null;
  runtimeMode?: RuntimeMode;
  internalPort?: number | null;
  databasePublicEnabled?: boolean;
  databasePublicHostname?: string | null;
  postgresLogicalReplicationEnabled?: boolean;
  /** The whole list: a patch replaces it (a volume left out is detached, never deleted). */
  volumes?: ServiceVolumeInput[];
  /** The whole list: a patch replaces it. */
  files?: ConfigFileInput[];
  deployStrategy?: DeployStrategy;
  /** argv; null or [] removes it. */
  releaseCommand?: string[] | null;
  /** null goes back to the default. */
  releaseTimeoutSeconds?: number | null;
  /** Integer >= 1; above 1 needs Swarm on (409 otherwise). */
  replicas?: number;
  /** Replaces the whole placement. */
  placement?: ServicePlacement;
  /**
   * Create only, databases only, Swarm on: the id of the node (`GET /api/nodes`) that runs the
   * database and holds its volume; null or absent: this server. It never changes afterwards.
   */
  nodeId?: string | null;
}

export interface ServiceVolumeInput {
  name: string;
  mountPath: string;
  /** Default false. */
  readOnly?: boolean;
}

export interface ConfigFileInput {
  path: string;
  content: string;
  /** Default "0644". */
  mode?: string;
}

/** PATCH /api/services/:serviceId: the fields a service may change after creation. */
export type ServicePatch = Pick<
  NewServiceInput,
  | 'branch'
  | 'rootDir'
  | 'githubToken'
  | 'installCommand'
  | 'buildCommand'
  | 'startCommand'
  | 'staticOutput'
  | 'buildMethod'
  | 'dockerfilePath'
  | 'runtimeMode'
  | 'internalPort'
  | 'repoUrl'
  | 'dockerImage'
  | 'volumes'
  | 'files'
  | 'deployStrategy'
  | 'releaseCommand'
  | 'releaseTimeoutSeconds'
  | 'replicas'
  | 'placement'
  | 'nodeId'
> & { name?: string; limits?: ServiceLimitsInput };
