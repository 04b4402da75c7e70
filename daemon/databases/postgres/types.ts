// PostgreSQL values as cells: the type parsers one pg Client is given (its `types` option, never
// the global pg.types), so int8/numeric keep their precision, instants come out as UTC, bytea as
// $bytes and arrays of those element by element.
import pg from 'pg';
import type { CustomTypesConfig } from 'pg';
import { bigintCell, bytesCell, dateCell, decimalCell, toCell, type Cell } from '../encoding.js';

/** `2026-11-22 10:00:00.123456+05:30` (offset absent for timestamp without time zone: UTC). */
const TIMESTAMP = /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?)?$/;

function parseTimestamp(text: string): Cell {
  const m = TIMESTAMP.exec(text);
  if (!m) return text; // infinity, -infinity, BC dates: kept as the server wrote them
  const d = new Date(0);
  d.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  d.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6]), Number(((m[7] ?? '') + '000').slice(0, 3)));
  if (m[8]) {
    const offset = (Number(m[9]) * 3600 + Number(m[10] ?? 0) * 60 + Number(m[11] ?? 0)) * 1000;
    d.setTime(d.getTime() - (m[8] === '-' ? -offset : offset));
  }
  return Number.isNaN(d.getTime()) ? text : dateCell(d);
}

/** A text-format array literal (`{1,NULL,"a,b"}`, nested, with an optional `[1:2]=` prefix). */
function parseArray(text: string, element: (s: string) => Cell): Cell {
  let i = text.startsWith('[') ? text.indexOf('=') + 1 : 0;
  const list = (): Cell[] => {
    const out: Cell[] = [];
    i++; // '{'
    while (i < text.length && text[i] !== '}') {
      if (text[i] === '{') out.push(list());
      else if (text[i] === '"') {
        let s = '';
        for (i++; text[i] !== '"'; i++) s += text[i] === '\\' ? text[++i] : text[i];
        i++;
        out.push(element(s));
      } else {
        const end = text.slice(i).search(/[,}]/);
        const raw = text.slice(i, i + end);
        i += end;
        out.push(raw.toUpperCase() === 'NULL' ? null : element(raw));
      }
      if (text[i] === ',') i++;
    }
    i++; // '}'
    return out;
  };
  return list();
}

const asDecimal = (s: string): Cell => (/^-?\d/.test(s) ? decimalCell(s) : s); // NaN, Infinity stay text
const asJson = (s: string): Cell => JSON.parse(s) as Cell;
const asText = (s: string): Cell => s;
const asBytes = (s: string): Cell => bytesCell(pg.types.getTypeParser(17)(s) as Buffer);

const PARSERS: Record<number, (text: string) => Cell> = {
  20: bigintCell, // int8
  1700: asDecimal, // numeric
  17: asBytes, // bytea
  1114: parseTimestamp, // timestamp (without time zone: read as UTC)
  1184: parseTimestamp, // timestamptz
  1082: asText, // date: 'YYYY-MM-DD'
  1186: asText, // interval: as the server writes it
  114: asJson, // json
  3802: asJson, // jsonb
};
const ARRAY_OF: Record<number, number> = { 1016: 20, 1231: 1700, 1001: 17, 1115: 1114, 1185: 1184, 1182: 1082, 1187: 1186, 199: 114, 3807: 3802 };

function getTypeParser(oid: number): (text: string) => Cell {
  const own = PARSERS[oid];
  if (own) return own;
  const element = ARRAY_OF[oid];
  if (element !== undefined) return (s) => parseArray(s, PARSERS[element]!);
  const builtin = pg.types.getTypeParser(oid, 'text');
  return (s) => toCell(builtin(s));
}

export const TYPES: CustomTypesConfig = { getTypeParser: getTypeParser as unknown as CustomTypesConfig['getTypeParser'] };
