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
// sliced; keys with more than READ_WHOLE_MAX elements are refused rather than read.
// Each logical database gets its own connection opened with the `db` option: never SELECT.
// ioredis buffers a whole reply (LRANGE k 0 -1 of a huge list is one reply), so row pages and
// queries read under the socket's byte budget (answer-budget.ts): past the cap the connection is
// closed and the answer is `truncated` with the elements complete before the cut (none for one
// reply that alone exceeds the cap).
import { isUtf8 } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { Redis, Command, ReplyError } from 'ioredis';
import { DatabaseUnavailable, EngineRefused, InvalidInput, NotFound } from '../../core/errors.js';
import type { Column, Connection, DatabaseAdapter, QueryResult, RowsPage, Scope, TableEntry } from '../../core/database-adapter.js';
import { SocketBudget } from '../answer-budget.js';
import { bytesCell, fromCell, type Cell, type Row } from '../encoding.js';
import { decodeCursor, encodeCursor, InvalidCursor, type CursorKey } from '../cursor.js';
import type { Socket } from 'node:net';

const LIST_KEYS_MAX = 1000;
const READ_WHOLE_MAX = 10_000;
const COMMAND_TIMEOUT_MS = 30_000;
/** The most bytes a key listing may read (the answers of rows and queries have their own cap). */
const LIST_MAX_BYTES = 16 * 1024 * 1024;

/** Commands a shared, non-interactive connection must not run, or that reach past the scope. */
const REFUSED = new Set([
  'FLUSHALL', 'FLUSHDB', 'SHUTDOWN', 'DEBUG', 'MONITOR', 'SYNC', 'PSYNC', 'REPLICAOF', 'SLAVEOF',
  'SUBSCRIBE', 'PSUBSCRIBE', 'SSUBSCRIBE', 'UNSUBSCRIBE', 'PUNSUBSCRIBE', 'SUNSUBSCRIBE',
  'BLPOP', 'BRPOP', 'BRPOPLPUSH', 'BLMOVE', 'BLMPOP', 'BZPOPMIN', 'BZPOPMAX', 'BZMPOP', 'WAIT', 'WAITAOF',
  'SELECT', 'SWAPDB', 'MULTI', 'EXEC', 'DISCARD', 'WATCH', 'UNWATCH', 'QUIT', 'RESET', 'HELLO', 'AUTH',
  // Scripts can run any of the above; refused to keep this endpoint's guarantees simple.
  'EVAL', 'EVALSHA', 'EVAL_RO', 'EVALSHA_RO', 'FCALL', 'FCALL_RO', 'FUNCTION', 'SCRIPT',
  'MIGRATE', 'MODULE', 'SAVE', 'FAILOVER', 'CLUSTER',
]);
const ALLOWED_SUBCOMMANDS: Record<string, Set<string>> = {
  CONFIG: new Set(['GET']),
  CLIENT: new Set(['ID', 'INFO', 'LIST', 'GETNAME']),
  ACL: new Set(['WHOAMI', 'LIST', 'USERS', 'CAT', 'GETUSER', 'LOG']),
};

/** Splits a command line like redis-cli: "double quotes" with \n \t \" \\ \xHH escapes, 'single quotes' with \' only. */
export function splitCommandLine(line: string): Buffer[] {
  const args: Buffer[] = [];
  const src = Buffer.from(line, 'utf8');
  let i = 0;
  while (i < src.length) {
    while (i < src.length && isSpace(src[i]!)) i++;
    if (i >= src.length) break;
    const bytes: number[] = [];
    while (i < src.length && !isSpace(src[i]!)) {
      const c = src[i]!;
      if (c === 0x22 /* " */ || c === 0x27 /* ' */) {
        i++;
        for (;;) {
          if (i >= src.length) throw new InvalidInput('unterminated quote in the command');
          const d = src[i]!;
          if (d === c) { i++; break; }
          if (d === 0x5c /* \ */ && i + 1 < src.length) {
            const e = String.fromCharCode(src[i + 1]!);
            if (c === 0x27) {
              if (e === "'") { bytes.push(0x27); i += 2; continue; }
            } else if (e === 'x' && /^[0-9a-fA-F]{2}$/.test(src.subarray(i + 2, i + 4).toString('latin1'))) {
              bytes.push(parseInt(src.subarray(i + 2, i + 4).toString('latin1'), 16)); i += 4; continue;
            } else {
              const map: Record<string, number> = { n: 10, r: 13, t: 9, b: 8, a: 7 };
              bytes.push(map[e] ?? src[i + 1]!); i += 2; continue;
            }
          }
          bytes.push(d); i++;
        }
        if (i < src.length && !isSpace(src[i]!)) throw new InvalidInput('a closing quote must be followed by a space');
      } else {
        bytes.push(c); i++;
      }
    }
    args.push(Buffer.from(bytes));
  }
  return args;
}
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

