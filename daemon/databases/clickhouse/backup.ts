// ClickHouse: a "native dump" of the service's database (CLICKHOUSE_DB) made with clickhouse-client
// inside the container: every table's CREATE statement and its rows in ClickHouse's Native format,
// in one self-describing stream. ClickHouse 18.16 (the stand-in) has no BACKUP statement and its
// client reads no credentials from the environment (CLICKHOUSE_USER / CLICKHOUSE_PASSWORD variables
// came with later clients), so user and password go into a client config file (`--config-file`,
// `<user>` / `<password>`, read by old and new clients alike) written into the container's /tmp
// through an exec's stdin, mode 0600, removed afterwards: never argv.
//
// File format (version 1):
//   "BERTH-CLICKHOUSE-NATIVE 1\n"
//   per table, one JSON line: {"name","engine","create","data","columns"?}\n
//     when data is true, then its rows: chunks of [uint32 BE length][Native bytes], ended by a
//     zero-length chunk (the concatenated chunks are exactly `SELECT * ... FORMAT Native`)
//   "{\"end\":true,\"tables\":N}\n"
// Order: tables with data (*MergeTree, Log, TinyLog, StripeLog, Memory), other tables (Merge,
// Distributed, Buffer... : statement only), materialized views (rows of those without `TO`, read
// through the view, i.e. their inner table; the inner `.inner.*` tables themselves are skipped),
// plain views last.
//
// Restore is two-phase, so that a truncated or corrupt file changes nothing: phase 1 loads every
// table into a fresh staging table (`__berth_restore_<id>_<n>`, from the dumped CREATE statement
// with only the name changed; a materialized view's rows go into a Log table of its columns) and
// requires the end marker; any failure drops the staging tables and rejects. Phase 2 then replaces:
// drop the dump's views, for each table DROP + RENAME staging -> name, create the other tables, the
// materialized views (then INSERT their rows from staging: inserting into a view writes its inner
// table without running its SELECT) and the views. Tables that exist now but are not in the dump
// are left alone (like pg_restore --clean). ClickHouse 18.16 has no EXCHANGE TABLES: between a
// table's DROP and RENAME there is a moment without it.
import { randomBytes } from 'node:crypto';
import { Readable, Transform, type Writable } from 'node:stream';
import type { EngineBackupTool, ToolContext } from '../backup-tool.js';
import { execInContainer, execText, withSecretFile, writeTo } from '../../docker/exec.js';

const MAGIC_LINE = 'BERTH-CLICKHOUSE-NATIVE 1';
const MAX_LINE = 64 * 1024 * 1024;
const MAX_CHUNK = 256 * 1024 * 1024;
const DATA_ENGINE = /MergeTree$|^(Log|TinyLog|StripeLog|Memory)$/;
const STAGING_PREFIX = '__berth_restore_';

interface Entry {
  name: string;
  engine: string;
  create: string;
  data: boolean;
  /** For a materialized view's rows: the columns of its staging table. */
  columns?: { name: string; type: string }[];
}

