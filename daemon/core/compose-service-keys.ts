// The compose service keys whose entries map one by one (ports, volumes, healthcheck, deploy):
// each entry is either taken or listed unsupported under its own key (`ports[1]`,
// `deploy.replicas`). Pure; the volume and file rules are core's (service-state-rules.ts).
import type { ComposeContext, ServiceDraft } from './compose-draft.js';
import { commandOf, durationSeconds, isMap, mountSpec, portSpec, scalarText, sizeMb } from './compose-values.js';
import { stateOf } from './service-state-rules.js';

/** true: the key is mapped (some entries may be listed unsupported); a string: the whole key is unsupported, why; 'parts': every entry is listed unsupported. */
type KeyResult = true | string | 'parts';

const DOCKER_SOCKET = 'the Docker socket gives full control of the server: it is never mounted into a service';
const VOLUME_NAME = /^[a-z0-9][a-z0-9_.-]{0,62}$/;

function unsupported(d: ServiceDraft, key: string, why: string): void {
  d.unsupported.push({ service: d.service, key, why });
}

export function mapPorts(value: unknown, d: ServiceDraft, key: 'ports' | 'expose'): KeyResult {
  if (d.engine) {
    return key === 'expose' ? true : 'a managed database is private to its project; turn on its public access (databasePublicEnabled) to reach it from outside';
  }
  if (!Array.isArray(value)) return `${key} must be a list`;
  const input = d.berth.input;
  let mapped = 0;
  value.forEach((entry, i) => {
    const spec = portSpec(entry);
    const at = `${key}[${i}]`;
    if (!spec) unsupported(d, at, 'the port cannot be read');
    else if (spec.protocol !== 'tcp') unsupported(d, at, 'Berth routes TCP (HTTP) ports only');
    else if (spec.range) unsupported(d, at, 'port ranges are not supported: Berth routes one port per service');
    else if (input.internalPort == null) {
      input.internalPort = spec.container;
      input.runtimeMode = 'web';
      d.berth.generatedName = true;
      mapped++;
    } else if (input.internalPort === spec.container) mapped++;
    else unsupported(d, at, `Berth routes one port per service (${input.internalPort} inside); port ${spec.container} is reachable only from the project's other services`);
  });
  return mapped > 0 || value.length === 0 ? true : 'parts';
}

function volumeName(raw: string): string {
  const name = raw
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 63);
  return name || 'data';
}