function checkAllowed(argv: Buffer[]): string {
  const name = argv[0]!.toString('utf8').toUpperCase();
  const sub = argv[1]?.toString('utf8').toUpperCase() ?? '';
  if (REFUSED.has(name)) throw new InvalidInput(`${name} is not allowed here`);
  const allowed = ALLOWED_SUBCOMMANDS[name];
  if (allowed && !allowed.has(sub)) throw new InvalidInput(`${name} ${sub} is not allowed here`);
  if ((name === 'XREAD' || name === 'XREADGROUP') && argv.some((a) => a.toString('utf8').toUpperCase() === 'BLOCK')) {
    throw new InvalidInput(`${name} with BLOCK is not allowed here`);
  }
  return name;
}

/** A reply bulk string as a cell: UTF-8 text as a string, anything else as $bytes. */
const textCell = (b: Buffer): Cell => (isUtf8(b) ? b.toString('utf8') : bytesCell(b));

function replyCell(v: unknown): Cell {
  if (v === null || v === undefined) return null;
  if (Buffer.isBuffer(v)) return textCell(v);
  if (typeof v === 'number' || typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map(replyCell);
  if (v instanceof Error) return { error: v.message };
  return String(v);
}
const replyType = (v: unknown): string =>
  v === null || v === undefined ? 'nil' : typeof v === 'number' ? 'integer' : Array.isArray(v) ? 'array' : v instanceof Error ? 'error' : 'string';

/** A written cell as a redis argument. */
function arg(cell: Cell | undefined, what: string): string | Buffer {
  if (cell === undefined) throw new InvalidInput(`${what} is required`);
  const v = fromCell(cell);
  if (typeof v === 'string' || Buffer.isBuffer(v)) return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return v.toISOString();
  throw new InvalidInput(`${what} must be a string, a number or $bytes`);
}
function score(cell: Cell | undefined): string {
  const s = arg(cell, 'score').toString();
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$|^[+-]?inf$/i.test(s)) throw new InvalidInput('score must be a number');
  return s;
}
function onlyKeys(row: Row, keys: string[], what: string): void {
  const extra = Object.keys(row).filter((k) => !keys.includes(k));
  if (extra.length) throw new InvalidInput(`${what}: unexpected field(s) ${extra.join(', ')}; expected ${keys.join(', ') || 'none'}`);
}
const sameKeys = (row: Row, keys: string[]) => Object.keys(row).length === keys.length && keys.every((k) => k in row);
const byBytes = (a: Buffer, b: Buffer) => Buffer.compare(a, b);
/** A cursor's element (written as $bytes, or text) as its bytes. */
function bytesOf(cell: Cell): Buffer {
  const v = fromCell(cell);
  if (Buffer.isBuffer(v)) return v;
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  throw new InvalidCursor('malformed key value');
}

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
      host: conn.host, port: conn.port, username: conn.user || 'default', password: conn.password || undefined, db,
      lazyConnect: true, connectTimeout: 5000, maxRetriesPerRequest: 1, enableOfflineQueue: false,
      commandTimeout: COMMAND_TIMEOUT_MS,
      // One request's connection: never reconnect and resend (a command cut at the byte cap must stay cut).
      retryStrategy: () => null,
    });
    // Failures surface through the commands that meet them; an unheard 'error' event would only be logged.
    let lastError: unknown;
    client.on('error', (err: unknown) => { lastError = err; });
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
    if (!(err instanceof ReplyError)) { first.disconnect(); throw toError(err); }
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

  function tooBig(key: string, n: number): void {
    if (n > READ_WHOLE_MAX) throw new InvalidInput(`${key} has ${n} elements; keys over ${READ_WHOLE_MAX} elements of this type cannot be browsed, use a query (HSCAN/SSCAN)`);
  }

  return {
    // Key names can be long (up to 512 MB each): the listing is read under the byte budget too.
    listTables: (scope) => capped(scope, LIST_MAX_BYTES, async (c) => {
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
      const counts = await pipelined(c.pipeline(live.map((k, i) => {
        const command = SIZE_COMMANDS[liveTypes[i]!];
        return command ? [command, k] : ['exists', k];
      })));
      live.forEach((key, i) => entries.push({ id: key, name: key, schema, rowCount: Number(counts[i]), rowCountEstimated: false }));
      return entries;
    }, (): TableEntry[] => {
      throw new EngineRefused(`the key names of this database are more than ${LIST_MAX_BYTES / 1024 / 1024} MB; list them with a query (SCAN)`);
    }),

    readRows: (key, { limit, offset, after }, scope, maxBytes) => capped(scope, maxBytes, async (c) => {
      const type = await typeOf(c, key);
      let columns: Column[];
      let rows: Row[] = [];
      let total: number;
      /** The key of the last row answered, when more rows follow it. */
      let next: CursorKey | null = null;
      /** Hashes and sets, read whole and sorted: the page after the cursor's element. */
      const sortedPage = <T>(items: T[], element: (x: T) => Buffer, name: string): T[] => {
        let start = 0;
        if (after !== null) {
          const from = bytesOf(decodeCursor(after, key, [name]).values[0]!);
          start = items.findIndex((x) => byBytes(element(x), from) > 0);
          if (start < 0) start = items.length;
        }
        const page = items.slice(start + offset, start + offset + limit);
        if (page.length && start + offset + limit < items.length) next = { names: [name], values: [bytesCell(element(page[page.length - 1]!))] };
        return page;
      };
      switch (type) {
        case 'none':
          throw new NotFound(`no key ${JSON.stringify(key)}`);
        case 'string': {
          columns = [{ name: 'value', type: 'string', primary: false }];
          if (after !== null) decodeCursor(after, key, []); // a string has one row and no key: always refused
          const v = await c.getBuffer(key);
          total = 1;
          if (offset === 0 && limit > 0 && v !== null) rows = [{ value: textCell(v) }];
          break;
        }
        case 'hash': {
          columns = [{ name: 'field', type: 'string', primary: true }, { name: 'value', type: 'string', primary: false }];
          total = await c.hlen(key);
          tooBig(key, total);
          const flat = (await c.callBuffer('HGETALL', key)) as Buffer[];
          const pairs: [Buffer, Buffer][] = [];
          for (let i = 0; i + 1 < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
          pairs.sort((a, b) => byBytes(a[0], b[0]));
          rows = sortedPage(pairs, (p) => p[0], 'field').map(([f, v]) => ({ field: textCell(f), value: textCell(v) }));
          break;
        }
        case 'list': {
          columns = [{ name: 'index', type: 'integer', primary: true }, { name: 'value', type: 'string', primary: false }];
          total = await c.llen(key);
          let start = 0;
          if (after !== null) {
            const index = decodeCursor(after, key, ['index']).values[0];
            if (!Number.isSafeInteger(index) || (index as number) < 0) throw new InvalidCursor('malformed key value');
            start = (index as number) + 1;
          }
          const first = start + offset;
          const items = limit > 0 ? await c.lrangeBuffer(key, first, first + limit) : [];
          rows = items.slice(0, limit).map((v, i) => ({ index: first + i, value: textCell(v) }));
          if (items.length > limit) next = { names: ['index'], values: [first + limit - 1] };
          break;
        }
        case 'set': {
          columns = [{ name: 'member', type: 'string', primary: true }];
          total = await c.scard(key);
          tooBig(key, total);
          const members = (await c.smembersBuffer(key)).sort(byBytes);
          rows = sortedPage(members, (m) => m, 'member').map((m) => ({ member: textCell(m) }));
          break;
        }
        case 'zset': {
          columns = [{ name: 'member', type: 'string', primary: true }, { name: 'score', type: 'double', primary: false }];
          total = await c.zcard(key);
          let start = 0;
          if (after !== null) {
            const [s, m] = decodeCursor(after, key, ['score', 'member']).values;
            if (typeof s !== 'string' || !/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$|^[+-]?inf$/i.test(s)) throw new InvalidCursor('malformed key value');
            const member = bytesOf(m!);
            // Sorted sets are ordered by (score, member): the cursor's rank, found in O(log n).
            const rank = await c.zrank(key, member);
            const now = rank === null ? null : await c.zscore(key, member);
            if (rank !== null && now !== null && Number(now) === Number(s)) start = rank + 1;
            else {
              // the member left or moved: count what sorts before (s, member)
              const below = await c.zcount(key, '-inf', `(${s}`);
              const same = (await c.zrangebyscoreBuffer(key, s, s)).filter((x) => byBytes(x, member) <= 0).length;
              start = below + same;
            }
          }
          const first = start + offset;
          const flat = limit > 0 ? ((await c.callBuffer('ZRANGE', key, first, first + limit, 'WITHSCORES')) as Buffer[]) : [];
          const raw: [Buffer, Buffer][] = [];
          for (let i = 0; i + 1 < flat.length; i += 2) raw.push([flat[i]!, flat[i + 1]!]);
          for (const [m, sc] of raw.slice(0, limit)) {
            const n = Number(sc.toString());
            rows.push({ member: textCell(m), score: Number.isFinite(n) ? n : sc.toString() });
          }
          if (raw.length > limit) {
            const [m, sc] = raw[limit - 1]!;
            next = { names: ['score', 'member'], values: [sc.toString(), bytesCell(m)] };
          }
          break;
        }
        case 'stream': {
          columns = [{ name: 'id', type: 'string', primary: true }, { name: 'fields', type: 'object', primary: false }];
          total = await c.xlen(key);
          tooBig(key, offset);
          let from = '-';
          if (after !== null) {
            const id = decodeCursor(after, key, ['id']).values[0];
            if (typeof id !== 'string' || !/^\d+-\d+$/.test(id)) throw new InvalidCursor('malformed key value');
            from = `(${id}`; // exclusive start: the entry ids are the stream's own keyset
          }
          const entries = limit > 0 ? ((await c.callBuffer('XRANGE', key, from, '+', 'COUNT', offset + limit + 1)) as [Buffer, Buffer[]][]) : [];
          const page = entries.slice(offset, offset + limit);
          rows = page.map(([id, kv]) => {
            const fields: Record<string, Cell> = {};
            for (let i = 0; i + 1 < kv.length; i += 2) fields[kv[i]!.toString('utf8')] = textCell(kv[i + 1]!);
            return { id: id.toString('utf8'), fields };
          });
          if (entries.length > offset + limit && page.length) next = { names: ['id'], values: [page[page.length - 1]![0].toString('utf8')] };
          break;
        }
        default:
          throw new InvalidInput(`keys of type ${type} cannot be browsed; use a query`);
      }
      const page: RowsPage = { table: key, columns, rows, limit, offset, total, totalEstimated: false, nextCursor: next ? encodeCursor(key, next) : null };
      return page;
    }, (): RowsPage => ({ table: key, columns: [], rows: [], limit, offset, total: 0, totalEstimated: false, truncated: true, nextCursor: null })),

    query: (statement, limits, scope) => capped(scope, limits.maxBytes, async (c) => {
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
    }, (): QueryResult => ({ columns: [{ name: 'value', type: 'array' }], rows: [], rowCount: 0, truncated: true })),

    insertRow: (key, values, scope) => run(scope, async (c): Promise<Row> => {
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

    updateRow: (key, primaryKey, values, scope) => run(scope, async (c) => {
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

    deleteRow: (key, primaryKey, scope) => run(scope, async (c) => {
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
