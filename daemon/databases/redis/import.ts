// Imports another Redis (a URL the user gives) into the service's redis, from the daemon itself
// with ioredis: for every logical database that holds keys, SCAN every key, DUMP it with its PTTL
// and RESTORE it (REPLACE) into the same database number of the target. DUMP payloads are
// binary: the Buffer variants carry them (and binary key names) unchanged. Keys that expire
// between SCAN and DUMP are skipped. The URL is never logged (it may hold a password).
// RESTORE refuses payloads of a newer RDB version than the target's server understands: importing
// from a newer redis into an older one fails with the server's message.
import { isIP } from 'node:net';
import { Redis, type RedisOptions } from 'ioredis';
import { redisEndpoint } from '../../backups/source-url.js';

const BATCH = 500;
const LOG_EVERY = 10_000;

interface Target {
  host: string;
  port: number;
  password: string;
}

/**
 * `address`: where to connect instead of resolving the URL's host (the address the daemon checked
 * the source against; a TLS source is still verified against the URL's host name).
 */
export async function importRedisUrl(sourceUrl: string, address: string | null, target: Target, log: (line: string) => void, signal: AbortSignal): Promise<{ keys: number }> {
  // No reconnects: a source that drops the connection fails the import instead of being retried forever.
  const common = { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true, connectTimeout: 10_000, retryStrategy: () => null } as const;
  const source = new Redis({ ...sourceOptions(sourceUrl, address), ...common });
  const dest = new Redis({ ...common, host: target.host, port: target.port, password: target.password || undefined });
  // ioredis reports connection errors through the promise of each command; without a listener
  // its 'error' events would be unhandled.
  source.on('error', () => undefined);
  dest.on('error', () => undefined);
  // A source that accepts and never answers leaves a command pending forever: closing both
  // connections on abort (shutdown, BERTH_IMPORT_TIMEOUT) rejects it.
  const onAbort = () => {
    source.disconnect();
    dest.disconnect();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    signal.throwIfAborted();
    await source.connect().catch((err: Error) => {
      throw new Error(`cannot connect to the source redis: ${err.message}`);
    });
    await dest.connect();
    const databases = await sourceDatabases(source);
    log(`redis: importing ${databases.length === 0 ? 'nothing (the source has no keys)' : `databases ${databases.join(', ')}`}`);
    let copied = 0;
    let skipped = 0;
    for (const db of databases) {
      await source.select(db);
      await dest.select(db);
      let cursor = '0';
      do {
        signal.throwIfAborted();
        const [next, keys] = await source.scanBuffer(cursor, 'COUNT', BATCH);
        cursor = next.toString();
        if (keys.length === 0) continue;
        const read = source.pipeline();
        for (const key of keys) read.dumpBuffer(key).pttl(key);
        const replies = (await read.exec()) ?? [];
        const write = dest.pipeline();
        let writes = 0;
        for (let i = 0; i < keys.length; i++) {
          const [dumpErr, payload] = replies[2 * i] ?? [];
          const [ttlErr, ttl] = replies[2 * i + 1] ?? [];
          if (dumpErr) throw dumpErr;
          if (ttlErr) throw ttlErr;
          // gone since SCAN (expired or deleted): -2 from PTTL or a nil DUMP
          if (payload === null || payload === undefined || ttl === -2) {
            skipped++;
            continue;
          }
          write.restore(keys[i]!, Math.max(0, Number(ttl)), payload as Buffer, 'REPLACE');
          writes++;
        }
        if (writes > 0) {
          for (const [err] of (await write.exec()) ?? []) {
            if (err) throw new Error(`RESTORE into the target failed: ${err.message}`);
          }
        }
        const before = copied;
        copied += writes;
        if (Math.floor(copied / LOG_EVERY) > Math.floor(before / LOG_EVERY)) log(`redis: ${copied} keys copied`);
      } while (cursor !== '0');
    }
    log(`redis: import finished, ${copied} keys copied${skipped ? `, ${skipped} expired during the copy` : ''}`);
    return { keys: copied };
  } finally {
    signal.removeEventListener('abort', onAbort);
    source.disconnect();
    dest.disconnect();
  }
}

/** ioredis's options for a URL that parseSourceUrl accepted: read here, so that `address` wins over the URL's host. */
function sourceOptions(sourceUrl: string, address: string | null): RedisOptions {
  const url = new URL(sourceUrl);
  const { host, port } = redisEndpoint(url);
  const options: RedisOptions = { host: address ?? host, port, db: Number(url.pathname.slice(1) || 0) };
  if (url.username || url.password) {
    options.username = decodeURIComponent(url.username);
    options.password = decodeURIComponent(url.password);
  }
  if (url.protocol === 'rediss:') options.tls = isIP(host) ? {} : { servername: host };
  return options;
}

/** The source's logical databases that hold keys (INFO keyspace), or every one when INFO is refused. */
async function sourceDatabases(source: Redis): Promise<number[]> {
  try {
    const info = await source.info('keyspace');
    return [...info.matchAll(/^db(\d+):keys=(\d+)/gm)].filter((m) => Number(m[2]) > 0).map((m) => Number(m[1]));
  } catch {
    let count = 16;
    try {
      const reply = (await source.config('GET', 'databases')) as unknown as string[];
      if (Number(reply?.[1]) > 0) count = Number(reply[1]);
    } catch {
      // CONFIG is often disabled on managed redis: the default 16
    }
    return Array.from({ length: count }, (_, i) => i);
  }
}
