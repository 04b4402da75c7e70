// A .env file's text as Compose reads it: `KEY=VALUE` lines, `export ` allowed before the key,
// `#` comments (whole lines, and after an unquoted value when a space precedes the #), single
// quotes (literal), double quotes (with \n, \t, \\, \" and line breaks inside). Pure.
import { InvalidInput } from '../core/errors.js';

const KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const MAX_ENTRIES = 2000;
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', $: '$' };

function unescapeDouble(text: string): string {
  return text.replace(/\\(.)/g, (whole, c: string) => ESCAPES[c] ?? whole);
}

/** The variables, in order; `what` names the file in errors (".env", "env_file ./app.env"). */
export function parseDotEnv(text: string, what = '.env'): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const body = line.startsWith('export ') ? line.slice('export '.length).trimStart() : line;
    const eq = body.indexOf('=');
    // a bare name takes its value from the shell in Compose; there is no shell here
    if (eq < 0) continue;
    const key = body.slice(0, eq).trim();
    if (!KEY.test(key)) throw new InvalidInput(`${what} line ${n + 1}: "${key.slice(0, 60)}" is not a variable name`);
    let raw = body.slice(eq + 1).trimStart();
    let value: string;
    const quote = raw[0];
    if (quote === '"' || quote === "'") {
      // a quoted value may run over several lines, up to its closing quote
      let rest = raw.slice(1);
      let close = findClose(rest, quote);
      while (close < 0 && n + 1 < lines.length) {
        rest += `\n${lines[++n]!}`;
        close = findClose(rest, quote);
      }
      if (close < 0) throw new InvalidInput(`${what}: the value of ${key} opens a ${quote} quote that is never closed`);
      raw = rest.slice(0, close);
      value = quote === '"' ? unescapeDouble(raw) : raw;
    } else {
      const comment = raw.search(/\s#/);
      value = (comment >= 0 ? raw.slice(0, comment) : raw).trim();
    }
    out.set(key, value);
    if (out.size > MAX_ENTRIES) throw new InvalidInput(`${what} has more than ${MAX_ENTRIES} variables`);
  }
  return out;
}

function findClose(text: string, quote: string): number {
  for (let i = 0; i < text.length; i++) {
    if (quote === '"' && text[i] === '\\') i++;
    else if (text[i] === quote) return i;
  }
  return -1;
}
