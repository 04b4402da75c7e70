// ClickHouse quoting, and values both ways: result values as cells (by the column's type), cells
// as JSONEachRow values and as SQL expressions of the column's type (18.16 has no query
// parameters: string literals escaped here, then CAST).
import { InvalidInput } from '../../core/errors.js';
import { bigintCell, dateCell, decimalCell, fromCell, type Cell } from '../encoding.js';
import { RawNumber } from './json.js';

/** A ClickHouse string literal holding exactly these bytes. */
export function literal(value: string | Buffer): string {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  let out = "'";
  for (const b of bytes) {
    out += b >= 0x20 && b < 0x7f && b !== 0x27 && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return out + "'";
}

/** A backtick-quoted identifier; call only with names found in the catalogue. */
export function ident(name: string): string {
  return '`' + name.replace(/\\/g, '\\\\').replace(/`/g, '\\`') + '`';
}

/** The type inside Nullable(...) / LowCardinality(...). */
const baseType = (type: string): string => {
  const m = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(type);
  return m ? baseType(m[1]!) : type;
};
const isBigInt = (t: string) => /^U?Int(64|128|256)$/.test(t);
const isDecimal = (t: string) => /^Decimal/.test(t);
const isDateTime = (t: string) => /^DateTime(\(.*\))?$/.test(t);

const offsetFormats = new Map<string, Intl.DateTimeFormat | null>();
/** The UTC instant of a wall-clock time "YYYY-MM-DD hh:mm:ss" in a time zone. */
function wallToInstant(wall: string, zone: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(wall);
  if (!m) return null;
  if (m[1] === '0000') return new Date(0); // how ClickHouse prints the zero DateTime
  const asUtc = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  if (!offsetFormats.has(zone)) {
    let f: Intl.DateTimeFormat | null;
    try {
      f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    } catch {
      f = null; // a zone Node does not know: read the wall time as UTC
    }
    offsetFormats.set(zone, f);
  }
  const f = offsetFormats.get(zone);
  if (!f) return new Date(asUtc);
  const offset = (utc: number) => {
    const p = Object.fromEntries(f.formatToParts(new Date(utc)).map((x) => [x.type, x.value]));
    return Date.UTC(+p.year!, +p.month! - 1, +p.day!, +p.hour!, +p.minute!, +p.second!) - utc;
  };
  const guess = asUtc - offset(asUtc);
  return new Date(asUtc - offset(guess));
}

/** A value of a JSON result as a cell, given its ClickHouse type. */
export function chCell(type: string, v: unknown, serverZone: string): Cell {
  if (v === null || v === undefined) return null;
  const t = baseType(type);
  if (v instanceof RawNumber) {
    if (isDecimal(t)) return decimalCell(v.text);
    return /^-?\d+$/.test(v.text) ? bigintCell(v.text) : Number(v.text);
  }
  if (typeof v === 'string') {
    if (isBigInt(t) && /^-?\d+$/.test(v)) return bigintCell(v);
    if (isDecimal(t)) return decimalCell(v);
    if (isDateTime(t)) {
      const zone = /^DateTime\('([^']+)'\)$/.exec(t)?.[1] ?? serverZone;
      const d = wallToInstant(v, zone);
      return d ? dateCell(d) : v;
    }
    return v;
  }
  if (Array.isArray(v)) {
    const inner = /^Array\((.*)\)$/.exec(t)?.[1] ?? '';
    return v.map((x) => chCell(inner, x, serverZone));
  }
  if (typeof v === 'object') {
    const out: Record<string, Cell> = {};
    for (const [k, x] of Object.entries(v)) out[k] = chCell('', x, serverZone);
    return out;
  }
  return v as Cell;
}

export interface ColumnInfo {
  name: string;
  type: string;
  primary: boolean;
}

/** A written cell as a JSONEachRow value for a column of this type. */
export function insertValue(col: ColumnInfo, cell: Cell): unknown {
  const v = fromCell(cell);
  const t = baseType(col.type);
  if (v === null) return null;
  if (isDecimal(t) && (typeof v === 'string' || typeof v === 'number')) {
    const text = String(v);
    if (!/^-?\d+(\.\d+)?$/.test(text)) throw new InvalidInput(`${col.name}: ${JSON.stringify(text)} is not a decimal`);
    return new RawNumber(text);
  }
  if (v instanceof Date) return t === 'Date' ? v.toISOString().slice(0, 10) : Math.floor(v.getTime() / 1000);
  if (Buffer.isBuffer(v)) {
    // JSON strings reach ClickHouse as UTF-8: bytes that are not UTF-8 cannot travel this way.
    if (!Buffer.from(v.toString('utf8'), 'utf8').equals(v)) throw new InvalidInput(`${col.name}: binary values cannot be inserted as a row; use a query with unhex()`);
    return v.toString('utf8');
  }
  if (typeof v === 'boolean') return v ? 1 : 0;
  return v;
}

/** A written cell as an SQL expression of this column's type (for WHERE and UPDATE). */
export function sqlValue(col: ColumnInfo, cell: Cell): string {
  const v = fromCell(cell);
  const t = baseType(col.type);
  if (v === null) return 'NULL';
  if (v instanceof Date) {
    const secs = Math.floor(v.getTime() / 1000);
    return t === 'Date' ? `toDate(toDateTime(${secs}))` : `CAST(toDateTime(${secs}) AS ${col.type})`;
  }
  if (typeof v === 'boolean') return `CAST(${v ? 1 : 0} AS ${col.type})`;
  if (typeof v === 'number' && !Number.isFinite(v)) throw new InvalidInput(`${col.name}: not a finite number`);
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'string') return `CAST(${literal(String(v))} AS ${col.type})`;
  if (Buffer.isBuffer(v)) return `CAST(${literal(v)} AS ${col.type})`;
  throw new InvalidInput(`${col.name}: arrays and objects can only be written with an insert or a query`);
}
