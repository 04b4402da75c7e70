// A tenant's container on its project network probing what it must not reach: a service of the
// host listening on the bridge gateway's address (the daemon's API on 0.0.0.0:4310, Caddy's admin
// API, SSH are such services) and on another of the host's addresses, the cloud metadata service
// (169.254.169.254) and the private network. installers/berth-firewall.sh, applied on this machine's
// real iptables and dockerd, refuses all of them while the project's other container and the route
// out stay open; a second apply adds nothing; remove takes every rule away again.
//
// The "outside" and the "metadata service" are a network namespace this suite owns (a veth pair,
// 198.51.100.0/30, plus 169.254.169.254 and 10.254.77.1 on its loopback, routed through it), so no
// packet leaves the machine. The rules match only this suite's own bridge (BERTH_FIREWALL_BRIDGES):
// other suites' containers on this shared dockerd are never touched, and every rule goes in after().
import { expect } from 'chai';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { connectDocker } from '../../daemon/docker/client.js';
import { Ownership } from '../../daemon/docker/labels.js';
import { BRIDGE_PREFIX, ensureProjectNetwork, projectBridgeName, removeProjectNetwork } from '../../daemon/docker/networks.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { quiet, sh } from '../helpers/shell.js';
import { until } from '../helpers/wait.js';

const FIREWALL = join(REPO_ROOT, 'installers', 'berth-firewall.sh');
const METADATA = '169.254.169.254';
const PRIVATE = '10.254.77.1';
const OUTSIDE = '198.51.100.1';
const HOST_SIDE = '198.51.100.2';

/** The body the container gets for GET http://addr:port/ (null when it cannot connect). busybox nc: its wget segfaults here. */
function probe(container: string, addr: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const request = `printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 4 ${addr} ${port}`;
    execFile('docker', ['exec', container, 'sh', '-c', request], { encoding: 'utf8', timeout: 15_000 }, (err, stdout) => {
      const body = stdout.split('\r\n\r\n')[1];
      resolve(err || body === undefined ? null : body.trim());
    });
  });
}

function berthRules(): string[] {
  return sh('iptables', '-w', '10', '-S')
    .split('\n')
    .filter((l) => l.includes('BERTH-'));
}

