// "The daemon restarted after a crash": the daemon as a real process, killed with SIGKILL, tells the
// channels that chose `daemon_restarted` when it comes back; a clean stop (SIGTERM) and start does not.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BerthClient } from '../../shared/client.js';
import { freePort } from '../helpers/caddy.js';
import { uniq } from '../helpers/fixtures.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { until } from '../helpers/wait.js';

describe('notice of a restart after a crash (daemon process)', function () {
  this.timeout(120_000);
  const secret = `restart-${uniq('key')}-0123456789`;
  let port: number;
  let dataDir: string;
  let child: ChildProcess | null = null;
  let receiver: Server;
  const bodies: Record<string, unknown>[] = [];
  let client: BerthClient;

  async function start(): Promise<void> {
    child = spawn(process.execPath, [join(REPO_ROOT, 'dist/daemon/main.js')], {
      env: { ...process.env, BERTH_HOST: '127.0.0.1', BERTH_PORT: String(port), BERTH_DATA_DIR: dataDir, BERTH_BOOTSTRAP_KEY: secret, BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' },
      stdio: 'ignore',
    });
    await until('the daemon to answer', async () => (await fetch(`${client.baseUrl}/api/health`).catch(() => null))?.ok, 30_000);
  }

  async function stop(signal: NodeJS.Signals): Promise<void> {
    const c = child!;
    child = null;
    if (c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill(signal);
    });
  }

  before(async () => {
    port = await freePort();
    client = new BerthClient(`http://127.0.0.1:${port}`, secret);
    dataDir = mkdtempSync(join(tmpdir(), 'berth-restart-notice-'));
    receiver = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString('utf8')));
      req.on('end', () => {
        bodies.push(JSON.parse(text) as Record<string, unknown>);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  });
  after(async () => {
    if (child) await stop('SIGTERM');
    await new Promise((r) => receiver.close(r));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('SIGKILL then start: one daemon_restarted notice; SIGTERM then start: none', async () => {
    await start();
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const res = await client.request('POST', '/api/system/notifications', { type: 'webhook', name: 'ops', url: hook, events: ['daemon_restarted'] });
    expect(res.status).to.equal(200);
    await stop('SIGKILL');
    await start();
    await until('the restart notice', async () => bodies.some((b) => b.event === 'daemon_restarted'), 15_000);
    await stop('SIGTERM');
    await start();
    await new Promise((r) => setTimeout(r, 1500));
    expect(bodies.filter((b) => b.event === 'daemon_restarted')).to.have.length(1);
  });
});
