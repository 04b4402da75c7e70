// The small value formats of a compose file: durations (`1m30s`), byte sizes (`512M`), ports
// (`127.0.0.1:8080:80/tcp` or the long form), volume mounts (`data:/var/lib/x:ro`), a command as
// argv or text, and which images are database engines Berth manages. Pure.
import type { DatabaseEngine } from '../../shared/types.js';

export type Plain = Record<string, unknown>;

export function isMap(v: unknown): v is Plain {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A scalar as Compose would read it into a string (numbers and booleans as written). */
export function scalarText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

const DURATION_UNITS: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001, us: 0.000001, µs: 0.000001, ns: 0.000000001 };

/** Seconds in a Go-style duration (`10s`, `1m30s`, `1h`, `500ms`); null when it is not one. */
export function durationSeconds(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
  if (typeof v !== 'string' || !/^(\d+(\.\d+)?(h|ms|us|µs|ns|m|s))+$/.test(v.trim())) return null;
  let total = 0;
  for (const m of v.trim().matchAll(/(\d+(?:\.\d+)?)(h|ms|us|µs|ns|m|s)/g)) total += Number(m[1]) * DURATION_UNITS[m[2]!]!;
  return total;
}

const BYTE_UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1024, m: 1024 ** 2, mb: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3, t: 1024 ** 4, tb: 1024 ** 4 };

/** Mebibytes (rounded up) in a compose byte size (`512M`, `1.5g`, `268435456`); null when it is not one. */
export function sizeMb(v: unknown): number | null {
  const text = scalarText(v)?.trim().toLowerCase();
  const m = text ? /^(\d+(?:\.\d+)?)\s*([kmgt]?b?|[kmgt]i?b)?$/.exec(text) : null;
  if (!m) return null;
  const unit = (m[2] ?? '').replace('ib', 'b');
  const factor = BYTE_UNITS[unit];
  if (factor === undefined) return null;
  return Math.max(1, Math.ceil((Number(m[1]) * factor) / 1024 ** 2));
}

export interface PortSpec {
  /** The port inside the container. */
  container: number;
  /** Whether a host port was asked for (`8080:80`), as opposed to the container port alone. */
  published: boolean;
  protocol: string;
  /** A range (`3000-3005`): Berth routes single ports only. */
  range: boolean;
}

/** A `ports` entry, short or long form; null when it cannot be read. */
export function portSpec(v: unknown): PortSpec | null {
  if (isMap(v)) {
    const target = Number(v.target);
    if (!Number.isInteger(target) || target < 1 || target > 65535) return null;
    return { container: target, published: v.published !== undefined && v.published !== null, protocol: scalarText(v.protocol) ?? 'tcp', range: false };
  }
  const text = scalarText(v);
  if (text === null) return null;
  const [spec, protocol = 'tcp'] = text.split('/');
  // the container part is the last colon-separated field (an IPv6 host address is bracketed)
  const fields = spec!.replace(/^\[[^\]]*\]:/, 'host:').split(':');
  const container = fields[fields.length - 1]!;
  const range = container.includes('-');
  const first = Number(container.split('-')[0]);
  if (!Number.isInteger(first) || first < 1 || first > 65535) return null;
  return { container: first, published: fields.length > 1, protocol, range };
}

export interface MountSpec {
  type: 'volume' | 'bind' | 'tmpfs' | 'other';
  /** The volume's name or the host path as written; null for an anonymous volume. */
  source: string | null;
  target: string;
  readOnly: boolean;
}

/** A service's `volumes` entry, short (`src:dst:ro`) or long form; null when it cannot be read. */
export function mountSpec(v: unknown): MountSpec | null {
  if (isMap(v)) {
    const type = scalarText(v.type) ?? 'volume';
    const target = scalarText(v.target);
    if (!target) return null;
    const source = scalarText(v.source);
    return { type: type === 'volume' || type === 'bind' || type === 'tmpfs' ? type : 'other', source: source || null, target, readOnly: v.read_only === true };
  }
  const text = scalarText(v);
  if (!text) return null;
  const parts = text.split(':');
  if (parts.length === 1) return { type: 'volume', source: null, target: parts[0]!, readOnly: false };
  const [source, target, options = ''] = parts as [string, string, string?];
  if (!target) return null;
  const bind = source.startsWith('.') || source.startsWith('/') || source.startsWith('~');
  return { type: bind ? 'bind' : 'volume', source, target, readOnly: options.split(',').includes('ro') };
}

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** An argv as the text `sh -c` runs to the same argv (single quotes where needed). */
export function shellJoin(argv: readonly string[]): string {
  return argv.map((a) => (SAFE_WORD.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** A `command`/`entrypoint`/healthcheck `test` as a list of strings, or the text; null when neither. */
export function commandOf(v: unknown): string[] | string | null {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((x) => scalarText(x) !== null)) return v.map((x) => scalarText(x)!);
  return null;
}

/** The image's repository without registry, tag or digest (`docker.io/library/postgres:16` -> `postgres`). */
function imageRepository(image: string): string {
  let name = image.split('@')[0]!;
  const lastSlash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  if (colon > lastSlash) name = name.slice(0, colon);
  const parts = name.split('/');
  if (parts.length > 1 && (parts[0]!.includes('.') || parts[0]!.includes(':') || parts[0] === 'localhost')) parts.shift();
  if (parts[0] === 'library') parts.shift();
  return parts.join('/').toLowerCase();
}

const DATABASE_IMAGES: Record<string, DatabaseEngine> = {
  postgres: 'postgres',
  'postgis/postgis': 'postgres',
  'bitnami/postgresql': 'postgres',
  'timescale/timescaledb': 'timescale',
  'timescale/timescaledb-ha': 'timescale',
  mysql: 'mysql',
  'bitnami/mysql': 'mysql',
  mariadb: 'mysql',
  'bitnami/mariadb': 'mysql',
  redis: 'redis',
  'bitnami/redis': 'redis',
  mongo: 'mongodb',
  'bitnami/mongodb': 'mongodb',
  'clickhouse/clickhouse-server': 'clickhouse',
  'yandex/clickhouse-server': 'clickhouse',
  'bitnami/clickhouse': 'clickhouse',
};

/** The engine Berth manages for this image, or null. */
export function databaseEngineOf(image: string): DatabaseEngine | null {
  return DATABASE_IMAGES[imageRepository(image)] ?? null;
}

/** Variables of images that name the same setting otherwise (MariaDB's, Bitnami's) -> the managed engine's names. */
const VARIABLE_ALIASES: Record<string, string> = {
  MARIADB_DATABASE: 'MYSQL_DATABASE',
  MARIADB_USER: 'MYSQL_USER',
  MARIADB_PASSWORD: 'MYSQL_PASSWORD',
  MARIADB_ROOT_PASSWORD: 'MYSQL_ROOT_PASSWORD',
  POSTGRESQL_USERNAME: 'POSTGRES_USER',
  POSTGRESQL_PASSWORD: 'POSTGRES_PASSWORD',
  POSTGRESQL_DATABASE: 'POSTGRES_DB',
  MYSQL_USERNAME: 'MYSQL_USER',
  MONGODB_ROOT_USER: 'MONGO_INITDB_ROOT_USERNAME',
  MONGODB_ROOT_PASSWORD: 'MONGO_INITDB_ROOT_PASSWORD',
  CLICKHOUSE_ADMIN_USER: 'CLICKHOUSE_USER',
  CLICKHOUSE_ADMIN_PASSWORD: 'CLICKHOUSE_PASSWORD',
};

export function databaseVariableName(key: string): string {
  return VARIABLE_ALIASES[key] ?? key;
}