describe('security: containers on Berth networks reach neither the host, the metadata service nor the private network', function () {
  this.timeout(120_000);
  const tag = String(process.pid % 100_000);
  const ns = `berth-egress-${tag}`;
  const vethHost = `begh${tag}`;
  const vethNs = `begn${tag}`;
  const own = new Ownership(uniq('egress-instance'));
  const projectId = uniq('egress');
  const dockerClient = connectDocker('/var/run/docker.sock');
  const containers: string[] = [];
  let bridge = '';
  let gateway = '';
  let peerIp = '';
  let prober = '';
  let hostServer: Server;
  let hostPort = 0;
  let outside: ChildProcess | null = null;
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, BERTH_FIREWALL_BRIDGES: bridge, BERTH_EGRESS_ALLOW: '' });
  const firewall = (verb: string) => execFileSync('bash', [FIREWALL, verb], { encoding: 'utf8', env: env(), stdio: ['ignore', 'pipe', 'pipe'] });

  before(async function () {
    this.timeout(300_000);
    const image = requireDocker();
    if (process.getuid?.() !== 0) throw new Error('this suite needs root (iptables, network namespaces)');
    sh('iptables', '-w', '10', '-S', 'INPUT'); // iptables is there (Docker needs it too)

    // the project network, made the way the daemon makes it
    const name = await ensureProjectNetwork(dockerClient, own, projectId);
    const info = (await dockerClient.getNetwork(name).inspect()) as { Options?: Record<string, string>; IPAM: { Config: { Gateway: string }[] } };
    bridge = info.Options?.['com.docker.network.bridge.name'] ?? '';
    gateway = info.IPAM.Config[0]!.Gateway;

    const peer = `berth-egress-peer-${tag}`;
    const probeName = `berth-egress-probe-${tag}`;
    for (const c of [peer, probeName]) quiet('docker', 'rm', '-f', c);
    docker('run', '-d', '--name', peer, '--network', name, '--label', `dev.berth.test=${own.instanceId}`, image, 'sh', '-c', 'mkdir -p /w && echo peer > /w/index.html && exec httpd -f -p 8080 -h /w');
    docker('run', '-d', '--name', probeName, '--network', name, '--label', `dev.berth.test=${own.instanceId}`, image, 'sleep', '600');
    containers.push(peer, probeName);
    prober = probeName;
    peerIp = docker('inspect', '-f', `{{(index .NetworkSettings.Networks "${name}").IPAddress}}`, peer);

    // a host service on every host address (the gateway's included)
    hostServer = createServer((_req, res) => res.end('host service'));
    await new Promise<void>((resolve) => hostServer.listen(0, '0.0.0.0', resolve));
    hostPort = (hostServer.address() as AddressInfo).port;

    // "outside" and "the metadata service": a namespace behind a veth pair
    quiet('ip', 'netns', 'del', ns);
    quiet('ip', 'link', 'del', vethHost);
    sh('ip', 'netns', 'add', ns);
    sh('ip', 'link', 'add', vethHost, 'type', 'veth', 'peer', 'name', vethNs);
    sh('ip', 'link', 'set', vethNs, 'netns', ns);
    sh('ip', 'addr', 'add', `${HOST_SIDE}/30`, 'dev', vethHost);
    sh('ip', 'link', 'set', vethHost, 'up');
    sh('ip', 'netns', 'exec', ns, 'ip', 'addr', 'add', `${OUTSIDE}/30`, 'dev', vethNs);
    sh('ip', 'netns', 'exec', ns, 'ip', 'link', 'set', vethNs, 'up');
    sh('ip', 'netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
    sh('ip', 'netns', 'exec', ns, 'ip', 'addr', 'add', `${METADATA}/32`, 'dev', 'lo');
    sh('ip', 'netns', 'exec', ns, 'ip', 'addr', 'add', `${PRIVATE}/32`, 'dev', 'lo');
    sh('ip', 'netns', 'exec', ns, 'ip', 'route', 'add', 'default', 'via', HOST_SIDE);
    sh('ip', 'route', 'add', `${METADATA}/32`, 'via', OUTSIDE);
    sh('ip', 'route', 'add', `${PRIVATE}/32`, 'via', OUTSIDE);
    outside = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', "require('http').createServer((q, s) => s.end('answer from ' + q.socket.localAddress)).listen(80, '0.0.0.0')"], {
      stdio: 'ignore',
    });
    await until('the outside listener', async () => (await probe(prober, OUTSIDE, 80)) !== null, 20_000, 250);
  });

  after(async () => {
    if (bridge) quiet('bash', FIREWALL, 'remove');
    outside?.kill();
    quiet('ip', 'route', 'del', `${METADATA}/32`, 'via', OUTSIDE);
    quiet('ip', 'route', 'del', `${PRIVATE}/32`, 'via', OUTSIDE);
    quiet('ip', 'link', 'del', vethHost);
    quiet('ip', 'netns', 'del', ns);
    for (const c of containers) quiet('docker', 'rm', '-f', c);
    await removeProjectNetwork(dockerClient, own, projectId);
    hostServer?.close();
  });

  it("names the project network's bridge brth<hash>, so the rules also match networks made after they were applied", () => {
    expect(bridge).to.equal(projectBridgeName(projectId));
    expect(bridge.startsWith(BRIDGE_PREFIX)).to.equal(true);
    expect(bridge.length).to.be.at.most(15);
    expect(sh('ip', 'link', 'show', bridge)).to.include(bridge);
  });

  it('without the firewall the container reaches all of them (so what follows is the firewall at work)', async () => {
    expect(berthRules()).to.deep.equal([]);
    expect(await probe(prober, gateway, hostPort)).to.equal('host service');
    expect(await probe(prober, METADATA, 80)).to.equal(`answer from ${METADATA}`);
    expect(await probe(prober, PRIVATE, 80)).to.equal(`answer from ${PRIVATE}`);
  });

  it('with it, the host (gateway and other addresses), the metadata service and the private network are refused', async () => {
    expect(firewall('apply')).to.include(`applied for ${bridge}`);
    expect(await probe(prober, gateway, hostPort)).to.equal(null);
    expect(await probe(prober, HOST_SIDE, hostPort)).to.equal(null);
    expect(await probe(prober, METADATA, 80)).to.equal(null);
    expect(await probe(prober, PRIVATE, 80)).to.equal(null);
    // the host itself still reaches its own service (only traffic from the Berth bridge is matched)
    expect(await (await fetch(`http://${gateway}:${hostPort}/`)).text()).to.equal('host service');
  });

  it("with it, the project's other container and the route out still answer", async () => {
    expect(await probe(prober, peerIp, 8080)).to.equal('peer');
    expect(await probe(prober, OUTSIDE, 80)).to.equal(`answer from ${OUTSIDE}`);
  });

  it('an address listed in BERTH_EGRESS_ALLOW is let through', async () => {
    execFileSync('bash', [FIREWALL, 'apply'], { env: { ...env(), BERTH_EGRESS_ALLOW: `${PRIVATE}:80` }, stdio: 'ignore' });
    try {
      expect(await probe(prober, PRIVATE, 80)).to.equal(`answer from ${PRIVATE}`);
      expect(await probe(prober, METADATA, 80)).to.equal(null);
    } finally {
      firewall('apply');
    }
  });

  it('applying again adds no rule (the unit and run-daemon.sh apply it at every start)', () => {
    const before = berthRules();
    firewall('apply');
    firewall('apply');
    expect(berthRules()).to.deep.equal(before);
    expect(before.filter((l) => l.startsWith('-A DOCKER-USER') || l.startsWith('-A INPUT')).sort()).to.deep.equal([`-A DOCKER-USER -i ${bridge} -j BERTH-FWD`, `-A INPUT -i ${bridge} -j BERTH-IN`]);
  });

  it('a bad BERTH_EGRESS_ALLOW entry stops apply with a message naming it', () => {
    let stderr = '';
    try {
      execFileSync('bash', [FIREWALL, 'apply'], { env: { ...env(), BERTH_EGRESS_ALLOW: '10.0.0.1:80,not-an-address' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      stderr = String((err as { stderr?: string }).stderr);
    }
    expect(stderr).to.include("BERTH_EGRESS_ALLOW: 'not-an-address' is not ADDRESS[/LEN][:PORT]");
  });

  it('remove takes every rule and chain away, and the host answers the container again', async () => {
    firewall('remove');
    expect(berthRules()).to.deep.equal([]);
    expect(await probe(prober, gateway, hostPort)).to.equal('host service');
  });
});
