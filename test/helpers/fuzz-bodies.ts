// Hostile request bodies for the fuzz suite, from a seeded PRNG so a failing run can be replayed
// (BERTH_FUZZ_SEED). Values are wrong types, huge and odd numbers, deep nesting, unicode and
// control characters, nulls, prototype keys, long strings, arrays where objects go; bodies are
// also sent as invalid JSON, with wrong content types, too large or too deep.
//
// Every string here is safe to reach a network client: the only URLs are loopback ones on port 1
// (refused at once) and hostnames are under `.test`, which never resolves, so no fuzzed body can
// make the daemon talk to anything outside this machine.

export type Rng = () => number;

/** mulberry32: small, fast, good enough to pick fuzz cases, and the same on every machine. */
export function seededRng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;

/** URLs a daemon may be made to dial: loopback, port 1, refused at once. */
export const LOCAL_URLS = [
  'http://127.0.0.1:1',
  'https://127.0.0.1:1/v1',
  'http://localhost:1/api',
  'http://[::1]:1/',
  'postgres://u:p@127.0.0.1:1/db',
  'postgresql://127.0.0.1:1/db?sslmode=disable',
  'redis://127.0.0.1:1/0',
  'redis://:pw@127.0.0.1:1',
  'rediss://127.0.0.1:1/15',
] as const;

const WORDS = [
  '',
  ' ',
  'a',
  'main',
  'é',
  '名前',
  '🚀🚀🚀',
  '\u0000',
  '\u202eevil',
  'line\nbreak',
  'tab\there',
  '\r\n\r\n',
  '\ud800',
  '../../etc/passwd',
  '/etc/passwd',
  '-x',
  '--upload-pack=touch /tmp/berth-fuzz-pwn',
  '${a.B}',
  '${',
  '${web.PORT}',
  '${db.DATABASE_URL}',
  '$(id)',
  '`id`',
  "'; DROP TABLE x; --",
  '<script>alert(1)</script>',
  '%00',
  '%2e%2e',
  'null',
  'true',
  '0',
  '-1',
  '1e400',
  'NaN',
  'constructor',
  '__proto__',
  'prototype',
  'toString',
  'hasOwnProperty',
  'database:postgres',
  'database:redis',
  'database:nope',
  'image:berth-test/busybox:latest',
  'docker-image',
  'database',
  'acme/app',
  'owner/name/extra',
  'auto',
  'dockerfile',
  'autobuild',
  'web',
  'worker',
  'static',
  'disk',
  'remote',
  'disk+remote',
  'read',
  'write',
  'all',
  'acme',
  'internal',
  'http',
  'cloudflare',
  'namecheap',
  'spaceship',
  'openai',
  'anthropic',
  'gemini',
  'local',
  'fuzz-provider',
  'A_KEY',
  'lower_key',
  'PORT',
  'shop.fuzz.test',
  'UPPER.Fuzz.Test',
  'xn--bcher-kva.test',
  '*.fuzz.test',
  'fuzz.test:443',
  '127.0.0.1',
  '::1',
  '10.0.0.1',
  '256.1.1.1',
  'user@fuzz.test',
  'ftp://127.0.0.1:1',
  'file:///etc/passwd',
  'ext::sh -c touch% /tmp/berth-fuzz-pwn',
  'SELECT 1',
  'SELECT',
  "SELECT repeat('x', 1000)",
  'SELECT * FROM kept',
  'public.kept',
  'kept',
  'PING',
  'GET k',
  'SET k v',
  'HSET h f v',
  'KEYS *',
  'INFO',
  '{"find": "x"}',
  'k',
  'h',
  ...LOCAL_URLS,
];

const NUMBERS = [0, -0, 1, -1, 1.5, 0.01, 3000, 8080, 65535, 65536, 2 ** 31, -(2 ** 31), 2 ** 53 + 2, -(2 ** 63), 1e308, 1e-308, Number.MAX_SAFE_INTEGER, 1_000_000];

/** The tagged forms database values travel in, right and wrong. */
const TAGGED: unknown[] = [
  { $bigint: '9007199254740993' },
  { $bigint: 'abc' },
  { $bigint: 12 },
  { $decimal: '12.50' },
  { $decimal: '1e99999' },
  { $bytes: 'aGVsbG8=' },
  { $bytes: '!!!' },
  { $date: '2030-01-01T00:00:00.000Z' },
  { $date: 'not a date' },
  { $date: 8.64e15 + 1 },
  { $oid: '65f0c0ffee0000000000beef' },
  { $oid: 'zz' },
  { $unknown: 1 },
  { $bigint: '1', extra: 2 },
  { $bytes: null },
];

export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__'];

export interface Strings {
  /** Ids of real objects, so fuzzed values sometimes name things that exist. */
  ids: readonly string[];
  /** Field names the endpoints read, so random objects sometimes reach deep. */
  fields: readonly string[];
}

