// The console's Uptime tab, in Chromium, against a real app through the daemon's Caddy: a check
// that went down (container stopped: an incident) and came back shows its state, the 24-hour and
// 90-day uptime bars, the response-time chart and the resolved incident; the add form offers the
// service's domains with the defaults filled in; the project's status page is set up from the
// project page and its card follows a change another client makes. Screenshots under
// .berth-test/screenshots/uptime-*.
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Check, Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { until, waitForDeployment } from '../helpers/wait.js';
import { accessibilityProblems, launchChromium, requireConsoleBuild, screenshot, screenshotsOnFailure, signedInPage } from '../helpers/browser.js';

describe('console: uptime checks (Chromium)', function () {
  this.timeout(300_000);
  let t: TestDaemon;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  let a: Page;
  let service: Service;
  let check: Check;

  before(async function () {
    this.timeout(600_000);
    requireConsoleBuild();
    requireDocker();
    t = await startTestDaemon({ BERTH_HEALTH_TIMEOUT: '20', BERTH_CHECK_MIN_INTERVAL_SECONDS: '2', BERTH_REACHABILITY_INTERVAL: '1' });
    const { project } = await t.admin.createProject({ name: uniq('uptime-console') });
    service = (await t.admin.createService(project.id, { name: 'storefront', repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080 })).service;
    const { deployment } = await t.admin.deploy(service.id);
    expect((await waitForDeployment(t.admin, service.id, deployment.id, ['running', 'failed'], 120_000)).status).to.equal('running');
    const domain = (await t.admin.addDomain(service.id, 'shop.example.test')).domain;
    check = (
      await t.admin.createCheck(service.id, {
        name: 'storefront home',
        target: { kind: 'domain', domainId: domain.id },
        intervalSeconds: 2,
        timeoutSeconds: 1,
        failuresBeforeIncident: 2,
        keyword: 'image ok',
      })
    ).check;
    await until('the check up', async () => (await t.admin.getCheck(service.id, check.id)).check.status === 'up', 30_000);
    // one incident, resolved: the app's container stopped and started again
    const container = (await t.admin.listDeployments(service.id)).deployments.find((d) => d.status === 'running')!.containerName!;
    docker('stop', '-t', '0', container);
    await until('an incident', async () => (await t.admin.getCheck(service.id, check.id)).check.openIncidentId !== null, 30_000);
    docker('start', container);
    await until('resolved', async () => (await t.admin.getCheck(service.id, check.id)).check.openIncidentId === null, 40_000);
    const token = (await t.admin.createKey({ name: 'operator', access: 'write', projects: 'all' })).token;
    browser = await launchChromium();
    a = await signedInPage(browser, { url: t.url, token, name: 'A', pageErrors, contexts, height: 1300 });
  });
  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
  });
  afterEach(async function () {
    await screenshotsOnFailure(this.currentTest, 'uptime', { a });
  });

  it('the Uptime tab shows the check up, its bars, the response-time chart and the resolved incident', async () => {
    await a.goto(`${t.url}/services/${service.id}/uptime`);
    await a.getByRole('button', { name: 'storefront home' }).waitFor();
    await a.getByRole('table', { name: 'Uptime checks' }).getByText('up', { exact: true }).waitFor();
    await a.getByRole('list', { name: /Last 24 hours/ }).waitFor();
    await a.getByRole('list', { name: /Last 90 days/ }).waitFor();
    expect(
      await a
        .getByRole('list', { name: /Last 24 hours/ })
        .getByRole('listitem')
        .count(),
    ).to.equal(24);
    expect(
      await a
        .getByRole('list', { name: /Last 90 days/ })
        .getByRole('listitem')
        .count(),
    ).to.equal(90);
    await a.getByRole('img', { name: /Response time over the last 24 hours: \d+ ms/ }).waitFor();
    await a.getByRole('table', { name: 'Incidents' }).getByText('resolved').waitFor();
    await screenshot(a, 'uptime-01-tab');
    expect(await accessibilityProblems(a)).to.deep.equal([]);
    expect(pageErrors).to.deep.equal([]);
  });

  it('the add form offers the service’s domains and the defaults; pausing shows paused', async () => {
    await a.getByRole('button', { name: 'Add check' }).click();
    const dialog = a.getByRole('dialog');
    await dialog.getByLabel('Target').waitFor();
    expect(await dialog.getByLabel('Target').locator('option').allTextContents()).to.include('shop.example.test');
    expect(await dialog.getByLabel('Path').inputValue()).to.equal('/');
    expect(await dialog.getByLabel('Expected status').inputValue()).to.equal('200');
    expect(await dialog.getByLabel('Every (seconds)').inputValue()).to.equal('60');
    await screenshot(a, 'uptime-02-add-form');
    await dialog.getByRole('button', { name: 'Add check' }).click();
    await a.getByRole('button', { name: 'shop.example.test' }).waitFor();
    await a.getByRole('button', { name: 'storefront home' }).click();
    await a.getByRole('button', { name: 'Pause' }).click();
    await a.getByRole('table', { name: 'Uptime checks' }).getByText('paused').waitFor();
    await screenshot(a, 'uptime-03-paused');
    expect((await t.admin.getCheck(service.id, check.id)).check.enabled).to.equal(false);
  });

  it('a status page is set up from the project page, and the card follows a change made elsewhere', async () => {
    const projectId = service.projectId;
    const { project } = await t.admin.getProject(projectId);
    await a.goto(`${t.url}/projects/${project.slug}`);
    const card = a.getByRole('region', { name: 'Status page' });
    await card.getByRole('button', { name: 'Set up status page' }).click();
    const dialog = a.getByRole('dialog');
    await dialog.getByLabel('Hostname').fill('status.shop.example.test');
    await dialog.getByLabel('Title').fill('Shop status');
    await dialog.getByRole('checkbox', { name: 'storefront' }).check();
    await dialog.getByLabel('Public name of storefront').fill('Online shop');
    await screenshot(a, 'uptime-04-status-page-form');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await card.getByRole('link', { name: 'https://status.shop.example.test/' }).waitFor();
    await card.getByText('Online shop').waitFor();
    const stored = (await t.admin.statusPage(projectId)).statusPage!;
    expect(stored).to.include({ hostname: 'status.shop.example.test', title: 'Shop status', enabled: true });
    expect(stored.services).to.deep.equal([{ serviceId: service.id, label: 'Online shop' }]);
    // another client renames the page: the card shows it without a reload
    await t.admin.putStatusPage(projectId, { hostname: stored.hostname, services: stored.services, title: 'Shop status (beta)' });
    await card.getByText('“Shop status (beta)”', { exact: false }).waitFor();
    await screenshot(a, 'uptime-05-status-page-card');
    expect(await accessibilityProblems(a)).to.deep.equal([]);
    expect(pageErrors).to.deep.equal([]);
  });
});
