// Turns a create-service request into what the service is: git source, image or database, with
// defaults filled in and every field checked. Pure: no store, no I/O.
import type { DatabaseEngine, NewServiceInput, RuntimeMode } from '../../shared/types.js';
import { DATABASE_ENGINES, REPO_URL_DATABASE, REPO_URL_IMAGE } from '../../shared/constants.js';
import { ENGINE_CAPABILITIES } from '../../shared/engines.js';
import { InvalidInput } from './errors.js';
import { normalizeHostname } from './hostname.js';
import type { ServiceKind, ServiceRecord } from './records.js';
import { stateOf } from './service-state-rules.js';
import { checkBranch, checkGitUrl, checkImageRef, checkRelativePath, checkRepoFullName } from './source.js';

/** The wire's new-service fields (shared/types/services.ts), defined once. */
export type { NewServiceInput };

export const DEFAULT_BRANCH = 'main';
const DEFAULT_PORT: Record<RuntimeMode, number | null> = { web: 3000, static: 80, worker: null };
const IMAGE_DEFAULT_PORT = 80;

/** Fields of ServiceRecord decided by the request (identity, ports and timestamps come later). */
export type ServiceSpec = Omit<
  ServiceRecord,
  | 'id'
  | 'projectId'
  | 'slug'
  | 'generatedLabel'
  | 'hostPort'
  | 'memoryLimitMb'
  | 'cpuLimit'
  | 'pidsLimit'
  | 'status'
  | 'reachable'
  | 'framework'
  | 'lastDeployedAt'
  | 'detectedBuildMethod'
  | 'createdAt'
  | 'updatedAt'
>;

export function classify(input: NewServiceInput): { kind: ServiceKind; engine: DatabaseEngine | null } {
  const fullName = input.repoFullName ?? null;
  if (input.repoUrl === REPO_URL_DATABASE || fullName?.startsWith('database:')) {
    const engine = fullName?.startsWith('database:') ? fullName.slice('database:'.length) : '';
    if (!(DATABASE_ENGINES as readonly string[]).includes(engine)) {
      throw new InvalidInput(`repoFullName must be database:<engine>, with engine one of ${DATABASE_ENGINES.join(', ')}`);
    }
    return { kind: 'database', engine: engine as DatabaseEngine };
  }
  if (input.repoUrl === REPO_URL_IMAGE || (input.dockerImage && !fullName && !input.repoUrl)) return { kind: 'image', engine: null };
  if (fullName?.startsWith('image:')) return { kind: 'image', engine: null };
  if (fullName || input.repoUrl) return { kind: 'git', engine: null };
  throw new InvalidInput('a service needs a source: repoFullName (owner/name), repoUrl (a git URL), dockerImage, or repoFullName database:<engine>');
}

function portFor(mode: RuntimeMode, given: number | null | undefined, fallback: number | null): number | null {
  if (mode === 'worker') return null;
  return given ?? fallback;
}

export function serviceSpec(input: NewServiceInput): ServiceSpec {
  const { kind, engine } = classify(input);
  const mode: RuntimeMode = input.runtimeMode ?? 'web';
  const common = {
    ...stateOf(kind, input),
    name: input.name,
    kind,
    branch: input.branch ?? DEFAULT_BRANCH,
    rootDir: null,
    githubToken: null,
    installCommand: input.installCommand ?? null,
    buildCommand: input.buildCommand ?? null,
    startCommand: input.startCommand ?? null,
    staticOutput: input.staticOutput ?? null,
    buildMethod: input.buildMethod ?? 'auto',
    dockerfilePath: null,
    runtimeMode: mode,
    databaseEngine: null,
    databasePublicEnabled: false,
    databasePublicHostname: null,
    postgresLogicalReplicationEnabled: false,
    nodeId: null,
  } satisfies Partial<ServiceSpec>;
  if (kind !== 'database' && input.nodeId) {
    throw new InvalidInput('nodeId applies to databases only (a web service chooses its nodes with replicas and placement)');
  }

  if (kind === 'database') {
    const db = engine!;
    const port = ENGINE_CAPABILITIES[db].port;
    if (mode !== 'web') throw new InvalidInput('a database service runs in runtimeMode web');
    if (input.internalPort != null && input.internalPort !== port) {
      throw new InvalidInput(`a ${db} service listens on ${port} inside its container; internalPort must be ${port}`);
    }
    const replication = input.postgresLogicalReplicationEnabled ?? false;
    if (replication && !ENGINE_CAPABILITIES[db].logicalReplication) {
      throw new InvalidInput(`postgresLogicalReplicationEnabled applies to ${DATABASE_ENGINES.filter((e) => ENGINE_CAPABILITIES[e].logicalReplication).join(' and ')} only`);
    }
    return {
      ...common,
      repoFullName: `database:${db}`,
      repoUrl: REPO_URL_DATABASE,
      dockerImage: null,
      internalPort: port,
      databaseEngine: db,
      databasePublicEnabled: input.databasePublicEnabled ?? false,
      databasePublicHostname: input.databasePublicHostname ? normalizeHostname(input.databasePublicHostname) : null,
      postgresLogicalReplicationEnabled: replication,
      nodeId: input.nodeId ?? null,
    };
  }

  if (kind === 'image') {
    const fromName = input.repoFullName?.startsWith('image:') ? input.repoFullName.slice('image:'.length) : null;
    const image = input.dockerImage ?? fromName;
    if (!image) throw new InvalidInput('an image service needs dockerImage');
    checkImageRef(image);
    return {
      ...common,
      repoFullName: `image:${image}`,
      repoUrl: REPO_URL_IMAGE,
      dockerImage: image,
      internalPort: portFor(mode, input.internalPort, mode === 'worker' ? null : IMAGE_DEFAULT_PORT),
    };
  }

  if (input.repoFullName && input.repoUrl) {
    throw new InvalidInput('give either repoFullName (owner/name) or repoUrl (a git URL), not both');
  }
  return {
    ...common,
    repoFullName: input.repoFullName ? checkRepoFullName(input.repoFullName) : null,
    repoUrl: input.repoUrl ? checkGitUrl(input.repoUrl) : null,
    dockerImage: null,
    branch: checkBranch(input.branch ?? DEFAULT_BRANCH),
    rootDir: checkRelativePath('rootDir', input.rootDir),
    githubToken: input.githubToken || null,
    dockerfilePath: checkRelativePath('dockerfilePath', input.dockerfilePath),
    staticOutput: checkRelativePath('staticOutput', input.staticOutput),
    internalPort: portFor(mode, input.internalPort, DEFAULT_PORT[mode]),
  };
}
