// `berth audit` against a real daemon (no Docker needed): the table and --json, the filters, a key
// over some projects refused (exit 3), --follow printing new entries as they are recorded, and a
// key created and revoked on the server with `berth keys` recorded as actor `server`.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { AuditEntry } from '../../shared/types.js';
import { cliHome, type CliHome } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeProjectWorld, type ProjectWorld } from '../helpers/fixtures.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { until } from '../helpers/wait.js';

describe('berth audit: the audit log from the terminal', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let cli: CliHome;
  let env: Record<string, string>;
  let w: ProjectWorld;

  before(async () => {
    t = await startTestDaemon({ BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
    w = await makeProjectWorld(t.admin, 'cli-audit');
    await t.admin.request('PATCH', `/api/projects/${w.project.id}`, { name: 5 });
    await t.anonymous.request('DELETE', `/api/services/${w.web.id}`);
    const { token } = await t.admin.createKey({ name: 'auditor', access: 'read', projects: 'all' });
    env = { BERTH_SERVER: t.url, BERTH_TOKEN: token };
    cli = cliHome();
  });
  after(async () => {
    await t?.stop();
    cli?.remove();
  });

  it('prints the newest entries as a table: time, who, from, the action in words, target, result', async () => {
    const run = await cli.run(['audit', '--limit', '5'], { env });
    expect(run.code, run.stderr).to.equal(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).to.match(/^TIME\s+WHO\s+FROM\s+ACTION\s+TARGET\s+RESULT$/);
    expect(lines).to.have.length(6);
    expect(run.stdout).to.include('delete service').and.include('401 unauthorized').and.include('no valid key');
    expect(run.stdout).to.include('create key').and.include('bootstrap');
  });

  it('filters by project, action, errors and time, and answers JSON lines with --json', async () => {
    const run = await cli.run(['audit', '--project', w.project.id, '--errors', '--json'], { env });
    expect(run.code, run.stderr).to.equal(0);
    const entries = run.json<AuditEntry>();
    expect(entries.map((e) => [e.route, e.status])).to.deep.equal([
      ['services.delete', 401],
      ['projects.patch', 400],
    ]);
    const services = (await cli.run(['audit', '--action', 'services.', '--since', '1h', '--json'], { env })).json<AuditEntry>();
    expect(services.map((e) => e.route)).to.deep.equal(['services.delete', 'services.create', 'services.create', 'services.create']);
    expect((await cli.run(['audit', '--since', '2000-01-01T00:00:00Z', '--json', '--limit', '200'], { env })).json()).to.have.length.greaterThan(6);
    const bad = await cli.run(['audit', '--limit', '500'], { env });
    expect(bad.code).to.equal(2);
  });

  it('is refused to a key over some projects (exit 3)', async () => {
    const { token } = await t.admin.createKey({ name: 'scoped', access: 'write', projects: [w.project.id] });
    const run = await cli.run(['audit'], { env: { ...env, BERTH_TOKEN: token } });
    expect(run.code).to.equal(3);
    expect(run.stderr).to.include('reading the audit log needs a key over all projects');
  });

  it('--follow prints entries as they are recorded', async () => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'daemon', 'cli.js'), 'audit', '--follow', '--json', '--limit', '1'], {
      env: { ...process.env, XDG_CONFIG_HOME: cli.configHome, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    try {
      await until('the first entry', async () => out.split('\n').filter(Boolean).length >= 1, 10_000);
      await new Promise((r) => setTimeout(r, 500)); // the event stream is open
      await t.admin.request('PATCH', `/api/projects/${w.project.id}`, { name: 'followed', description: '' });
      const line = await until('the followed entry', async () => out.split('\n').find((l) => l.includes('"projects.patch"') && l.includes('"status":200')), 10_000);
      expect((JSON.parse(line) as AuditEntry).projectId).to.equal(w.project.id);
    } finally {
      child.kill('SIGINT');
    }
    const code = await new Promise((r) => child.once('close', r));
    expect(code).to.equal(0);
  });

  it('records keys created and revoked with `berth keys` on the server as actor server', async () => {
    const serverEnv = { BERTH_DATA_DIR: t.dataDir };
    const created = await cli.run(['keys', 'create', '--access', 'read', '--projects', 'all', '--name', 'made-on-server', '--json'], { env: serverEnv });
    expect(created.code, created.stderr).to.equal(0);
    const { key, token } = created.json<{ key: { id: string }; token: string }>()[0]!;
    const revoked = await cli.run(['keys', 'revoke', key.id], { env: serverEnv });
    expect(revoked.code, revoked.stderr).to.equal(0);
    const missing = await cli.run(['keys', 'revoke', 'no-such-key'], { env: serverEnv });
    expect(missing.code).to.not.equal(0);
    const entries = (await cli.run(['audit', '--action', 'keys.', '--limit', '3', '--json'], { env })).json<AuditEntry>();
    expect(entries.map((e) => [e.route, e.method, e.path, e.status, e.outcome, e.actor.kind, e.actor.keyId])).to.deep.equal([
      ['keys.revoke', 'DELETE', '/api/keys/no-such-key', 404, 'error', 'server', null],
      ['keys.revoke', 'DELETE', `/api/keys/${key.id}`, 200, 'ok', 'server', null],
      ['keys.create', 'POST', '/api/keys', 200, 'ok', 'server', null],
    ]);
    expect(entries[2]!.detail).to.equal(`key ${key.id}`);
    expect(JSON.stringify(entries)).to.not.include(token);
  });

  it('audit retention shows how long entries are kept and, with a write key over all projects, sets it (a read key is refused, exit 3)', async () => {
    const shown = await cli.run(['audit', 'retention'], { env });
    expect(shown.code, shown.stderr).to.equal(0);
    expect(shown.stdout.trim()).to.equal('audit entries are kept 90 days');
    expect((await cli.run(['audit', 'retention', '30'], { env })).code).to.equal(3);
    const admin = { BERTH_SERVER: t.url, BERTH_TOKEN: (await t.admin.createKey({ name: 'retention-admin', access: 'write', projects: 'all' })).token };
    const set = await cli.run(['audit', 'retention', '30', '--json'], { env: admin });
    expect(set.code, set.stderr).to.equal(0);
    expect(set.json()).to.deep.equal([{ auditRetentionDays: 30 }]);
    expect((await t.admin.systemSettings()).settings.auditRetentionDays).to.equal(30);
    expect((await cli.run(['audit', 'retention', '0'], { env: admin })).code).to.equal(2);
    expect((await cli.run(['audit', 'retention', 'default'], { env: admin })).stdout.trim()).to.equal('audit entries are kept 90 days');
  });
});
