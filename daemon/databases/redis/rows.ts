// A page of a redis key's elements, by the key's type (see adapter.ts for the columns), and the
// cursor each type honestly has: hashes and sets have no order, so they are read whole (up to
// READ_WHOLE_MAX elements), sorted by bytes, and resumed after the last field/member; lists by
// index; sorted sets by (score, member) through the member's rank; streams by entry id.
import type { Redis } from 'ioredis';
import type { Column, PageRequest, RowsPage } from '../../core/ports/database-adapter.js';
import { InvalidInput, NotFound } from '../../core/errors.js';
import { decodeCursor, encodeCursor, InvalidCursor, type CursorKey } from '../cursor.js';
import { bytesCell, type Cell, type Row } from '../encoding.js';
import { byBytes, bytesOf, textCell } from './values.js';

const READ_WHOLE_MAX = 10_000;

function tooBig(key: string, n: number): void {
  if (n > READ_WHOLE_MAX) throw new InvalidInput(`${key} has ${n} elements; keys over ${READ_WHOLE_MAX} elements of this type cannot be browsed, use a query (HSCAN/SSCAN)`);
}

export async function readPage(c: Redis, key: string, { limit, offset, after }: PageRequest): Promise<RowsPage> {
  const type = await c.type(key);
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
      columns = [
        { name: 'field', type: 'string', primary: true },
        { name: 'value', type: 'string', primary: false },
      ];
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
      columns = [
        { name: 'index', type: 'integer', primary: true },
        { name: 'value', type: 'string', primary: false },
      ];
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
      columns = [
        { name: 'member', type: 'string', primary: true },
        { name: 'score', type: 'double', primary: false },
      ];
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
      columns = [
        { name: 'id', type: 'string', primary: true },
        { name: 'fields', type: 'object', primary: false },
      ];
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
}
