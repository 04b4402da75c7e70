// Configuration: BERTH_* environment variables, read and validated once at start. A bad value
// stops the daemon with a message naming the variable.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseEngine } from '../shared/types.js';
import type { PortRange } from './core/host-ports.js';
import { BASE_IMAGE_DEFAULTS, baseImageKeys, baseImageVariable, type BaseImages } from './build/autobuild/base-images.js';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  bootstrapKey: string | null;
  dockerSocket: string;
  caddyAdmin: string;
  /** Where Caddy listens for plain HTTP and for HTTPS (host:port or :port). */
  proxyHttpAddr: string;
  proxyHttpsAddr: string;
  images: Record<DatabaseEngine, string>;
  gitBaseUrl: string;
  portRange: PortRange;
  buildCaFile: string | null;
  /** The images autobuild's generated Dockerfiles start from, per stack (BERTH_AUTOBUILD_IMAGE_<KEY>). */
  autobuildImages: BaseImages;
  buildConcurrency: number;
  healthTimeoutMs: number;
  /** How often live containers are probed to keep `reachable` true. */
  reachabilityIntervalMs: number;
  /** Log lines kept per deployment (build) and per service (runtime); older ones are trimmed. */
  logRetentionLines: number;
  /** The built web console served at `/` (BERTH_CONSOLE_DIR; default dist/console next to the daemon). */
  consoleDir: string | null;
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

  return {
    host,
    port: listenPort,
    dataDir,
    bootstrapKey,
    dockerSocket: value('BERTH_DOCKER_SOCKET') ?? '/var/run/docker.sock',
    caddyAdmin: httpUrl('BERTH_CADDY_ADMIN', value('BERTH_CADDY_ADMIN') ?? 'http://127.0.0.1:2019'),
    proxyHttpAddr: listenAddr('BERTH_PROXY_HTTP_ADDR', value('BERTH_PROXY_HTTP_ADDR') ?? ':80'),
    proxyHttpsAddr: listenAddr('BERTH_PROXY_HTTPS_ADDR', value('BERTH_PROXY_HTTPS_ADDR') ?? ':443'),
    images,
    gitBaseUrl: httpUrl('BERTH_GIT_BASE_URL', value('BERTH_GIT_BASE_URL') ?? 'https://github.com'),
    portRange,
    buildCaFile,
    autobuildImages,
    buildConcurrency: int('BERTH_BUILD_CONCURRENCY', 2, 1, 64),
    healthTimeoutMs: int('BERTH_HEALTH_TIMEOUT', 60, 1, 3600) * 1000,
    reachabilityIntervalMs: int('BERTH_REACHABILITY_INTERVAL', 30, 1, 3600) * 1000,
    logRetentionLines: int('BERTH_LOG_RETENTION_LINES', 5000, 100, 10_000_000),
    consoleDir: value('BERTH_CONSOLE_DIR') ?? null,
  };
}
