// Compose files through the `yaml` package (YAML 1.2 with anchors, aliases and `<<` merge keys),
// then interpolated (interpolate.ts). Hostile input: the text is capped, aliases are capped (a
// "billion laughs" document is refused), and keys such as __proto__ stay plain keys.
import { parseDocument } from 'yaml';
import { InvalidInput } from '../core/errors.js';
import type { ComposeParser, ParsedCompose } from '../core/ports/compose-parser.js';
import { parseDotEnv } from './dotenv.js';
import { interpolateTree } from './interpolate.js';

/** The largest compose file (and .env text) accepted. */
export const MAX_COMPOSE_BYTES = 256 * 1024;
const MAX_ALIASES = 100;

function checkSize(text: string, what: string): void {
  if (Buffer.byteLength(text, 'utf8') > MAX_COMPOSE_BYTES) throw new InvalidInput(`${what} is larger than ${MAX_COMPOSE_BYTES / 1024} KiB (the cap on ${what})`, 'too_large');
}

function parseComposeText(text: string, vars: ReadonlyMap<string, string>): ParsedCompose {
  checkSize(text, 'the compose file');
  try {
    return readCompose(text, vars);
  } catch (err) {
    // a document nested thousands deep (`[[[[...`, `${A:-${B:-...`) runs out of stack: refused, not a 500
    if (err instanceof RangeError) throw new InvalidInput('the compose file is nested too deeply', 'invalid_yaml');
    throw err;
  }
}

function readCompose(text: string, vars: ReadonlyMap<string, string>): ParsedCompose {
  const doc = parseDocument(text, { merge: true, uniqueKeys: true });
  const problem = doc.errors[0];
  if (problem) {
    const line = problem.linePos?.[0].line;
    throw new InvalidInput(`the compose file is not valid YAML${line ? ` (line ${line})` : ''}: ${problem.message.split('\n')[0]}`, 'invalid_yaml');
  }
  let plain: unknown;
  try {
    plain = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (err) {
    throw new InvalidInput(`the compose file could not be read: ${(err as Error).message.split('\n')[0]}`, 'invalid_yaml');
  }
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) throw new InvalidInput('the compose file must be a mapping with a services key', 'invalid_compose');
  if (!Object.hasOwn(plain, 'services')) throw new InvalidInput('the compose file has no services key', 'invalid_compose');
  const unset = new Set<string>();
  const document = interpolateTree(plain, '', { vars, unset }) as Record<string, unknown>;
  return { document, unsetVariables: [...unset] };
}

export const composeParser: ComposeParser = {
  parse: parseComposeText,
  parseEnv(text, what) {
    checkSize(text, what);
    return parseDotEnv(text, what);
  },
};
