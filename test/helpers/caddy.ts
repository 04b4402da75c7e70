// A real Caddy (Debian's `caddy`) for tests and benchmarks: its admin API and the proxy addresses
// on free loopback ports, its own config and data dirs, and `caddy run --resume` as production runs
// it, so a restarted Caddy comes back with the configuration Berth last loaded (its autosave).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from './wait.js';

/**
 * Ports the tests listen on themselves (Caddy's admin and proxy addresses, daemons' API ports):
 * below the kernel's ephemeral range (32768-60999) and beside the daemons' host-port ranges
 * (port-ranges.ts). A port from listen(0) is an ephemeral one: once closed, it can become the local
 * end of any outgoing connection, and a Caddy switched to HTTPS later could not listen on it (a
 * run failed with "Caddy cannot listen on 127.0.0.1:39051: address already in use"). Handed out in
 * turn from a random start, so a port reserved but not yet listened on is not handed out again.
 */
const OWN_PORTS = { from: 30300, to: 32767 } as const;
let nextOwnPort = Math.floor(Math.random() * (OWN_PORTS.to - OWN_PORTS.from + 1));

async function canListen(port: number): Promise<boolean> {
  const srv = createServer();
  const ok = await new Promise<boolean>((resolve) => {
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (ok) await new Promise((r) => srv.close(r));
  return ok;
}

export async function freePort(): Promise<number> {
  const size = OWN_PORTS.to - OWN_PORTS.from + 1;
  for (let tried = 0; tried < size; tried++) {
    const port = OWN_PORTS.from + (nextOwnPort++ % size);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${OWN_PORTS.from}-${OWN_PORTS.to}`);
}

export class TestCaddy {
  private child: ChildProcess | null = null;
  readonly dir = mkdtempSync(join(tmpdir(), 'berth-caddy-'));

  private constructor(
    readonly adminPort: number,
    readonly httpPort: number,
    readonly httpsPort: number,
  ) {
    writeFileSync(join(this.dir, 'caddy.json'), JSON.stringify({ admin: { listen: `127.0.0.1:${adminPort}` } }));
  }

  static async create(): Promise<TestCaddy> {
    return new TestCaddy(await freePort(), await freePort(), await freePort());
  }

  get adminUrl(): string {
    return `http://127.0.0.1:${this.adminPort}`;
  }

  /** BERTH_* variables pointing a daemon at this Caddy. */
  get env(): Record<string, string> {
    return { BERTH_CADDY_ADMIN: this.adminUrl, BERTH_PROXY_HTTP_ADDR: `127.0.0.1:${this.httpPort}`, BERTH_PROXY_HTTPS_ADDR: `127.0.0.1:${this.httpsPort}` };
  }

  /** Where Caddy saves every loaded config (`--resume` reads it). */
  get autosaveFile(): string {
    return join(this.dir, 'config', 'caddy', 'autosave.json');
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null;
  }

  /** `resume: false` starts from the bare admin config even when an autosave exists. */
  async start(opts: { resume?: boolean } = {}): Promise<void> {
    const env = { ...process.env, HOME: this.dir, XDG_DATA_HOME: join(this.dir, 'data'), XDG_CONFIG_HOME: join(this.dir, 'config') };
    const resume = opts.resume !== false;
    if (!resume && existsSync(this.autosaveFile)) rmSync(this.autosaveFile);
    this.child = spawn('caddy', ['run', '--resume', '--config', join(this.dir, 'caddy.json')], { env, stdio: 'ignore' });
    const child = this.child;
    await until(
      'Caddy to answer on its admin port',
      async () => {
        if (child.exitCode !== null) throw new Error(`caddy exited with ${child.exitCode}`);
        return (await fetch(`${this.adminUrl}/config/`).catch(() => null))?.ok;
      },
      20_000,
      100,
    );
  }

  async config(): Promise<unknown> {
    // a load restarts Caddy's admin server: a kept-alive connection from before may be closed under us
    for (let attempt = 1; ; attempt++) {
      try {
        return await (await fetch(`${this.adminUrl}/config/`)).json();
      } catch (err) {
        if (attempt >= 3) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
