// The console's views for apps that keep state (issue 28), in Chromium against the real daemon and
// Docker: deploy strategy and release command in settings, a service's volumes and config files,
// the project's volumes, a volume's backups, and keeping volumes when a service is deleted. Two
// pages (two signed-in clients) are open: what one changes shows in the other without a reload.
// Each view is screenshotted (.berth-test/screenshots/state-*.png) and checked with axe.
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Backup, Project, ProjectVolume, Service } from '../../shared/types.js';
import { accessibilityProblems, launchChromium, requireConsoleBuild, screenshot, screenshotsOnFailure, signedInPage } from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { until, waitForDeployment } from '../helpers/wait.js';

const LIVE_MS = 2000;

describe('console views for volumes, config files, deploy strategy, release command and volume backups (Chromium)', function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let a: Page;
  let b: Page;
  let token: string;
  let project: Project;
  let app: Service;
  const pageErrors: string[] = [];

  const signedIn = (name: string): Promise<Page> => signedInPage(browser, { url: t.url, token, name, pageErrors, contexts, acceptDownloads: true });

  /** Opens a service tab by the console's own navigation, and waits until it has settled. */
  async function openTab(page: Page, serviceId: string, tab: string): Promise<void> {
    await page.evaluate((href) => {
      history.pushState(null, '', href);
      dispatchEvent(new PopStateEvent('popstate'));
    }, `/services/${serviceId}/${tab.toLowerCase()}`);
    await page.getByRole('tab', { name: tab, exact: true, selected: true }).waitFor();
    await page.waitForLoadState('networkidle').catch(() => undefined);
  }

  async function api<T>(method: string, path: string): Promise<T> {
    const res = await fetch(`${t.url}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as T;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  }

  async function expectAccessible(page: Page, view: string): Promise<void> {
    expect(await accessibilityProblems(page), `axe on ${view}`).to.deep.equal([]);
  }

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    requireConsoleBuild();
    t = await startTestDaemon();
    token = (await t.admin.createKey({ name: 'state-views', access: 'write', projects: 'all' })).token;
    project = (await t.admin.createProject({ name: uniq('state') })).project;
    app = (await t.admin.createService(project.id, { name: 'app', repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080 })).service;
    browser = await launchChromium();
    a = await signedIn('A');
    b = await signedIn('B');
  });
  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await t?.stop();
  });
  afterEach(async function () {
    await screenshotsOnFailure(this.currentTest, 'state', { a, b });
  });

  it('settings: the strategy and a release command typed as a command line are saved as argv, and the Service JSON says so', async () => {
    await openTab(a, app.id, 'Settings');
    const form = a.getByRole('form', { name: 'Deploy settings' });
    await form.getByRole('radio', { name: /Recreate/ }).check();
    const command = form.getByLabel('Release command', { exact: true });
    // an unclosed quote is refused before anything is sent
    await command.fill(`sh -c 'echo migrating`);
    await form.getByText('The command line has an unclosed single quote.').waitFor();
    expect(await form.getByRole('button', { name: 'Save deploy settings' }).isDisabled()).to.equal(true);
    await command.fill(`sh -c 'echo migrating && exit 0'`);
    await form.getByText('["sh","-c","echo migrating && exit 0"]').waitFor();
    await form.getByLabel('Release timeout (seconds)').fill('120');
    await form.getByRole('button', { name: 'Save deploy settings' }).click();
    await form
      .getByRole('status')
      .getByText(/Strategy: rolling → recreate; Release command: sh -c 'echo migrating && exit 0'; Release timeout: 120 s/)
      .waitFor();
    const { service } = await t.admin.overview(app.id);
    expect(service).to.deep.include({ deployStrategy: 'recreate', releaseCommand: ['sh', '-c', 'echo migrating && exit 0'], releaseTimeoutSeconds: 120 });
    // the daemon's refusal shows beside the field it names
    await form.getByLabel('Release timeout (seconds)').fill('0');
    await form.getByRole('button', { name: 'Save deploy settings' }).click();
    await form
      .getByRole('alert')
      .getByText(/^releaseTimeoutSeconds/)
      .waitFor();
    expect((await t.admin.overview(app.id)).service.releaseTimeoutSeconds).to.equal(120);
    await form.getByLabel('Release timeout (seconds)').fill('120');
    await screenshot(a, 'state-01-deploy-settings');
    await expectAccessible(a, 'service settings');
  });

  it("volumes: a volume added in page A appears in page B's open Volumes tab, with its mount path and size", async () => {
    await openTab(a, app.id, 'Volumes');
    await openTab(b, app.id, 'Volumes');
    const form = a.getByRole('form', { name: 'Add a volume' });
    await form.getByLabel('Volume name').fill('data');
    await form.getByLabel('Mount path').fill('/data');
    await form.getByRole('button', { name: 'Add volume' }).click();
    for (const [page, timeout] of [
      [a, 10_000],
      [b, LIVE_MS],
    ] as const) {
      const row = page.getByRole('table', { name: 'Volumes of app' }).getByRole('row', { name: /data/ });
      await row.getByRole('cell', { name: '/data', exact: true }).waitFor({ timeout });
      await row.getByRole('cell', { name: 'Read-write', exact: true }).waitFor();
    }
    const { service } = await t.admin.overview(app.id);
    expect(service.volumes.map((v) => ({ name: v.name, mountPath: v.mountPath, readOnly: v.readOnly }))).to.deep.equal([{ name: 'data', mountPath: '/data', readOnly: false }]);
    await screenshot(b, 'state-02-volumes');
    await expectAccessible(b, 'volumes tab');
  });

  it("config files: a file written in page A's editor is saved with its mode and appears in page B's open Files tab", async () => {
    await openTab(a, app.id, 'Files');
    await openTab(b, app.id, 'Files');
    await a.getByText('resolve like references in variables').waitFor();
    await a.getByRole('button', { name: 'Add a config file' }).click();
    const form = a.getByRole('form', { name: 'New config file' });
    await form.getByLabel('Path in the container').fill('/etc/app/config.json');
    await form.getByLabel('Mode').fill('0640');
    await form.getByRole('textbox', { name: 'File content' }).click();
    await a.keyboard.type('{"greeting": "${GREETING}"}');
    await screenshot(a, 'state-03-file-editor');
    await expectAccessible(a, 'config file editor');
    await form.getByRole('button', { name: 'Save file and redeploy' }).click();
    for (const [page, timeout] of [
      [a, 10_000],
      [b, LIVE_MS],
    ] as const)
      await page.getByRole('table', { name: 'Config files of app' }).getByRole('cell', { name: '/etc/app/config.json', exact: true }).waitFor({ timeout });
    const { service } = await t.admin.overview(app.id);
    expect(service.files).to.deep.equal([{ path: '/etc/app/config.json', content: '{"greeting": "${GREETING}"}', mode: '0640' }]);
    await screenshot(b, 'state-04-files');
    await expectAccessible(b, 'files tab');
  });

  it('the project page lists the project volumes with the service that mounts each', async () => {
    await a.evaluate((href) => {
      history.pushState(null, '', href);
      dispatchEvent(new PopStateEvent('popstate'));
    }, `/projects/${project.slug}`);
    const row = a.getByRole('table', { name: `Volumes of ${project.name}` }).getByRole('row', { name: /data/ });
    await row.getByRole('link', { name: 'app', exact: true }).waitFor();
    await row.getByRole('cell', { name: '/data', exact: true }).waitFor();
    const { volumes } = await api<{ volumes: ProjectVolume[] }>('GET', `/api/projects/${project.id}/volumes`);
    expect(volumes.map((v) => [v.name, v.serviceId])).to.deep.equal([['data', app.id]]);
    await screenshot(a, 'state-05-project-volumes');
    await expectAccessible(a, 'project page');
  });

  it("volume backups: 'Back up now' in page A shows the backup in page B's open list when it has succeeded", async () => {
    // the volume exists once the service has run with it
    // (saving the config file redeployed it; deploy it here if that did not)
    const latest = async () => (await t.admin.listDeployments(app.id)).deployments[0];
    const deployment = (await latest()) ?? (await t.admin.deploy(app.id)).deployment;
    await waitForDeployment(t.admin, app.id, deployment.id, ['running', 'superseded']);
    await until('the latest deployment runs', async () => (await latest())?.status === 'running', 90_000, 500);
    await openTab(a, app.id, 'Volumes');
    await openTab(b, app.id, 'Volumes');
    const section = (page: Page) => page.getByRole('region', { name: 'Backups of volume data' });
    await section(a).getByRole('button', { name: 'Back up now' }).click();
    await section(b).getByRole('table', { name: 'Backups of volume data' }).getByText('succeeded').waitFor({ timeout: 30_000 });
    const { backups } = await api<{ backups: Backup[] }>('GET', `/api/services/${app.id}/volumes/data/backups`);
    expect(backups.map((x) => [x.volume, x.status])).to.deep.equal([['data', 'succeeded']]);
    await section(a).getByRole('table', { name: 'Backups of volume data' }).getByText('succeeded').waitFor({ timeout: LIVE_MS });
    await screenshot(b, 'state-06-volume-backups');
    await expectAccessible(b, 'volume backups');
    // the restore dialog says the service stops
    await section(a).getByRole('button', { name: 'Restore' }).click();
    await a
      .getByRole('dialog', { name: 'Restore this backup?' })
      .getByText(/app stops while the volume data is replaced/)
      .waitFor();
    await screenshot(a, 'state-07-volume-restore-dialog');
    await a.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  });

  it('deleting a service offers to keep its volumes; a kept volume is listed as not attached and can be attached to another service', async () => {
    const scratch = (
      await t.admin.createService(project.id, { name: 'scratch', repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080, volumes: [{ name: 'kept', mountPath: '/kept' }] })
    ).service;
    await openTab(a, scratch.id, 'Settings');
    await a.getByRole('button', { name: 'Delete service' }).click();
    const dialog = a.getByRole('dialog', { name: 'Delete scratch?' });
    await dialog.getByRole('checkbox', { name: /Keep its volumes \(kept\)/ }).check();
    await dialog.getByLabel('Type scratch to confirm').fill('scratch');
    await screenshot(a, 'state-08-delete-keep-volumes');
    await expectAccessible(a, 'delete dialog');
    await dialog.getByRole('button', { name: 'Delete service' }).click();
    await a.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
    await a.evaluate((href) => {
      history.pushState(null, '', href);
      dispatchEvent(new PopStateEvent('popstate'));
    }, `/projects/${project.slug}`);
    const row = a.getByRole('table', { name: `Volumes of ${project.name}` }).getByRole('row', { name: /kept/ });
    await row.getByText('not attached').waitFor();
    await row.getByRole('button', { name: 'Attach…' }).click();
    const attach = a.getByRole('dialog', { name: 'Attach kept' });
    await attach.getByLabel('Mount path').fill('/kept');
    await screenshot(a, 'state-09-attach-kept-volume');
    await expectAccessible(a, 'attach dialog');
    await attach.getByRole('button', { name: 'Attach' }).click();
    await row.getByRole('link', { name: 'app', exact: true }).waitFor({ timeout: 10_000 });
    const { service } = await t.admin.overview(app.id);
    expect(service.volumes.map((v) => v.name).sort()).to.deep.equal(['data', 'kept']);
    expect(pageErrors).to.deep.equal([]);
  });
});
