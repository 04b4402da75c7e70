// The redis query endpoint's command line: split like redis-cli, and refused when the command
// would block, wipe, switch databases or run scripts on the daemon's shared connection.
import { InvalidInput } from '../../core/errors.js';

/** Commands a shared, non-interactive connection must not run, or that reach past the scope. */
const REFUSED = new Set([
  'FLUSHALL',
  'FLUSHDB',
  'SHUTDOWN',
  'DEBUG',
  'MONITOR',
  'SYNC',
  'PSYNC',
  'REPLICAOF',
  'SLAVEOF',
  'SUBSCRIBE',
  'PSUBSCRIBE',
  'SSUBSCRIBE',
  'UNSUBSCRIBE',
  'PUNSUBSCRIBE',
  'SUNSUBSCRIBE',
  'BLPOP',
  'BRPOP',
  'BRPOPLPUSH',
  'BLMOVE',
  'BLMPOP',
  'BZPOPMIN',
  'BZPOPMAX',
  'BZMPOP',
  'WAIT',
  'WAITAOF',
  'SELECT',
  'SWAPDB',
  'MULTI',
  'EXEC',
  'DISCARD',
  'WATCH',
  'UNWATCH',
  'QUIT',
  'RESET',
  'HELLO',
  'AUTH',
  // Scripts can run any of the above; refused to keep this endpoint's guarantees simple.
  'EVAL',
  'EVALSHA',
  'EVAL_RO',
  'EVALSHA_RO',
  'FCALL',
  'FCALL_RO',
  'FUNCTION',
  'SCRIPT',
  'MIGRATE',
  'MODULE',
  'SAVE',
  'FAILOVER',
  'CLUSTER',
]);
const ALLOWED_SUBCOMMANDS: Record<string, Set<string>> = {
  CONFIG: new Set(['GET']),
  CLIENT: new Set(['ID', 'INFO', 'LIST', 'GETNAME']),
  ACL: new Set(['WHOAMI', 'LIST', 'USERS', 'CAT', 'GETUSER', 'LOG']),
};

/** Splits a command line like redis-cli: "double quotes" with \n \t \" \\ \xHH escapes, 'single quotes' with \' only. */
export function splitCommandLine(line: string): Buffer[] {
  const args: Buffer[] = [];
  const src = Buffer.from(line, 'utf8');
  let i = 0;
  while (i < src.length) {
    while (i < src.length && isSpace(src[i]!)) i++;
    if (i >= src.length) break;
    const bytes: number[] = [];
    while (i < src.length && !isSpace(src[i]!)) {
      const c = src[i]!;
      if (c === 0x22 /* " */ || c === 0x27 /* ' */) {
        i++;
        for (;;) {
          if (i >= src.length) throw new InvalidInput('unterminated quote in the command');
          const d = src[i]!;
          if (d === c) {
            i++;
            break;
          }
          if (d === 0x5c /* \ */ && i + 1 < src.length) {
            const e = String.fromCharCode(src[i + 1]!);
            if (c === 0x27) {
              if (e === "'") {
                bytes.push(0x27);
                i += 2;
                continue;
              }
            } else if (e === 'x' && /^[0-9a-fA-F]{2}$/.test(src.subarray(i + 2, i + 4).toString('latin1'))) {
              bytes.push(parseInt(src.subarray(i + 2, i + 4).toString('latin1'), 16));
              i += 4;
              continue;
            } else {
              const map: Record<string, number> = { n: 10, r: 13, t: 9, b: 8, a: 7 };
              bytes.push(map[e] ?? src[i + 1]!);
              i += 2;
              continue;
            }
          }
          bytes.push(d);
          i++;
        }
        if (i < src.length && !isSpace(src[i]!)) throw new InvalidInput('a closing quote must be followed by a space');
      } else {
        bytes.push(c);
        i++;
      }
    }
    args.push(Buffer.from(bytes));
  }
  return args;
}
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

export function checkAllowed(argv: Buffer[]): string {
  const name = argv[0]!.toString('utf8').toUpperCase();
  const sub = argv[1]?.toString('utf8').toUpperCase() ?? '';
  if (REFUSED.has(name)) throw new InvalidInput(`${name} is not allowed here`);
  const allowed = ALLOWED_SUBCOMMANDS[name];
  if (allowed && !allowed.has(sub)) throw new InvalidInput(`${name} ${sub} is not allowed here`);
  if ((name === 'XREAD' || name === 'XREADGROUP') && argv.some((a) => a.toString('utf8').toUpperCase() === 'BLOCK')) {
    throw new InvalidInput(`${name} with BLOCK is not allowed here`);
  }
  return name;
}