/** The rules a single volume or file must pass (mount path, name, size), as a reason, or null. */
function refusal(check: () => unknown): string | null {
  try {
    check();
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

export function mapMounts(value: unknown, d: ServiceDraft, ctx: ComposeContext): KeyResult {
  if (!Array.isArray(value)) return 'volumes must be a list';
  const input = d.berth.input;
  let mapped = 0;
  let dataWarned = false;
  value.forEach((entry, i) => {
    const at = `volumes[${i}]`;
    const m = mountSpec(entry);
    if (!m) return unsupported(d, at, 'the mount cannot be read');
    if ((m.source ?? '').endsWith('docker.sock') || m.target.endsWith('docker.sock')) return unsupported(d, at, DOCKER_SOCKET);
    if (m.type === 'tmpfs' || m.type === 'other') return unsupported(d, at, `${m.type === 'tmpfs' ? 'tmpfs' : 'this kind of'} mount is not supported`);
    if (d.engine) {
      if (m.type === 'bind') return unsupported(d, at, 'a managed database takes no mounted files; run such a script against it after the import (berth db query)');
      if (!dataWarned) d.warnings.push(`${d.service}: the managed database keeps its data in a volume of its own (backed up by Berth); its compose volumes are not created`);
      dataWarned = true;
      mapped++;
      return;
    }
    if (m.type === 'bind') {
      const source = m.source ?? '';
      const content = ctx.files.get(source) ?? ctx.files.get(source.replace(/^\.\//, ''));
      if (content === undefined) {
        const why = source.startsWith('.')
          ? `the content of ${source} was not supplied (give it in files to get a config file; a directory cannot be imported: use a named volume)`
          : "a bind mount of a host path: Berth never mounts the server's files into a service; use a named volume, or supply the file's content in files to get a config file";
        return unsupported(d, at, why);
      }
      const file = { path: m.target, content };
      const why = refusal(() => stateOf('image', { files: [...(input.files ?? []), file], volumes: input.volumes ?? [] }));
      if (why) return unsupported(d, at, why);
      if (!m.readOnly) d.warnings.push(`${d.service}: ${m.target} becomes a config file, which is mounted read-only`);
      input.files = [...(input.files ?? []), file];
      mapped++;
      return;
    }
    const given = m.source ?? `${d.berth.name}-${m.target.split('/').filter(Boolean).pop() ?? 'data'}`;
    const name = volumeName(given);
    if (!VOLUME_NAME.test(name)) return unsupported(d, at, `the volume name ${given} cannot become a Berth volume name`);
    if (m.source === null) d.warnings.push(`${d.service}: the anonymous volume at ${m.target} becomes the named volume ${name} (kept across deployments)`);
    else if (name !== given) d.warnings.push(`${d.service}: the volume ${given} becomes the Berth volume ${name}`);
    const volume = { name, mountPath: m.target, readOnly: m.readOnly };
    const why = refusal(() => stateOf('image', { volumes: [...(input.volumes ?? []), volume], files: input.files ?? [] }));
    if (why) return unsupported(d, at, why);
    input.volumes = [...(input.volumes ?? []), volume];
    mapped++;
  });
  return mapped > 0 || value.length === 0 ? true : 'parts';
}

export function mapHealthcheck(value: unknown, d: ServiceDraft): KeyResult {
  if (!isMap(value)) return 'healthcheck must be a mapping';
  if (value.disable === true) return true;
  const test = commandOf(value.test);
  if (test === null) return "the image's own health check cannot be read: give test";
  let command: string[] | null;
  if (typeof test === 'string') command = ['sh', '-c', test];
  else if (test[0] === 'NONE') command = null;
  else if (test[0] === 'CMD' && test.length > 1) command = test.slice(1);
  else if (test[0] === 'CMD-SHELL' && test.length > 1) command = ['sh', '-c', test.slice(1).join(' ')];
  else return 'test must be a command text, or a list starting with CMD, CMD-SHELL or NONE';
  if (command === null) return true;
  const seconds = (key: string, fallback: number): number | string => {
    if (value[key] === undefined) return fallback;
    const s = durationSeconds(value[key]);
    return s === null ? `${key} must be a duration such as 10s or 1m30s` : s;
  };
  const interval = seconds('interval', 30);
  const timeout = seconds('timeout', 30);
  const start = seconds('start_period', 0);
  for (const v of [interval, timeout, start]) if (typeof v === 'string') return v;
  const retries = value.retries === undefined ? 3 : Number(value.retries);
  if (!Number.isInteger(retries) || retries < 0) return 'retries must be a whole number';
  d.berth.healthcheck = { command, intervalSeconds: interval as number, timeoutSeconds: timeout as number, retries, startPeriodSeconds: start as number };
  return true;
}

const SWARM_ONLY = 'a Swarm setting: Berth runs one container per service on this server';

function mapResources(value: unknown, d: ServiceDraft): boolean {
  if (!isMap(value)) {
    unsupported(d, 'deploy.resources', 'resources must be a mapping');
    return false;
  }
  let mapped = false;
  for (const [key, sub] of Object.entries(value)) {
    if (key !== 'limits') {
      unsupported(d, `deploy.resources.${key}`, key === 'reservations' ? 'Berth does not reserve resources; only limits apply' : 'not a resources key Berth knows');
      continue;
    }
    if (!isMap(sub)) {
      unsupported(d, 'deploy.resources.limits', 'limits must be a mapping');
      continue;
    }
    for (const [limit, raw] of Object.entries(sub)) {
      const at = `deploy.resources.limits.${limit}`;
      const limits = (d.berth.limits ??= {});
      if (limit === 'memory' && sizeMb(raw) !== null) limits.memoryMb = sizeMb(raw)!;
      else if (limit === 'cpus' && Number(raw) > 0) limits.cpus = Number(raw);
      else if (limit === 'pids' && Number.isInteger(Number(raw)) && Number(raw) > 0) limits.pids = Number(raw);
      else {
        unsupported(d, at, limit === 'memory' || limit === 'cpus' || limit === 'pids' ? `the value ${String(scalarText(raw))} cannot be read` : 'Berth limits memory, CPUs and processes only');
        continue;
      }
      mapped = true;
    }
  }
  return mapped;
}

export function mapDeploy(value: unknown, d: ServiceDraft): KeyResult {
  if (!isMap(value)) return 'deploy must be a mapping';
  const keys = Object.keys(value);
  let mapped = 0;
  for (const key of keys) {
    const sub = value[key];
    if (key === 'resources') {
      if (mapResources(sub, d)) mapped++;
    } else if (key === 'replicas') {
      if (Number(sub) === 1) mapped++;
      else unsupported(d, 'deploy.replicas', 'several replicas need Swarm, which this server does not run yet: one container is created');
    } else if (key === 'restart_policy') {
      if (isMap(sub) && sub.condition === 'none') d.warnings.push(`${d.service}: restart_policy none is not honoured; Berth restarts containers that stop`);
      mapped++;
    } else if (key === 'mode' && sub === 'replicated') mapped++;
    else unsupported(d, `deploy.${key}`, SWARM_ONLY);
  }
  return mapped > 0 || keys.length === 0 ? true : 'parts';
}
