// MongoDB through the official driver (v7). A "table" is a collection, named `<database>.<collection>`
// (database names cannot hold a dot, so the first dot splits). Names travel as driver arguments,
// never inside a query document. `conn.database` is the database `query` runs commands against.
//
// Documents have no fixed columns: a page's columns are the union of its documents' top-level
// fields, `_id` first. BSON kinds JSON cannot carry use the shared encoding (encoding.ts); other
// BSON kinds (Timestamp, regular expressions, Code, MinKey...) are shown in their relaxed EJSON form.
//
// Written only from the driver's documentation and type declarations: no MongoDB server can run on
// the machines this project is built on, so this adapter has never talked to a real server here.
import {
  BSON,
  Binary,
  Decimal128,
  Long,
  MongoClient,
  Timestamp,
  MongoError,
  MongoNetworkError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoInvalidArgumentError,
  MongoParseError,
  ObjectId,
  type Document,
} from 'mongodb';
import { DatabaseUnavailable, EngineRefused, InvalidInput, NotFound } from '../../core/errors.js';
// mongodb v7 does not re-export EJSON at its top level; it is on the BSON namespace it does export.
const { EJSON } = BSON;
import type { Column, Connection, DatabaseAdapter, QueryResult, RowsPage, TableEntry } from '../../core/ports/database-adapter.js';
import { decodeCursor, encodeCursor, InvalidCursor } from '../cursor.js';
import { bigintCell, bytesCell, dateCell, decimalCell, fromCell, oidCell, tagOf, type Cell, type Row } from '../encoding.js';

const SYSTEM_DATABASES = new Set(['admin', 'config', 'local']);

/** The leading documents whose BSON sizes add up to at most `maxBytes` (a reply is at most 48 MB; the answer is capped lower). */
function fitting(docs: Document[], maxBytes: number): Document[] {
  let bytes = 0;
  for (let i = 0; i < docs.length; i++) {
    bytes += BSON.calculateObjectSize(docs[i]!);
    if (bytes > maxBytes) return docs.slice(0, i);
  }
  return docs;
}
/** Below this estimate a page's total is counted exactly. */
const EXACT_COUNT_MAX = 100_000;
/** Commands that would stop or freeze the server for everyone. */
const REFUSED_COMMANDS = new Set(['shutdown', 'fsync', 'fsyncunlock', 'replsetstepdown']);
/** MongoDB's AuthenticationFailed. */
const AUTH_FAILED = 18;

/** A value read from the driver (useBigInt64: int64 arrives as bigint) as a cell. */
export function mongoCell(v: unknown): Cell {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return bigintCell(v);
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (v instanceof Date) return dateCell(v);
  if (Array.isArray(v)) return v.map(mongoCell);
  if (v instanceof ObjectId) return oidCell(v.toHexString());
  if (v instanceof Timestamp) return EJSON.serialize({ v }, { relaxed: true }).v as Cell; // a Long subclass: test first
  if (v instanceof Long) return bigintCell(v.toBigInt());
  if (v instanceof Decimal128) return decimalCell(v.toString());
  if (v instanceof Binary) return bytesCell(v.buffer.subarray(0, v.position));
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return bytesCell(v);
  if (typeof v === 'object' && '_bsontype' in v) {
    // Timestamp, BSONRegExp, Code, MinKey, Double/Int32 wrappers...: their relaxed EJSON form.
    return EJSON.serialize({ v }, { relaxed: true }).v as Cell;
  }
  if (typeof v === 'object') {
    const out: Record<string, Cell> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = mongoCell(x);
    return out;
  }
  return String(v);
}

function bsonTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (v instanceof Timestamp) return 'timestamp';
  if (typeof v === 'bigint' || v instanceof Long) return 'long';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof Date) return 'date';
  if (Array.isArray(v)) return 'array';
  if (v instanceof ObjectId) return 'objectId';
  if (v instanceof Decimal128) return 'decimal';
  if (v instanceof Binary) return 'binData';
  if (typeof v === 'object' && '_bsontype' in v) return String((v as { _bsontype: unknown })._bsontype);
  return 'object';
}

