// The daemon as a real process (`node dist/daemon/main.js`, as systemd runs it), for the suites that
// kill and restart it. Its port comes from freePort (caddy.ts): below the ephemeral range
// (32768-60999), whose ports can be the local end of any outgoing connection of the moment, and
// then the daemon could not listen again after a restart (EADDRINUSE). Its stderr is kept, and a start fails at once, with
// what the daemon wrote, when the process exits instead of answering.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { BerthClient } from '../../shared/client.js';
import { freePort } from './caddy.js';
import { REPO_ROOT } from './repo-root.js';

const MAIN = join(REPO_ROOT, 'dist/daemon/main.js');
const LAUNCHER = join(REPO_ROOT, 'installers/run-daemon.sh');
const STDERR_KEPT = 64 * 1024;

export class DaemonProcess {
  private child: ChildProcess | null = null;
  private output = '';

  private constructor(
    readonly port: number,
    private readonly env: Record<string, string>,
    private readonly launcher: boolean,
  ) {}

  /**
   * `env`: the daemon's configuration but for BERTH_HOST and BERTH_PORT. Nothing runs until start().
   * `launcher`: started as `npm start` starts it (installers/run-daemon.sh: its allocator and V8
   * settings, which the benches' memory figures depend on; its pid is still node's), not bare node.
   */
  static async create(env: Record<string, string>, opts: { launcher?: boolean } = {}): Promise<DaemonProcess> {
    return new DaemonProcess(await freePort(), env, opts.launcher ?? false);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  client(token: string): BerthClient {
    return new BerthClient(this.url, token);
  }

  /** What the running (or last) process wrote to stderr, its last 64 KiB. */
  get stderr(): string {
    return this.output;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the daemon (`extra` adds to its environment for this start) and resolves once it answers health. */
  async start(extra: Record<string, string> = {}, timeoutMs = 60_000): Promise<void> {
    if (this.running) throw new Error('the daemon is already running');
    this.output = '';
    // the launcher execs node; BERTH_FIREWALL=off: host-wide firewall rules are test/security's
    const [command, args] = this.launcher ? ['bash', [LAUNCHER]] : [process.execPath, [MAIN]];
    const child = spawn(command, args, {
      env: { ...process.env, ...(this.launcher ? { BERTH_FIREWALL: 'off' } : {}), ...this.env, ...extra, BERTH_HOST: '127.0.0.1', BERTH_PORT: String(this.port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.child = child;
    child.stderr!.on('data', (d: Buffer) => (this.output = (this.output + d.toString('utf8')).slice(-STDERR_KEPT)));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`the daemon exited (${child.exitCode ?? child.signalCode}) instead of answering on ${this.url}; it wrote:\n${this.output}`);
      }
      if ((await fetch(`${this.url}/api/health`).catch(() => null))?.ok) return;
      if (Date.now() > deadline) throw new Error(`the daemon did not answer on ${this.url} within ${timeoutMs / 1000} s; it wrote:\n${this.output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Sends `signal` and resolves once the process has exited; at once when none runs. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill(signal);
    await exited;
  }
}
