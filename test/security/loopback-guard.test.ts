// Berth runs the Engine without its userland proxy, and Docker then sets route_localnet=1 on its
// bridges (the kernel may route 127.0.0.1 to them). A tenant's container on its project bridge can
// then address crafted packets to 127.0.0.1 and reach what listens on the host's loopback only:
// Caddy's admin API, which rewrites every route. The attacker here is a network namespace plugged
// into a real project bridge made the way the daemon makes it (what a container with CAP_NET_RAW
// can do, without needing a raw-packet tool in an image): its route to 127.0.0.1 points at the
// bridge's gateway. installers/berth-firewall.sh's loopback guard (raw PREROUTING, -d 127.0.0.0/8
// ! -i lo -j DROP) must stop it, while the host's own requests to a container's published
// 127.0.0.1 port (Caddy's upstream path) keep working.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { connectDocker } from '../../daemon/docker/client.js';
import { Ownership } from '../../daemon/docker/labels.js';
import { ensureProjectNetwork, removeProjectNetwork } from '../../daemon/docker/networks.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { quiet, sh } from '../helpers/shell.js';
import { until } from '../helpers/wait.js';

const FIREWALL = join(REPO_ROOT, 'installers', 'berth-firewall.sh');

const guarded = (): boolean => sh('iptables', '-w', '10', '-t', 'raw', '-S', 'PREROUTING').includes('berth-loopback-guard');

describe('security: nothing from a bridge reaches the host loopback while the Engine runs without its userland proxy', function () {
  this.timeout(120_000);
  const tag = String(process.pid % 100_000);
  const ns = `berth-lo-${tag}`;
  const vethHost = `blgh${tag}`;
  const vethNs = `blgn${tag}`;
  const own = new Ownership(uniq('loguard-instance'));
  const projectId = uniq('loguard');
  const dockerClient = connectDocker('/var/run/docker.sock');
  let server: Server;
  let port = 0;
  let bridge = '';
  let wasGuarded = false;
  let container = '';

  /**
   * HTTP status the namespace gets for http://127.0.0.1:<port>/ through the bridge ('000' when it
   * cannot connect). Asynchronous: the listener runs in this process.
   */
  const attack = (): Promise<string> =>
    new Promise((resolve) => {
      execFile('ip', ['netns', 'exec', ns, 'curl', '-s', '-m', '2', '-o', '/dev/null', '-w', '%{http_code}', `http://127.0.0.1:${port}/`], { encoding: 'utf8' }, (_err, stdout) =>
        resolve(stdout.trim() || '000'),
      );
    });

  before(async function () {
    this.timeout(120_000);
    const image = requireDocker();
    if (process.getuid?.() !== 0) throw new Error('this suite needs root (iptables, network namespaces)');
    const name = await ensureProjectNetwork(dockerClient, own, projectId);
    const info = (await dockerClient.getNetwork(name).inspect()) as { Options?: Record<string, string>; IPAM: { Config: { Gateway: string; Subnet: string }[] } };
    bridge = info.Options?.['com.docker.network.bridge.name'] ?? '';
    const { Gateway: gateway, Subnet: subnet } = info.IPAM.Config[0]!;
    // a container with a published loopback port: Docker sets up the kernel path (and route_localnet) for the bridge
    container = `berth-loguard-${tag}`;
    quiet('docker', 'rm', '-f', container);
    docker(
      'run',
      '-d',
      '--name',
      container,
      '--network',
      name,
      '-p',
      '127.0.0.1::8080',
      '--label',
      `dev.berth.test=${own.instanceId}`,
      image,
      'sh',
      '-c',
      'mkdir -p /w && echo published > /w/index.html && exec httpd -f -p 8080 -h /w',
    );
    // what listens on the host's loopback only (Caddy's admin API, the daemon's API)
    server = createServer((_req, res) => res.end('loopback only'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    // the attacker: a namespace on the project bridge, an address of the subnet, 127.0.0.1 routed to the gateway
    const base = subnet.split('/')[0]!.split('.').map(Number);
    const attackerIp = `${base[0]}.${base[1]}.${base[2]}.250`;
    quiet('ip', 'netns', 'del', ns);
    quiet('ip', 'link', 'del', vethHost);
    sh('ip', 'netns', 'add', ns);
    sh('ip', 'link', 'add', vethHost, 'type', 'veth', 'peer', 'name', vethNs);
    sh('ip', 'link', 'set', vethNs, 'netns', ns);
    sh('ip', 'link', 'set', vethHost, 'master', bridge, 'up');
    sh('ip', 'netns', 'exec', ns, 'ip', 'addr', 'add', `${attackerIp}/${subnet.split('/')[1]}`, 'dev', vethNs);
    sh('ip', 'netns', 'exec', ns, 'ip', 'link', 'set', vethNs, 'up');
    sh('ip', 'netns', 'exec', ns, 'sysctl', '-qw', 'net.ipv4.conf.all.route_localnet=1', `net.ipv4.conf.${vethNs}.route_localnet=1`);
    sh('ip', 'netns', 'exec', ns, 'ip', 'route', 'add', '127.0.0.1/32', 'via', gateway, 'dev', vethNs);
    wasGuarded = guarded();
  });

  after(async () => {
    if (wasGuarded) sh('bash', FIREWALL, 'guard');
    quiet('ip', 'link', 'del', vethHost);
    quiet('ip', 'netns', 'del', ns);
    if (container) quiet('docker', 'rm', '-f', container);
    await removeProjectNetwork(dockerClient, own, projectId);
    server?.close();
  });

  it('runs on an Engine without its userland proxy: the bridge routes 127/8 and no docker-proxy serves the published port', function () {
    const localnet = readFileSync(`/proc/sys/net/ipv4/conf/${bridge}/route_localnet`, 'utf8').trim();
    if (localnet !== '1') this.skip(); // an Engine with its userland proxy (a developer's own dockerd): nothing to guard
    const published = docker('port', container, '8080/tcp').split('\n')[0]!;
    expect(sh('ss', '-Hltnp', `sport = :${published.split(':').pop()}`)).to.not.include('docker-proxy');
  });

  it('without the guard the attack works (the test can fail), with it the loopback listener is unreachable from the bridge', async function () {
    if (readFileSync(`/proc/sys/net/ipv4/conf/${bridge}/route_localnet`, 'utf8').trim() !== '1') this.skip();
    sh('bash', FIREWALL, 'unguard');
    try {
      await until('the crafted route to answer', async () => (await attack()) === '200', 15_000, 250);
    } finally {
      sh('bash', FIREWALL, 'guard');
    }
    expect(guarded()).to.equal(true);
    expect(await attack()).to.equal('000');
    // a second guard adds no second rule
    sh('bash', FIREWALL, 'guard');
    expect(
      sh('iptables', '-w', '10', '-t', 'raw', '-S', 'PREROUTING')
        .split('\n')
        .filter((l) => l.includes('berth-loopback-guard')),
    ).to.have.length(1);
  });

  it("keeps the host's own path to a published 127.0.0.1 port (Caddy's upstream)", async () => {
    sh('bash', FIREWALL, 'guard');
    const published = docker('port', container, '8080/tcp').split('\n')[0]!;
    const res = await fetch(`http://${published}/`);
    expect((await res.text()).trim()).to.equal('published');
  });
});
