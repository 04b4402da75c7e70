// Uptime checks against a real app through the daemon's real Caddy (internal CA, so https with a
// certificate's days left): a check goes up; the app's container stopped gives exactly one incident
// and one check_down notice after N failures, started again resolves it with one check_up; a
// redeploy opens none; an incident open when the daemon restarts survives and is resolved by the
// next success. Expected-status and keyword mismatches fail with their reasons. The checks' interval
// floor is lowered for speed by BERTH_CHECK_MIN_INTERVAL_SECONDS (never by the API).
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Check, Domain, Service } from '../../shared/types.js';
import { cliHome, type CliHome } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { allowLoopbackNotifyTargets } from '../helpers/notify-targets.js';
import { until, waitForDeployment } from '../helpers/wait.js';

describe('uptime checks against a real app through Caddy', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let service: Service;
  let domain: Domain;
  let check: Check;
  let hook: Server;
  let cli: CliHome;
  let cliEnv: Record<string, string>;
  let projectSlug: string;
  const notices: { event: string; checkId?: string; incidentId?: string; text?: string }[] = [];
  const fast = { intervalSeconds: 2, timeoutSeconds: 1 };

  const liveContainer = async () => {
    const deps = (await t.admin.listDeployments(service.id)).deployments;
    const live = deps.find((d) => d.status === 'running');
    expect(live?.containerName, 'a live container').to.be.a('string');
    return live!.containerName!;
  };
  const current = async (c: Check = check) => (await t.admin.getCheck(service.id, c.id)).check;
  const noticesOf = (event: string, c: Check = check) => notices.filter((n) => n.event === event && n.checkId === c.id);

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    hook = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        notices.push(JSON.parse(body) as (typeof notices)[number]);
        res.end('ok');
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    t = await startTestDaemon({ BERTH_HEALTH_TIMEOUT: '20', BERTH_CHECK_MIN_INTERVAL_SECONDS: '2', BERTH_REACHABILITY_INTERVAL: '1' });
    await allowLoopbackNotifyTargets(t.admin);
    await t.admin.createNotificationChannel({ type: 'webhook', name: 'uptime hook', url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`, events: ['check_down', 'check_up'] });
    const { project } = await t.admin.createProject({ name: uniq('uptime') });
    service = (await t.admin.createService(project.id, { name: 'app', repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080 })).service;
    const { deployment } = await t.admin.deploy(service.id);
    expect((await waitForDeployment(t.admin, service.id, deployment.id, ['running', 'failed'], 120_000)).status).to.equal('running');
    domain = (await t.admin.addDomain(service.id, `${uniq('up')}.example.test`)).domain;
    const { token } = await t.admin.createKey({ name: 'cli', access: 'write', projects: 'all' });
    cliEnv = { BERTH_SERVER: t.url, BERTH_TOKEN: token };
    projectSlug = project.slug;
    cli = cliHome();
  });

  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    hook?.close();
    cli?.remove();
  });

  it('a check of the service’s domain goes up, with the certificate’s days left (https through Caddy)', async () => {
    check = (await t.admin.createCheck(service.id, { target: { kind: 'domain', domainId: domain.id }, ...fast, failuresBeforeIncident: 3, keyword: 'image ok' })).check;
    expect(check).to.include({ status: 'pending', path: '/', expectedStatus: 200, enabled: true, openIncidentId: null, projectId: service.projectId });
    const up = await until('the check to go up', async () => ((await current()).status === 'up' ? current() : null), 30_000);
    expect(up.lastError).to.equal(null);
    expect(up.lastResponseMs).to.be.a('number');
    // Caddy's internal CA issues 12-hour certificates: 0 whole days left, but a number (null is plain http)
    expect(up.certificateDaysLeft).to.be.a('number').and.at.least(0);
    const { results } = await t.admin.checkResults(service.id, check.id);
    expect(results.length).to.be.greaterThan(0);
    expect(results[0]).to.include({ ok: true, status: 200, error: null });
  });

  it('a wrong expected status or a missing keyword is a failure with its reason', async () => {
    const wrongStatus = (await t.admin.createCheck(service.id, { ...fast, expectedStatus: 204, failuresBeforeIncident: 20 })).check;
    const noKeyword = (await t.admin.createCheck(service.id, { ...fast, keyword: 'text-the-app-never-says', failuresBeforeIncident: 20 })).check;
    const down = async (c: Check) => until(`${c.name} to go down`, async () => ((await current(c)).status === 'down' ? current(c) : null), 30_000);
    expect((await down(wrongStatus)).lastError).to.equal('status 200, expected 204');
    expect((await down(noKeyword)).lastError).to.equal('keyword not found in the body');
    const anyOk = (await t.admin.createCheck(service.id, { ...fast, expectedStatus: null, target: { kind: 'port' } })).check;
    await until('a port check with any 2xx/3xx to go up', async () => (await current(anyOk)).status === 'up', 30_000);
    for (const c of [wrongStatus, noKeyword, anyOk]) await t.admin.deleteCheck(service.id, c.id);
  });

  it('the app stopped: after N failures exactly one incident and one check_down; started: resolved, one check_up', async () => {
    const container = await liveContainer();
    docker('stop', '-t', '0', container);
    const open = await until('an incident', async () => ((await current()).openIncidentId ? current() : null), 30_000);
    expect(open.status).to.equal('down');
    // more failures while it is open: still one incident, one notice
    await new Promise((r) => setTimeout(r, 5000));
    const { incidents } = await t.admin.checkIncidents(service.id, check.id);
    expect(incidents).to.have.length(1);
    expect(incidents[0]!.resolvedAt).to.equal(null);
    expect(incidents[0]!.failures).to.be.at.least(3);
    await until('one check_down notice', async () => noticesOf('check_down').length === 1, 10_000);
    docker('start', container);
    await until('the incident to resolve', async () => (await current()).openIncidentId === null, 40_000);
    const after = (await t.admin.checkIncidents(service.id, check.id)).incidents;
    expect(after).to.have.length(1);
    expect(after[0]!.resolvedAt).to.be.a('string');
    await until('one check_up notice', async () => noticesOf('check_up').length === 1, 10_000);
    expect(noticesOf('check_down')).to.have.length(1);
    expect(noticesOf('check_up')[0]!.text).to.match(/is up again .* after \d+/);
  });

  it('a normal redeploy while checking opens no incident', async () => {
    const { deployment } = await t.admin.deploy(service.id);
    expect((await waitForDeployment(t.admin, service.id, deployment.id, ['running', 'failed'], 120_000)).status).to.equal('running');
    await new Promise((r) => setTimeout(r, 4000));
    expect((await current()).openIncidentId).to.equal(null);
    expect((await t.admin.checkIncidents(service.id, check.id)).incidents).to.have.length(1);
    expect(noticesOf('check_down')).to.have.length(1);
  });

  it('an incident open when the daemon restarts stays open and the next success resolves it', async () => {
    const container = await liveContainer();
    docker('stop', '-t', '0', container);
    const open = await until(
      'a second incident',
      async () => {
        const c = await current();
        return c.openIncidentId ? c : null;
      },
      30_000,
    );
    await t.restart();
    const reopened = await current();
    expect(reopened.openIncidentId).to.equal(open.openIncidentId);
    // the restarted daemon's reconciliation fails a live deployment whose container it finds stopped
    // (and removes it): the app comes back by a new deployment, which the check keeps following
    if (docker('ps', '-a', '-q', '--filter', `name=^${container}$`)) docker('start', container);
    else {
      const { deployment } = await t.admin.deploy(service.id);
      expect((await waitForDeployment(t.admin, service.id, deployment.id, ['running', 'failed'], 120_000)).status).to.equal('running');
    }
    await until('the incident to resolve after the restart', async () => (await current()).openIncidentId === null, 40_000);
    const { incidents } = await t.admin.checkIncidents(service.id, check.id);
    expect(incidents).to.have.length(2);
    expect(incidents.every((i) => i.resolvedAt !== null)).to.equal(true);
    await until('a check_up for the second incident', async () => noticesOf('check_up').length === 2, 10_000);
    expect(noticesOf('check_down')).to.have.length(2);
  });

  it('uptime buckets: 24 hourly and 90 daily, with this hour’s checks counted', async () => {
    const day = (await t.admin.checkUptime(service.id, check.id, '24h')).buckets;
    expect(day).to.have.length(24);
    const last = day[23]!;
    expect(last.checks).to.be.greaterThan(0);
    expect(last.up).to.be.greaterThan(0).and.lessThan(last.checks);
    const quarter = (await t.admin.checkUptime(service.id, check.id, '90d')).buckets;
    expect(quarter).to.have.length(90);
    expect(quarter[89]!.checks).to.be.greaterThan(0);
    const c = await current();
    expect(c.uptime24h).to.be.greaterThan(0).and.lessThan(1);
    expect(c.uptime90d).to.be.greaterThan(0).and.lessThan(1);
  });

  it('a check of a deleted domain is removed with it', async () => {
    const extra = (await t.admin.addDomain(service.id, `${uniq('gone')}.example.test`)).domain;
    const c = (await t.admin.createCheck(service.id, { target: { kind: 'domain', domainId: extra.id }, ...fast })).check;
    await t.admin.deleteDomain(service.id, extra.id);
    expect((await t.admin.listChecks(service.id)).checks.map((x) => x.id)).to.not.include(c.id);
  });

  it('berth checks: add, the table, edit, pause, resume, incidents, rm; --json', async () => {
    const berth = (...args: string[]) => cli.run(['--project', projectSlug, ...args], { env: cliEnv });
    const added = await berth(
      'checks',
      'add',
      'app',
      '--domain',
      domain.hostname,
      '--path',
      '/',
      '--expect',
      '200',
      '--keyword',
      'image',
      '--interval',
      '2',
      '--timeout',
      '1',
      '--failures',
      '2',
      '--name',
      'cli-check',
    );
    expect(added.code, added.stderr).to.equal(0);
    await until('the cli check to go up', async () => (await t.admin.listChecks(service.id)).checks.find((c) => c.name === 'cli-check')?.status === 'up', 30_000);
    const listed = await berth('checks', 'app');
    expect(listed.code, listed.stderr).to.equal(0);
    expect(listed.stdout).to.match(/NAME\s+TARGET\s+STATUS\s+UPTIME 24H\s+UPTIME 90D\s+LAST RESPONSE/);
    expect(listed.stdout).to.match(new RegExp(`cli-check\\s+${domain.hostname.replace(/\./g, '\\.')}/\\s+up\\s+100\\.00%`));
    const json = (await berth('--json', 'checks', 'app')).json<Check>().find((c) => c.name === 'cli-check')!;
    expect(json).to.include({ keyword: 'image', intervalSeconds: 2, failuresBeforeIncident: 2 });
    expect((await berth('checks', 'edit', 'app', 'cli-check', '--expect', 'any', '--failures', '5')).code).to.equal(0);
    expect((await current(json)).expectedStatus).to.equal(null);
    expect((await berth('checks', 'pause', 'app', 'cli-check')).code).to.equal(0);
    expect((await current(json)).status).to.equal('paused');
    expect((await berth('checks', 'resume', 'app', 'cli-check')).code).to.equal(0);
    expect((await current(json)).enabled).to.equal(true);
    const incidents = await berth('checks', 'incidents', 'app', check.name);
    expect(incidents.stdout).to.match(/INCIDENT\s+STARTED\s+RESOLVED\s+FAILURES\s+CAUSE/);
    expect((await berth('--json', 'checks', 'incidents', 'app', check.name)).json()).to.have.length(2);
    const bad = await berth('checks', 'add', 'app', '--domain', 'not-ours.example.test');
    expect(bad.code).to.equal(1);
    expect((await berth('checks', 'add', 'app', '--expect', 'ok')).code).to.equal(2);
    expect((await berth('checks', 'rm', 'app', 'cli-check')).code).to.equal(0);
    expect((await t.admin.listChecks(service.id)).checks.some((c) => c.name === 'cli-check')).to.equal(false);
  });
});
