// A project's public status page, end to end through the daemon's real Caddy: it answers without a
// key on its own hostname, shows the chosen service under the owner's label with its state, uptime
// and incidents, and leaks no internal name, id, address, target or error; a stopped app turns it
// "down" within seconds; it keeps serving its last state with the daemon stopped; disabled or
// removed, Caddy no longer serves it (no certificate, or a 404); its hostname is
// unique both ways (another project's page, a domain); another project's key sees nothing of it.
import { expect } from 'chai';
import { request } from 'node:https';
import type { Check, Project, Service } from '../../shared/types.js';
import { ApiError } from '../../shared/client.js';
import { cliHome, type CliHome } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { until, waitForDeployment } from '../helpers/wait.js';

interface Page {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** GET https://<hostname>/ through the test Caddy (its internal CA is not trusted here: no verification). */
function viaCaddy(port: number, hostname: string): Promise<Page> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, servername: hostname, headers: { host: hostname }, path: '/', rejectUnauthorized: false, timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('timeout', () => req.destroy(new Error('Caddy did not answer within 5 s')));
    req.on('error', reject);
    req.end();
  });
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('public status pages through Caddy', function () {
  this.timeout(240_000);
  let t: TestDaemon;
  let project: Project;
  let other: Project;
  let service: Service;
  let check: Check;
  let domainHost: string;
  let cli: CliHome;
  let cliEnv: Record<string, string>;
  const hostname = `${uniq('status')}.example.test`;
  const page = () => viaCaddy(t.caddy!.httpsPort, hostname);

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    t = await startTestDaemon({ BERTH_HEALTH_TIMEOUT: '20', BERTH_CHECK_MIN_INTERVAL_SECONDS: '2' });
    project = (await t.admin.createProject({ name: uniq('acme-internal') })).project;
    other = (await t.admin.createProject({ name: uniq('neighbour') })).project;
    service = (await t.admin.createService(project.id, { name: 'billing-api-internal', repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080 })).service;
    const { deployment } = await t.admin.deploy(service.id);
    expect((await waitForDeployment(t.admin, service.id, deployment.id, ['running', 'failed'], 120_000)).status).to.equal('running');
    domainHost = `${uniq('billing')}.example.test`;
    const { domain } = await t.admin.addDomain(service.id, domainHost);
    check = (
      await t.admin.createCheck(service.id, {
        name: 'secret-check-name',
        target: { kind: 'domain', domainId: domain.id },
        path: '/private-path',
        expectedStatus: 404,
        intervalSeconds: 2,
        timeoutSeconds: 1,
        failuresBeforeIncident: 2,
      })
    ).check;
    await until('the check to go up', async () => (await t.admin.getCheck(service.id, check.id)).check.status === 'up', 30_000);
    const { token } = await t.admin.createKey({ name: 'cli', access: 'write', projects: 'all' });
    cliEnv = { BERTH_SERVER: t.url, BERTH_TOKEN: token };
    cli = cliHome();
  });

  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    cli?.remove();
  });

  it('is set up with a hostname and a label, and answers without a key with the state and no internal detail', async () => {
    expect((await t.admin.statusPage(project.id)).statusPage).to.equal(null);
    const { statusPage } = await t.admin.putStatusPage(project.id, { hostname: hostname.toUpperCase(), title: 'Acme status', services: [{ serviceId: service.id, label: 'Website' }] });
    expect(statusPage).to.include({ projectId: project.id, hostname, title: 'Acme status', enabled: true, url: `https://${hostname}/` });
    expect(statusPage.renderedAt).to.be.a('string');
    const answer = await until(
      'Caddy to serve the page',
      async () => {
        const p = await page().catch(() => null);
        return p?.status === 200 ? p : null;
      },
      15_000,
    );
    expect(answer.headers['content-type']).to.equal('text/html; charset=utf-8');
    expect(String(answer.headers['content-security-policy'])).to.contain("default-src 'none'");
    expect(answer.body).to.contain('<h1>Acme status</h1>');
    expect(answer.body).to.contain('Website');
    expect(answer.body).to.contain('All systems operational');
    expect(answer.body).to.contain('Operational');
    expect(answer.body).to.not.contain('<script');
    for (const secret of [service.name, service.id, project.name, project.slug, project.id, domainHost, 'secret-check-name', '/private-path', '127.0.0.1', 'berth-test', check.id]) {
      expect(answer.body, `the page names ${secret}`).to.not.contain(secret);
    }
  });

  it('shows placeholders typed into the title and the labels as typed: Caddy never expands them (environment, files, headers)', async () => {
    const title = 'Acme {env.HOME} {file./etc/hostname} {http.request.uri}';
    const label = 'Web \\{env.PATH} {system.hostname}';
    await t.admin.putStatusPage(project.id, { hostname, title, services: [{ serviceId: service.id, label }] });
    const shown = await until(
      'the new title',
      async () => {
        const p = await page();
        return p.body.includes('Acme {env.HOME}') ? p : null;
      },
      15_000,
    );
    expect(shown.body).to.contain(`<h1>${title}</h1>`);
    expect(shown.body).to.contain(label);
    expect(shown.body).to.contain('body{margin:0');
    await t.admin.putStatusPage(project.id, { hostname, title: 'Acme status', services: [{ serviceId: service.id, label: 'Website' }] });
  });

  it('turns down within seconds when the app stops, with an ongoing incident and no error text', async () => {
    const live = (await t.admin.listDeployments(service.id)).deployments.find((d) => d.status === 'running')!;
    docker('stop', '-t', '1', live.containerName!);
    const down = await until(
      'the page to say it is down',
      async () => {
        const p = await page();
        return p.body.includes('Some systems are down') || p.body.includes('All systems are down') ? p : null;
      },
      30_000,
    );
    expect(down.body).to.contain('ongoing');
    expect(down.body).to.contain('Down');
    const stored = (await t.admin.getCheck(service.id, check.id)).check;
    expect(stored.lastError, 'the check has an error').to.be.a('string');
    expect(down.body).to.not.contain(stored.lastError!);
    expect(down.body).to.not.contain('502');
    docker('start', live.containerName!);
    await until('the page to recover', async () => (await page()).body.includes('All systems operational'), 30_000);
    expect((await page()).body).to.match(/was down for \d+ min/);
  });

  it('keeps serving its last state while the daemon is stopped', async () => {
    const before = await page();
    await t.restart(0, async () => {
      const during = await page();
      expect(during.status).to.equal(200);
      expect(during.body).to.equal(before.body);
    });
    expect((await page()).status).to.equal(200);
  });

  it('keeps its hostname its own: another project, a domain and a generated clash answer 409; foreign services 400; another key 404', async () => {
    const taken = await refusal(t.admin.putStatusPage(other.id, { hostname, services: [] }));
    expect([taken.status, taken.code]).to.deep.equal([409, 'hostname_taken']);
    const asDomain = await refusal(t.admin.addDomain(service.id, hostname));
    expect([asDomain.status, asDomain.code]).to.deep.equal([409, 'hostname_taken']);
    const onDomain = await refusal(t.admin.putStatusPage(other.id, { hostname: domainHost, services: [] }));
    expect(onDomain.status).to.equal(409);
    const foreign = await refusal(t.admin.putStatusPage(other.id, { hostname: `${uniq('o')}.example.test`, services: [{ serviceId: service.id, label: 'Theirs' }] }));
    expect([foreign.status, foreign.code]).to.deep.equal([400, 'unknown_service']);
    expect((await t.admin.statusPage(other.id)).statusPage, 'nothing was stored').to.equal(null);
    const neighbour = await t.clientWith('write', [other.id]);
    expect((await refusal(neighbour.statusPage(project.id))).status).to.equal(404);
    expect((await refusal(neighbour.putStatusPage(project.id, { hostname: `${uniq('x')}.example.test`, services: [] }))).status).to.equal(404);
    expect((await refusal(neighbour.deleteStatusPage(project.id))).status).to.equal(404);
    const reader = await t.clientWith('read', [project.id]);
    expect((await reader.statusPage(project.id)).statusPage?.hostname).to.equal(hostname);
    expect((await refusal(reader.putStatusPage(project.id, { hostname, services: [] }))).status).to.equal(403);
  });

  it('leaves off a service moved to another project (its label and uptime are no longer the project’s to show)', async () => {
    const moving = (await t.admin.createService(project.id, { name: 'moving', repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080 })).service;
    await t.admin.putStatusPage(project.id, {
      hostname,
      title: 'Acme status',
      services: [
        { serviceId: service.id, label: 'Website' },
        { serviceId: moving.id, label: 'Moving part' },
      ],
    });
    await until('the page with both services', async () => (await page()).body.includes('Moving part'), 15_000);
    await t.admin.transferService(moving.id, other.id);
    await until('the moved service off the page', async () => !(await page()).body.includes('Moving part'), 15_000);
    expect((await page()).body).to.contain('Website');
    await t.admin.deleteService(moving.id);
  });

  it('is changed and removed from the CLI; a disabled or removed page is no longer served', async () => {
    const shown = await cli.run(['status-page', project.slug], { env: cliEnv });
    expect(shown.code, shown.stderr).to.equal(0);
    expect(shown.stdout).to.contain(`https://${hostname}/`);
    expect(shown.stdout).to.contain('Website');
    const disabled = await cli.run(['status-page', 'set', project.slug, '--title', 'Acme, Inc.', '--disable', '--json'], { env: cliEnv });
    expect(disabled.code, disabled.stderr).to.equal(0);
    expect(JSON.parse(disabled.stdout).statusPage).to.include({ enabled: false, title: 'Acme, Inc.', hostname });
    await until('Caddy to stop serving the disabled page', async () => (await page().catch(() => null))?.status !== 200, 15_000);
    const enabled = await cli.run(['status-page', 'set', project.slug, '--enable', '--service', 'billing-api-internal=Billing'], { env: cliEnv });
    expect(enabled.code, enabled.stderr).to.equal(0);
    await until('the page with its new label', async () => (await page()).body.includes('Billing'), 15_000);
    expect((await page()).body).to.contain('Acme, Inc.');
    const removed = await cli.run(['status-page', 'rm', project.slug], { env: cliEnv });
    expect(removed.code, removed.stderr).to.equal(0);
    await until('Caddy to stop serving the removed page', async () => (await page().catch(() => null))?.status !== 200, 15_000);
    expect((await t.admin.statusPage(project.id)).statusPage).to.equal(null);
    // the hostname is free again
    expect((await t.admin.putStatusPage(other.id, { hostname, services: [] })).statusPage.hostname).to.equal(hostname);
  });
});
