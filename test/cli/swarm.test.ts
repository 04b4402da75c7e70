// berth swarm, nodes, instances and scale on a server that never turned Swarm on: usage errors exit 2 before any request, the --json shapes,
// a project key refused (exit 3), and `berth scale` above 1 refused with the daemon's 409 (exit 1).
// The handlers come from the control and runtime branches of issue 29: until they are merged the
// cases that need them are skipped, saying so. It needs the HOST's Swarm mode to stay off (the
// daemon reads Docker's own state): run it under `flock /tmp/berth-host-swarm.lock`.
import { expect } from 'chai';
import { cliHome, type CliHome } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { docker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';

describe('berth swarm, nodes, instances and scale (Swarm off)', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let cli: CliHome;
  let admin: Record<string, string>;
  let tenant: Record<string, string>;
  let project: { id: string; slug: string };
  let serviceId: string;

  before(async () => {
    const state = docker('info', '--format', '{{.Swarm.LocalNodeState}}');
    if (state !== 'inactive') throw new Error(`the host's Swarm mode is ${state}: another suite holds it, or this one is not run under flock /tmp/berth-host-swarm.lock`);
    t = await startTestDaemon();
    project = (await t.admin.createProject({ name: uniq('swcli') })).project;
    serviceId = (await t.admin.createService(project.id, { name: 'web', repoFullName: 'acme/web', internalPort: 3000 })).service.id;
    admin = { BERTH_SERVER: t.url, BERTH_TOKEN: (await t.admin.createKey({ name: 'cli', access: 'write', projects: 'all' })).token };
    tenant = { BERTH_SERVER: t.url, BERTH_TOKEN: (await t.admin.createKey({ name: 'tenant', access: 'write', projects: [project.id] })).token };
    cli = cliHome();
  });
  after(async () => {
    await t?.stop();
    cli?.remove();
  });

  it('usage errors exit 2 with the reason, before any request', async () => {
    const cases: [string[], RegExp][] = [
      [['scale', 'web', '0'], /replicas, 1 or more/],
      [['scale', 'web', 'three'], /replicas, 1 or more/],
      [['scale', 'web'], /missing required argument/],
      [['nodes', 'drain'], /missing required argument/],
      [['nodes', 'label', 'node-a'], /key=value labels to set or --remove/],
      [['nodes', 'label', 'node-a', 'zone'], /key=value, not zone/],
      [['swarm', 'on', '--advertise-address'], /argument missing/],
      [['--project', project.slug, 'services', 'create', 'x', '--image', 'redis:7', '--placement', 'nolabel'], /--placement takes key=value/],
      [['--project', project.slug, 'services', 'create', 'x', '--image', 'redis:7', '--replicas', '-1'], /replicas, 1 or more/],
    ];
    // an unreachable server: a usage error must not even try to reach it
    for (const [args, message] of cases) {
      const run = await cli.run(args, { env: { BERTH_SERVER: 'http://127.0.0.1:1', BERTH_TOKEN: 'berth_x' } });
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).to.equal(2);
      expect(run.stderr, args.join(' ')).to.match(message);
    }
  });

  it("services create takes --replicas; a --placement with Swarm off is the daemon's 409 (exit 1) and creates nothing", async function () {
    const run = await cli.run(['--json', '--project', project.slug, 'services', 'create', 'one', '--image', 'redis:7', '--replicas', '1'], { env: admin });
    expect(run.code, run.stderr).to.equal(0);
    const [made] = run.json<{ id: string; replicas: number; placement: { nodeLabels: Record<string, string> } }>();
    expect(made!.replicas).to.equal(1);
    expect(made!.placement).to.deep.equal({ nodeLabels: {} });
    const placed = await cli.run(['--project', project.slug, 'services', 'create', 'placed', '--image', 'redis:7', '--placement', 'region=eu', '--placement', 'disk=ssd'], { env: admin });
    expect(placed.code, placed.stderr).to.equal(1);
    expect(placed.stderr)
      .to.match(/placement needs Swarm mode/)
      .and.match(/\[409 \w+\]/);
    expect((await t.admin.getProject(project.id)).project.services.map((x) => x.name)).not.to.include('placed');
  });

  it('swarm --json is the closed status shape (off), in words without it; a project key is refused with exit 3', async function () {
    const json = await cli.run(['--json', 'swarm'], { env: admin });
    expect(json.code, json.stderr).to.equal(0);
    expect(json.json()).to.deep.equal([{ enabled: false, managerAddress: null, nodeCount: 0 }]);
    const words = await cli.run(['swarm', 'status'], { env: admin });
    expect(words.stdout.trim()).to.equal('swarm    off');
    for (const args of [['swarm'], ['nodes'], ['nodes', 'join-command'], ['swarm', 'on']]) {
      const refused = await cli.run(args, { env: tenant });
      expect(refused.code, `${args.join(' ')}: ${refused.stderr}`).to.equal(3);
    }
    // a node that does not exist: exit 1, naming it
    const missing = await cli.run(['nodes', 'drain', 'no-such-node'], { env: admin });
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.match(/no node no-such-node/);
  });

  it('berth scale above 1 with Swarm off: the daemon refuses (409), its message on stderr, exit 1, and nothing changes', async function () {
    const run = await cli.run(['--project', project.slug, 'scale', 'web', '3'], { env: admin });
    expect(run.code, run.stderr).to.equal(1);
    expect(run.stderr)
      .to.match(/swarm/i)
      .and.match(/\[409 \w+\]/);
    expect((await t.admin.overview(serviceId)).service.replicas).to.equal(1);
    // 1 is always allowed: saved without a deployment
    const one = await cli.run(['--json', '--project', project.slug, 'scale', 'web', '1', '--no-deploy'], { env: admin });
    expect(one.code, one.stderr).to.equal(0);
    const [scaled] = one.json<{ type: string; service: { id: string; replicas: number } }>();
    expect(scaled).to.deep.include({ type: 'scaled' });
    expect(scaled!.service).to.include({ id: serviceId, replicas: 1 });
  });

  it('instances --json prints one closed instance per line (none before a deployment)', async function () {
    const run = await cli.run(['--json', '--project', project.slug, 'instances', 'web'], { env: admin });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.json()).to.deep.equal([]);
    const words = await cli.run(['--project', project.slug, 'instances', 'web'], { env: admin });
    expect(words.code).to.equal(0);
    expect(words.stderr).to.match(/has no instances/);
  });
});
