// One compose service -> what the import creates: the target (image, git, managed database or
// skipped), then every key of the service either mapped or listed unsupported with a plain reason
// (nothing is dropped silently). References between services are rewritten afterwards
// (core/compose-references.ts), since they need every service's Berth name. Pure.
import { ENV_KEY_PATTERN, REPO_URL_DATABASE, REPO_URL_IMAGE } from '../../shared/constants.js';
import type { ComposeBerthService, ComposeTarget, DatabaseEngine, NewServiceInput } from '../../shared/types.js';
import type { ComposeContext, ServiceDraft } from './compose-draft.js';
import { mapDeploy, mapHealthcheck, mapMounts, mapPorts } from './compose-service-keys.js';
import { commandOf, databaseEngineOf, databaseVariableName, isMap, scalarText, shellJoin, sizeMb, type Plain } from './compose-values.js';
import { InvalidInput } from './errors.js';
import { imageRefProblem } from './image-refs.js';

const SECURITY: Record<string, string> = {
  privileged: 'a privileged container gets every capability and the host devices: Berth never runs one',
  network_mode: "Berth joins every service to its project's private network; the host's network (or another container's) would reach every port of the server",
  pid: "sharing a PID namespace lets the container see and signal processes outside it (the host's with pid: host)",
  ipc: "sharing an IPC namespace (the host's with ipc: host) breaks the isolation between containers",
  uts: "sharing the host's UTS namespace lets the container change the server's hostname",
  userns_mode: 'user namespace settings change how container users map to the host',
  devices: 'host devices are never passed into containers',
  device_cgroup_rules: 'device access rules are never widened',
  cap_add: "added capabilities widen what a container may do to the host; Berth runs containers with Docker's default set",
  security_opt: 'security options can turn off seccomp or AppArmor confinement',
  sysctls: 'kernel parameters of the container are not changed',
  cgroup_parent: 'containers stay in the cgroups Berth gives them',
  cgroup: 'containers stay in the cgroups Berth gives them',
  volumes_from: "another container's mounts are not shared; mount a named volume in both services instead",
  runtime: "containers run with Docker's default runtime",
  isolation: "containers run with Docker's default isolation",
  oom_kill_disable: 'the kernel may always stop a container over its memory limit',
  gpus: 'GPUs are not passed into containers',
};

const OTHER: Record<string, string> = {
  labels: 'Berth sets its own container labels; routing labels (Traefik, Caddy) do not apply: add a domain to the service instead',
  logging: "Berth collects each container's output in its own log (berth logs); log drivers are not configured",
  user: "Berth runs the image's own user; the user cannot be set yet",
  working_dir: "Berth runs in the image's working directory; it cannot be set yet",
  stop_grace_period: "Berth stops containers with Docker's default signal and grace period",
  stop_signal: "Berth stops containers with Docker's default signal and grace period",
  extra_hosts: 'extra /etc/hosts entries cannot be set',
  dns: "containers use Docker's DNS (which resolves the project's services)",
  dns_search: "containers use Docker's DNS (which resolves the project's services)",
  dns_opt: "containers use Docker's DNS (which resolves the project's services)",
  domainname: 'the container domain name cannot be set',
  mac_address: 'the MAC address cannot be set',
  ulimits: 'Berth sets its own process limit (limits.pids); other ulimits cannot be set',
  shm_size: 'the /dev/shm size cannot be set yet',
  tmpfs: 'tmpfs mounts are not supported yet',
  read_only: 'a read-only root filesystem cannot be set yet',
  init: 'an init process cannot be added yet',
  stdin_open: 'no terminal is attached to a service; use `berth exec` for one',
  tty: 'no terminal is attached to a service; use `berth exec` for one',
  platform: "images run for this server's platform",
  pull_policy: 'Berth pulls the image at each deployment',
  profiles: 'profiles are not applied: every service of the file is imported',
  configs: 'Compose configs are not supported; bind-mount the file and supply its content (files) to get a config file',
  secrets: 'Compose secrets are not supported; use a variable, or bind-mount the file and supply its content (files)',
  external_links: 'containers outside the project are not reachable',
  cap_drop: "capabilities cannot be dropped yet; containers run with Docker's default set",
  extends: 'extends reads another file or service: merge it into this file first',
  mem_reservation: 'Berth does not reserve resources; only limits apply',
  memswap_limit: 'swap is never allowed beyond the memory limit',
  mem_swappiness: 'swap is never allowed beyond the memory limit',
  cpu_shares: 'Berth limits CPUs (cpus); CPU shares cannot be set',
  cpu_quota: 'Berth limits CPUs (cpus); use cpus instead',
  cpu_period: 'Berth limits CPUs (cpus); use cpus instead',
  cpuset: 'containers cannot be pinned to CPUs',
  cpu_count: 'Berth limits CPUs (cpus); use cpus instead',
  cpu_percent: 'Berth limits CPUs (cpus); use cpus instead',
  blkio_config: 'block I/O weights cannot be set',
  storage_opt: 'storage driver options cannot be set',
  group_add: 'extra groups cannot be given to the container user',
  oom_score_adj: "the kernel's OOM score cannot be changed",
  annotations: 'container annotations are not set',
  attach: 'Berth keeps every log; attach has no meaning here',
  develop: 'development watch rules do not apply to a deployed service',
  post_start: 'lifecycle hooks are not supported yet',
  pre_stop: 'lifecycle hooks are not supported yet',
  label_file: 'Berth sets its own container labels',
  use_api_socket: 'the Docker socket is never given to a service',
  models: 'model runners are not supported',
  provider: 'provider services are not supported',
};

