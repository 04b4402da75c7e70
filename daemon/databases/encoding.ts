// One encoding, both ways, for values JSON cannot carry plainly. Plain JSON values (null, booleans,
// strings, numbers that are safe integers or finite doubles, arrays, objects) pass as they are.
// Everything else is an object with exactly one key naming its kind:
//
//   {"$bigint": "9007199254740993"}       integers beyond ±2^53-1 (int8, bigint, UInt64, ...)
//   {"$decimal": "12345.6700"}            exact decimals (numeric, decimal, Decimal), as written
//   {"$bytes": "<base64>"}                binary (bytea, blob, binary redis values, BinData)
//   {"$date": "2026-11-22T10:00:00.000Z"} instants (timestamptz, datetime, Date), ISO 8601 UTC
//   {"$oid": "<24 hex digits>"}           MongoDB ObjectIds
//
// Reads produce these forms; writes accept them (and plain values) for the same column kinds.
// A JSON column's own objects are returned as they are; a one-key object whose key is one of the
// above is always read as the tagged form when written.
import type { Cell, Row } from '../core/ports/database-adapter.js';
import { InvalidInput } from '../core/errors.js';

export type { Cell, Row };

export const TAGS = ['$bigint', '$decimal', '$bytes', '$date', '$oid'] as const;
type Tag = (typeof TAGS)[number];

export type Tagged = { tag: Tag; value: string };

/** The tagged form of a cell, or null when it is a plain value. */
export function tagOf(cell: Cell | undefined): Tagged | null {
  if (cell === null || typeof cell !== 'object' || Array.isArray(cell)) return null;
  const keys = Object.keys(cell);
  if (keys.length !== 1 || !(TAGS as readonly string[]).includes(keys[0]!)) return null;
  const value = cell[keys[0]!];
  if (typeof value !== 'string') return null;
  return { tag: keys[0] as Tag, value };
}

export const bigintCell = (v: bigint | string): Cell => {
  const n = typeof v === 'bigint' ? v : BigInt(v);
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : { $bigint: n.toString() };
};
export const decimalCell = (v: string): Cell => ({ $decimal: v });
export const bytesCell = (v: Uint8Array): Cell => ({ $bytes: Buffer.from(v).toString('base64') });
export const dateCell = (v: Date): Cell => (Number.isNaN(v.getTime()) ? null : { $date: v.toISOString() });
export const oidCell = (hex: string): Cell => ({ $oid: hex });

/** A driver value as a cell, for the kinds every driver shares. */
export function toCell(v: unknown): Cell {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return bigintCell(v);
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (v instanceof Date) return dateCell(v);
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return bytesCell(v);
  if (Array.isArray(v)) return v.map(toCell);
  if (typeof v === 'object') {
    const out: Record<string, Cell> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = toCell(x);
    return out;
  }
  return String(v);
}

const FORMS: Record<Tag, RegExp> = {
  $bigint: /^-?\d{1,40}$/,
  $decimal: /^-?\d{1,100}(\.\d{1,100})?$/,
  $bytes: /^[A-Za-z0-9+/]*={0,2}$/,
  $date: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/,
  $oid: /^[0-9a-fA-F]{24}$/,
};

/**
 * A cell as a driver parameter: tagged forms become the driver's native kinds (bigint, decimal
 * string, Buffer, Date, ObjectId hex string). A malformed tagged value is refused with InvalidInput.
 */
export function fromCell(cell: Cell): unknown {
  const t = tagOf(cell);
  if (!t) return cell;
  if (!FORMS[t.tag].test(t.value) || (t.tag === '$bytes' && t.value.length % 4 !== 0)) {
    throw new InvalidInput(`${t.tag} value ${JSON.stringify(t.value.slice(0, 60))} is not in its documented form`);
  }
  switch (t.tag) {
    case '$bigint':
      return BigInt(t.value);
    case '$decimal':
    case '$oid':
      return t.value;
    case '$bytes':
      return Buffer.from(t.value, 'base64');
    case '$date': {
      const d = new Date(t.value);
      if (Number.isNaN(d.getTime())) throw new InvalidInput(`$date value ${JSON.stringify(t.value)} is not a valid instant`);
      return d;
    }
  }
}
