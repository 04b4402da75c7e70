// Configuration: BERTH_* environment variables, read and validated once at start. A bad value
// stops the daemon with a message naming the variable.
import { AUDIT_MAX_ROWS_DEFAULT } from './core/audit-retention.js';
import { existsSync } from 'node:fs';
import { availableParallelism, homedir, totalmem } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { DatabaseEngine, QuotaValues } from '../shared/types.js';
import type { PortRange } from './core/host-ports.js';
import type { CloneLimits } from './builder/checkout.js';
import type { LimitPolicy, LimitValues } from './core/limits.js';
import type { LogRetention } from './deploy/log-book.js';
import type { LogRate } from './deploy/log-gate.js';
import { BASE_IMAGE_DEFAULTS, baseImageKeys, baseImageVariable, type BaseImages } from './builder/autobuild/base-images.js';

const MIB = 1024 * 1024;

interface LogBudgets {
  retention: LogRetention;
  /** Per source: a service's running container, a deployment's build. */
  rate: LogRate;
}

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /**
   * BERTH_STATUS_PAGES_DIR: where public status pages are written for Caddy to serve as files
   * (default `<dataDir>/status-pages`; Caddy's user must be able to read it: install.sh sets a
   * folder outside the private data dir).
   */
  statusPagesDir: string;
  bootstrapKey: string | null;
  dockerSocket: string;
  caddyAdmin: string;
  /** Where Caddy listens for plain HTTP and for HTTPS (host:port or :port). */
  proxyHttpAddr: string;
  proxyHttpsAddr: string;
  /** BERTH_API_TLS_ADDR: where Caddy serves this daemon's API over HTTPS with its internal CA (null: nowhere). */
  apiTlsAddr: string | null;
  images: Record<DatabaseEngine, string>;
  /** Swarm mode: the image of Berth's own registry (BERTH_IMAGE_REGISTRY, default `registry:2`) and its port on the manager address (BERTH_REGISTRY_PORT, 5443). */
  registry: { image: string; port: number };
  /** Swarm mode: an image with sh and the docker CLI (BERTH_IMAGE_DOCKER_CLI, default `docker:27-cli`), the job that prunes images on every node runs it. */
  dockerCliImage: string;
  /**
   * Swarm mode: what reaches a worker's Docker Engine (swarm/node-engines.ts): an image with `node`
   * on its PATH (BERTH_IMAGE_NODE, default `node:22-alpine`) and the port its relay listens on at
   * each node's address (BERTH_NODE_ENGINE_PORT, 5444).
   */
  nodeEngine: { image: string; port: number };
  /**
   * BERTH_JOIN_TLS_ADDR (host:port): where a development daemon serves its own API over HTTPS (a
   * certificate from Berth's CA) so that nodes can join; null: joining goes through Caddy's
   * apiTlsAddr as on an installed server.
   */
  joinTlsAddr: string | null;
  gitBaseUrl: string;
  portRange: PortRange;
  buildCaFile: string | null;
  /** The images autobuild's generated Dockerfiles start from, per stack (BERTH_AUTOBUILD_IMAGE_<KEY>). */
  autobuildImages: BaseImages;
  buildConcurrency: number;
  /** Size and time a git clone may take (BERTH_CLONE_MAX_MB, BERTH_CLONE_TIMEOUT). */
  cloneLimits: CloneLimits;
  /** Build-plan previews running at once, in all and per key (BERTH_BUILD_PLAN_CONCURRENCY, BERTH_BUILD_PLAN_PER_KEY). */
  buildPlanConcurrency: { total: number; perKey: number };
  healthTimeoutMs: number;
  /** How often live containers are probed to keep `reachable` true. */
  reachabilityIntervalMs: number;
  /** Log lines kept per deployment (build) and per service (runtime); older ones are trimmed. */
  logRetentionLines: number;
  /** Audit log entries kept at most (BERTH_AUDIT_MAX_ROWS); the oldest go past it. The age limit is a system setting. */
  auditMaxRows: number;
  /** The shortest interval an uptime check may have (BERTH_CHECK_MIN_INTERVAL_SECONDS, default 10; tests lower it). */
  checkMinIntervalSeconds: number;
  /** Log budgets: what is kept as lines are written, and how fast one source may write. */
  logBudgets: LogBudgets;
  /** Container limits: defaults per kind, what selected-projects keys may set (BERTH_DEFAULT_*, BERTH_MAX_*). */
  limits: LimitPolicy;
  /** What one image build may use (BERTH_BUILD_MEMORY_MB, BERTH_BUILD_CPUS). */
  buildLimits: Pick<LimitValues, 'memoryMb' | 'cpus'>;
  /** The server's default per-project quotas, until a setting says otherwise (BERTH_QUOTA_*; core/quotas.ts). */
  quotaDefaults: QuotaValues;
  /** New builds, deploys and backups wait while less is free on the data dir or Docker's root (BERTH_DISK_MIN_FREE_MB, default 2048). */
  diskMinFreeBytes: number;
  /** How long a one-off command may run (BERTH_EXEC_TIMEOUT_SECONDS, default 900) and a terminal may sit idle (BERTH_TERMINAL_IDLE_SECONDS, default 900). */
  execLimits: { timeoutMs: number; terminalIdleMs: number };
  /** How long a database import may run before it is stopped and recorded `failed`. */
  importTimeoutMs: number;
  /** The built web console served at `/` (BERTH_CONSOLE_DIR; default dist/console next to the daemon). */
  consoleDir: string | null;
  /**
   * Upgrades of Berth itself (set by install.sh; absent on a development daemon): how the
   * installer's upgrader runs (BERTH_UPGRADER: `path-unit` or `spawn`; null: upgrades are not
   * available), where releases are installed (BERTH_INSTALL_ROOT, /opt/berth), and where the
   * newest release is announced (BERTH_RELEASE_FEED, a URL answering {version, url}), and where
   * an upgrade asked for through the API may come from (BERTH_UPGRADE_SOURCES: https:// URL
   * prefixes or absolute folders, separated by spaces or commas; install.sh sets it).
   */
  upgrade: { upgrader: 'path-unit' | 'spawn' | null; installRoot: string; releaseFeed: string | null; sources: string[] };
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

