// Keyset paging: the cursor a rows page answers as `nextCursor` and takes back as `after`. It is
// opaque to clients (base64url of JSON `{t, k, v, n?}`: the table id, the key's column names, the
// last answered row's key values, and for keys that need not be unique the number of rows with
// exactly that key already answered) and hostile input to the daemon: anything that does not
// decode to a cursor of this table and this key is refused with 400 `invalid_cursor`. Adapters
// bind the decoded values as parameters (or the engine's escaped literals); a cursor never
// becomes statement text.
import { CURSOR_MAX_LENGTH } from '../core/ports/database-adapter.js';
import { InvalidInput } from '../core/errors.js';
import { fromCell, TAGS, type Cell } from './encoding.js';

export interface CursorKey {
  /** The key's column (or element) names, in key order. */
  names: string[];
  /** The last answered row's value of each key column. */
  values: Cell[];
  /** Rows with exactly these key values already answered (keys that need not be unique). */
  ties?: number;
}

interface Wire {
  t: string;
  k: string[];
  v: Cell[];
  n?: number;
}

export function encodeCursor(table: string, key: CursorKey): string {
  const wire: Wire = { t: table, k: key.names, v: key.values, ...(key.ties ? { n: key.ties } : {}) };
  return Buffer.from(JSON.stringify(wire), 'utf8').toString('base64url');
}

export class InvalidCursor extends InvalidInput {
  constructor(why: string) {
    super(`after is not a cursor of this table: ${why}; use the nextCursor of a page of this table`, 'invalid_cursor');
  }
}

/** The key a cursor holds, checked against the table and key it must belong to. */
export function decodeCursor(cursor: string, table: string, names: readonly string[]): { values: Cell[]; ties: number } {
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > CURSOR_MAX_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw new InvalidCursor('malformed');
  }
  let wire: unknown;
  try {
    wire = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursor('malformed');
  }
  if (wire === null || typeof wire !== 'object' || Array.isArray(wire)) throw new InvalidCursor('malformed');
  const { t, k, v, n } = wire as Partial<Wire>;
  if (typeof t !== 'string' || !Array.isArray(k) || !Array.isArray(v)) throw new InvalidCursor('malformed');
  if (t !== table) throw new InvalidCursor('it belongs to another table');
  if (names.length === 0) throw new InvalidCursor('this table has no key to page by');
  if (k.length !== names.length || k.some((x, i) => x !== names[i])) throw new InvalidCursor('the table key changed');
  if (v.length !== names.length) throw new InvalidCursor('malformed');
  if (n !== undefined && !(Number.isSafeInteger(n) && n >= 0)) throw new InvalidCursor('malformed');
  for (const cell of v) {
    if (cell === null || (typeof cell === 'object' && !isTagged(cell))) throw new InvalidCursor('malformed key value');
    try {
      fromCell(cell);
    } catch {
      throw new InvalidCursor('malformed key value');
    }
  }
  return { values: v, ties: n ?? 0 };
}

/** The documented tagged forms only ({$bigint: ...}); a key value is never an array or a free object. */
function isTagged(cell: Cell): boolean {
  if (Array.isArray(cell) || cell === null || typeof cell !== 'object') return false;
  const keys = Object.keys(cell);
  return keys.length === 1 && (TAGS as readonly string[]).includes(keys[0]!) && typeof cell[keys[0]!] === 'string';
}

/**
 * `(k1 > ?) OR (k1 = ? AND k2 > ?) OR ...`: rows after a key, in key order, for engines that do not
 * use an index for row-value comparisons. `value(i)` gives the parameter marker (or escaped literal)
 * of key value i and is called in the order the markers appear (for `?` placeholders). `cmp` is `>`
 * (strictly after) or `>=` (from that key on).
 */
export function afterKeyCondition(quoted: readonly string[], value: (i: number) => string, cmp: '>' | '>=' = '>'): string {
  const terms: string[] = [];
  for (let i = 0; i < quoted.length; i++) {
    const parts: string[] = [];
    for (let j = 0; j < i; j++) parts.push(`${quoted[j]} = ${value(j)}`);
    parts.push(`${quoted[i]} ${i === quoted.length - 1 ? cmp : '>'} ${value(i)}`);
    terms.push(`(${parts.join(' AND ')})`);
  }
  return terms.join(' OR ');
}