/**
 * A written cell as a BSON value: tagged forms become ObjectId, Long, Decimal128, Binary, Date;
 * field names that are operators (`$...`) or paths (`a.b`) are refused, at every depth.
 */
export function toBson(cell: Cell, where = 'value'): unknown {
  const t = tagOf(cell);
  if (t) {
    const v = fromCell(cell); // validates the tagged form
    switch (t.tag) {
      case '$oid':
        return new ObjectId(t.value);
      case '$bigint':
        return Long.fromBigInt(v as bigint);
      case '$decimal':
        return Decimal128.fromString(t.value);
      case '$bytes':
        return new Binary(v as Buffer);
      case '$date':
        return v;
    }
  }
  if (Array.isArray(cell)) return cell.map((c, i) => toBson(c, `${where}[${i}]`));
  if (cell !== null && typeof cell === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(cell)) {
      checkFieldName(k, where);
      out[k] = toBson(v, `${where}.${k}`);
    }
    return out;
  }
  return cell;
}

function checkFieldName(name: string, where: string): void {
  if (name.startsWith('$') || name.includes('.') || name.length === 0 || name.includes('\0')) {
    throw new InvalidInput(`field name ${JSON.stringify(name)} in ${where} is not allowed: names cannot be empty, start with $ or contain a dot`);
  }
}

function toDocument(values: Row, what: string): Document {
  const doc: Document = {};
  for (const [k, v] of Object.entries(values)) {
    checkFieldName(k, what);
    doc[k] = toBson(v, k);
  }
  return doc;
}

/** `<database>.<collection>` split at the first dot. */
function splitTable(id: string): { db: string; collection: string } {
  const dot = id.indexOf('.');
  if (dot <= 0 || dot === id.length - 1) throw new InvalidInput(`table ${JSON.stringify(id)} is not <database>.<collection>`);
  return { db: id.slice(0, dot), collection: id.slice(dot + 1) };
}

function columnsOf(docs: Document[], primary: string | null): Column[] {
  const names: string[] = primary ? [primary] : [];
  for (const d of docs) for (const k of Object.keys(d)) if (!names.includes(k)) names.push(k);
  return names.map((name) => {
    const first = docs.map((d) => d[name]).find((v) => v !== null && v !== undefined);
    return { name, type: bsonTypeName(first), primary: name === primary };
  });
}

const rowOf = (doc: Document): Row => {
  const cell = mongoCell(doc);
  return cell !== null && typeof cell === 'object' && !Array.isArray(cell) ? cell : { value: cell };
};

function toError(err: unknown): Error {
  if (err instanceof InvalidInput || err instanceof NotFound || err instanceof EngineRefused || err instanceof DatabaseUnavailable) return err;
  if (err instanceof MongoServerError) {
    return err.code === AUTH_FAILED ? new DatabaseUnavailable(`mongodb: ${err.message}`) : new EngineRefused(err.message);
  }
  if (err instanceof MongoServerSelectionError || err instanceof MongoNetworkError || err instanceof MongoTopologyClosedError) {
    return new DatabaseUnavailable(`mongodb is unreachable: ${err.message}`);
  }
  if (err instanceof MongoInvalidArgumentError || err instanceof MongoParseError || BSON.BSONError.isBSONError(err)) {
    return new InvalidInput(err.message);
  }
  if (err instanceof MongoError) return new EngineRefused(err.message);
  return err instanceof Error ? err : new Error(String(err));
}

