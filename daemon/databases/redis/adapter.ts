// Redis through ioredis. A "table" is a key of one logical database (the scope's `database`, 0 by
// default); its "rows" are the key's elements, with columns chosen by the key's type:
//
//   string  [value]                    primary key {} (or {key: <the key>})
//   hash    [field (primary), value]   primary key {field}
//   list    [index (primary), value]   primary key {index}
//   set     [member (primary)]         primary key {member}
//   zset    [member (primary), score]  primary key {member}
//   stream  [id (primary), fields]     primary key {id}
//
// insertRow forms (what `values` holds decides the command, checked against the key's type):
//   {value}          new key or string: SET;   existing list: RPUSH, returns {index}
//   {field, value}   hash: HSET, returns {field}
//   {member}         set: SADD, returns {member}
//   {member, score}  zset: ZADD, returns {member}
//   {fields: {...}}  stream: XADD with an automatic id, returns {id}
// A new list cannot be made from a row (it would look like a string): use `RPUSH` in a query.
//
// Hashes and sets have no order to page by, so they are read whole (HGETALL/SMEMBERS), sorted and
// sliced (rows.ts); keys with more than 10 000 elements are refused rather than read.
// Each logical database gets its own connection opened with the `db` option: never SELECT.
// ioredis buffers a whole reply (LRANGE k 0 -1 of a huge list is one reply), so row pages and
// queries read under the socket's byte budget (answer-budget.ts): past the cap the connection is
// closed and the answer is `truncated` with the elements complete before the cut (none for one
// reply that alone exceeds the cap).
import { randomBytes } from 'node:crypto';
import { Redis, Command, ReplyError } from 'ioredis';
import { DatabaseUnavailable, EngineRefused, InvalidInput, NotFound } from '../../core/errors.js';
import type { Connection, DatabaseAdapter, QueryResult, RowsPage, Scope, TableEntry } from '../../core/ports/database-adapter.js';
import { SocketBudget } from '../answer-budget.js';
import type { Cell, Row } from '../encoding.js';
import { checkAllowed, splitCommandLine } from './command-line.js';
import { readPage } from './rows.js';
import { arg, onlyKeys, replyCell, replyType, sameKeys, score } from './values.js';
import type { Socket } from 'node:net';

const LIST_KEYS_MAX = 1000;
const COMMAND_TIMEOUT_MS = 30_000;
/** The most bytes a key listing may read (the answers of rows and queries have their own cap). */
const LIST_MAX_BYTES = 16 * 1024 * 1024;

function toError(err: unknown): Error {
  if (err instanceof InvalidInput || err instanceof NotFound || err instanceof EngineRefused || err instanceof DatabaseUnavailable) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (/^(NOAUTH|WRONGPASS|NOPERM this user has no permissions to run the 'auth')/.test(message)) return new DatabaseUnavailable(`redis: ${message}`);
  if (err instanceof ReplyError) return new EngineRefused(message);
  if (message === 'Command timed out') return new EngineRefused('redis: the command timed out');
  return new DatabaseUnavailable(`redis is unreachable: ${message}`);
}