export function randomString(rng: Rng, s: Strings): string {
  const r = rng();
  if (r < 0.6) return pick(rng, WORDS);
  if (r < 0.75) return pick(rng, s.ids);
  if (r < 0.82) return 'x'.repeat(pick(rng, [64, 101, 254, 256, 1025, 4097, 65537, 200_000]));
  if (r < 0.9) return pick(rng, WORDS) + pick(rng, WORDS);
  // random code points, including lone surrogates and controls
  let out = '';
  const n = Math.floor(rng() * 40);
  for (let i = 0; i < n; i++) out += String.fromCharCode(Math.floor(rng() * 0xffff));
  return out;
}

export function randomValue(rng: Rng, s: Strings, depth = 0): unknown {
  const r = rng();
  if (r < 0.12) return null;
  if (r < 0.2) return rng() < 0.5;
  if (r < 0.34) return pick(rng, NUMBERS);
  if (r < 0.38) return pick(rng, TAGGED);
  if (r < 0.7 || depth > 3) return randomString(rng, s);
  if (r < 0.85) return Array.from({ length: Math.floor(rng() * 4) }, () => randomValue(rng, s, depth + 1));
  return randomObject(rng, s, depth + 1);
}

/** Like `obj[key] = value`, but `__proto__` becomes an own key as JSON.parse makes it, not the prototype. */
function set(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

export function randomObject(rng: Rng, s: Strings, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const n = Math.floor(rng() * 5);
  for (let i = 0; i < n; i++) {
    const key = rng() < 0.6 ? pick(rng, s.fields) : rng() < 0.5 ? pick(rng, PROTOTYPE_KEYS) : randomString(rng, s).slice(0, 100);
    set(out, key, randomValue(rng, s, depth + 1));
  }
  return out;
}

/** A value of the same JSON type as `like`: right in shape, hostile in content (reaches past the schemas). */
function sameType(rng: Rng, s: Strings, like: unknown, depth = 0): unknown {
  if (typeof like === 'string') return randomString(rng, s);
  if (typeof like === 'number') return pick(rng, NUMBERS);
  if (typeof like === 'boolean') return rng() < 0.5;
  if (Array.isArray(like)) return Array.from({ length: Math.floor(rng() * 4) }, () => (like.length > 0 && depth < 3 ? sameType(rng, s, like[0], depth + 1) : randomValue(rng, s)));
  if (like !== null && typeof like === 'object' && depth < 3) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(like)) if (rng() < 0.8) set(out, k, rng() < 0.7 ? sameType(rng, s, v, depth + 1) : v);
    if (rng() < 0.3) set(out, rng() < 0.5 ? pick(rng, s.fields) : randomString(rng, s).slice(0, 60), randomValue(rng, s));
    return out;
  }
  return randomValue(rng, s);
}

/** A valid-looking body with a few fields broken: replaced by any value or one of the same type, removed, or joined by odd keys. */
export function mutate(rng: Rng, s: Strings, template: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = { ...template };
  const n = 1 + Math.floor(rng() * 3);
  for (let i = 0; i < n; i++) {
    const keys = Object.keys(body);
    const r = rng();
    if (r < 0.3 && keys.length > 0) set(body, pick(rng, keys), randomValue(rng, s));
    else if (r < 0.65 && keys.length > 0) {
      const key = pick(rng, keys);
      set(body, key, sameType(rng, s, body[key]));
    } else if (r < 0.8 && keys.length > 0) delete body[pick(rng, keys)];
    else set(body, rng() < 0.5 ? pick(rng, s.fields) : pick(rng, PROTOTYPE_KEYS), randomValue(rng, s));
  }
  return body;
}

/** JSON text the parser must refuse. */
export const INVALID_JSON = [
  '{',
  '{"a":',
  'nul',
  '[1,]',
  "{'a': 1}",
  '{"a": 1} trailing',
  '{"a": 1}{"b": 2}',
  '\u0000',
  '{"a": "\u0000unterminated',
  '{"a": 01}',
  '{"a": NaN}',
  '{"a": Infinity}',
  '\ufeff{"a": 1}',
  '{"name": "x", "name": 5}',
  '"just a string"',
  '12',
  'true',
  'null',
  '[]',
  ' ',
];

/** Numbers JSON.parse turns into Infinity, -0 or loses: `{"field": 1e400}`. */
export function withOddNumber(rng: Rng, json: string): string {
  return json.replace(/:(\s*)(-?\d+(\.\d+)?|null|true|false|"[^"]*")/, `:$1${pick(rng, ['1e400', '-1e400', '-0', '1E999', '123456789012345678901234567890', '0.1e-400'])}`);
}

export function deepNesting(rng: Rng): string {
  const depth = pick(rng, [64, 1000, 10_000, 100_000]);
  return rng() < 0.5 ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

export const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=utf-16',
  'application/json-patch+json',
  'application/vnd.api+json',
  '*/*',
  'application',
  '',
];
