// Redis replies as cells and cells as redis arguments.
import { isUtf8 } from 'node:buffer';
import { InvalidInput } from '../../core/errors.js';
import { bytesCell, fromCell, type Cell, type Row } from '../encoding.js';
import { InvalidCursor } from '../cursor.js';

/** A reply bulk string as a cell: UTF-8 text as a string, anything else as $bytes. */
export const textCell = (b: Buffer): Cell => (isUtf8(b) ? b.toString('utf8') : bytesCell(b));

export function replyCell(v: unknown): Cell {
  if (v === null || v === undefined) return null;
  if (Buffer.isBuffer(v)) return textCell(v);
  if (typeof v === 'number' || typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map(replyCell);
  if (v instanceof Error) return { error: v.message };
  return String(v);
}
export const replyType = (v: unknown): string => (v === null || v === undefined ? 'nil' : typeof v === 'number' ? 'integer' : Array.isArray(v) ? 'array' : v instanceof Error ? 'error' : 'string');

/** A written cell as a redis argument. */
export function arg(cell: Cell | undefined, what: string): string | Buffer {
  if (cell === undefined) throw new InvalidInput(`${what} is required`);
  const v = fromCell(cell);
  if (typeof v === 'string' || Buffer.isBuffer(v)) return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return v.toISOString();
  throw new InvalidInput(`${what} must be a string, a number or $bytes`);
}
export function score(cell: Cell | undefined): string {
  const s = arg(cell, 'score').toString();
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$|^[+-]?inf$/i.test(s)) throw new InvalidInput('score must be a number');
  return s;
}
export function onlyKeys(row: Row, keys: string[], what: string): void {
  const extra = Object.keys(row).filter((k) => !keys.includes(k));
  if (extra.length) throw new InvalidInput(`${what}: unexpected field(s) ${extra.join(', ')}; expected ${keys.join(', ') || 'none'}`);
}
export const sameKeys = (row: Row, keys: string[]) => Object.keys(row).length === keys.length && keys.every((k) => k in row);
export const byBytes = (a: Buffer, b: Buffer) => Buffer.compare(a, b);
/** A cursor's element (written as $bytes, or text) as its bytes. */
export function bytesOf(cell: Cell): Buffer {
  const v = fromCell(cell);
  if (Buffer.isBuffer(v)) return v;
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  throw new InvalidCursor('malformed key value');
}