export async function openRedis(conn: Connection): Promise<DatabaseAdapter> {
  const clients = new Map<number, Redis>();

  async function connect(db: number): Promise<Redis> {
    const client = new Redis({
      host: conn.host,
      port: conn.port,
      username: conn.user || 'default',
      password: conn.password || undefined,
      db,
      lazyConnect: true,
      connectTimeout: 5000,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      commandTimeout: COMMAND_TIMEOUT_MS,
      // One request's connection: never reconnect and resend (a command cut at the byte cap must stay cut).
      retryStrategy: () => null,
    });
    // Failures surface through the commands that meet them; an unheard 'error' event would only be logged.
    let lastError: unknown;
    client.on('error', (err: unknown) => {
      lastError = err;
    });
    try {
      await client.connect();
    } catch (err) {
      client.disconnect();
      // connect() rejects with "Connection is closed."; the reason (WRONGPASS, ECONNREFUSED) came as an event.
      const cause = toError(lastError ?? err);
      throw cause instanceof DatabaseUnavailable ? cause : new DatabaseUnavailable(`redis: ${cause.message}`);
    }
    return client;
  }

  const first = await connect(0);
  clients.set(0, first);
  let databases = 16;
  try {
    const reply = (await first.call('CONFIG', 'GET', 'databases')) as string[];
    const n = Number(reply[1]);
    if (Number.isInteger(n) && n > 0) databases = n;
  } catch (err) {
    // CONFIG is often renamed or forbidden on managed servers: keep redis's default of 16.
    if (!(err instanceof ReplyError)) {
      first.disconnect();
      throw toError(err);
    }
  }

  async function client(scope: Scope): Promise<Redis> {
    const raw: unknown = scope.database ?? 0;
    const db = typeof raw === 'string' && /^\d{1,5}$/.test(raw) ? Number(raw) : raw;
    if (typeof db !== 'number' || !Number.isInteger(db) || db < 0 || db >= databases) {
      throw new InvalidInput(`database must be an integer from 0 to ${databases - 1}`);
    }
    let c = clients.get(db);
    if (!c) {
      c = await connect(db);
      clients.set(db, c);
    }
    return c;
  }

  async function run<T>(scope: Scope, f: (c: Redis) => Promise<T>): Promise<T> {
    try {
      return await f(await client(scope));
    } catch (err) {
      throw toError(err);
    }
  }

  const budgets = new WeakMap<Redis, SocketBudget>();
  /** `f` under the byte budget; `cut` is what answers when the cap ended the connection. */
  async function capped<T>(scope: Scope, maxBytes: number, f: (c: Redis) => Promise<T>, cut: () => T): Promise<T> {
    return run(scope, async (c) => {
      let budget = budgets.get(c);
      if (!budget) {
        budget = new SocketBudget((c as unknown as { stream: Socket }).stream);
        budgets.set(c, budget);
      }
      budget.begin(maxBytes);
      try {
        return await f(c);
      } catch (err) {
        if (!budget.exceeded) throw err;
        return cut();
      } finally {
        budget.end();
        if (budget.exceeded) {
          c.disconnect();
          for (const [db, x] of clients) if (x === c) clients.delete(db);
        }
      }
    });
  }

  async function typeOf(c: Redis, key: string): Promise<string> {
    return c.type(key);
  }

  return {
    // Key names can be long (up to 512 MB each): the listing is read under the byte budget too.
    listTables: (scope) =>
      capped(
        scope,
        LIST_MAX_BYTES,
        async (c) => {
          const keys = new Set<string>();
          let cursor = '0';
          do {
            const [next, batch] = await c.scan(cursor, 'COUNT', 500);
            for (const k of batch) if (keys.size < LIST_KEYS_MAX) keys.add(k);
            cursor = next;
          } while (cursor !== '0' && keys.size < LIST_KEYS_MAX);
          const sorted = [...keys].sort();
          const entries: TableEntry[] = [];
          const schema = `db${(scope.database ?? 0) as number}`;
          const types = await pipelined(c.pipeline(sorted.map((k) => ['type', k])));
          const live = sorted.filter((_, i) => types[i] !== 'none'); // expired between SCAN and TYPE
          const liveTypes = types.filter((t) => t !== 'none') as string[];
          const counts = await pipelined(
            c.pipeline(
              live.map((k, i) => {
                const command = SIZE_COMMANDS[liveTypes[i]!];
                return command ? [command, k] : ['exists', k];
              }),
            ),
          );
          live.forEach((key, i) => entries.push({ id: key, name: key, schema, rowCount: Number(counts[i]), rowCountEstimated: false }));
          return entries;
        },
        (): TableEntry[] => {
          throw new EngineRefused(`the key names of this database are more than ${LIST_MAX_BYTES / 1024 / 1024} MB; list them with a query (SCAN)`);
        },
      ),

    readRows: (key, { limit, offset, after }, scope, maxBytes) =>
      capped(
        scope,
        maxBytes,
        async (c) => {
          return readPage(c, key, { limit, offset, after });
        },
        (): RowsPage => ({ table: key, columns: [], rows: [], limit, offset, total: 0, totalEstimated: false, truncated: true, nextCursor: null }),
      ),

    query: (statement, limits, scope) =>
      capped(
        scope,
        limits.maxBytes,
        async (c) => {
          const argv = splitCommandLine(statement);
          if (argv.length === 0) throw new InvalidInput('the command is empty');
          const name = checkAllowed(argv);
          const command = new Command(name, argv.slice(1));
          command.setTimeout(limits.timeoutMs);
          const reply: unknown = await c.sendCommand(command);
          const type = replyType(reply);
          const items = Array.isArray(reply) ? reply : [reply];
          const result: QueryResult = {
            columns: [{ name: 'value', type }],
            rows: items.slice(0, limits.maxRows).map((v) => ({ value: replyCell(v) })),
            rowCount: items.length,
            truncated: items.length > limits.maxRows,
          };
          return result;
        },
        (): QueryResult => ({ columns: [{ name: 'value', type: 'array' }], rows: [], rowCount: 0, truncated: true }),
      ),

    insertRow: (key, values, scope) =>
      run(scope, async (c): Promise<Row> => {
        const type = await typeOf(c, key);
        const expect = (wanted: string) => {
          if (type !== 'none' && type !== wanted) throw new InvalidInput(`${key} is a ${type}, not a ${wanted}`);
        };
        if (sameKeys(values, ['value'])) {
          if (type === 'list') {
            const length = await c.rpush(key, arg(values.value, 'value'));
            return { index: length - 1 };
          }
          expect('string');
          await c.set(key, arg(values.value, 'value'));
          return { key };
        }
        if (sameKeys(values, ['field', 'value'])) {
          expect('hash');
          const field = arg(values.field, 'field');
          await c.hset(key, field, arg(values.value, 'value'));
          return { field: values.field! };
        }
        if (sameKeys(values, ['member'])) {
          expect('set');
          await c.sadd(key, arg(values.member, 'member'));
          return { member: values.member! };
        }
        if (sameKeys(values, ['member', 'score'])) {
          expect('zset');
          await c.zadd(key, score(values.score), arg(values.member, 'member'));
          return { member: values.member! };
        }
        if (sameKeys(values, ['fields'])) {
          expect('stream');
          const fields = values.fields;
          if (fields === null || typeof fields !== 'object' || Array.isArray(fields) || Object.keys(fields).length === 0) {
            throw new InvalidInput('fields must be a non-empty object');
          }
          const args = Object.entries(fields).flatMap(([f, v]) => [f, arg(v, `fields.${f}`)]);
          const id = (await c.call('XADD', key, '*', ...args)) as string;
          return { id };
        }
        throw new InvalidInput('a row is one of {value}, {field, value}, {member}, {member, score} or {fields}');
      }),

    updateRow: (key, primaryKey, values, scope) =>
      run(scope, async (c) => {
        const type = await typeOf(c, key);
        switch (type) {
          case 'none':
            throw new NotFound(`no key ${JSON.stringify(key)}`);
          case 'string':
            stringKey(key, primaryKey);
            onlyKeys(values, ['value'], 'values');
            if ((await c.set(key, arg(values.value, 'value'), 'XX')) === null) throw new NotFound(`no key ${JSON.stringify(key)}`);
            return;
          case 'hash': {
            onlyKeys(primaryKey, ['field'], 'primary key');
            onlyKeys(values, ['value'], 'values');
            const field = arg(primaryKey.field, 'field');
            if (!(await c.hexists(key, field))) throw new NotFound(`no field ${JSON.stringify(primaryKey.field)} in ${key}`);
            await c.hset(key, field, arg(values.value, 'value'));
            return;
          }
          case 'list': {
            onlyKeys(primaryKey, ['index'], 'primary key');
            onlyKeys(values, ['value'], 'values');
            const index = listIndex(primaryKey.index);
            if (index >= (await c.llen(key))) throw new NotFound(`no index ${index} in ${key}`);
            await c.lset(key, index, arg(values.value, 'value'));
            return;
          }
          case 'set': {
            onlyKeys(primaryKey, ['member'], 'primary key');
            onlyKeys(values, ['member'], 'values');
            const old = arg(primaryKey.member, 'member');
            if (!(await c.sismember(key, old))) throw new NotFound(`no member ${JSON.stringify(primaryKey.member)} in ${key}`);
            await c.multi().srem(key, old).sadd(key, arg(values.member, 'member')).exec().then(checkExec);
            return;
          }
          case 'zset': {
            onlyKeys(primaryKey, ['member'], 'primary key');
            onlyKeys(values, ['member', 'score'], 'values');
            const old = arg(primaryKey.member, 'member');
            const current = await c.zscore(key, old);
            if (current === null) throw new NotFound(`no member ${JSON.stringify(primaryKey.member)} in ${key}`);
            const next = values.member === undefined ? old : arg(values.member, 'member');
            const s = values.score === undefined ? current : score(values.score);
            await c.multi().zrem(key, old).zadd(key, s, next).exec().then(checkExec);
            return;
          }
          default:
            throw new InvalidInput(`rows of a ${type} cannot be updated`);
        }
      }),

    deleteRow: (key, primaryKey, scope) =>
      run(scope, async (c) => {
        const type = await typeOf(c, key);
        const gone = (what: string) => new NotFound(`no ${what} in ${key}`);
        switch (type) {
          case 'none':
            throw new NotFound(`no key ${JSON.stringify(key)}`);
          case 'string':
            stringKey(key, primaryKey);
            if ((await c.del(key)) === 0) throw new NotFound(`no key ${JSON.stringify(key)}`);
            return;
          case 'hash':
            onlyKeys(primaryKey, ['field'], 'primary key');
            if ((await c.hdel(key, arg(primaryKey.field, 'field'))) === 0) throw gone(`field ${JSON.stringify(primaryKey.field)}`);
            return;
          case 'list': {
            onlyKeys(primaryKey, ['index'], 'primary key');
            const index = listIndex(primaryKey.index);
            if (index >= (await c.llen(key))) throw gone(`index ${index}`);
            // Redis removes list elements by value only: mark the element with a unique value, then remove that.
            const mark = randomBytes(24);
            await c.multi().lset(key, index, mark).lrem(key, 1, mark).exec().then(checkExec);
            return;
          }
          case 'set':
            onlyKeys(primaryKey, ['member'], 'primary key');
            if ((await c.srem(key, arg(primaryKey.member, 'member'))) === 0) throw gone(`member ${JSON.stringify(primaryKey.member)}`);
            return;
          case 'zset':
            onlyKeys(primaryKey, ['member'], 'primary key');
            if ((await c.zrem(key, arg(primaryKey.member, 'member'))) === 0) throw gone(`member ${JSON.stringify(primaryKey.member)}`);
            return;
          case 'stream':
            onlyKeys(primaryKey, ['id'], 'primary key');
            if ((await c.xdel(key, arg(primaryKey.id, 'id'))) === 0) throw gone(`entry ${JSON.stringify(primaryKey.id)}`);
            return;
          default:
            throw new InvalidInput(`rows of a ${type} cannot be deleted; delete the key with a query`);
        }
      }),

    async close() {
      await Promise.allSettled([...clients.values()].map((c) => c.quit()));
      clients.clear();
    },
  };
}

const SIZE_COMMANDS: Record<string, string> = { hash: 'hlen', list: 'llen', set: 'scard', zset: 'zcard', stream: 'xlen' };

async function pipelined(p: ReturnType<Redis['pipeline']>): Promise<unknown[]> {
  const results = (await p.exec()) ?? [];
  return results.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}

/** A string key's primary key is {} or {key: <the same key>}. */
function stringKey(key: string, primaryKey: Row): void {
  onlyKeys(primaryKey, ['key'], 'primary key');
  if (primaryKey.key !== undefined && primaryKey.key !== key) throw new InvalidInput('primary key.key must be the key itself');
}

/** MULTI/EXEC reports each command's failure in its reply instead of rejecting. */
function checkExec(results: [Error | null, unknown][] | null): void {
  if (results === null) throw new EngineRefused('redis: the transaction was aborted');
  for (const [err] of results) if (err) throw err;
}

function listIndex(cell: Cell | undefined): number {
  const n = typeof cell === 'string' && /^\d+$/.test(cell) ? Number(cell) : cell;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw new InvalidInput('index must be a non-negative integer');
  return n;
}
