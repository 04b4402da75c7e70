// Imports another Redis (a URL the user gives) into the service's redis, from the daemon itself
// with ioredis: for every logical database that holds keys, SCAN every key, DUMP it with its PTTL
// and RESTORE it (REPLACE) into the same database number of the target. DUMP payloads are
// binary: the Buffer variants carry them (and binary key names) unchanged. Keys that expire
// between SCAN and DUMP are skipped. The URL is never logged (it may hold a password).
// RESTORE refuses payloads of a newer RDB version than the target's server understands: importing
// from a newer redis into an older one fails with the server's message.
//
// The source is someone else's server, possibly hostile: ioredis buffers every reply of a pipeline
// whole, so 500 DUMP replies of a few MB each would all sit in the daemon's memory at once. Every
// answer of the source (the connection's ready check included) is read under the byte budget of
// database answers (answer-budget.ts, ANSWER_MAX_BYTES): past it the connection is cut. A batch of
// DUMPs that went over is read again in halves on a new connection, so batches are bounded by
// bytes, not by a key count; one key whose DUMP alone is over the cap fails the import, naming it.
import { isIP, type Socket } from 'node:net';
import { Redis, type RedisOptions } from 'ioredis';
import { redisEndpoint } from '../source-url.js';
import { ANSWER_MAX_BYTES } from '../../core/databases.js';
import { SocketBudget } from '../answer-budget.js';

const BATCH = 500;
const LOG_EVERY = 10_000;

interface Target {
  host: string;
  port: number;
  password: string;
}

/** A connection to the source whose every answer is read under the byte budget. */
interface SourceConnection {
  client: Redis;
  budget: () => SocketBudget | null;
}

/**
 * `address`: where to connect instead of resolving the URL's host (the address the daemon checked
 * the source against; a TLS source is still verified against the URL's host name).
 * `maxBytes`: the most bytes one answer of the source may hold (tests lower it).
 */
