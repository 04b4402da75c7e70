// The berth CLI as a script sees it, against a real daemon (no Docker needed here): login checks
// the key before saving it, the saved config is 0600, exit codes tell usage / auth / unreachable
// apart, --json prints parseable lines, env import/export round-trips a .env file, and a pinned
// self-signed certificate is accepted only with its fingerprint.
import { expect } from 'chai';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { cliHome, type CliHome } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startCloudflareFake } from '../helpers/dns-fakes.js';
import { makeProjectWorld, uniq, type ProjectWorld } from '../helpers/fixtures.js';
import { startTlsFront, type TlsFront } from '../helpers/proxies.js';

/** A loopback port with nothing listening (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

const colonHex = (hex: string) => hex.toUpperCase().match(/../g)!.join(':');

describe('berth CLI: login, contexts, exit codes, --json, env files, pinned certificates', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let world: ProjectWorld;
  let token: string;
  let cli: CliHome;
  const configFile = () => join(cli.configHome, 'berth', 'config.json');

  before(async () => {
    t = await startTestDaemon();
    world = await makeProjectWorld(t.admin, 'cli');
    token = (await t.admin.createKey({ name: 'cli', access: 'write', projects: 'all' })).token;
  });
  after(async () => {
    await t?.stop();
  });
  beforeEach(() => {
    cli = cliHome();
  });
  afterEach(() => cli.remove());

  it('login with an unknown key exits 3 and saves nothing', async () => {
    const r = await cli.run(['login', t.url], { input: 'berth_not_a_real_key\n' });
    expect(r.code, r.stderr).to.equal(3);
    expect(r.stderr).to.include('nothing was saved');
    expect(existsSync(configFile())).to.equal(false);
  });

  it('login with a good key (from stdin) saves it in a 0600 file, and later commands use it', async () => {
    const r = await cli.run(['login', t.url, '--name', 'here'], { input: `${token}\n` });
    expect(r.code, r.stderr).to.equal(0);
    expect(statSync(configFile()).mode & 0o777).to.equal(0o600);
    expect(statSync(join(cli.configHome, 'berth')).mode & 0o777).to.equal(0o700);
    const saved = JSON.parse(readFileSync(configFile(), 'utf8')) as { current: string; contexts: Record<string, { server: string; token: string }> };
    expect(saved.current).to.equal('here');
    expect(saved.contexts.here).to.deep.equal({ server: t.url, token });

    const projects = await cli.run(['projects', '--json']);
    expect(projects.code, projects.stderr).to.equal(0);
    expect(projects.json<{ id: string }>().map((p) => p.id)).to.include(world.project.id);

    // a second login rewrites the file (atomically) and keeps it 0600
    const again = await cli.run(['login', t.url, '--name', 'second'], { env: { BERTH_TOKEN: token } });
    expect(again.code, again.stderr).to.equal(0);
    expect(statSync(configFile()).mode & 0o777).to.equal(0o600);
    const list = await cli.run(['context', 'list', '--json']);
    expect(list.json<{ name: string; current: boolean }>().map((c) => [c.name, c.current])).to.deep.equal([
      ['here', false],
      ['second', true],
    ]);
    expect((await cli.run(['context', 'use', 'here'])).code).to.equal(0);
    expect((await cli.run(['context', 'remove', 'second'])).code).to.equal(0);
    expect(Object.keys((JSON.parse(readFileSync(configFile(), 'utf8')) as { contexts: object }).contexts)).to.deep.equal(['here']);
  });

  it('exit codes: 2 for usage, 3 for a missing/unknown/read-only key, 4 when the server does not answer, 1 when the operation fails', async () => {
    const env = { BERTH_SERVER: t.url, BERTH_TOKEN: token };
    const run = (args: string[], extra: Record<string, string> = env) => cli.run(args, { env: extra });
    // usage
    expect((await run(['no-such-command'])).code).to.equal(2);
    expect((await run(['deploy'])).code).to.equal(2);
    expect((await run(['deploy', 'web', '--timeout', 'soon'])).code).to.equal(2);
    expect((await run(['env', 'set', world.web.id, 'lowercase=x'])).code).to.equal(2);
    expect((await run(['projects'], {})).code, 'no server configured').to.equal(2);
    expect((await run(['backup', 'restore', world.db.id, 'some-backup'])).code, 'restore without --yes').to.equal(2);
    // help is not an error
    expect((await run(['deploy', '--help'])).code).to.equal(0);
    // authentication and authorisation
    expect((await run(['projects'], { BERTH_SERVER: t.url })).code, 'no key').to.equal(3);
    const unknown = await run(['projects'], { BERTH_SERVER: t.url, BERTH_TOKEN: 'berth_unknown' });
    expect(unknown.code).to.equal(3);
    expect(unknown.stderr).to.include('401');
    const readKey = (await t.admin.createKey({ access: 'read', projects: 'all' })).token;
    const readOnly = await run(['env', 'set', world.web.id, 'X=1'], { BERTH_SERVER: t.url, BERTH_TOKEN: readKey });
    expect(readOnly.code, readOnly.stderr).to.equal(3);
    // unreachable
    const down = await run(['projects'], { BERTH_SERVER: `http://127.0.0.1:${await closedPort()}`, BERTH_TOKEN: token });
    expect(down.code, down.stderr).to.equal(4);
    expect(down.stderr).to.include('cannot reach');
    // a reverse proxy answering 502 for a daemon that is down (the installed layout) is unreachable too
    const gateway = createHttpServer((_req, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>502 Bad Gateway</h1>'));
    await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', () => r()));
    try {
      const proxied = await run(['projects'], { BERTH_SERVER: `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`, BERTH_TOKEN: token });
      expect(proxied.code, proxied.stderr).to.equal(4);
    } finally {
      gateway.close();
    }
    // the operation failed
    const missing = await run(['env', 'list', 'no-such-service']);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.include('no service no-such-service');
    const nothingToAbort = await run(['abort', world.web.id]);
    expect(nothingToAbort.code, nothingToAbort.stderr).to.equal(1);
  });

  it('--json prints one parseable object per line (services, env list, domains, status)', async () => {
    const env = { BERTH_SERVER: t.url, BERTH_TOKEN: token };
    const services = await cli.run(['services', '--project', world.project.slug, '--json'], { env });
    expect(services.code, services.stderr).to.equal(0);
    expect(
      services
        .json<{ id: string }>()
        .map((s) => s.id)
        .sort(),
    ).to.deep.equal([world.web.id, world.db.id, world.worker.id].sort());
    const vars = await cli.run(['env', 'list', 'web', '--project', world.project.slug, '--json'], { env });
    expect(vars.code, vars.stderr).to.equal(0);
    expect(vars.json<{ id: string; key: string; value: string }>().map((v) => [v.id, v.key, v.value])).to.deep.equal([[world.env.id, world.env.key, world.env.value]]);
    const domains = await cli.run(['domains', 'list', world.web.id, '--json'], { env });
    expect(domains.json<{ hostname: string }>().map((d) => d.hostname)).to.deep.equal([world.domain.hostname]);
    const status = await cli.run(['status', '--json'], { env });
    expect(status.code, status.stderr).to.equal(0);
    const [s] = status.json<{ server: string; version: string; metrics: { collectedAt: string } }>();
    expect(s!.server).to.equal(t.url);
    expect(s!.metrics.collectedAt).to.be.a('string');
    const failed = await cli.run(['env', 'list', 'nope', '--json'], { env });
    expect(failed.code).to.equal(1);
    expect(failed.stdout, 'errors go to stderr only').to.equal('');
  });

  it('berth link makes service names resolve within the linked project', async () => {
    const env = { BERTH_SERVER: t.url, BERTH_TOKEN: token };
    // a second world also has a service named web: the bare name is ambiguous (usage) until linked
    const other = await makeProjectWorld(t.admin, 'cli2');
    try {
      const ambiguous = await cli.run(['env', 'list', 'web'], { env });
      expect(ambiguous.code).to.equal(2);
      expect(ambiguous.stderr).to.include('ambiguous');
      const link = await cli.run(['link', other.project.slug], { env });
      expect(link.code, link.stderr).to.equal(0);
      expect(JSON.parse(readFileSync(join(cli.cwd, '.berth', 'project.json'), 'utf8'))).to.include({ projectId: other.project.id, server: t.url });
      const value = await cli.run(['env', 'get', 'web', 'DATABASE_URL'], { env });
      expect(value.code, value.stderr).to.equal(0);
      expect(value.stdout).to.equal('${db.DATABASE_URL}\n');
      const list = await cli.run(['env', 'list', 'web', '--json'], { env });
      expect(list.json<{ id: string }>().map((v) => v.id)).to.deep.equal([other.env.id]);
    } finally {
      await t.admin.deleteProject(other.project.id);
    }
  });

  it('env export, then import into another service, reproduces every value exactly; --prune deletes the rest', async () => {
    const env = { BERTH_SERVER: t.url, BERTH_TOKEN: token };
    const values: Record<string, string> = {
      PLAIN: 'abc123',
      SPACES: '  leading and trailing  ',
      HASH: 'not # a comment',
      QUOTES: `it's "quoted"`,
      MULTI: 'line one\nline two',
      BACKSLASH_N: 'a\\nb and "x"',
      EQUALS: 'a=b=c',
      EMPTY: '',
      REF: '${db.DATABASE_URL}',
      UNICODE: 'héllo ✓',
    };
    for (const [k, v] of Object.entries(values)) await t.admin.setEnv(world.worker.id, k, v);
    const exported = await cli.run(['env', 'export', world.worker.id], { env });
    expect(exported.code, exported.stderr).to.equal(0);
    expect(parseEnv(exported.stdout)).to.deep.equal(values);

    const target = (await t.admin.createService(world.project.id, { name: 'target', repoUrl: 'https://git.example.com/acme/t.git', runtimeMode: 'worker' })).service;
    await t.admin.setEnv(target.id, 'STALE', 'old');
    const file = join(cli.cwd, 'exported.env');
    writeFileSync(file, exported.stdout);
    const imported = await cli.run(['env', 'import', target.id, file, '--json'], { env });
    expect(imported.code, imported.stderr).to.equal(0);
    expect(imported.json<{ set: string[]; deleted: string[] }>()[0]!.deleted).to.deep.equal([]);
    const got = Object.fromEntries((await t.admin.overview(target.id)).env.map((e) => [e.key, e.value]));
    expect(got).to.deep.equal({ ...values, STALE: 'old' });

    const pruned = await cli.run(['env', 'import', target.id, file, '--prune', '--json'], { env });
    expect(pruned.code, pruned.stderr).to.equal(0);
    expect(pruned.json<{ set: string[]; deleted: string[]; unchanged: number }>()[0]).to.deep.include({ set: [], deleted: ['STALE'], unchanged: Object.keys(values).length });
    expect(Object.fromEntries((await t.admin.overview(target.id)).env.map((e) => [e.key, e.value]))).to.deep.equal(values);

    // a file with a key Berth refuses changes nothing
    writeFileSync(file, 'GOOD=1\nbad-key=2\n');
    const refused = await cli.run(['env', 'import', target.id, file], { env });
    expect(refused.code).to.equal(1);
    expect((await t.admin.overview(target.id)).env.map((e) => e.key)).to.not.include('GOOD');
  });

  it('domains add/list/rm, and dns points a domain at the server through a connected provider', async () => {
    const env = { BERTH_SERVER: t.url, BERTH_TOKEN: token };
    const cf = await startCloudflareFake(['example.com']);
    try {
      await t.admin.patchSystemSettings({ publicIp: '203.0.113.9' });
      await t.admin.connectDnsProvider('cloudflare', { apiToken: cf.token, baseUrl: cf.baseUrl });
      const hostname = `${uniq('cli')}.example.com`;
      const add = await cli.run(['domains', 'add', world.web.id, hostname, '--json'], { env });
      expect(add.code, add.stderr).to.equal(0);
      const [{ domain }] = add.json<{ domain: { id: string; hostname: string } }>();
      expect(domain!.hostname).to.equal(hostname);

      const dns = await cli.run(['dns', hostname, '--provider', 'cloudflare', '--json'], { env });
      expect(dns.code, dns.stderr).to.equal(0);
      expect(dns.json()[0]).to.deep.include({ provider: 'cloudflare', action: 'created', hostname, recordType: 'A', targetIp: '203.0.113.9' });
      expect(cf.records.filter((r) => r.name === hostname).map((r) => r.content)).to.deep.equal(['203.0.113.9']);
      expect((await cli.run(['dns', hostname, '--provider', 'nope'], { env })).code).to.equal(2);
      expect((await cli.run(['dns', `other-${hostname}`, '--provider', 'cloudflare'], { env })).code).to.equal(1);

      const rm = await cli.run(['domains', 'rm', world.web.id, hostname], { env });
      expect(rm.code, rm.stderr).to.equal(0);
      expect((await t.admin.overview(world.web.id)).domains.map((d) => d.hostname)).to.not.include(hostname);
      // the record Berth created went with its domain
      expect(cf.records.filter((r) => r.name === hostname)).to.deep.equal([]);

      await t.admin.patchSystemSettings({ rootDomain: 'apps.example.com' });
      const names = await cli.run(['names', 'list', '--json'], { env });
      expect(names.code, names.stderr).to.equal(0);
      expect(names.json<{ label: string; projectId: string }>().map((n) => n.projectId)).to.include(world.project.id);
      const released = await cli.run(['names', 'release', 'no-such-label'], { env });
      expect(released.code).to.equal(1);
    } finally {
      await cf.stop();
    }
  });

  describe('behind HTTPS with a self-signed certificate', () => {
    let front: TlsFront;
    before(async () => {
      front = await startTlsFront(t.url);
    });
    after(async () => {
      await front?.stop();
    });

    it('login --fingerprint with the right SHA-256 (colons, upper case) pins it; later commands use the pin', async () => {
      const r = await cli.run(['login', front.url, '--fingerprint', colonHex(front.fingerprint), '--name', 'tls'], { input: `${token}\n` });
      expect(r.code, r.stderr).to.equal(0);
      const saved = JSON.parse(readFileSync(configFile(), 'utf8')) as { contexts: Record<string, { fingerprint: string }> };
      expect(saved.contexts.tls!.fingerprint).to.equal(front.fingerprint);
      const projects = await cli.run(['projects', '--json']);
      expect(projects.code, projects.stderr).to.equal(0);
      expect(projects.json<{ id: string }>().map((p) => p.id)).to.include(world.project.id);
    });

    it('a wrong fingerprint is refused with a clear message (exit 3) and nothing is saved; no fingerprint fails verification (exit 4)', async () => {
      const r = await cli.run(['login', front.url, '--fingerprint', 'ab'.repeat(32)], { input: `${token}\n` });
      expect(r.code, r.stderr).to.equal(3);
      expect(r.stderr).to.include('refusing to connect');
      expect(r.stderr).to.include(colonHex(front.fingerprint));
      expect(existsSync(configFile())).to.equal(false);

      const plain = await cli.run(['login', front.url], { input: `${token}\n` });
      expect(plain.code, plain.stderr).to.equal(4);
      expect(plain.stderr).to.include('--fingerprint');
      expect(existsSync(configFile())).to.equal(false);

      const garbage = await cli.run(['login', front.url, '--fingerprint', 'xyz'], { input: `${token}\n` });
      expect(garbage.code).to.equal(2);
    });

    it('a saved pin refuses a server whose certificate changed', async () => {
      const r = await cli.run(['login', front.url, '--fingerprint', front.fingerprint], { input: `${token}\n` });
      expect(r.code, r.stderr).to.equal(0);
      const other = await startTlsFront(t.url);
      try {
        const config = JSON.parse(readFileSync(configFile(), 'utf8')) as { current: string; contexts: Record<string, { server: string }> };
        config.contexts[config.current]!.server = other.url; // the same pin, a server with another certificate
        writeFileSync(configFile(), JSON.stringify(config), { mode: 0o600 });
        const refused = await cli.run(['projects']);
        expect(refused.code, refused.stderr).to.equal(3);
        expect(refused.stderr).to.include("the server's certificate changed").and.include(`--fingerprint ${other.fingerprint}`).and.include('someone may be in between');
      } finally {
        await other.stop();
      }
    });
  });
});