/** `name` as a ClickHouse identifier, always backquoted. */
function quoteIdent(name: string): string {
  return '`' + name.replace(/\\/g, '\\\\').replace(/`/g, '\\`') + '`';
}

function quoteString(value: string): string {
  return "'" + value.replace(/\\/g, '\\\\').replace(/'/g, "\\'") + "'";
}

function xmlEscape(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const IDENT = '(?:`(?:[^`\\\\]|\\\\.)*`|[A-Za-z_][A-Za-z0-9_]*)';
const CREATE_HEAD = new RegExp(`^(CREATE (?:TABLE|VIEW|MATERIALIZED VIEW) )(${IDENT}\\.${IDENT})`);

/** The CREATE statement with the table's qualified name replaced (the rest is untouched). */
function renameCreate(create: string, qualifiedName: string): string {
  const m = CREATE_HEAD.exec(create);
  if (!m) throw new Error(`unexpected CREATE statement: ${create.slice(0, 120)}`);
  return m[1] + qualifiedName + create.slice(m[0].length);
}

function hasTarget(create: string): boolean {
  const m = CREATE_HEAD.exec(create);
  return m !== null && /^\s+TO\s/i.test(create.slice(m[0].length));
}

function clientConfig(env: Readonly<Record<string, string>>): string {
  const user = env.CLICKHOUSE_USER || 'default';
  const password = env.CLICKHOUSE_PASSWORD ?? '';
  return `<?xml version="1.0"?>\n<config>\n  <user>${xmlEscape(user)}</user>\n  <password>${xmlEscape(password)}</password>\n</config>\n`;
}

/** One clickhouse-client run against the container's own server with the secret config. */
type Client = (query: string, io?: { stdout?: Writable; through?: Transform[]; stdin?: Readable }) => Promise<void>;
type ClientText = (query: string) => Promise<string>;

async function withClient<T>(ctx: ToolContext, fn: (run: Client, text: ClientText) => Promise<T>): Promise<T> {
  return withSecretFile(ctx.docker, ctx.containerId, clientConfig(ctx.env), (path) => {
    const cmd = (query: string) => ['clickhouse-client', '--config-file', path, '--query', query];
    const run: Client = async (query, io = {}) => {
      await execInContainer(ctx.docker, ctx.containerId, { tool: 'clickhouse-client', cmd: cmd(query), signal: ctx.signal, ...io });
    };
    const text: ClientText = (query) => execText(ctx.docker, ctx.containerId, { tool: 'clickhouse-client', cmd: cmd(query), signal: ctx.signal });
    return fn(run, text);
  });
}

function jsonRows<T>(text: string): T[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

function database(ctx: ToolContext): string {
  return ctx.env.CLICKHOUSE_DB || 'default';
}

export const clickhouseTool: EngineBackupTool = {
  format: 'native',
  extension: 'chnative',

  async dump(ctx, out) {
    const db = database(ctx);
    const qdb = quoteIdent(db);
    await withClient(ctx, async (run, text) => {
      const tables = jsonRows<{ name: string; engine: string }>(await text(`SELECT name, engine FROM system.tables WHERE database = ${quoteString(db)} FORMAT JSONEachRow`)).filter(
        (t) => !t.name.startsWith('.inner') && !t.name.startsWith(STAGING_PREFIX) && t.engine !== 'Dictionary',
      );
      const rank = (engine: string) => (DATA_ENGINE.test(engine) ? 0 : engine === 'MaterializedView' ? 2 : engine === 'View' ? 3 : 1);
      tables.sort((a, b) => rank(a.engine) - rank(b.engine) || a.name.localeCompare(b.name));

      await writeTo(out, MAGIC_LINE + '\n');
      for (const t of tables) {
        const qualified = `${qdb}.${quoteIdent(t.name)}`;
        const [show] = jsonRows<{ statement: string }>(await text(`SHOW CREATE TABLE ${qualified} FORMAT JSONEachRow`));
        if (!show) throw new Error(`SHOW CREATE TABLE ${qualified} returned nothing`);
        const entry: Entry = { name: t.name, engine: t.engine, create: show.statement, data: DATA_ENGINE.test(t.engine) };
        if (t.engine === 'MaterializedView' && !hasTarget(show.statement)) {
          entry.data = true;
          entry.columns = jsonRows<{ name: string; type: string }>(await text(`DESCRIBE TABLE ${qualified} FORMAT JSONEachRow`)).map((c) => ({ name: c.name, type: c.type }));
        }
        await writeTo(out, JSON.stringify(entry) + '\n');
        if (entry.data) {
          await run(`SELECT * FROM ${qualified} FORMAT Native`, { stdout: out, through: [new ChunkFramer()] });
          await writeTo(out, Buffer.alloc(4));
        }
        ctx.log(`clickhouse: dumped ${t.name} (${t.engine})`);
      }
      await writeTo(out, JSON.stringify({ end: true, tables: tables.length }) + '\n');
    });
  },

  async restore(ctx, input) {
    const reader = new FrameReader(input);
    const first = await reader.line();
    if (first !== MAGIC_LINE) {
      reader.close();
      throw new Error('the backup file is not a Berth ClickHouse native dump (no BERTH-CLICKHOUSE-NATIVE 1 header); nothing was restored');
    }
    const db = database(ctx);
    const qdb = quoteIdent(db);
    const q = (name: string) => `${qdb}.${quoteIdent(name)}`;
    const restoreId = randomBytes(4).toString('hex');

    await withClient(ctx, async (run, text) => {
      // Staging tables left by an interrupted restore.
      const leftovers = jsonRows<{ name: string }>(
        await text(`SELECT name FROM system.tables WHERE database = ${quoteString(db)} AND startsWith(name, ${quoteString(STAGING_PREFIX)}) FORMAT JSONEachRow`),
      );
      for (const t of leftovers) await run(`DROP TABLE IF EXISTS ${q(t.name)}`);

      // Phase 1: everything into staging tables; the live tables are not touched.
      const entries: { entry: Entry; staging: string | null }[] = [];
      try {
        for (;;) {
          const line = await reader.line();
          if (line === null) throw new Error('the backup file is truncated (no end marker)');
          const parsed = JSON.parse(line) as Entry | { end: true; tables: number };
          if ('end' in parsed) {
            if (parsed.tables !== entries.length) throw new Error(`the backup file lists ${parsed.tables} tables but holds ${entries.length}`);
            break;
          }
          const entry = parsed;
          let staging: string | null = null;
          if (entry.data) {
            staging = `${STAGING_PREFIX}${restoreId}_${entries.length}`;
            entries.push({ entry, staging });
            if (entry.columns) await run(`CREATE TABLE ${q(staging)} (${entry.columns.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(', ')}) ENGINE = Log`);
            else await run(renameCreate(entry.create, q(staging)));
            const chunks = reader.chunks();
            const firstChunk = await chunks.next();
            if (!firstChunk.done) {
              await run(`INSERT INTO ${q(staging)} FORMAT Native`, { stdin: Readable.from(prepend(firstChunk.value, chunks), { objectMode: false }) });
            }
          } else {
            entries.push({ entry, staging });
          }
        }
        if ((await reader.line()) !== null) throw new Error('unexpected data after the end marker');
      } catch (err) {
        reader.close();
        for (const { staging } of entries) if (staging) await run(`DROP TABLE IF EXISTS ${q(staging)}`).catch(() => undefined);
        throw new Error(`restore failed while loading the backup, the database was not changed: ${(err as Error).message}`, { cause: err });
      }

      // Phase 2: replace.
      const views = entries.filter(({ entry }) => entry.engine === 'View' || entry.engine === 'MaterializedView');
      for (const { entry } of views) await run(`DROP TABLE IF EXISTS ${q(entry.name)}`);
      for (const { entry, staging } of entries) {
        if (!staging || entry.engine === 'MaterializedView') continue;
        await run(`DROP TABLE IF EXISTS ${q(entry.name)}`);
        await run(`RENAME TABLE ${q(staging)} TO ${q(entry.name)}`);
      }
      for (const { entry } of entries) {
        if (entry.data || entry.engine === 'View' || entry.engine === 'MaterializedView') continue;
        await run(`DROP TABLE IF EXISTS ${q(entry.name)}`);
        await run(entry.create);
      }
      for (const { entry, staging } of entries) {
        if (entry.engine !== 'MaterializedView') continue;
        await run(entry.create);
        if (staging) {
          await run(`INSERT INTO ${q(entry.name)} SELECT * FROM ${q(staging)}`);
          await run(`DROP TABLE ${q(staging)}`);
        }
      }
      // Views may read other views: create in rounds until every one exists or no round progresses.
      let pending = entries.filter(({ entry }) => entry.engine === 'View').map(({ entry }) => entry);
      while (pending.length > 0) {
        const failed: Entry[] = [];
        let lastError: unknown = null;
        for (const entry of pending) {
          await run(entry.create).catch((err: unknown) => {
            failed.push(entry);
            lastError = err;
          });
        }
        if (failed.length === pending.length) throw lastError instanceof Error ? lastError : new Error(String(lastError));
        pending = failed;
      }
      ctx.log(`clickhouse: restored ${entries.length} tables`);
    });
  },
};

async function* prepend(first: Buffer, rest: AsyncGenerator<Buffer>): AsyncGenerator<Buffer> {
  yield first;
  yield* rest;
}

/** Frames each chunk of Native bytes as [uint32 BE length][bytes]. */
class ChunkFramer extends Transform {
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    if (chunk.length > 0) {
      const len = Buffer.alloc(4);
      len.writeUInt32BE(chunk.length);
      this.push(len);
      this.push(chunk);
    }
    done();
  }
}

/** Pulls lines and length-prefixed chunks from a stream, holding only what it is parsing. */
class FrameReader {
  private buf: Buffer = Buffer.alloc(0);
  private ended = false;
  private readonly it: AsyncIterator<Buffer | string>;

  constructor(private readonly input: Readable) {
    this.it = input[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  }

  close(): void {
    this.input.destroy();
  }

  private async more(): Promise<boolean> {
    if (this.ended) return false;
    const next = await this.it.next();
    if (next.done) {
      this.ended = true;
      return false;
    }
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    return true;
  }

  /** The next line without its newline; null at the end of the stream. */
  async line(): Promise<string | null> {
    let from = 0;
    for (;;) {
      const nl = this.buf.indexOf(10, from);
      if (nl >= 0) {
        const line = this.buf.subarray(0, nl).toString('utf8');
        this.buf = this.buf.subarray(nl + 1);
        return line;
      }
      from = this.buf.length;
      if (this.buf.length > MAX_LINE) throw new Error('a header line is too long: not a Berth ClickHouse native dump');
      if (!(await this.more())) {
        if (this.buf.length === 0) return null;
        throw new Error('the backup file is truncated (in a header line)');
      }
    }
  }

  private async exact(n: number): Promise<Buffer> {
    while (this.buf.length < n) if (!(await this.more())) throw new Error('the backup file is truncated (in table data)');
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }

  /** One table's chunks, up to its zero-length terminator. */
  async *chunks(): AsyncGenerator<Buffer> {
    for (;;) {
      const len = (await this.exact(4)).readUInt32BE(0);
      if (len === 0) return;
      if (len > MAX_CHUNK) throw new Error('corrupt table data (chunk too large)');
      yield Buffer.from(await this.exact(len));
    }
  }
}
