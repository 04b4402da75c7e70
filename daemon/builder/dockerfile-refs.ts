// Every image a Dockerfile makes the classic builder resolve: each FROM, each COPY --from and each
// RUN --mount from= that names no earlier stage, read the way the builder reads them (parser
// directives, line continuations, comments, ARG expansion with the defaults and the build args
// the build passes, quotes). The deployment checks each one before the build starts
// (core/image-refs.ts, then the image on this server: docker/image-guard.ts), so a repository
// cannot name another tenant's image by ID prefix, digest or Berth's own tags. Anything this
// reader cannot follow (an unknown `${...}` form) is refused, never guessed. Pure: text in, list out.
import { BuildError } from '../core/build-error.js';

type RefInstruction = 'FROM' | 'COPY --from' | 'RUN --mount from';

export interface DockerfileImageRef {
  instruction: RefInstruction;
  /** 1-based line where the instruction starts. */
  line: number;
  /** The reference as written in the Dockerfile. */
  written: string;
  /** After ARG/ENV expansion and quote removal: what the builder resolves. */
  ref: string;
}

interface Instruction {
  line: number;
  keyword: string;
  rest: string;
}

/** The image references the build resolves, in order. Throws BuildError when the file cannot be read safely. */
export function imageRefsOf(dockerfile: string, buildArgs: Readonly<Record<string, string>> = {}): DockerfileImageRef[] {
  const { escape, instructions } = instructionsOf(dockerfile);
  const refs: DockerfileImageRef[] = [];
  const globalArgs = new Map<string, string>();
  const stages: string[] = []; // lower-case names of earlier stages ('' for an unnamed one)
  let stageVars: Map<string, string> | null = null; // null before the first FROM
  const read = (word: string, vars: Map<string, string>, line: number): string => {
    try {
      return expandWord(word, vars, escape);
    } catch (err) {
      throw new BuildError(`the Dockerfile's line ${line} cannot be read safely: ${(err as Error).message}`);
    }
  };
  const namesStage = (value: string, index: number): boolean => {
    const lower = value.toLowerCase();
    if (/^[0-9]+$/.test(value) && Number(value) < index) return true;
    return lower !== '' && stages.slice(0, index).includes(lower);
  };

  for (const ins of instructions) {
    const vars = stageVars ?? globalArgs;
    switch (ins.keyword) {
      case 'ARG':
        for (const word of words(ins.rest)) {
          const eq = word.indexOf('=');
          const name = eq >= 0 ? word.slice(0, eq) : word;
          const given = Object.prototype.hasOwnProperty.call(buildArgs, name) ? buildArgs[name] : undefined;
          const fallback = eq >= 0 ? read(word.slice(eq + 1), vars, ins.line) : stageVars ? (globalArgs.get(name) ?? '') : '';
          vars.set(name, given ?? fallback);
        }
        break;
      case 'ENV':
        if (!stageVars) break;
        for (const [key, value] of envPairs(ins.rest)) stageVars.set(key, read(value, stageVars, ins.line));
        break;
      case 'FROM': {
        const tokens = words(ins.rest).filter((w) => !w.startsWith('--'));
        const written = tokens[0] ?? '';
        const ref = read(written, globalArgs, ins.line);
        if (ref.toLowerCase() !== 'scratch' && !namesStage(ref, stages.length)) refs.push({ instruction: 'FROM', line: ins.line, written, ref });
        const name = tokens[1]?.toLowerCase() === 'as' ? (tokens[2] ?? '').toLowerCase() : '';
        stages.push(name);
        stageVars = new Map();
        break;
      }
      case 'COPY':
        for (const written of flagValues(ins.rest, 'from')) {
          const ref = read(written, vars, ins.line);
          if (!namesStage(ref, stages.length - 1)) refs.push({ instruction: 'COPY --from', line: ins.line, written, ref });
        }
        break;
      case 'RUN':
        for (const mount of flagValues(ins.rest, 'mount')) {
          for (const option of mount.split(',')) {
            const [key, ...value] = option.split('=');
            if (key?.trim().toLowerCase() !== 'from') continue;
            const written = value.join('=');
            const ref = read(written, vars, ins.line);
            if (!namesStage(ref, stages.length - 1)) refs.push({ instruction: 'RUN --mount from', line: ins.line, written, ref });
          }
        }
        break;
      default:
        break;
    }
  }
  return refs;
}

