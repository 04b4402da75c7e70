// Beyond one machine, on an installed server: a fresh VPS with systemd (test/helpers/vps.ts) runs
// the release bundle's installer, turns Swarm on through its HTTPS API, and a second fresh VPS
// joins as a worker with the one-line join command the API answers: the join script fetched from
// the installed server through its Caddy (:4310, pinned to the API certificate), the registry's CA
// trusted, published ports guarded. Then back to one server. (The Swarm suites in test/swarm run
// the same flow against a development daemon with Docker-in-Docker workers.)
import { expect } from 'chai';
import { dirname } from 'node:path';
import { requireDocker } from '../helpers/docker.js';
import { releaseBundles, resultLines } from '../helpers/installer.js';
import { pinnedRequest } from '../helpers/pinned-https.js';
import { requireSwarmImages } from '../helpers/swarm-nodes.js';
import { removeAllVps, startVps, type Vps } from '../helpers/vps.js';
import { until } from '../helpers/wait.js';

describe('installer: a second server joins an installed Berth server as a Swarm worker (simulated VPSes with systemd)', function () {
  this.timeout(600_000);
  let vps: Vps;
  let api = { host: '', port: 4310, fingerprint: '' };
  let key = '';
  const call = <T>(method: string, path: string, body?: unknown) => pinnedRequest<T>(api, method, path, { token: key, body });

  before(async function () {
    if (process.getuid?.() !== 0) this.skip();
    requireDocker();
    removeAllVps();
    const { current } = releaseBundles();
    vps = await startVps('j', 20);
    for (const file of ['SHA256SUMS', 'install.sh', current.split('/').pop()!]) vps.copyIn(`${dirname(current)}/${file}`, '/root/current');
    const r = await vps.sh(`bash /root/current/install.sh --from /root/current/${current.split('/').pop()!} --yes`, 300_000);
    expect(r.status, r.stderr).to.equal(0);
    const lines = resultLines(r.stdout);
    key = lines.BERTH_KEY!;
    api = { host: vps.address, port: 4310, fingerprint: lines.BERTH_CERT_SHA256! };
  });

  after(() => removeAllVps());

  it('a second server joins as a Swarm worker with the one-line join command, fetched from the installed server through its Caddy (HTTPS :4310, pinned); a rerun says no change; it leaves and Swarm goes off again', async () => {
    // the registry Berth runs for Swarm: the test stand-in, as BERTH_IMAGE_REGISTRY lets a user choose one
    const { registry } = requireSwarmImages();
    vps.loadImage(registry);
    await vps.run(`echo BERTH_IMAGE_REGISTRY=${registry} >> /etc/berth/berth.env && systemctl restart berth`);
    await until('the daemon to answer again', async () => (await pinnedRequest(api, 'GET', '/api/health').catch(() => null))?.status === 200, 60_000);
    const on = await call<{ swarm: { enabled: boolean; managerAddress: string } }>('POST', '/api/swarm', { advertiseAddress: vps.address });
    expect(on.status, JSON.stringify(on.body)).to.equal(200);
    expect(on.body.swarm).to.include({ enabled: true, managerAddress: vps.address });
    const join = await call<{ command: string }>('POST', '/api/nodes/join');
    expect(join.status, JSON.stringify(join.body)).to.equal(200);
    // what a user pastes: the manager's URL is the installed API, through Caddy
    expect(join.body.command).to.include(`https://${vps.address}:4310/`);

    const worker = await startVps('k', 21);
    try {
      const t0 = Date.now();
      const ran = await worker.sh(join.body.command, 240_000);
      expect(ran.status, `${ran.stdout}\n${ran.stderr}`).to.equal(0);
      console.log(`      the join took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      const nodes = await until(
        'the worker to be ready',
        async () => {
          const n = await call<{ nodes: { id: string; hostname: string; role: string; state: string; address: string }[] }>('GET', '/api/nodes');
          const w = n.body.nodes.find((x) => x.role === 'worker');
          return w?.state === 'ready' ? n.body.nodes : null;
        },
        60_000,
      );
      expect(nodes.map((n) => n.role).sort()).to.deep.equal(['manager', 'worker']);
      const w = nodes.find((n) => n.role === 'worker')!;
      expect(w.address).to.equal(worker.address);
      // the registry's CA trusted without a Docker restart; published ports guarded (only the manager may reach them)
      expect(await worker.run(`ls /etc/docker/certs.d/ | grep -c '^${vps.address}:' || true`)).to.equal('1');
      expect(await worker.run(`iptables -S DOCKER-USER | grep -c -- '-s ${vps.address}' || true`)).to.not.equal('0');
      const again = await worker.sh(join.body.command, 120_000);
      expect(again.status).to.equal(0);
      expect(`${again.stdout}${again.stderr}`).to.include('no change');

      // and back to one server: the worker leaves, its node is removed, Swarm goes off
      await worker.run('docker swarm leave');
      await until('the worker to be down', async () => (await call<{ nodes: { id: string; state: string }[] }>('GET', '/api/nodes')).body.nodes.find((n) => n.id === w.id)?.state === 'down', 60_000);
      expect((await call('DELETE', `/api/nodes/${w.id}`)).status).to.equal(200);
      const off = await call<{ swarm: { enabled: boolean } }>('DELETE', '/api/swarm');
      expect(off.status, JSON.stringify(off.body)).to.equal(200);
      expect(await vps.run("docker info --format '{{.Swarm.LocalNodeState}}'")).to.equal('inactive');
    } finally {
      worker.remove();
    }
  });
});
