// What core works with: plain records, independent of table rows and of API shapes.
import type { BuildMethod, DatabaseEngine, DeployStrategy, DeploymentStatus, DeploymentTrigger, DetectedBuildMethod, KeyAccess, KeyProjects, RuntimeMode, ServiceStatus } from '../../shared/types.js';

export interface KeyRecord {
  id: string;
  name: string;
  access: KeyAccess;
  projects: KeyProjects;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface ProjectRecord {
  id: string;
  name: string;
  slug: string;
  description: string;
  createdAt: string;
  updatedAt: string;
}

export type ServiceKind = 'git' | 'image' | 'database';

export interface ServiceRecord {
  id: string;
  projectId: string;
  name: string;
  slug: string;
  kind: ServiceKind;
  repoFullName: string | null;
  repoUrl: string | null;
  dockerImage: string | null;
  branch: string;
  rootDir: string | null;
  /** Plain text in memory; the store encrypts it at rest. */
  githubToken: string | null;
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
  databaseEngine: DatabaseEngine | null;
  databasePublicEnabled: boolean;
  databasePublicHostname: string | null;
  /**
   * The label of the service's generated hostname `<label>.<rootDomain>`, unique to its project and
   * recorded in the generated names (core/generated-names.ts); null only for records made before it.
   */
  generatedLabel: string | null;
  postgresLogicalReplicationEnabled: boolean;
  /** Limits the service sets for its containers; null: the server's default (core/limits.ts). */
  memoryLimitMb: number | null;
  cpuLimit: number | null;
  pidsLimit: number | null;
  status: ServiceStatus;
  reachable: boolean;
  framework: string | null;
  lastDeployedAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** The project's volumes this service mounts (stored in the `volumes` table, which outlives the service). */
  volumes: VolumeMount[];
  /** Plain text in memory; the store encrypts them at rest (they may hold secrets). */
  files: ConfigFileRecord[];
  deployStrategy: DeployStrategy;
  releaseCommand: string[] | null;
  /** null: the default (600 s, core/service-state-rules.ts). */
  releaseTimeoutSeconds: number | null;
  /** How many instances run (above 1 only on Swarm); 1 by default. */
  replicas: number;
  /** Node labels its instances need on Swarm; empty: any node. */
  placement: Record<string, string>;
  /** The Swarm node a database runs on and keeps its volume on; null: the manager (this server). */
  nodeId: string | null;
}

/** A volume of the service's project mounted into its containers. */
export interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly: boolean;
}

export interface ConfigFileRecord {
  /** Absolute, normalised path inside the container. */
  path: string;
  content: string;
  /** Octal permission bits as text, four digits ("0644"). */
  mode: string;
}

/** A project's volume: mounted by one service, or kept (serviceId null) after its service was deleted. */
export interface VolumeRecord {
  projectId: string;
  name: string;
  serviceId: string | null;
  mountPath: string | null;
  readOnly: boolean;
  createdAt: string;
}

export interface EnvRecord {
  id: string;
  serviceId: string;
  key: string;
  /** Plain text in memory; the store encrypts it at rest. */
  value: string;
  createdAt: string;
  updatedAt: string;
}

export interface DomainRecord {
  id: string;
  serviceId: string;
  hostname: string;
  status: 'active';
  createdAt: string;
  updatedAt: string;
}

export interface DeploymentRecord {
  id: string;
  serviceId: string;
  commitSha: string | null;
  status: DeploymentStatus;
  trigger: DeploymentTrigger;
  imageTag: string | null;
  containerName: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  createdAt: string;
  /** The branch this deployment builds (the service's, or one given for this deployment only). */
  branch: string | null;
  containerId: string | null;
  /** The container's published port: Caddy routes a web service's host port and hostnames to it. */
  upstreamPort: number | null;
  buildMethod: 'dockerfile' | 'autobuild' | 'image' | null;
  /** A rollback's source: the deployment whose config files it mounts (deploy/service-files.ts); null otherwise. */
  filesFrom?: string | null;
}

export interface LogLineRecord {
  id: number;
  line: string;
  stream: 'stdout' | 'stderr';
  createdAt: string;
}

/** A generated hostname label handed out once, kept for the project it was generated for. */
export interface GeneratedNameRecord {
  label: string;
  projectId: string;
  createdAt: string;
}