type KeyResult = true | string | 'parts';
type Handler = (value: unknown, d: ServiceDraft, ctx: ComposeContext, raw: Plain) => KeyResult;

const berthInput = (d: ServiceDraft): NewServiceInput => d.berth.input;

function envEntries(value: unknown, d: ServiceDraft, ctx: ComposeContext): Map<string, string> | string {
  const out = new Map<string, string>();
  const put = (key: string, raw: unknown) => {
    const text = raw === null || raw === undefined ? ctx.vars.get(key) : scalarText(raw);
    if (text === undefined) d.warnings.push(`${d.service}: ${key} takes its value from the shell in Compose; it is not set in the .env text, so it is left out`);
    else if (text === null) d.unsupported.push({ service: d.service, key: `environment.${key}`, why: 'a variable value must be a string, number or boolean' });
    else out.set(key, text);
  };
  if (Array.isArray(value)) {
    for (const item of value) {
      const text = scalarText(item);
      if (text === null) return 'each list item must be KEY=VALUE';
      const eq = text.indexOf('=');
      if (eq < 0) put(text, null);
      else put(text.slice(0, eq), text.slice(eq + 1));
    }
  } else if (isMap(value)) {
    for (const [key, raw] of Object.entries(value)) put(key, raw);
  } else return 'environment must be a list of KEY=VALUE or a mapping';
  return out;
}

function addEnv(d: ServiceDraft, vars: Map<string, string>, where: string): void {
  for (const [rawKey, value] of vars) {
    const key = d.engine ? databaseVariableName(rawKey) : rawKey;
    if (!ENV_KEY_PATTERN.test(key)) {
      d.unsupported.push({ service: d.service, key: `${where}.${rawKey}`, why: `Berth variable names are upper-case letters, digits and _ (${ENV_KEY_PATTERN.source})` });
      continue;
    }
    const at = d.berth.env.findIndex((e) => e.key === key);
    if (at >= 0) d.berth.env.splice(at, 1);
    d.berth.env.push({ key, value });
  }
}

function envFilePaths(value: unknown): { path: string; required: boolean }[] | null {
  const list = Array.isArray(value) ? value : [value];
  const out: { path: string; required: boolean }[] = [];
  for (const item of list) {
    if (typeof item === 'string') out.push({ path: item, required: true });
    else if (isMap(item) && typeof item.path === 'string') out.push({ path: item.path, required: item.required !== false });
    else return null;
  }
  return out;
}

function limitsOf(d: ServiceDraft): NonNullable<ComposeBerthService['limits']> {
  d.berth.limits ??= {};
  return d.berth.limits;
}

