// Berth's image registry on the Swarm manager (daemon/swarm/registry.ts), against the real host
// dockerd in Swarm mode and the registry:2 stand-in: it answers 401 without credentials and 200
// with Berth's over TLS that verifies against Berth's CA (an IP SAN for the manager address), the
// host dockerd pushes to it with X-Registry-Auth (it trusts the CA through /etc/docker/certs.d),
// ensure() is idempotent, and remove() takes the container and the trust away, keeping the volume.
// Run under `flock /tmp/berth-host-swarm.lock` (the host's Swarm mode is host-wide).
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { connectDocker } from '../../daemon/docker/client.js';
import { Ownership } from '../../daemon/docker/labels.js';
import { BerthCa } from '../../daemon/databases/tls.js';
import { openDataDir } from '../../daemon/runtime.js';
import { BerthRegistry, REGISTRY_CONTAINER, REGISTRY_VOLUME } from '../../daemon/swarm/registry.js';
import { DockerSwarmState } from '../../daemon/swarm/state.js';
import type { CachedStore } from '../../daemon/store/read-cache.js';
import { docker as dockerCli, requireDocker } from '../helpers/docker.js';
import { bridgeAddress, hostSwarm, requireSwarmImages } from '../helpers/swarm-nodes.js';
import { spawnSync } from 'node:child_process';

const PORT = 5443;

function getV2(host: string, ca: string | undefined, auth?: { username: string; password: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = auth ? { authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` } : {};
    const req = request({ host, port: PORT, path: '/v2/', ca, headers, timeout: 5000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe("Berth's image registry on the Swarm manager", function () {
  this.timeout(120_000);
  const dockerode = connectDocker('/var/run/docker.sock');
  let dir: string;
  let store: CachedStore;
  let registry: BerthRegistry;
  let ca: BerthCa;
  let manager: string;
  const pushed: string[] = [];

  before(async () => {
    requireDocker();
    const { registry: image } = requireSwarmImages();
    hostSwarm.assertOff();
    manager = bridgeAddress();
    hostSwarm.on(manager);
    dir = mkdtempSync(join(tmpdir(), 'berth-registry-'));
    store = await openDataDir(dir);
    ca = new BerthCa(join(dir, 'tls'));
    registry = new BerthRegistry({
      docker: dockerode,
      own: new Ownership(`test-${randomBytes(6).toString('hex')}`),
      ca,
      settings: store.settings,
      swarm: new DockerSwarmState(dockerode),
      image,
      port: PORT,
      dir: join(dir, 'registry'),
      certsDir: '/etc/docker/certs.d',
      now: () => new Date().toISOString(),
      log: () => {},
    });
  });

  after(async () => {
    await registry?.remove().catch(() => {});
    spawnSync('docker', ['volume', 'rm', REGISTRY_VOLUME], { stdio: 'ignore' });
    for (const ref of pushed) spawnSync('docker', ['rmi', ref], { stdio: 'ignore' });
    hostSwarm.off();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("answers 401 without credentials and 200 with them, over TLS that verifies against Berth's CA", async () => {
    const { address, auth } = await registry.ensure();
    expect(address).to.equal(`${manager}:${PORT}`);
    expect(auth.serveraddress).to.equal(address);
    expect(auth.password).to.match(/^[A-Za-z0-9_-]{40,}$/);
    const caPem = await ca.caPem();
    expect(await getV2(manager, caPem)).to.equal(401);
    expect(await getV2(manager, caPem, auth)).to.equal(200);
    expect(await getV2(manager, caPem, { username: auth.username, password: 'wrong' })).to.equal(401);
    // the system's trust store does not know Berth's CA: the certificate is Berth's own
    let refused: Error | null = null;
    await getV2(manager, undefined).catch((err: Error) => (refused = err));
    expect(String(refused)).to.match(/self.signed|unable to (verify|get)/i);
    expect(existsSync(`/etc/docker/certs.d/${address}/ca.crt`)).to.equal(true);
  });

  it('takes a push from the host dockerd with the credentials Berth holds', async () => {
    const { address, auth } = await registry.ensure();
    const ref = `${address}/berth-test/busybox:registry-test`;
    dockerCli('tag', 'berth-test/busybox:latest', ref);
    pushed.push(ref);
    const stream = await dockerode.getImage(ref).push({ authconfig: auth });
    const events = await new Promise<{ error?: string; status?: string }[]>((resolve, reject) =>
      dockerode.modem.followProgress(stream, (err: Error | null, out: { error?: string }[]) => (err ? reject(err) : resolve(out))),
    );
    expect(events.filter((e) => e.error)).to.deep.equal([]);
    expect(events.some((e) => /digest: sha256:/.test(e.status ?? ''))).to.equal(true);
  });

  it('is idempotent: a second ensure keeps the running container and the password', async () => {
    const id = dockerCli('inspect', '-f', '{{.Id}}', REGISTRY_CONTAINER);
    const first = await registry.ensure();
    const again = await registry.ensure();
    expect(again).to.deep.equal(first);
    expect(dockerCli('inspect', '-f', '{{.Id}}', REGISTRY_CONTAINER)).to.equal(id);
  });

  it("is removed with the manager's trust of it; its volume of images stays", async () => {
    const { address } = await registry.ensure();
    await registry.remove();
    expect(spawnSync('docker', ['inspect', REGISTRY_CONTAINER]).status).to.not.equal(0);
    expect(existsSync(`/etc/docker/certs.d/${address}`)).to.equal(false);
    expect(spawnSync('docker', ['volume', 'inspect', REGISTRY_VOLUME]).status).to.equal(0);
  });
});
