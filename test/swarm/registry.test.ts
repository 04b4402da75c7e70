// Berth's image registry on the Swarm manager (daemon/swarm/registry.ts), against the real host
// dockerd in Swarm mode and the registry:2 stand-in: it answers 401 without credentials and 200
// with Berth's over TLS that verifies against Berth's CA (an IP SAN for the manager address), the
// host dockerd pushes to it with X-Registry-Auth (it trusts the CA through /etc/docker/certs.d),
// ensure() is idempotent, garbage collection keeps exactly what rollbacks need and frees the rest
// (a pushed-again image is whole afterwards), no push runs during a collection, and remove() takes
// the container and the trust away, keeping the volume.
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
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { RegistryApi } from '../../daemon/docker/registry-api.js';
import { collectRegistryGarbage } from '../../daemon/deploy/registry-gc.js';

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
    const events = await progressOf(stream);
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

  /** A small image of its own (1 MB of random bytes over busybox), pushed to `repo:tag`; answers its digest. */
  async function pushUnique(address: string, auth: { username: string; password: string; serveraddress: string }, repo: string, tag: string, content?: Buffer): Promise<Buffer> {
    const ctx = mkdtempSync(join(tmpdir(), 'berth-gc-image-'));
    const bytes = content ?? randomBytes(1024 * 1024);
    writeFileSync(join(ctx, 'blob'), bytes);
    writeFileSync(join(ctx, 'Dockerfile'), 'FROM berth-test/busybox:latest\nCOPY blob /blob\n');
    const ref = `${address}/${repo}:${tag}`;
    const built = spawnSync('docker', ['build', '-q', '-t', ref, ctx], { env: { ...process.env, DOCKER_BUILDKIT: '0' }, encoding: 'utf8' });
    rmSync(ctx, { recursive: true, force: true });
    expect(built.status, built.stderr).to.equal(0);
    pushed.push(ref);
    const stream = await dockerode.getImage(ref).push({ authconfig: auth });
    const events = await progressOf(stream);
    expect(events.filter((e) => e.error)).to.deep.equal([]);
    return bytes;
  }

  it('garbage collection removes the images no rollback needs, frees their blobs, and leaves the kept ones whole', async () => {
    const { address, auth } = await registry.ensure();
    const api = new RegistryApi(address, auth, await ca.caPem());
    const live = randomUUID();
    const gone = randomUUID();
    await pushUnique(address, auth, `berth/${live}`, 'old');
    await pushUnique(address, auth, `berth/${live}`, 'kept');
    const goneBytes = await pushUnique(address, auth, `berth/${gone}`, 'last');
    const keptDigest = await api.digest(`berth/${live}`, 'kept');
    const result = await collectRegistryGarbage({
      docker: dockerode,
      registry,
      keptTags: async (serviceId) => (serviceId === live ? new Set(['kept']) : null),
      specDigests: async () => [],
    });
    expect(result).to.not.equal(null);
    expect(result!.deletedManifests).to.equal(2);
    // two 1 MB layers of random bytes were freed
    expect(result!.freedBytes).to.be.greaterThan(2 * 1024 * 1024 - 1);
    expect(await api.tags(`berth/${live}`)).to.deep.equal(['kept']);
    expect(await api.tags(`berth/${gone}`)).to.deep.equal([]);
    expect(await api.digest(`berth/${live}`, 'kept')).to.equal(keptDigest);
    // a repository that is not a service's is not Berth's to collect
    expect(await api.tags('berth-test/busybox')).to.include('registry-test');
    // the kept image is whole: the host pulls it back after forgetting it
    const kept = `${address}/berth/${live}:kept`;
    dockerCli('rmi', kept);
    await pullWith(kept, auth);
    // the same bytes pushed again after a collection are stored again, not taken for present (the
    // registry's blob cache is off: distribution#1803), and pull back whole
    await pushUnique(address, auth, `berth/${gone}`, 'again', goneBytes);
    const again = `${address}/berth/${gone}:again`;
    dockerCli('rmi', again);
    await pullWith(again, auth);
  });

  it('no push runs while a collection does: a push waits for it, and a collection for the pushes under way', async () => {
    const order: string[] = [];
    let release!: () => void;
    const collecting = registry.whileNoPush(async () => {
      order.push('collect start');
      await new Promise<void>((r) => (release = r));
      order.push('collect end');
    });
    await new Promise((r) => setTimeout(r, 200));
    const push = registry.pushing(async () => order.push('push'));
    await new Promise((r) => setTimeout(r, 200));
    expect(order).to.deep.equal(['collect start']);
    release();
    await Promise.all([collecting, push]);
    expect(order).to.deep.equal(['collect start', 'collect end', 'push']);

    order.length = 0;
    let pushDone!: () => void;
    const slowPush = registry.pushing(async () => {
      order.push('push start');
      await new Promise<void>((r) => (pushDone = r));
      order.push('push end');
    });
    await new Promise((r) => setTimeout(r, 200));
    const collect = registry.whileNoPush(async () => order.push('collect'));
    await new Promise((r) => setTimeout(r, 200));
    expect(order).to.deep.equal(['push start']);
    pushDone();
    await Promise.all([slowPush, collect]);
    expect(order).to.deep.equal(['push start', 'push end', 'collect']);
  });

  function progressOf(stream: NodeJS.ReadableStream): Promise<{ error?: string; status?: string }[]> {
    return new Promise((resolve, reject) => dockerode.modem.followProgress(stream, (err: Error | null, out: { error?: string }[]) => (err ? reject(err) : resolve(out))));
  }

  async function pullWith(ref: string, auth: { username: string; password: string; serveraddress: string }): Promise<void> {
    const stream = await dockerode.pull(ref, { authconfig: auth });
    const events = await progressOf(stream);
    expect(
      events.filter((e) => e.error),
      `pulling ${ref}`,
    ).to.deep.equal([]);
    expect(dockerCli('image', 'inspect', '-f', '{{.Id}}', ref)).to.match(/^sha256:/);
  }

  it("is removed with the manager's trust of it; its volume of images stays", async () => {
    const { address } = await registry.ensure();
    await registry.remove();
    expect(spawnSync('docker', ['inspect', REGISTRY_CONTAINER]).status).to.not.equal(0);
    expect(existsSync(`/etc/docker/certs.d/${address}`)).to.equal(false);
    expect(spawnSync('docker', ['volume', 'inspect', REGISTRY_VOLUME]).status).to.equal(0);
  });
});