export async function importRedisUrl(
  sourceUrl: string,
  address: string | null,
  target: Target,
  log: (line: string) => void,
  signal: AbortSignal,
  maxBytes: number = ANSWER_MAX_BYTES,
): Promise<{ keys: number }> {
  // No reconnects: a source that drops the connection fails the import instead of being retried forever.
  const common = { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true, connectTimeout: 10_000, retryStrategy: () => null } as const;
  const megabytes = `${Math.round(maxBytes / 1024 / 1024)} MB`;
  const open = async (db?: number): Promise<SourceConnection> => {
    const base = sourceOptions(sourceUrl, address);
    const client = new Redis({ ...base, ...(db === undefined ? {} : { db }), ...common });
    // ioredis reports connection errors through the promise of each command; without a listener
    // its 'error' events would be unhandled.
    client.on('error', () => undefined);
    let budget: SocketBudget | null = null;
    // 'connect' comes before the ready check (INFO) and AUTH/SELECT: their answers are capped too.
    client.once('connect', () => {
      budget = new SocketBudget((client as unknown as { stream: Socket }).stream);
      budget.begin(maxBytes);
    });
    connections.add(client);
    await client.connect().catch((err: Error) => {
      throw new Error(budget?.exceeded ? `the source redis answered the connection's first commands with more than ${megabytes}` : `cannot connect to the source redis: ${err.message}`);
    });
    return { client, budget: () => budget };
  };
  /** `f`'s answers read under the budget; `over` is thrown when they went past it. */
  const capped = async <T>(c: SourceConnection, f: (client: Redis) => Promise<T>, over: () => Error): Promise<T> => {
    const budget = c.budget();
    budget?.begin(maxBytes);
    try {
      const answer = await f(c.client);
      // a pipeline resolves with its commands' errors (a cut connection among them)
      if (budget?.exceeded) throw over();
      return answer;
    } catch (err) {
      if (budget?.exceeded) throw new OverBudget(over().message);
      throw err;
    } finally {
      budget?.end();
    }
  };
  const connections = new Set<Redis>();
  const dest = new Redis({ ...common, host: target.host, port: target.port, password: target.password || undefined });
  dest.on('error', () => undefined);
  // A source that accepts and never answers leaves a command pending forever: closing every
  // connection on abort (shutdown, BERTH_IMPORT_TIMEOUT) rejects it.
  const onAbort = () => {
    for (const c of connections) c.disconnect();
    dest.disconnect();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    signal.throwIfAborted();
    const first = await open();
    await dest.connect();
    const databases = await capped(first, sourceDatabases, () => new Error(`the source's INFO answer was over ${megabytes}`));
    first.client.disconnect();
    log(`redis: importing ${databases.length === 0 ? 'nothing (the source has no keys)' : `databases ${databases.join(', ')}`}`);
    let copied = 0;
    let skipped = 0;
    let batch = BATCH;
    for (const db of databases) {
      let source = await open(db);
      await dest.select(db);
      let cursor = '0';
      do {
        signal.throwIfAborted();
        const [next, keys] = await capped(
          source,
          (c) => c.scanBuffer(cursor, 'COUNT', BATCH),
          () => new Error(`the source's answer to SCAN (key names) was over ${megabytes}`),
        );
        cursor = next.toString();
        let done = 0;
        while (done < keys.length) {
          signal.throwIfAborted();
          const take = keys.slice(done, done + batch);
          let replies: [Error | null, unknown][];
          try {
            replies = await capped(
              source,
              (c) => dumpAll(c, take),
              () =>
                new Error(
                  `the DUMP of ${printableKey(take[0]!)} in database ${db} is over ${megabytes}, the most an import reads at once: this key cannot be imported (copy it another way, or delete it from the source)`,
                ),
            );
          } catch (err) {
            if (!(err instanceof OverBudget)) throw err;
            // the cut connection is gone: go on with a new one and half the batch
            source.client.disconnect();
            connections.delete(source.client);
            if (take.length === 1) throw err;
            batch = Math.max(1, Math.floor(take.length / 2));
            source = await open(db);
            continue;
          }
          const write = dest.pipeline();
          let writes = 0;
          for (let i = 0; i < take.length; i++) {
            const [dumpErr, payload] = replies[2 * i] ?? [];
            const [ttlErr, ttl] = replies[2 * i + 1] ?? [];
            if (dumpErr) throw dumpErr;
            if (ttlErr) throw ttlErr;
            // gone since SCAN (expired or deleted): -2 from PTTL or a nil DUMP
            if (payload === null || payload === undefined || ttl === -2) {
              skipped++;
              continue;
            }
            write.restore(take[i]!, Math.max(0, Number(ttl)), payload as Buffer, 'REPLACE');
            writes++;
          }
          // grow again only while the values are small beside the cap (no new cut to pay for)
          const bytes = replies.reduce((sum, [, payload]) => sum + (Buffer.isBuffer(payload) ? payload.length : 0), 0);
          replies = [];
          if (writes > 0) {
            for (const [err] of (await write.exec()) ?? []) {
              if (err) throw new Error(`RESTORE into the target failed: ${err.message}`);
            }
          }
          done += take.length;
          if (bytes < maxBytes / 4) batch = Math.min(BATCH, batch * 2);
          const before = copied;
          copied += writes;
          if (Math.floor(copied / LOG_EVERY) > Math.floor(before / LOG_EVERY)) log(`redis: ${copied} keys copied`);
        }
      } while (cursor !== '0');
      source.client.disconnect();
    }
    log(`redis: import finished, ${copied} keys copied${skipped ? `, ${skipped} expired during the copy` : ''}`);
    return { keys: copied };
  } finally {
    signal.removeEventListener('abort', onAbort);
    for (const c of connections) c.disconnect();
    dest.disconnect();
  }
}

/** An answer of the source went past the byte budget (the connection was cut). */
class OverBudget extends Error {}

async function dumpAll(source: Redis, keys: Buffer[]): Promise<[Error | null, unknown][]> {
  const read = source.pipeline();
  for (const key of keys) read.dumpBuffer(key).pttl(key);
  const replies = (await read.exec()) ?? [];
  for (const [err] of replies) if (err) throw err;
  return replies;
}

/** A key name for a message: printable, at most 80 characters. */
function printableKey(key: Buffer): string {
  const text = key.toString('utf8').replace(/[^\x20-\x7e]/g, '?');
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text);
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
