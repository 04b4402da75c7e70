// The CLI's saved servers ("contexts"): $XDG_CONFIG_HOME/berth/config.json (~/.config when unset),
// mode 0600 in a 0700 directory, replaced atomically (write a temporary file, fsync, rename) so a
// crash or a concurrent `berth` never leaves half a file with a key in it.
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError } from './exit-codes.js';

export interface Context {
  server: string;
  token: string;
  /** SHA-256 of the pinned certificate (lower-case hex), for a self-signed server. */
  fingerprint?: string;
}

export interface CliConfig {
  current: string | null;
  contexts: Record<string, Context>;
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'berth', 'config.json');
}

export function readCliConfig(path = configPath()): CliConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { current: null, contexts: {} };
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as Partial<CliConfig>;
    const contexts = parsed.contexts && typeof parsed.contexts === 'object' ? parsed.contexts : {};
    return { current: typeof parsed.current === 'string' && contexts[parsed.current] ? parsed.current : null, contexts };
  } catch {
    throw new CliError(`${path} is not valid JSON; fix or remove it`);
  }
}

export function writeCliConfig(config: CliConfig, path = configPath()): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, JSON.stringify(config, null, 2) + '\n');
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  // the umask cannot widen 0600, but an older file may have been wider: the rename replaces it
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}
