// JSON with numbers kept as written: ClickHouse 18 prints Decimals as bare numbers, which
// JSON.parse would round, and JSONEachRow input wants them bare too.
export class RawNumber {
  constructor(readonly text: string) {}
}

/** JSON.parse, except numbers stay RawNumber (their exact text) and keys cannot reach prototypes. */
export function parseJsonExact(text: string): unknown {
  let i = 0;
  const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\t' || text[i] === '\r')) i++;
  };
  const expect = (c: string) => {
    ws();
    if (text[i] !== c) throw new Error(`bad JSON from ClickHouse at ${i}: expected ${c}`);
    i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const o: Record<string, unknown> = {};
      ws();
      if (text[i] === '}') {
        i++;
        return o;
      }
      for (;;) {
        ws();
        const k = str();
        expect(':');
        Object.defineProperty(o, k, { value: value(), enumerable: true, writable: true, configurable: true });
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        expect('}');
        return o;
      }
    }
    if (c === '[') {
      i++;
      const a: unknown[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return a;
      }
      for (;;) {
        a.push(value());
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        expect(']');
        return a;
      }
    }
    if (c === '"') return str();
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) throw new Error(`bad JSON from ClickHouse at ${i}`);
    i = NUMBER.lastIndex;
    return new RawNumber(m[0]);
  };
  return value();
}

/** JSON.stringify for one insert row, emitting RawNumber values bare (Decimals). */
export function stringifyRow(row: unknown): string {
  const json = (v: unknown): string => (v instanceof RawNumber ? v.text : typeof v === 'bigint' ? JSON.stringify(v.toString()) : (JSON.stringify(v) ?? 'null'));
  if (row === null || typeof row !== 'object' || Array.isArray(row)) return json(row);
  return (
    '{' +
    Object.entries(row)
      .map(([k, v]) => `${JSON.stringify(k)}:${json(v)}`)
      .join(',') +
    '}'
  );
}
