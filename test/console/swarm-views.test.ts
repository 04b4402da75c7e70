// The console's Swarm surfaces in Chromium, on the host's real Docker Engine: a deployed service's
// Instances tab, the Nodes view turning Swarm mode on (a second page sees it live), the manager
// node in the table, a label set by another client appearing without reload, a join command with
// its copy button and expiry, replicas edited in the service settings (and another client's edit
// showing live), and Swarm mode turned off again from the view.
// Turns the HOST's Swarm mode on: run it under `flock /tmp/berth-host-swarm.lock`; it leaves
// Swarm off (in `after`, whatever happened).
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Project, Service } from '../../shared/types.js';
import { accessibilityProblems, launchChromium, requireConsoleBuild, screenshot, screenshotsOnFailure, signedInPage } from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { bridgeAddress, requireSwarmImages } from '../helpers/swarm-nodes.js';
import { freePort } from '../helpers/caddy.js';
import { until, waitForDeployment } from '../helpers/wait.js';

const LIVE_MS = 3000;

const hostSwarmState = () => docker('info', '--format', '{{.Swarm.LocalNodeState}}');

describe('console Swarm views in Chromium: nodes, join command, replicas and instances, live', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let a: Page;
  let b: Page;
  let token: string;
  let project: Project;
  let web: Service;
  let hostname: string;
  const pageErrors: string[] = [];

  const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
  const swarmCard = (page: Page) => page.getByRole('region', { name: 'Swarm mode' });
  const nodeRow = (page: Page) => page.getByRole('row', { name: `Node ${hostname}` });

  async function openService(page: Page, tab: string): Promise<void> {
    await page.goto(`${t.url}/services/${web.id}/${tab}`);
    await page.getByRole('heading', { name: 'web' }).waitFor();
    await page.waitForLoadState('networkidle').catch(() => undefined);
  }

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    const state = hostSwarmState();
    if (state !== 'inactive') throw new Error(`the host's Swarm mode is ${state}: another suite holds it, or this one is not run under flock /tmp/berth-host-swarm.lock`);
    requireConsoleBuild();
    // Berth's registry starts with Swarm mode: the stand-in image built here (no registry is reachable)
    t = await startTestDaemon({
      BERTH_IMAGE_REGISTRY: requireSwarmImages().registry,
      // a development daemon serves what joining fetches over HTTPS only on this address
      BERTH_JOIN_TLS_ADDR: `${bridgeAddress()}:${await freePort()}`,
    });
    hostname = docker('info', '--format', '{{.Name}}');
    token = (await t.admin.createKey({ name: 'operator', access: 'write', projects: 'all' })).token;
    project = (await t.admin.createProject({ name: uniq('swui') })).project;
    web = (await t.admin.createService(project.id, { name: 'web', repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080 })).service;
    const { deployment } = await t.admin.deploy(web.id);
    await waitForDeployment(t.admin, web.id, deployment.id, ['running']);
    browser = await launchChromium();
    a = await signedInPage(browser, { url: t.url, token, name: 'A', pageErrors, contexts, height: 900 });
    b = await signedInPage(browser, { url: t.url, token, name: 'B', pageErrors, contexts, height: 900 });
  });
  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    // Swarm off whatever happened: through Berth first (its own clean-up), then Docker itself
    if (t) await t.admin.disableSwarm().catch(() => undefined);
    await t?.stop();
    spawnSync('docker', ['swarm', 'leave', '--force'], { stdio: 'ignore' });
  });
  afterEach(async function () {
    await screenshotsOnFailure(this.currentTest, 'swarm', { a, b });
  });

  it("a deployed service's Instances tab shows its container on this server, running", async () => {
    await openService(a, 'instances');
    const table = a.getByRole('table', { name: 'Instances of web' });
    await table.getByRole('cell', { name: hostname, exact: true }).waitFor();
    await table.getByText('running', { exact: true }).first().waitFor();
    await screenshot(a, 'swarm-01-instances-single-server');
    expect(await accessibilityProblems(a), 'accessibility of the instances tab').to.deep.equal([]);
  });

  it('the Nodes view explains Swarm mode while off; turning it on there shows the manager node, and the other page follows live', async () => {
    for (const page of [a, b]) {
      await nav(page, 'Nodes').click();
      await swarmCard(page).getByText('off', { exact: true }).waitFor();
      await page.waitForLoadState('networkidle').catch(() => undefined);
    }
    await screenshot(a, 'swarm-02-nodes-off');
    expect(await accessibilityProblems(a), 'accessibility of the Nodes view (off)').to.deep.equal([]);
    await a.getByLabel('Advertise address (optional)').fill(bridgeAddress());
    await a.getByRole('button', { name: 'Turn on Swarm mode' }).click();
    await swarmCard(a).getByText('on', { exact: true }).waitFor({ timeout: 30_000 });
    await nodeRow(a).waitFor();
    expect(await nodeRow(a).getByRole('cell', { name: 'manager', exact: true }).count()).to.equal(1);
    await swarmCard(b).getByText('on', { exact: true }).waitFor({ timeout: LIVE_MS });
    await nodeRow(b).waitFor({ timeout: LIVE_MS });
    expect(hostSwarmState()).to.equal('active');
    expect((await t.admin.getSwarm()).swarm).to.include({ enabled: true, managerAddress: bridgeAddress(), nodeCount: 1 });
  });

  it('a label set by another client appears in the open table without reload; the labels dialog edits them', async () => {
    const { nodes } = await t.admin.listNodes();
    const manager = nodes.find((n) => n.hostname === hostname)!;
    await t.admin.patchNode(manager.id, { labels: { zone: 'a' } });
    await nodeRow(a).getByText('zone=a').waitFor({ timeout: LIVE_MS });
    await nodeRow(a).getByRole('button', { name: 'Labels' }).click();
    const dialog = a.getByRole('dialog', { name: `Labels of ${hostname}` });
    await dialog.getByLabel('Labels').fill('zone=a disk=ssd');
    await dialog.getByRole('button', { name: 'Save labels' }).click();
    await nodeRow(b).getByText('disk=ssd').waitFor({ timeout: LIVE_MS });
    expect((await t.admin.listNodes()).nodes.find((n) => n.id === manager.id)!.labels).to.deep.equal({ zone: 'a', disk: 'ssd' });
  });

  it('Add a node creates the single-use join command, with a copy button and its expiry', async () => {
    await a.getByRole('button', { name: 'Create join command' }).click();
    const line = a.getByLabel('Join command');
    await line.waitFor();
    const command = await line.inputValue();
    expect(command).to.match(/\S/);
    expect(command).not.to.include('\n');
    await a.getByText(/Single use; expires /).waitFor();
    await a.getByRole('button', { name: 'Copy' }).waitFor();
    await screenshot(a, 'swarm-03-nodes-on-join-command');
    expect(await accessibilityProblems(a), 'accessibility of the Nodes view (on)').to.deep.equal([]);
  });

  it("a new database's form offers a Node while Swarm is on: this server by default, disabled for a public database", async () => {
    await a.goto(`${t.url}/projects/${project.slug}/new`);
    await a.getByRole('tab', { name: 'Database' }).click();
    const node = a.getByLabel('Node', { exact: true });
    await node.waitFor();
    expect(await node.inputValue()).to.equal('');
    expect(await node.locator('option').allTextContents()).to.deep.equal(['This server (manager)']);
    await a.getByText('The database and its data volume live on this node; it cannot move later.').waitFor();
    await screenshot(a, 'swarm-04-new-database-node');
    await a.getByLabel('Public access').check();
    expect(await node.isDisabled()).to.equal(true);
  });

  it("replicas are edited in the service's settings; another client's change shows in the open form", async () => {
    await openService(a, 'settings');
    await openService(b, 'settings');
    const form = (page: Page) => page.getByRole('form', { name: 'Replicas and placement' });
    await form(a).getByLabel('Replicas').fill('2');
    await form(a).getByLabel('Placement: node labels').fill('zone=a');
    await form(a).getByRole('button', { name: 'Save replicas' }).click();
    await form(a).getByText('Saved: 2 replicas.').waitFor();
    expect((await t.admin.overview(web.id)).service).to.deep.include({ replicas: 2, placement: { nodeLabels: { zone: 'a' } } });
    // page B did not touch its form: the saved values arrive there live
    await until('page B shows 2 replicas', async () => (await form(b).getByLabel('Replicas').inputValue()) === '2', LIVE_MS, 50);
    expect(await form(b).getByLabel('Placement: node labels').inputValue()).to.equal('zone=a');
    await t.admin.patchService(web.id, { replicas: 1, placement: { nodeLabels: {} } });
    await until('page A shows 1 replica', async () => (await form(a).getByLabel('Replicas').inputValue()) === '1', LIVE_MS, 50);
    await screenshot(a, 'swarm-04-replicas-settings');
  });

  it('turning Swarm mode off from the view leaves the host out of Swarm, and the other page follows', async () => {
    await nav(a, 'Nodes').click();
    await nav(b, 'Nodes').click();
    await swarmCard(b).getByText('on', { exact: true }).waitFor();
    await a.getByRole('button', { name: 'Turn off Swarm mode' }).click();
    await a.getByRole('dialog', { name: 'Turn off Swarm mode?' }).getByRole('button', { name: 'Turn off' }).click();
    await swarmCard(a).getByText('off', { exact: true }).waitFor({ timeout: 30_000 });
    await swarmCard(b).getByText('off', { exact: true }).waitFor({ timeout: LIVE_MS });
    expect(hostSwarmState()).to.equal('inactive');
    expect(pageErrors).to.deep.equal([]);
  });
});
