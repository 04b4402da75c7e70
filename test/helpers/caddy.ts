// A real Caddy (Debian's `caddy`) for tests and benchmarks: its admin API and the proxy addresses
// on free loopback ports, its own config and data dirs, and `caddy run --resume` as production runs
// it, so a restarted Caddy comes back with the configuration Berth last loaded (its autosave).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from './wait.js';

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
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