const DEFAULT_IMAGES: Record<DatabaseEngine, string> = {
  postgres: 'postgres:16',
  timescale: 'timescale/timescaledb:latest-pg16',
  mysql: 'mysql:8.4',
  redis: 'redis:7',
  mongodb: 'mongo:7',
  clickhouse: 'clickhouse/clickhouse-server:24.8',
};

function absoluteDir(name: string, v: string | undefined): string | undefined {
  if (v !== undefined && !isAbsolute(v)) throw new ConfigError(`${name} must be an absolute folder, got "${v}"`);
  return v;
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function port(name: string, raw: string, min = 1): number {
  if (!/^[0-9]+$/.test(raw)) throw new ConfigError(`${name} must be a port number (${min}-65535), got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > 65535) throw new ConfigError(`${name} must be between ${min} and 65535, got ${n}`);
  return n;
}

function listenAddr(name: string, raw: string): string {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):([0-9]+)$/.exec(raw);
  if (!m) throw new ConfigError(`${name} must look like :443 or 127.0.0.1:8443, got "${raw}"`);
  port(name, m[2]!);
  return raw;
}

function httpUrl(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

function upgradeSources(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const sources = raw.split(/[\s,]+/).filter((s) => s !== '');
  for (const s of sources) {
    if (s.startsWith('/')) {
      if (s === '/' || s.split('/').includes('..')) throw new ConfigError(`BERTH_UPGRADE_SOURCES: "${s}" must be a folder below / without ".." segments`);
    } else if (!/^https:\/\/[^/@\s]+(\/|$)/.test(s)) {
      throw new ConfigError(`BERTH_UPGRADE_SOURCES: "${s}" must be an https:// URL prefix or an absolute folder`);
    }
  }
  return sources;
}

