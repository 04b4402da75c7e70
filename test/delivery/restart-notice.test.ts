// "The daemon restarted after a crash": the daemon as a real process, killed with SIGKILL, tells the
// channels that chose `daemon_restarted` when it comes back; a clean stop (SIGTERM) and start does not.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BerthClient } from '../../shared/client.js';
import { allowLoopbackNotifyTargets } from '../helpers/notify-targets.js';
import { DaemonProcess } from '../helpers/daemon-process.js';
import { uniq } from '../helpers/fixtures.js';
import { until } from '../helpers/wait.js';

describe('notice of a restart after a crash (daemon process)', function () {
  this.timeout(120_000);
  const secret = `restart-${uniq('key')}-0123456789`;
  let dataDir: string;
  let daemon: DaemonProcess;
  let receiver: Server;
  const bodies: Record<string, unknown>[] = [];
  let client: BerthClient;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'berth-restart-notice-'));
    daemon = await DaemonProcess.create({ BERTH_DATA_DIR: dataDir, BERTH_BOOTSTRAP_KEY: secret, BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
    client = daemon.client(secret);
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
    await daemon?.stop();
    await new Promise((r) => receiver.close(r));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('SIGKILL then start: one daemon_restarted notice; SIGTERM then start: none', async () => {
    await daemon.start();
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await allowLoopbackNotifyTargets(client);
    const res = await client.request('POST', '/api/system/notifications', { type: 'webhook', name: 'ops', url: hook, events: ['daemon_restarted'] });
    expect(res.status).to.equal(200);
    await daemon.stop('SIGKILL');
    await daemon.start();
    await until('the restart notice', async () => bodies.some((b) => b.event === 'daemon_restarted'), 15_000);
    await daemon.stop('SIGTERM');
    await daemon.start();
    await new Promise((r) => setTimeout(r, 1500));
    expect(bodies.filter((b) => b.event === 'daemon_restarted')).to.have.length(1);
  });
});
