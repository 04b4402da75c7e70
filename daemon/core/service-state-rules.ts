// The rules for a service's volumes, config files, deploy strategy and release command (issue 28's
// "Bad input and limits"), and its replicas and placement (issue 29): each refusal names its rule.
// Whether replicas above 1 are allowed (Swarm on) is core/services.ts's check, which needs the Engine. Pure: no store, no I/O; the checks that
// need the store (a volume another service mounts) are in core/service-volumes.ts.
import { posix } from 'node:path';
import type { ConfigFileInput, DeployStrategy, NewServiceInput, ServicePatch, ServicePlacement, ServiceVolumeInput } from '../../shared/types.js';
import { InvalidInput } from './errors.js';
import type { ConfigFileRecord, ServiceKind, ServiceRecord, VolumeMount } from './records.js';

const DEFAULT_RELEASE_TIMEOUT_SECONDS = 600;
const STATE_LIMITS = {
  volumesPerService: 10,
  filesPerService: 20,
  fileBytes: 64 * 1024,
  filesBytes: 256 * 1024,
  releaseArgs: 64,
  releaseArgChars: 4096,
  releaseTimeoutMax: 3600,
  pathChars: 1024,
  replicasMax: 100,
  placementLabels: 20,
  labelChars: 128,
} as const;
/** Docker's node label keys: letters, digits, dots, dashes, underscores (a reverse-DNS prefix allowed). */
const NODE_LABEL_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const VOLUME_NAME_PATTERN = /^[a-z0-9][a-z0-9_.-]{0,62}$/;
const FILE_MODE_PATTERN = /^0?[0-7]{3}$/;
const DEFAULT_FILE_MODE = '0644';
const KERNEL_TREES = ['/proc', '/sys', '/dev'];
const DEPLOY_STRATEGIES: readonly DeployStrategy[] = ['rolling', 'recreate'];

/** The fields of a service record these rules decide. */
type ServiceState = Pick<ServiceRecord, 'volumes' | 'files' | 'deployStrategy' | 'releaseCommand' | 'releaseTimeoutSeconds' | 'replicas' | 'placement'>;

const EMPTY_STATE: ServiceState = { volumes: [], files: [], deployStrategy: 'rolling', releaseCommand: null, releaseTimeoutSeconds: null, replicas: 1, placement: {} };

