// Every open view is live: two people (two Chromium pages, each signed in) look at the console
// while changes are made elsewhere: through the API, through the `berth` CLI, or in the other page.
// Each change shows in the open view within 2 s, without a reload (the /api/events stream
// invalidates exactly the queries that show it).
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Project, Service } from '../../shared/types.js';
import { launchChromium, requireConsoleBuild, screenshot, screenshotsOnFailure, signedInPage } from '../helpers/browser.js';
import { cliHome, type CliHome } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';

const LIVE_MS = 2000;

describe('console views stay live in Chromium: changes made elsewhere show within 2 s', function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let a: Page;
  let b: Page;
  let token: string;
  let cli: CliHome;
  let project: Project;
  let web: Service;
  const pageErrors: string[] = [];

  const signedIn = (name: string): Promise<Page> => signedInPage(browser, { url: t.url, token, name, pageErrors, contexts });

  const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });

  async function openProject(page: Page): Promise<void> {
    await nav(page, 'Projects').click();
    await page.getByRole('link', { name: new RegExp(project.name) }).click();
    await page.getByRole('heading', { name: project.name, exact: true }).waitFor();
    // the page is settled, and its event stream open, before anything changes
    await page.waitForLoadState('networkidle').catch(() => undefined);
  }

  const serviceLink = (page: Page, name: string) => page.getByRole('table', { name: /^Services of / }).getByRole('link', { name, exact: true });

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    requireConsoleBuild();
    t = await startTestDaemon();
    const created = await t.admin.createKey({ name: 'two-pages', access: 'write', projects: 'all' });
    token = created.token;
    cli = cliHome();
    project = (await t.admin.createProject({ name: uniq('live') })).project;
    web = (await t.admin.createService(project.id, { name: 'web', repoFullName: 'acme/web', internalPort: 3000 })).service;
    browser = await launchChromium();
    a = await signedIn('A');
    b = await signedIn('B');
  });
  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    cli?.remove();
    await t?.stop();
  });
  afterEach(async function () {
    await screenshotsOnFailure(this.currentTest, 'live', { a, b });
  });

  it('a service created through the API appears in both open project pages', async () => {
    await openProject(a);
    await openProject(b);
    await serviceLink(a, 'web').waitFor();
    await t.admin.createService(project.id, { name: 'api-made', repoFullName: 'acme/api', internalPort: 3000 });
    await serviceLink(a, 'api-made').waitFor({ timeout: LIVE_MS });
    await serviceLink(b, 'api-made').waitFor({ timeout: LIVE_MS });
    await screenshot(a, 'live-01-service-from-api');
  });

  it('a service created through the CLI appears in the open project page', async () => {
    const run = await cli.run(['services', 'create', 'cli-made', '--project', project.slug, '--repo', 'acme/cli', '--port', '3000'], { env: { BERTH_SERVER: t.url, BERTH_TOKEN: token } });
    expect(run.code, run.stderr).to.equal(0);
    await serviceLink(a, 'cli-made').waitFor({ timeout: LIVE_MS });
    await serviceLink(b, 'cli-made').waitFor({ timeout: LIVE_MS });
    // the project's quota card counts the services too: web, api-made, cli-made
    await b.getByText(/^3 of \d+$/).waitFor({ timeout: LIVE_MS });
    await screenshot(b, 'live-02-service-from-cli');
  });

  it('a project renamed through the API renames in the open page', async () => {
    const name = uniq('renamed');
    await t.admin.patchProject(project.id, { name });
    await a.getByRole('heading', { name, exact: true }).waitFor({ timeout: LIVE_MS });
    await b.getByRole('heading', { name, exact: true }).waitFor({ timeout: LIVE_MS });
    project = { ...project, name };
    await screenshot(a, 'live-03-project-renamed');
  });

  it('a deleted service leaves the open project page', async () => {
    const gone = (await t.admin.getProject(project.id)).project.services.find((s) => s.name === 'api-made')!;
    await t.admin.deleteService(gone.id);
    await serviceLink(a, 'api-made').waitFor({ state: 'detached', timeout: LIVE_MS });
    await serviceLink(b, 'api-made').waitFor({ state: 'detached', timeout: LIVE_MS });
    await screenshot(a, 'live-04-service-deleted');
  });

  it("an env variable added in one page appears in the other's open env editor", async () => {
    for (const page of [a, b]) {
      await serviceLink(page, 'web').click();
      await page.getByRole('tab', { name: 'Variables' }).click();
      await page.getByLabel('Key', { exact: true }).waitFor();
      await page.waitForLoadState('networkidle').catch(() => undefined);
    }
    await a.getByLabel('Key', { exact: true }).fill('LIVE_VARIABLE');
    await a.getByLabel('Value', { exact: true }).fill('from-page-a');
    await a.getByRole('button', { name: 'Save variable' }).click();
    await a.getByRole('cell', { name: 'LIVE_VARIABLE', exact: true }).waitFor();
    await b.getByRole('cell', { name: 'LIVE_VARIABLE', exact: true }).waitFor({ timeout: LIVE_MS });
    expect((await t.admin.overview(web.id)).env.map((e) => e.key)).to.include('LIVE_VARIABLE');
    await screenshot(b, 'live-05-env-from-other-page');
  });

  it("a key created in one page appears in the other's keys page", async () => {
    for (const page of [a, b]) {
      await nav(page, 'Keys').click();
      await page.getByRole('cell', { name: 'two-pages', exact: true }).waitFor();
      await page.waitForLoadState('networkidle').catch(() => undefined);
    }
    await a.getByRole('button', { name: 'Create key' }).click();
    const dialog = a.getByRole('dialog');
    await dialog.getByLabel('Name', { exact: true }).fill('made-in-page-a');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await dialog.getByLabel('Key', { exact: true }).waitFor();
    await b.getByRole('cell', { name: 'made-in-page-a', exact: true }).waitFor({ timeout: LIVE_MS });
    await screenshot(b, 'live-06-key-from-other-page');
    expect(pageErrors).to.deep.equal([]);
  });
});