const HANDLERS: Record<string, Handler> = {
  image: (_v, d) => (d.becomes === 'git' ? 'the service is built from the repository; the image name it would be tagged with is not used' : true),
  build: (v, d) => {
    if (d.becomes !== 'git')
      return d.becomes === 'skipped' ? 'building needs the repository the file belongs to (give repository with the file)' : 'no repository was given: the image is pulled instead of built';
    const build = typeof v === 'string' ? { context: v } : isMap(v) ? v : null;
    if (!build) return 'build must be a path or a mapping';
    const input = berthInput(d);
    for (const [key, value] of Object.entries(build)) {
      if (key === 'context') {
        const context =
          scalarText(value)
            ?.replace(/^\.\/?/, '')
            .replace(/\/$/, '') ?? '';
        if (/^[a-z]+:\/\//i.test(context))
          d.unsupported.push({ service: d.service, key: 'build.context', why: 'a remote build context is not supported: the repository given with the file is built' });
        else input.rootDir = context === '' ? null : context;
      } else if (key === 'dockerfile') input.dockerfilePath = scalarText(value);
      else if (key === 'args') d.unsupported.push({ service: d.service, key: 'build.args', why: 'Berth builds without build arguments: give them defaults in the Dockerfile (ARG NAME=value)' });
      else d.unsupported.push({ service: d.service, key: `build.${key}`, why: 'Berth builds the Dockerfile with its defaults; this build option is not supported' });
    }
    return true;
  },
  environment: (v, d, ctx) => {
    const vars = envEntries(v, d, ctx);
    if (typeof vars === 'string') return vars;
    addEnv(d, vars, 'environment');
    return true;
  },
  env_file: (v, d, ctx) => {
    const paths = envFilePaths(v);
    if (!paths) return 'env_file must be a path, a list of paths or of {path, required}';
    let mapped = 0;
    paths.forEach(({ path, required }, i) => {
      const text = ctx.files.get(path) ?? ctx.files.get(path.replace(/^\.\//, ''));
      if (text !== undefined) {
        // read before environment (planService's order): environment's values win
        addEnv(d, ctx.parseEnv(text, `env_file ${path}`), 'env_file');
        mapped++;
      } else if (!required) {
        d.warnings.push(`${d.service}: the optional env_file ${path} was not supplied, so nothing is read from it`);
        mapped++;
      } else d.unsupported.push({ service: d.service, key: paths.length > 1 ? `env_file[${i}]` : 'env_file', why: `the content of ${path} was not supplied (give it in files)` });
    });
    return mapped > 0 ? true : 'parts';
  },
  ports: (v, d) => mapPorts(v, d, 'ports'),
  expose: (v, d) => mapPorts(v, d, 'expose'),
  volumes: (v, d, ctx) => mapMounts(v, d, ctx),
  command: (v, d) => {
    if (d.engine) return 'a managed database runs its own command; Berth sets its configuration';
    if (d.becomes === 'git') return "a service built from a Dockerfile runs the Dockerfile's CMD; change it there";
    const command = commandOf(v);
    if (command === null) return 'command must be a string or a list of strings';
    const text = typeof command === 'string' ? command : shellJoin(command);
    if (text.trim().startsWith('-')) return "these are arguments for the image's entrypoint; Berth runs a startCommand through sh -c, which cannot pass them";
    berthInput(d).startCommand = text;
    return true;
  },
  entrypoint: () => "Berth runs the image's own entrypoint; replacing it is not supported yet (put the whole command in command if the entrypoint passes it on)",
  healthcheck: (v, d) => mapHealthcheck(v, d),
  restart: (v, d) => {
    if (v === 'no' || v === false) d.warnings.push(`${d.service}: restart: no is not honoured; Berth restarts containers that stop`);
    return true;
  },
  deploy: (v, d) => mapDeploy(v, d),
  mem_limit: (v, d) => {
    const mb = sizeMb(v);
    if (mb === null) return 'mem_limit must be a size such as 512m or 1g';
    limitsOf(d).memoryMb = mb;
    return true;
  },
  cpus: (v, d) => {
    const cpus = Number(v);
    if (!Number.isFinite(cpus) || cpus <= 0) return 'cpus must be a positive number';
    limitsOf(d).cpus = cpus;
    return true;
  },
  pids_limit: (v, d) => {
    const pids = Number(v);
    if (!Number.isInteger(pids) || pids <= 0) return 'pids_limit must be a positive whole number (Berth always limits processes)';
    limitsOf(d).pids = pids;
    return true;
  },
  scale: (v) => (Number(v) === 1 ? true : 'several replicas need Swarm, which this server does not run yet: one container is created'),
  depends_on: (v, d) => {
    if (Array.isArray(v)) {
      for (const s of v) if (typeof s === 'string') d.dependsOn.push({ service: s, condition: 'service_started' });
      return true;
    }
    if (!isMap(v)) return 'depends_on must be a list or a mapping';
    for (const [service, spec] of Object.entries(v)) {
      const condition = isMap(spec) && typeof spec.condition === 'string' ? spec.condition : 'service_started';
      if (condition !== 'service_started' && condition !== 'service_healthy' && condition !== 'service_completed_successfully') {
        throw new InvalidInput(`services.${d.service}.depends_on.${service}: condition must be service_started, service_healthy or service_completed_successfully`);
      }
      if (condition === 'service_completed_successfully')
        d.warnings.push(`${d.service}: ${service} is waited for until its deployment is live (Berth has no run-once services; service_completed_successfully waits like service_started)`);
      d.dependsOn.push({ service, condition });
    }
    return true;
  },
  links: (v, d) => {
    if (!Array.isArray(v)) return 'links must be a list';
    for (const link of v) {
      const [service] = String(link).split(':');
      if (service) d.dependsOn.push({ service, condition: 'service_started' });
    }
    return true;
  },
  container_name: (v, d) => {
    // other services may name it: their variables then reference this service (compose-references.ts)
    if (typeof v === 'string') d.aliases.push(v);
    d.warnings.push(`${d.service}: Berth names the container itself; other services reach it by its service name`);
    return true;
  },
  hostname: (v, d) => {
    if (typeof v === 'string') d.aliases.push(v);
    return true;
  },
  networks: (v, d) => {
    const names = Array.isArray(v) ? v : isMap(v) ? Object.keys(v) : null;
    if (!names) return 'networks must be a list or a mapping';
    if (isMap(v)) {
      for (const net of Object.values(v)) {
        if (isMap(net) && Array.isArray(net.aliases)) for (const a of net.aliases) if (typeof a === 'string') d.aliases.push(a);
      }
    }
    if (names.length > 1) d.warnings.push(`${d.service}: every service of a Berth project shares one private network; the separation between its compose networks is not kept`);
    return true;
  },
};

/** The Berth name: the compose name (a `.` would end a reference's service part), made unique in the project. */
export function berthName(composeName: string, taken: Set<string>, warnings: string[]): string {
  const base = composeName.replace(/\./g, '-').slice(0, 100);
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base.slice(0, 95)}-${n}`;
  if (name !== composeName) warnings.push(`${composeName}: becomes the Berth service "${name}" (${taken.has(base) ? 'the name is taken in this project' : 'a Berth name has no dots'})`);
  taken.add(name);
  return name;
}

function targetOf(composeName: string, raw: Plain, ctx: ComposeContext): { becomes: ComposeTarget; engine: DatabaseEngine | null; input: NewServiceInput } {
  const image = typeof raw.image === 'string' ? raw.image : null;
  if (raw.build !== undefined && ctx.repository) {
    return {
      becomes: 'git',
      engine: null,
      input: { name: '', repoUrl: ctx.repository.url, branch: ctx.repository.branch ?? 'main', buildMethod: 'dockerfile', runtimeMode: 'worker', internalPort: null },
    };
  }
  if (!image) return { becomes: 'skipped', engine: null, input: { name: '' } };
  const problem = imageRefProblem(image);
  if (problem) throw new InvalidInput(`services.${composeName}.image "${image.slice(0, 80)}" ${problem}`, 'invalid_image_reference');
  const engine = ctx.plainImages.has(composeName) ? null : databaseEngineOf(image);
  if (engine) return { becomes: `database:${engine}`, engine, input: { name: '', repoFullName: `database:${engine}`, repoUrl: REPO_URL_DATABASE } };
  return { becomes: 'image', engine: null, input: { name: '', repoUrl: REPO_URL_IMAGE, dockerImage: image, runtimeMode: 'worker', internalPort: null } };
}

/** Maps one compose service; `name` is its Berth name. */
export function planService(composeName: string, raw: Plain, name: string, ctx: ComposeContext): ServiceDraft {
  const target = targetOf(composeName, raw, ctx);
  const d: ServiceDraft = {
    service: composeName,
    ...target,
    berth: { name, input: { ...target.input, name }, env: [], dependsOn: [], healthcheck: null, generatedName: false },
    mapped: [],
    unsupported: [],
    warnings: [],
    aliases: [],
    dependsOn: [],
  };
  if (target.engine && typeof raw.image === 'string')
    d.warnings.push(
      `${composeName}: the image ${raw.image} becomes a managed ${target.engine} database (it can be kept as a plain image instead: the console's choice, --plain-image in the CLI, plainImages in the API)`,
    );
  // env_file first, then environment (whose values win), then the rest in the file's order
  const keys = Object.keys(raw).sort((a, b) => rank(a) - rank(b));
  for (const key of keys) {
    const value = raw[key];
    // own keys only: a key such as constructor or __proto__ is no handler
    let result: KeyResult = 'not a key of the Compose Specification';
    if (key.startsWith('x-')) result = 'extension, ignored';
    else if (Object.hasOwn(SECURITY, key)) result = SECURITY[key]!;
    else if (Object.hasOwn(OTHER, key)) result = OTHER[key]!;
    else if (Object.hasOwn(HANDLERS, key)) result = HANDLERS[key]!(value, d, ctx, raw);
    if (result === true) d.mapped.push(key);
    else if (result !== 'parts') d.unsupported.push({ service: composeName, key, why: result });
  }
  if (target.becomes === 'skipped' && raw.build === undefined) d.warnings.push(`${composeName}: has neither image nor build, so it is skipped`);
  return d;
}

function rank(key: string): number {
  return key === 'env_file' ? 0 : key === 'environment' ? 1 : 2;
}