/** An absolute path inside a container, normalised: never `/`, never in the kernel's trees, no `..`. */
function checkContainerPath(what: string, raw: string): string {
  if (raw.length === 0 || raw.length > STATE_LIMITS.pathChars) throw new InvalidInput(`${what} must be 1 to ${STATE_LIMITS.pathChars} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw new InvalidInput(`${what} must not contain control characters`);
  if (!raw.startsWith('/')) throw new InvalidInput(`${what} must be an absolute path (starting with /): "${raw.slice(0, 80)}"`);
  if (raw.split('/').includes('..')) throw new InvalidInput(`${what} must not contain ".." segments: "${raw.slice(0, 80)}"`);
  let path = posix.normalize(raw);
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  if (path === '/') throw new InvalidInput(`${what} must not be / (the container's root)`);
  for (const tree of KERNEL_TREES) {
    if (path === tree || path.startsWith(`${tree}/`)) throw new InvalidInput(`${what} must not be under ${tree}: "${path.slice(0, 80)}"`);
  }
  return path;
}

function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

function checkVolumes(input: readonly ServiceVolumeInput[]): VolumeMount[] {
  if (input.length > STATE_LIMITS.volumesPerService) throw new InvalidInput(`a service mounts at most ${STATE_LIMITS.volumesPerService} volumes`);
  const out: VolumeMount[] = [];
  for (const v of input) {
    if (!VOLUME_NAME_PATTERN.test(v.name)) throw new InvalidInput(`volume name "${v.name.slice(0, 80)}" must match ${VOLUME_NAME_PATTERN.source}`);
    if (out.some((o) => o.name === v.name)) throw new InvalidInput(`volume ${v.name} is given twice`);
    out.push({ name: v.name, mountPath: checkContainerPath(`volume ${v.name}: mountPath`, v.mountPath), readOnly: v.readOnly ?? false });
  }
  return out;
}

function checkFiles(input: readonly ConfigFileInput[]): ConfigFileRecord[] {
  if (input.length > STATE_LIMITS.filesPerService) throw new InvalidInput(`a service has at most ${STATE_LIMITS.filesPerService} config files`);
  const out: ConfigFileRecord[] = [];
  let total = 0;
  for (const f of input) {
    const path = checkContainerPath('config file path', f.path);
    const bytes = new TextEncoder().encode(f.content).length;
    if (bytes > STATE_LIMITS.fileBytes) throw new InvalidInput(`config file ${path}: content must be at most ${STATE_LIMITS.fileBytes} bytes (64 KiB)`);
    total += bytes;
    if (total > STATE_LIMITS.filesBytes) throw new InvalidInput(`config files must be at most ${STATE_LIMITS.filesBytes} bytes (256 KiB) together`);
    const mode = f.mode ?? DEFAULT_FILE_MODE;
    if (!FILE_MODE_PATTERN.test(mode)) throw new InvalidInput(`config file ${path}: mode "${mode.slice(0, 20)}" must be octal permission bits such as "0644" (${FILE_MODE_PATTERN.source})`);
    out.push({ path, content: f.content, mode: mode.length === 3 ? `0${mode}` : mode });
  }
  return out;
}

/** Mount paths must not overlap one another or a config file, nor config files one another. */
function checkNoOverlap(volumes: readonly VolumeMount[], files: readonly ConfigFileRecord[]): void {
  const targets = [...volumes.map((v) => ({ what: `volume ${v.name}`, path: v.mountPath })), ...files.map((f) => ({ what: `config file ${f.path}`, path: f.path }))];
  for (let i = 0; i < targets.length; i++) {
    for (let j = i + 1; j < targets.length; j++) {
      const a = targets[i]!;
      const b = targets[j]!;
      if (overlaps(a.path, b.path)) throw new InvalidInput(`mount paths must not overlap: ${a.what} at ${a.path} and ${b.what} at ${b.path}`);
    }
  }
}

function checkReleaseCommand(input: readonly string[] | null): string[] | null {
  if (input === null || input.length === 0) return null;
  if (input.length > STATE_LIMITS.releaseArgs) throw new InvalidInput(`releaseCommand has at most ${STATE_LIMITS.releaseArgs} arguments`);
  for (const arg of input) {
    if (arg.length === 0) throw new InvalidInput('releaseCommand arguments must be non-empty strings');
    if (arg.length > STATE_LIMITS.releaseArgChars) throw new InvalidInput(`releaseCommand arguments must be at most ${STATE_LIMITS.releaseArgChars} characters`);
    if (arg.includes('\u0000')) throw new InvalidInput('releaseCommand arguments must not contain NUL characters');
  }
  return [...input];
}

function checkReleaseTimeout(input: number | null): number | null {
  if (input === null) return null;
  if (!Number.isInteger(input) || input < 1 || input > STATE_LIMITS.releaseTimeoutMax) {
    throw new InvalidInput(`releaseTimeoutSeconds must be a whole number from 1 to ${STATE_LIMITS.releaseTimeoutMax}`);
  }
  return input;
}

function checkStrategy(input: string): DeployStrategy {
  if (!(DEPLOY_STRATEGIES as readonly string[]).includes(input)) throw new InvalidInput(`deployStrategy must be one of ${DEPLOY_STRATEGIES.join(', ')}`);
  return input as DeployStrategy;
}

function checkReplicas(input: number): number {
  if (!Number.isInteger(input) || input < 1 || input > STATE_LIMITS.replicasMax) throw new InvalidInput(`replicas must be a whole number from 1 to ${STATE_LIMITS.replicasMax}`);
  return input;
}

function checkPlacement(input: ServicePlacement): Record<string, string> {
  return checkNodeLabels(input?.nodeLabels, 'placement.nodeLabels');
}

/** Node labels (a placement's, or a node's own through PATCH /api/nodes/:id): names Docker takes, values a constraint can hold. */
export function checkNodeLabels(labels: unknown, field: string): Record<string, string> {
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels)) throw new InvalidInput(`${field} must be an object of label names to values`);
  const entries = Object.entries(labels);
  if (entries.length > STATE_LIMITS.placementLabels) throw new InvalidInput(`${field} may hold at most ${STATE_LIMITS.placementLabels} labels`);
  for (const [k, v] of entries) {
    if (k.length > STATE_LIMITS.labelChars || !NODE_LABEL_KEY_PATTERN.test(k))
      throw new InvalidInput(`${field}: ${JSON.stringify(k.slice(0, 40))} is not a node label name (letters, digits, '.', '-', '_')`);
    // a value is written into a Swarm constraint (`node.labels.k==v`): no operator characters in it
    if (typeof v !== 'string' || v.length > STATE_LIMITS.labelChars || /[=!\s,]/.test(v) || [...v].some((c) => c < ' ')) {
      throw new InvalidInput(`${field}.${k} must be text of at most ${STATE_LIMITS.labelChars} characters without spaces, '=', '!' or ','`);
    }
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

type StateInput = Pick<NewServiceInput, 'volumes' | 'files' | 'deployStrategy' | 'releaseCommand' | 'releaseTimeoutSeconds' | 'replicas' | 'placement'>;

function given(input: StateInput): (keyof StateInput)[] {
  return (['volumes', 'files', 'deployStrategy', 'releaseCommand', 'releaseTimeoutSeconds', 'replicas', 'placement'] as const).filter((k) => input[k] !== undefined);
}

/** A database service runs its engine's container: none of these apply (beyond their defaults). */
function refuseForDatabase(kind: ServiceKind, input: StateInput): void {
  if (kind !== 'database') return;
  const set = given(input).filter((k) => {
    const v = input[k];
    const isDefault = v === null || (Array.isArray(v) && v.length === 0) || v === 'rolling' || v === 1;
    const noLabels = k === 'placement' && typeof v === 'object' && v !== null && Object.keys((v as ServicePlacement).nodeLabels ?? {}).length === 0;
    return !(isDefault || noLabels);
  });
  if (set.length > 0) throw new InvalidInput(`${set.join(', ')} apply to git and image services only`);
}

/** The state of a new service from its create request. */
export function stateOf(kind: ServiceKind, input: StateInput): ServiceState {
  refuseForDatabase(kind, input);
  return applyState(EMPTY_STATE, input);
}

/** The fields a patch changes (only those it gives), checked together with what stays. */
export function statePatch(service: ServiceRecord, patch: Pick<ServicePatch, keyof StateInput>): Partial<ServiceState> {
  refuseForDatabase(service.kind, patch);
  const after = applyState(service, patch);
  const change: Partial<ServiceState> = {};
  for (const k of given(patch) as (keyof ServiceState)[]) Object.assign(change, { [k]: after[k] });
  return change;
}

function applyState(base: ServiceState, input: StateInput): ServiceState {
  const out: ServiceState = {
    volumes: input.volumes !== undefined ? checkVolumes(input.volumes) : base.volumes,
    files: input.files !== undefined ? checkFiles(input.files) : base.files,
    deployStrategy: input.deployStrategy !== undefined ? checkStrategy(input.deployStrategy) : base.deployStrategy,
    releaseCommand: input.releaseCommand !== undefined ? checkReleaseCommand(input.releaseCommand) : base.releaseCommand,
    releaseTimeoutSeconds: input.releaseTimeoutSeconds !== undefined ? checkReleaseTimeout(input.releaseTimeoutSeconds) : base.releaseTimeoutSeconds,
    replicas: input.replicas !== undefined ? checkReplicas(input.replicas) : base.replicas,
    placement: input.placement !== undefined ? checkPlacement(input.placement) : base.placement,
  };
  checkNoOverlap(out.volumes, out.files);
  return out;
}

/** The release command's time limit in seconds. */
export function releaseTimeoutOf(service: Pick<ServiceRecord, 'releaseTimeoutSeconds'>): number {
  return service.releaseTimeoutSeconds ?? DEFAULT_RELEASE_TIMEOUT_SECONDS;
}
