// The Compose Specification's variable interpolation, applied to the values (never the keys) of a
// parsed compose file: `$VAR`, `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}`,
// `${VAR?error}`, `${VAR:+alternative}`, `${VAR+alternative}`, and `$$` for a literal `$`. The
// variables come only from the supplied .env text (or a template's variables), never from the
// daemon's own environment. Pure functions.
import { InvalidInput } from '../core/errors.js';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
/** A value may not grow past this by interpolation (defaults nested in defaults included). */
const MAX_VALUE_CHARS = 131_072;

export interface Interpolation {
  vars: ReadonlyMap<string, string>;
  /** Variables used but not set (each once), for the plan's warnings. */
  unset: Set<string>;
}

/** The index of the `}` closing the `${` whose body starts at `from`, braces nested inside counted. */
function closingBrace(text: string, from: number): number {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '$' && text[i + 1] === '$') i++;
    else if (c === '$' && text[i + 1] === '{') {
      depth++;
      i++;
    } else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

function braced(body: string, where: string, ctx: Interpolation): string {
  const name = NAME.exec(body)?.[0];
  if (!name) throw new InvalidInput(`${where}: invalid interpolation "\${${body.slice(0, 60)}}": a variable name must start with a letter or _`);
  const rest = body.slice(name.length);
  const value = ctx.vars.get(name);
  const set = value !== undefined;
  const nonEmpty = set && value !== '';
  if (rest === '') {
    if (!set) ctx.unset.add(name);
    return value ?? '';
  }
  const op = /^(:-|-|:\?|\?|:\+|\+)/.exec(rest)?.[0];
  if (!op) throw new InvalidInput(`${where}: invalid interpolation "\${${body.slice(0, 60)}}": after the name comes }, :-, -, :?, ?, :+ or +`);
  const arg = () => interpolateString(rest.slice(op.length), where, ctx);
  switch (op) {
    case ':-':
      return nonEmpty ? value : arg();
    case '-':
      return set ? value : arg();
    case ':?':
    case '?':
      if (op === ':?' ? nonEmpty : set) return value!;
      throw new InvalidInput(`${where}: variable ${name} is required${op === ':?' ? ' and must not be empty' : ''}: ${arg() || 'set it in the .env text'}`, 'missing_variable');
    case ':+':
      return nonEmpty ? arg() : '';
    default:
      return set ? arg() : '';
  }
}

/** Interpolates one string value; `where` names it in errors (`services.web.environment.URL`). */
export function interpolateString(text: string, where: string, ctx: Interpolation): string {
  if (!text.includes('$')) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const at = text.indexOf('$', i);
    if (at < 0) {
      out += text.slice(i);
      break;
    }
    out += text.slice(i, at);
    const next = text[at + 1];
    if (next === '$') {
      out += '$';
      i = at + 2;
    } else if (next === '{') {
      const end = closingBrace(text, at + 2);
      if (end < 0) throw new InvalidInput(`${where}: invalid interpolation: "\${" without its closing "}"`);
      out += braced(text.slice(at + 2, end), where, ctx);
      i = end + 1;
    } else {
      const name = NAME.exec(text.slice(at + 1))?.[0];
      if (name) {
        const value = ctx.vars.get(name);
        if (value === undefined) ctx.unset.add(name);
        out += value ?? '';
        i = at + 1 + name.length;
      } else {
        out += '$';
        i = at + 1;
      }
    }
    if (out.length > MAX_VALUE_CHARS) throw new InvalidInput(`${where}: the interpolated value is longer than ${MAX_VALUE_CHARS} characters`);
  }
  return out;
}

/** Interpolates every string value of a parsed compose document (keys stay as written). */
export function interpolateTree(node: unknown, where: string, ctx: Interpolation): unknown {
  if (typeof node === 'string') return interpolateString(node, where, ctx);
  if (Array.isArray(node)) return node.map((item, i) => interpolateTree(item, `${where}[${i}]`, ctx));
  if (node !== null && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      // defineProperty: a key named __proto__ stays a plain key, never the object's prototype
      Object.defineProperty(out, key, { value: interpolateTree(value, where ? `${where}.${key}` : key, ctx), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return node;
}
