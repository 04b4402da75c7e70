// berth swarm on / nodes / join-command / label / drain / activate / swarm off against the HOST's
// real Docker Engine (one node: the manager): the --json shapes are the API's closed ones, a node
// is found by hostname or id prefix, and the labels merge. Run under
// `flock /tmp/berth-host-swarm.lock`; leaves Swarm off (in `after`, whatever happened). Skipped
// until t29-control's handlers are merged into this branch.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import type { NodeJoinCommand, SwarmNode, SwarmStatus } from '../../shared/types/swarm.js';
import { cliHome, type CliHome } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { bridgeAddress, requireSwarmImages } from '../helpers/swarm-nodes.js';
import { freePort } from '../helpers/caddy.js';

const NODE_KEYS = ['address', 'availability', 'cpus', 'hostname', 'id', 'labels', 'memoryBytes', 'role', 'state', 'tasks'];

describe('berth swarm and nodes with Swarm on (the host as the manager)', function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let cli: CliHome;
  let env: Record<string, string>;
  let hostname: string;

  before(async function () {
    requireDocker();
    const state = docker('info', '--format', '{{.Swarm.LocalNodeState}}');
    if (state !== 'inactive') throw new Error(`the host's Swarm mode is ${state}: another suite holds it, or this one is not run under flock /tmp/berth-host-swarm.lock`);
    // Berth's registry starts with Swarm mode: the stand-in image built here (no registry is reachable)
    t = await startTestDaemon({
      BERTH_IMAGE_REGISTRY: requireSwarmImages().registry,
      // a development daemon serves what joining fetches over HTTPS only on this address
      BERTH_JOIN_TLS_ADDR: `${bridgeAddress()}:${await freePort()}`,
    });
    hostname = docker('info', '--format', '{{.Name}}');
    env = { BERTH_SERVER: t.url, BERTH_TOKEN: (await t.admin.createKey({ name: 'cli', access: 'write', projects: 'all' })).token };
    cli = cliHome();
  });
  after(async () => {
    if (t) await t.admin.disableSwarm().catch(() => undefined);
    await t?.stop();
    cli?.remove();
    spawnSync('docker', ['swarm', 'leave', '--force'], { stdio: 'ignore' });
  });

  it('swarm on --json answers the status; nodes --json one closed node per line: the manager', async () => {
    const address = bridgeAddress();
    const on = await cli.run(['--json', 'swarm', 'on', '--advertise-address', address], { env, timeoutMs: 60_000 });
    expect(on.code, on.stderr).to.equal(0);
    expect(on.json<SwarmStatus>()).to.deep.equal([{ enabled: true, managerAddress: address, nodeCount: 1 }]);
    const listed = await cli.run(['--json', 'nodes'], { env });
    expect(listed.code, listed.stderr).to.equal(0);
    const nodes = listed.json<SwarmNode>();
    expect(nodes).to.have.length(1);
    expect(Object.keys(nodes[0]!).sort()).to.deep.equal(NODE_KEYS);
    expect(nodes[0]).to.include({ hostname, role: 'manager', state: 'ready', availability: 'active' });
    const words = await cli.run(['nodes', 'list'], { env });
    expect(words.stdout)
      .to.match(/^ID\s+HOSTNAME\s+ROLE\s+STATE\s+AVAILABILITY/)
      .and.include(hostname);
  });

  it('join-command prints the one line on stdout and its expiry on stderr; --json the whole answer', async () => {
    const words = await cli.run(['nodes', 'join-command'], { env });
    expect(words.code, words.stderr).to.equal(0);
    expect(words.stdout.trim().split('\n')).to.have.length(1);
    expect(words.stderr).to.match(/single use; expires \d{4}-/);
    const json = await cli.run(['--json', 'nodes', 'join-command'], { env });
    const [join] = json.json<NodeJoinCommand>();
    expect(Object.keys(join!).sort()).to.deep.equal(['command', 'expiresAt', 'token']);
    expect(join!.command).to.include(join!.token);
  });

  it('label merges by hostname and --remove drops one; an id prefix finds the node too', async () => {
    const set = await cli.run(['--json', 'nodes', 'label', hostname, 'zone=a', 'disk=ssd'], { env });
    expect(set.code, set.stderr).to.equal(0);
    const [node] = set.json<SwarmNode>();
    expect(node!.labels).to.deep.equal({ zone: 'a', disk: 'ssd' });
    const removed = await cli.run(['--json', 'nodes', 'label', node!.id.slice(0, 6), '--remove', 'disk'], { env });
    expect(removed.code, removed.stderr).to.equal(0);
    expect(removed.json<SwarmNode>()[0]!.labels).to.deep.equal({ zone: 'a' });
    await cli.run(['nodes', 'label', hostname, '--remove', 'zone'], { env });
  });

  it('swarm off --json answers the status off, and the host has left', async () => {
    const off = await cli.run(['--json', 'swarm', 'off'], { env, timeoutMs: 60_000 });
    expect(off.code, off.stderr).to.equal(0);
    expect(off.json<SwarmStatus>()).to.deep.equal([{ enabled: false, managerAddress: null, nodeCount: 0 }]);
    expect(docker('info', '--format', '{{.Swarm.LocalNodeState}}')).to.equal('inactive');
  });
});
