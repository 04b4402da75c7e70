// Runs the compiled `berth` CLI as a child process (asynchronously: the daemon it talks to runs in
// this process), with its own XDG_CONFIG_HOME and working directory.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './repo-root.js';

const CLI = join(REPO_ROOT, 'dist', 'daemon', 'cli.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout's lines parsed as JSON (for --json runs). */
  json<T = Record<string, unknown>>(): T[];
}

export interface CliHome {
  /** XDG_CONFIG_HOME of the runs. */
  configHome: string;
  /** Working directory of the runs. */
  cwd: string;
  run(args: string[], opts?: { input?: string; env?: Record<string, string>; timeoutMs?: number }): Promise<CliRun>;
  remove(): void;
}

export function cliHome(): CliHome {
  const root = mkdtempSync(join(tmpdir(), 'berth-cli-'));
  const configHome = join(root, 'config');
  const cwd = join(root, 'work');
  const home: CliHome = {
    configHome,
    cwd,
    run(args, opts = {}) {
      return new Promise((resolve, reject) => {
        const env: NodeJS.ProcessEnv = {};
        for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('BERTH_') && k !== 'XDG_CONFIG_HOME') env[k] = v;
        Object.assign(env, { XDG_CONFIG_HOME: configHome, NO_COLOR: '1' }, opts.env);
        mkdirSync(cwd, { recursive: true });
        const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`berth ${args.join(' ')} did not finish in ${opts.timeoutMs ?? 120_000} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
        }, opts.timeoutMs ?? 120_000);
        child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
        child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
        child.on('error', reject);
        child.on('close', (code) => {
          clearTimeout(timer);
          resolve({
            code,
            stdout,
            stderr,
            json: <T>() =>
              stdout
                .split('\n')
                .filter((l) => l.trim() !== '')
                .map((l) => JSON.parse(l) as T),
          });
        });
        child.stdin.end(opts.input ?? '');
      });
    },
    remove() {
      rmSync(root, { recursive: true, force: true });
    },
  };
  return home;
}