function upgrader(raw: string | undefined): 'path-unit' | 'spawn' | null {
  if (raw === undefined) return null;
  if (raw !== 'path-unit' && raw !== 'spawn') throw new ConfigError(`BERTH_UPGRADER must be path-unit or spawn (or unset), got "${raw}"`);
  return raw;
}

export function readConfig(env: Env = process.env): Config {
  const value = (name: string) => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };

  const host = value('BERTH_HOST') ?? '0.0.0.0';
  // 0 asks the OS for any free port (tests use it).
  const listenPort = port('BERTH_PORT', value('BERTH_PORT') ?? '4310', 0);
  const dataDir = value('BERTH_DATA_DIR') ?? (isRoot() ? '/var/lib/berth' : join(homedir(), '.local/share/berth'));

  const bootstrapKey = env.BERTH_BOOTSTRAP_KEY ?? null;
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (bootstrapKey !== null && (bootstrapKey.length < 16 || bootstrapKey.length > 512 || /[\s\x00-\x1f]/.test(bootstrapKey))) {
    throw new ConfigError('BERTH_BOOTSTRAP_KEY must be 16-512 characters with no spaces or control characters');
  }

  const rangeRaw = value('BERTH_PORT_RANGE') ?? '20000-29999';
  const m = /^([0-9]+)-([0-9]+)$/.exec(rangeRaw);
  if (!m) throw new ConfigError(`BERTH_PORT_RANGE must look like 20000-29999, got "${rangeRaw}"`);
  const portRange = { from: port('BERTH_PORT_RANGE', m[1]!), to: port('BERTH_PORT_RANGE', m[2]!) };
  if (portRange.from > portRange.to) throw new ConfigError(`BERTH_PORT_RANGE starts after it ends: "${rangeRaw}"`);
  if (portRange.from < 1024) throw new ConfigError('BERTH_PORT_RANGE must stay above 1023 (privileged ports are not allocated)');

  const images = { ...DEFAULT_IMAGES };
  for (const engine of Object.keys(images) as DatabaseEngine[]) {
    const name = `BERTH_IMAGE_${engine.toUpperCase()}`;
    const image = value(name);
    if (image !== undefined) {
      if (/\s/.test(image) || image.startsWith('-')) throw new ConfigError(`${name} must be an image reference, got "${image}"`);
      images[engine] = image;
    }
  }

  const registryImage = value('BERTH_IMAGE_REGISTRY') ?? 'registry:2';
  if (/\s/.test(registryImage) || registryImage.startsWith('-')) throw new ConfigError(`BERTH_IMAGE_REGISTRY must be an image reference, got "${registryImage}"`);
  const dockerCliImage = value('BERTH_IMAGE_DOCKER_CLI') ?? 'docker:27-cli';
  if (/\s/.test(dockerCliImage) || dockerCliImage.startsWith('-')) throw new ConfigError(`BERTH_IMAGE_DOCKER_CLI must be an image reference, got "${dockerCliImage}"`);
  const nodeImage = value('BERTH_IMAGE_NODE') ?? 'node:22-alpine';
  if (/\s/.test(nodeImage) || nodeImage.startsWith('-')) throw new ConfigError(`BERTH_IMAGE_NODE must be an image reference, got "${nodeImage}"`);
  const joinTlsRaw = value('BERTH_JOIN_TLS_ADDR');
  // a host is required: it is the address the join command names and the certificate covers
  if (joinTlsRaw !== undefined && !/^[^\s:]+:[0-9]+$|^\[[0-9a-fA-F:]+\]:[0-9]+$/.test(joinTlsRaw)) {
    throw new ConfigError(`BERTH_JOIN_TLS_ADDR must look like 192.0.2.10:4311, got "${joinTlsRaw}"`);
  }
  if (joinTlsRaw !== undefined) port('BERTH_JOIN_TLS_ADDR', joinTlsRaw.slice(joinTlsRaw.lastIndexOf(':') + 1), 1);

  const autobuildImages: BaseImages = { ...BASE_IMAGE_DEFAULTS };
  for (const key of baseImageKeys()) {
    const name = baseImageVariable(key);
    const image = value(name);
    if (image !== undefined) {
      if (/\s/.test(image) || image.startsWith('-')) throw new ConfigError(`${name} must be an image reference, got "${image}"`);
      autobuildImages[key] = image;
    }
  }

  const buildCaFile = value('BERTH_BUILD_CA_FILE') ?? null;
  if (buildCaFile !== null && !existsSync(buildCaFile)) throw new ConfigError(`BERTH_BUILD_CA_FILE points at ${buildCaFile}, which does not exist`);

  const int = (name: string, fallback: number, min: number, max: number) => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
    return Number(raw);
  };

  // Container limits. CPUs are fractions of a core; Docker refuses more than the host has.
  const hostCpus = availableParallelism();
  const cpus = (name: string, fallback: number) => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!/^[0-9]+(\.[0-9]{1,2})?$/.test(raw) || n < 0.01 || n > hostCpus) throw new ConfigError(`${name} must be a number of CPUs from 0.01 to ${hostCpus} (this host's), got "${raw}"`);
    return n;
  };
  const hostMemoryMb = Math.floor(totalmem() / 1024 / 1024);
  const limits: LimitPolicy = {
    app: { memoryMb: int('BERTH_DEFAULT_MEMORY_MB', 1024, 32, 1024 * 1024), cpus: cpus('BERTH_DEFAULT_CPUS', Math.min(1, hostCpus)), pids: int('BERTH_DEFAULT_PIDS', 512, 16, 4_194_304) },
    database: {
      memoryMb: int('BERTH_DEFAULT_DATABASE_MEMORY_MB', 2048, 32, 1024 * 1024),
      cpus: cpus('BERTH_DEFAULT_DATABASE_CPUS', Math.min(2, hostCpus)),
      pids: int('BERTH_DEFAULT_DATABASE_PIDS', 4096, 16, 4_194_304),
    },
    max: { memoryMb: int('BERTH_MAX_MEMORY_MB', hostMemoryMb, 32, 1024 * 1024), cpus: cpus('BERTH_MAX_CPUS', hostCpus), pids: int('BERTH_MAX_PIDS', 4096, 16, 4_194_304) },
    hostCpus,
  };
  // a build may use most of the host, never all of it: the daemon and the live apps keep a share
  const logRetentionLines = int('BERTH_LOG_RETENTION_LINES', 5000, 100, 10_000_000);
  const buildLimits = { memoryMb: int('BERTH_BUILD_MEMORY_MB', 4096, 64, 1024 * 1024), cpus: cpus('BERTH_BUILD_CPUS', Math.max(0.5, hostCpus - 0.5)) };

  return {
    host,
    port: listenPort,
    dataDir,
    statusPagesDir: absoluteDir('BERTH_STATUS_PAGES_DIR', value('BERTH_STATUS_PAGES_DIR')) ?? join(dataDir, 'status-pages'),
    bootstrapKey,
    dockerSocket: value('BERTH_DOCKER_SOCKET') ?? '/var/run/docker.sock',
    caddyAdmin: httpUrl('BERTH_CADDY_ADMIN', value('BERTH_CADDY_ADMIN') ?? 'http://127.0.0.1:2019'),
    proxyHttpAddr: listenAddr('BERTH_PROXY_HTTP_ADDR', value('BERTH_PROXY_HTTP_ADDR') ?? ':80'),
    proxyHttpsAddr: listenAddr('BERTH_PROXY_HTTPS_ADDR', value('BERTH_PROXY_HTTPS_ADDR') ?? ':443'),
    apiTlsAddr: value('BERTH_API_TLS_ADDR') === undefined ? null : listenAddr('BERTH_API_TLS_ADDR', value('BERTH_API_TLS_ADDR')!),
    images,
    registry: { image: registryImage, port: port('BERTH_REGISTRY_PORT', value('BERTH_REGISTRY_PORT') ?? '5443', 1) },
    dockerCliImage,
    nodeEngine: { image: nodeImage, port: port('BERTH_NODE_ENGINE_PORT', value('BERTH_NODE_ENGINE_PORT') ?? '5444', 1) },
    joinTlsAddr: joinTlsRaw ?? null,
    gitBaseUrl: httpUrl('BERTH_GIT_BASE_URL', value('BERTH_GIT_BASE_URL') ?? 'https://github.com'),
    portRange,
    buildCaFile,
    autobuildImages,
    buildConcurrency: int('BERTH_BUILD_CONCURRENCY', 2, 1, 64),
    cloneLimits: {
      maxBytes: int('BERTH_CLONE_MAX_MB', 2048, 1, 1_048_576) * 1024 * 1024,
      timeoutMs: int('BERTH_CLONE_TIMEOUT', 600, 1, 86_400) * 1000,
    },
    buildPlanConcurrency: {
      total: int('BERTH_BUILD_PLAN_CONCURRENCY', 2, 1, 64),
      perKey: int('BERTH_BUILD_PLAN_PER_KEY', 1, 1, 64),
    },
    healthTimeoutMs: int('BERTH_HEALTH_TIMEOUT', 60, 1, 3600) * 1000,
    reachabilityIntervalMs: int('BERTH_REACHABILITY_INTERVAL', 30, 1, 3600) * 1000,
    logRetentionLines,
    auditMaxRows: int('BERTH_AUDIT_MAX_ROWS', AUDIT_MAX_ROWS_DEFAULT, 100, 100_000_000),
    checkMinIntervalSeconds: int('BERTH_CHECK_MIN_INTERVAL_SECONDS', 10, 1, 10),
    logBudgets: {
      retention: {
        perOwner: { lines: logRetentionLines, bytes: int('BERTH_LOG_RETENTION_MB', 8, 1, 1_048_576) * MIB },
        perService: { lines: logRetentionLines * 10, bytes: int('BERTH_LOG_SERVICE_BUILD_MB', 32, 1, 1_048_576) * MIB },
      },
      rate: { linesPerSecond: int('BERTH_LOG_RATE_LINES', 1000, 1, 1_000_000), bytesPerSecond: int('BERTH_LOG_RATE_KB', 512, 1, 1_048_576) * 1024 },
    },
    limits,
    buildLimits,
    quotaDefaults: {
      maxServices: int('BERTH_QUOTA_MAX_SERVICES', 100, 1, 100_000),
      maxBackups: int('BERTH_QUOTA_MAX_BACKUPS', 200, 1, 1_000_000),
      maxBackupBytes: int('BERTH_QUOTA_MAX_BACKUP_MB', 50 * 1024, 1, 1024 * 1024 * 1024) * 1024 * 1024,
      // images of this many last successful deployments per service are kept for rollbacks
      maxImagesPerService: int('BERTH_KEEP_IMAGES', 3, 1, 100),
    },
    diskMinFreeBytes: int('BERTH_DISK_MIN_FREE_MB', 2048, 0, 1024 * 1024 * 1024) * 1024 * 1024,
    execLimits: {
      timeoutMs: int('BERTH_EXEC_TIMEOUT_SECONDS', 900, 1, 86_400) * 1000,
      terminalIdleMs: int('BERTH_TERMINAL_IDLE_SECONDS', 900, 1, 86_400) * 1000,
    },
    importTimeoutMs: int('BERTH_IMPORT_TIMEOUT', 21_600, 1, 7 * 24 * 3600) * 1000,
    consoleDir: value('BERTH_CONSOLE_DIR') ?? null,
    upgrade: {
      upgrader: upgrader(value('BERTH_UPGRADER')),
      installRoot: value('BERTH_INSTALL_ROOT') ?? '/opt/berth',
      releaseFeed: value('BERTH_RELEASE_FEED') === undefined ? null : httpUrl('BERTH_RELEASE_FEED', value('BERTH_RELEASE_FEED')!),
      sources: upgradeSources(value('BERTH_UPGRADE_SOURCES')),
    },
  };
}