export async function openMongo(conn: Connection): Promise<DatabaseAdapter> {
  const host = conn.host.includes(':') ? `[${conn.host}]` : conn.host;
  // Credentials go in `auth`, not in the URL, so they need no escaping and never appear in a URL string.
  const client = new MongoClient(`mongodb://${host}:${conn.port}/`, {
    ...(conn.user ? { auth: { username: conn.user, password: conn.password }, authSource: 'admin' } : {}),
    directConnection: true,
    serverSelectionTimeoutMS: 5000,
    connectTimeoutMS: 5000,
    useBigInt64: true,
  });
  try {
    await client.connect();
  } catch (err) {
    await client.close().catch(() => undefined);
    const e = toError(err);
    throw e instanceof DatabaseUnavailable ? e : new DatabaseUnavailable(`mongodb: ${e.message}`);
  }

  async function run<T>(f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (err) {
      throw toError(err);
    }
  }

  /** The collection behind a table id; NotFound unless it exists. */
  async function collectionOf(table: string) {
    const { db, collection } = splitTable(table);
    const found = await client.db(db).listCollections({ name: collection }, { nameOnly: true }).toArray();
    if (found.length === 0) throw new NotFound(`no collection ${JSON.stringify(table)}`);
    return client.db(db).collection(collection);
  }

  function primaryFilter(primaryKey: Row): Document {
    const keys = Object.keys(primaryKey);
    if (keys.length !== 1 || keys[0] !== '_id') throw new InvalidInput('the primary key is {_id: ...}');
    return { _id: toBson(primaryKey._id ?? null, '_id') };
  }

  return {
    listTables: () =>
      run(async () => {
        const { databases } = await client.db('admin').admin().listDatabases({ nameOnly: true, authorizedDatabases: true });
        const entries: TableEntry[] = [];
        for (const { name: dbName } of databases.sort((a, b) => a.name.localeCompare(b.name))) {
          if (SYSTEM_DATABASES.has(dbName)) continue;
          const db = client.db(dbName);
          const collections = await db.listCollections({}, { nameOnly: true }).toArray();
          for (const { name } of collections.sort((a, b) => a.name.localeCompare(b.name))) {
            if (name.startsWith('system.')) continue;
            // Views have no count of their own: show them with 0 rather than run their pipeline.
            const rowCount = await db
              .collection(name)
              .estimatedDocumentCount()
              .catch(() => 0);
            entries.push({ id: `${dbName}.${name}`, name, schema: dbName, rowCount, rowCountEstimated: true });
          }
        }
        return entries;
      }),

    readRows: (table, { limit, offset, after }, _scope, maxBytes) =>
      run(async () => {
        const collection = await collectionOf(table);
        // Documents in `_id` order; the cursor is the last `_id` in canonical Extended JSON (its BSON
        // type kept exactly), and the next page is `_id > it` on the _id index. MongoDB compares
        // within one BSON type here: in a collection whose _ids mix types, a walk by cursor stays
        // in the type of the cursor's _id (offset pages see every type).
        let filter: Document = {};
        if (after !== null) {
          const [text] = decodeCursor(after, table, ['_id']).values;
          let id: unknown;
          try {
            id = typeof text === 'string' ? EJSON.parse(text, { relaxed: false }) : undefined;
          } catch {
            id = undefined;
          }
          if (id === undefined || id === null) throw new InvalidCursor('malformed key value');
          filter = { _id: { $gt: id } };
        }
        // Document by document (each batch is at most 16 MB), stopping at the byte cap.
        const docs: Document[] = [];
        let bytes = 0;
        let cut = false;
        let more = false;
        if (limit > 0) {
          const found = collection
            .find(filter)
            .sort({ _id: 1 })
            .skip(offset)
            .limit(limit + 1);
          try {
            for await (const doc of found) {
              if (docs.length === limit) {
                more = true; // one document past the page: there is a next one
                break;
              }
              bytes += BSON.calculateObjectSize(doc);
              if (bytes > maxBytes) {
                cut = true;
                more = true;
                break;
              }
              docs.push(doc);
            }
          } finally {
            await found.close().catch(() => undefined);
          }
        }
        const estimate = await collection.estimatedDocumentCount().catch(() => null);
        const exact = estimate === null || estimate < EXACT_COUNT_MAX;
        const total = exact ? await collection.countDocuments({}) : estimate;
        const page: RowsPage = {
          table,
          columns: columnsOf(docs, '_id'),
          rows: docs.map(rowOf),
          limit,
          offset,
          total,
          totalEstimated: !exact,
          ...(cut ? { truncated: true } : {}),
          nextCursor: more && docs.length ? encodeCursor(table, { names: ['_id'], values: [EJSON.stringify(docs[docs.length - 1]!['_id'], { relaxed: false })] }) : null,
        };
        return page;
      }),

    query: (statement, limits) =>
      run(async () => {
        let command: unknown;
        try {
          command = EJSON.parse(statement, { relaxed: true });
        } catch (err) {
          throw new InvalidInput(`the statement is not a JSON command document: ${(err as Error).message}`);
        }
        if (command === null || typeof command !== 'object' || Array.isArray(command) || Object.keys(command).length === 0) {
          throw new InvalidInput('the statement must be a JSON object naming a command, like {"find": "users", "filter": {}}');
        }
        const doc = command as Document;
        const name = Object.keys(doc)[0]!;
        if (REFUSED_COMMANDS.has(name.toLowerCase())) throw new InvalidInput(`the ${name} command is not allowed here`);
        if (!('maxTimeMS' in doc)) doc.maxTimeMS = limits.timeoutMs;
        const db = client.db(conn.database || 'test');
        const reply = await db.command(doc);

        const cursor = reply.cursor as { firstBatch?: Document[]; id?: bigint | number | Long; ns?: string } | undefined;
        if (cursor && Array.isArray(cursor.firstBatch)) {
          const docs = cursor.firstBatch;
          const more = cursor.id !== undefined && BigInt(cursor.id.toString()) !== 0n;
          if (more && cursor.ns) {
            // Only the first batch is shown: release the server-side cursor rather than let it time out.
            const dot = cursor.ns.indexOf('.');
            await client
              .db(cursor.ns.slice(0, dot))
              .command({ killCursors: cursor.ns.slice(dot + 1), cursors: [cursor.id] })
              .catch(() => undefined);
          }
          const shown = fitting(docs.slice(0, limits.maxRows), limits.maxBytes);
          const result: QueryResult = {
            columns: columnsOf(shown, null).map(({ name, type }) => ({ name, type })),
            rows: shown.map(rowOf),
            rowCount: docs.length,
            truncated: docs.length > shown.length || more,
          };
          return result;
        }
        // Cluster gossip the server adds to every reply; not the user's answer.
        const { $clusterTime: _c, operationTime: _o, ...answer } = reply;
        const shown = fitting([answer], limits.maxBytes);
        const result: QueryResult = {
          columns: columnsOf(shown, null).map(({ name, type }) => ({ name, type })),
          rows: shown.map(rowOf),
          rowCount: 1,
          truncated: shown.length === 0,
        };
        return result;
      }),

    insertRow: (table, values) =>
      run(async () => {
        const collection = await collectionOf(table).catch((err: unknown) => {
          // Inserting into a new collection creates it, as MongoDB does.
          if (err instanceof NotFound) {
            const { db, collection: name } = splitTable(table);
            return client.db(db).collection(name);
          }
          throw err;
        });
        const { insertedId } = await collection.insertOne(toDocument(values, 'values'));
        return { _id: mongoCell(insertedId) };
      }),

    updateRow: (table, primaryKey, values) =>
      run(async () => {
        const collection = await collectionOf(table);
        if (Object.keys(values).length === 0) throw new InvalidInput('nothing to update');
        const { matchedCount } = await collection.updateOne(primaryFilter(primaryKey), { $set: toDocument(values, 'values') });
        if (matchedCount === 0) throw new NotFound(`no document with this _id in ${table}`);
      }),

    deleteRow: (table, primaryKey) =>
      run(async () => {
        const collection = await collectionOf(table);
        const { deletedCount } = await collection.deleteOne(primaryFilter(primaryKey));
        if (deletedCount === 0) throw new NotFound(`no document with this _id in ${table}`);
      }),

    async close() {
      await client.close();
    },
  };
}