/** Splits the file into instructions as the builder's parser does (directives, continuations, comments). */
export function instructionsOf(dockerfile: string): { escape: string; instructions: Instruction[] } {
  const lines = dockerfile.replace(/^\uFEFF/, '').split(/\r?\n/);
  let escape = '\\';
  let i = 0;
  // parser directives: only at the very top, `# name=value`, before any other line
  for (; i < lines.length; i++) {
    const directive = /^\s*#\s*([a-zA-Z][a-zA-Z0-9]*)\s*=\s*(.*?)\s*$/.exec(lines[i]!);
    if (!directive) break;
    if (directive[1]!.toLowerCase() === 'escape') {
      if (directive[2] !== '\\' && directive[2] !== '`') throw new BuildError(`the Dockerfile's escape directive "${directive[2]!.slice(0, 20)}" is not \\ or \``);
      escape = directive[2]!;
    }
  }
  const continues = new RegExp(`${escape === '\\' ? '\\\\' : '`'}[ \\t]*$`);
  const instructions: Instruction[] = [];
  let current: Instruction | null = null;
  for (; i < lines.length; i++) {
    const text = lines[i]!;
    if (/^\s*#/.test(text)) continue; // comments, also inside a continued instruction
    if (current === null && text.trim() === '') continue;
    const more = continues.test(text);
    const body = more ? text.replace(continues, '') : text;
    if (current === null) {
      const head = /^\s*(\S+)\s*([\s\S]*)$/.exec(body);
      if (!head) continue;
      current = { line: i + 1, keyword: head[1]!.toUpperCase(), rest: head[2]! };
    } else if (body.trim() !== '') {
      current.rest += body;
    }
    if (!more) {
      instructions.push(current);
      current = null;
    }
  }
  if (current) instructions.push(current);
  return { escape, instructions };
}

function words(text: string): string[] {
  return text
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '');
}

/** `--name=value` (or `--name value`) flags at the start of an instruction's arguments. */
function flagValues(rest: string, name: string): string[] {
  const out: string[] = [];
  const tokens = words(rest);
  for (let i = 0; i < tokens.length && tokens[i]!.startsWith('--'); i++) {
    const token = tokens[i]!;
    const eq = token.indexOf('=');
    const flag = (eq >= 0 ? token.slice(2, eq) : token.slice(2)).toLowerCase();
    if (flag !== name) continue;
    if (eq >= 0) out.push(token.slice(eq + 1));
    else if (i + 1 < tokens.length) out.push(tokens[++i]!);
  }
  return out;
}

/** ENV's `k=v k2=v2` form, or the legacy `k value with spaces` form. */
function envPairs(rest: string): [string, string][] {
  const tokens = words(rest);
  if (tokens.length > 0 && !tokens[0]!.includes('=')) return [[tokens[0]!, rest.trim().slice(tokens[0]!.length).trim()]];
  return tokens.filter((t) => t.includes('=')).map((t) => [t.slice(0, t.indexOf('=')), t.slice(t.indexOf('=') + 1)]);
}

/**
 * One word the way the builder's shell lexer reads it: quotes removed, the escape character,
 * `$NAME`, `${NAME}`, `${NAME:-word}`, `${NAME-word}`, `${NAME:+word}`, `${NAME+word}`. Any other
 * `${...}` form throws (it is refused, not guessed).
 */
function expandWord(word: string, vars: ReadonlyMap<string, string>, escape = '\\'): string {
  let out = '';
  let i = 0;
  let quote: '"' | "'" | null = null;
  while (i < word.length) {
    const c = word[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else out += c;
      i++;
      continue;
    }
    if (c === escape && i + 1 < word.length) {
      out += word[i + 1];
      i += 2;
      continue;
    }
    if (c === '"' || (c === "'" && quote === null)) {
      if (quote === c) quote = null;
      else if (quote === null) quote = c;
      else out += c;
      i++;
      continue;
    }
    if (c === '$') {
      const [value, next] = expandVariable(word, i, vars, escape);
      out += value;
      i = next;
      continue;
    }
    out += c;
    i++;
  }
  if (quote) throw new Error(`unterminated ${quote} quote`);
  return out;
}

function expandVariable(word: string, at: number, vars: ReadonlyMap<string, string>, escape: string): [string, number] {
  const next = word[at + 1];
  if (next === '{') {
    const close = matchingBrace(word, at + 1);
    if (close < 0) throw new Error('unterminated ${');
    const inner = word.slice(at + 2, close);
    const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-+])([\s\S]*))?$/.exec(inner);
    if (!m) throw new Error(`"\${${inner.slice(0, 40)}}" is not a form Berth reads (use $NAME, \${NAME}, \${NAME:-default} or \${NAME:+alternative})`);
    const value = vars.get(m[1]!);
    const op = m[2];
    if (!op) return [value ?? '', close + 1];
    const set = op.startsWith(':') ? value !== undefined && value !== '' : value !== undefined;
    const alternative = () => expandWord(m[3] ?? '', vars, escape);
    if (op.endsWith('-')) return [set ? value! : alternative(), close + 1];
    return [set ? alternative() : '', close + 1];
  }
  const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(word.slice(at + 1))?.[0];
  if (!name) return ['$', at + 1];
  return [vars.get(name) ?? '', at + 1 + name.length];
}

function matchingBrace(word: string, open: number): number {
  let depth = 0;
  for (let i = open; i < word.length; i++) {
    if (word[i] === '{') depth++;
    else if (word[i] === '}' && --depth === 0) return i;
  }
  return -1;
}
