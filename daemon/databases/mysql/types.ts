// MySQL/MariaDB result values as cells: big numbers and decimals arrive as strings (exact),
// DATETIME/TIMESTAMP as UTC strings (the session runs at +00:00), binary told apart from text by
// charset 63; and the SQL type names reported for result columns.
import type { FieldPacket } from 'mysql2/promise';
import { bigintCell, dateCell, decimalCell, toCell, type Cell, type Row } from '../encoding.js';

const BINARY_CHARSET = 63;

// Column type codes (mysql2's constants/types) and the SQL names reported for them.
const T = { DECIMAL: 0x00, TIMESTAMP: 0x07, LONGLONG: 0x08, DATE: 0x0a, DATETIME: 0x0c, NEWDATE: 0x0e, NEWDECIMAL: 0xf6 } as const;
const TYPE_NAMES: Record<number, string | [text: string, binary: string]> = {
  0x00: 'decimal',
  0x01: 'tinyint',
  0x02: 'smallint',
  0x03: 'int',
  0x04: 'float',
  0x05: 'double',
  0x06: 'null',
  0x07: 'timestamp',
  0x08: 'bigint',
  0x09: 'mediumint',
  0x0a: 'date',
  0x0b: 'time',
  0x0c: 'datetime',
  0x0d: 'year',
  0x0e: 'date',
  0x0f: ['varchar', 'varbinary'],
  0x10: 'bit',
  0xf2: 'vector',
  0xf5: 'json',
  0xf6: 'decimal',
  0xf7: 'enum',
  0xf8: 'set',
  0xf9: ['tinytext', 'tinyblob'],
  0xfa: ['mediumtext', 'mediumblob'],
  0xfb: ['longtext', 'longblob'],
  0xfc: ['text', 'blob'],
  0xfd: ['varchar', 'varbinary'],
  0xfe: ['char', 'binary'],
  0xff: 'geometry',
};

export function typeName(f: FieldPacket): string {
  // MariaDB 10.5+ names its own types (json is a longtext, uuid, inet6...) in extended metadata.
  if (f.extendedFormat === 'json') return 'json';
  if (f.extendedTypeName) return f.extendedTypeName;
  const name = TYPE_NAMES[f.columnType ?? -1];
  if (name === undefined) return String(f.columnType);
  return typeof name === 'string' ? name : name[f.characterSet === BINARY_CHARSET ? 1 : 0];
}

/** `2026-11-22 10:00:00[.ffffff]`, a DATETIME/TIMESTAMP as UTC; zero dates stay text. */
function parseDateTime(text: string): Cell {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?$/.exec(text);
  if (!m) return text;
  const d = new Date(0);
  d.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  d.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6]), Number(((m[7] ?? '') + '000').slice(0, 3)));
  return Number(m[2]) === 0 || Number.isNaN(d.getTime()) ? text : dateCell(d);
}

/** How one result column's driver values become cells. */
function converter(f: FieldPacket): (v: unknown) => Cell {
  switch (f.columnType) {
    case T.LONGLONG:
      return (v) => (typeof v === 'string' ? bigintCell(v) : toCell(v));
    case T.DECIMAL:
    case T.NEWDECIMAL:
      return (v) => (typeof v === 'string' ? decimalCell(v) : toCell(v));
    case T.DATETIME:
    case T.TIMESTAMP:
      return (v) => (typeof v === 'string' ? parseDateTime(v) : toCell(v));
    default:
      return toCell; // DATE stays 'YYYY-MM-DD'; charset-63 columns arrive as Buffers: $bytes
  }
}

export function toRows(fields: FieldPacket[], values: unknown[][], names = fields.map((f) => f.name)): Row[] {
  const convert = fields.map(converter);
  // fromEntries defines own properties (a column may be called __proto__); first of a name wins.
  const first = names.map((n, i) => names.indexOf(n) === i);
  return values.map((v) => Object.fromEntries(names.flatMap((n, i) => (first[i] ? [[n, convert[i]!(v[i])]] : []))) as Row);
}
