// The console's compose import and template gallery (issue 33), in Chromium against the real
// daemon and Docker: a pasted compose file's plan says what each service becomes and lists what
// was not imported with the daemon's reason; the database choice re-plans; the import creates the
// services (with a bind-mounted file's content supplied), which a second page open on the project shows without a reload; a refused file shows
// the daemon's message beside the form; the gallery filters, and a template's plan maps every key.
// Screenshots: .berth-test/screenshots/compose-*.png; each view is checked with axe.
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { ComposeTemplate } from '../../shared/types/compose.js';
import type { Project } from '../../shared/types.js';
import { accessibilityProblems, launchChromium, requireConsoleBuild, screenshot, screenshotsOnFailure, signedInPage } from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImage } from '../helpers/databases.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';

const LIVE_MS = 3000;

const COMPOSE = `services:
  web:
    image: berth-test/httpd:latest
    ports:
      - "8080:8080"
    cap_add:
      - NET_ADMIN
    volumes:
      - ./site.conf:/etc/site.conf:ro
    environment:
      DATABASE_URL: postgres://app:secret@db:5432/app
    depends_on:
      - db
  db:
    image: postgres:16
    environment:
      POSTGRES_USER: app
      POSTGRES_PASSWORD: secret
      POSTGRES_DB: app
`;

describe('console compose import and template gallery (Chromium)', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let a: Page;
  let b: Page;
  let token: string;
  let project: Project;
  const pageErrors: string[] = [];

  const signedIn = (name: string): Promise<Page> => signedInPage(browser, { url: t.url, token, name, pageErrors, contexts });

  async function go(page: Page, href: string): Promise<void> {
    await page.evaluate((h) => {
      history.pushState(null, '', h);
      dispatchEvent(new PopStateEvent('popstate'));
    }, href);
  }

  async function expectAccessible(page: Page, view: string): Promise<void> {
    expect(await accessibilityProblems(page), `axe on ${view}`).to.deep.equal([]);
  }

  const planRow = (page: Page, service: string) =>
    page
      .getByRole('table', { name: 'What each compose service becomes' })
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: service, exact: true }) });

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    requireConsoleBuild();
    t = await startTestDaemon({ BERTH_IMAGE_POSTGRES: requireDatabaseImage('postgres') });
    token = (await t.admin.createKey({ name: 'compose-views', access: 'write', projects: 'all' })).token;
    project = (await t.admin.createProject({ name: uniq('compose') })).project;
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
    await screenshotsOnFailure(this.currentTest, 'compose', { a, b });
  });

  it("a refused compose file shows the daemon's message beside the form, and nothing is created", async () => {
    await go(a, `/projects/${project.slug}`);
    await a.getByRole('button', { name: 'Import compose' }).click();
    await a.getByRole('heading', { name: 'Import a compose file' }).waitFor();
    const form = a.getByRole('form', { name: 'Import a compose file' });
    await form.getByLabel('Compose file', { exact: true }).fill('services: [unclosed');
    await form.getByRole('button', { name: 'Preview plan' }).click();
    const refusal = await t.admin.importCompose(project.id, { compose: 'services: [unclosed', dryRun: true }).then(
      () => null,
      (err: Error) => err.message,
    );
    expect(refusal, 'the daemon refuses invalid YAML').to.be.a('string');
    await form.getByRole('alert').getByText(refusal!, { exact: true }).waitFor();
    expect(await form.getByRole('button', { name: 'Create services' }).isDisabled()).to.equal(true);
    expect((await t.admin.getProject(project.slug)).project.services).to.deep.equal([]);
  });

  it('the plan says what each compose service becomes and lists cap_add as not imported with its reason; the database choice re-plans', async () => {
    const form = a.getByRole('form', { name: 'Import a compose file' });
    await form.getByLabel('Compose file', { exact: true }).fill(COMPOSE);
    await form.getByRole('button', { name: 'Preview plan' }).click();
    await planRow(a, 'web').getByText('Image service').waitFor();
    await planRow(a, 'web').getByText('berth-test/httpd:latest').waitFor();
    await planRow(a, 'db').getByText('Managed PostgreSQL database').waitFor();
    const expected = await t.admin.importCompose(project.id, { compose: COMPOSE, dryRun: true });
    const capAdd = expected.unsupported.find((u) => u.service === 'web' && u.key === 'cap_add');
    expect(capAdd, 'the daemon lists cap_add').to.not.equal(undefined);
    const notImported = a.getByRole('table', { name: 'Not imported' });
    const row = notImported.getByRole('row').filter({ has: a.getByRole('cell', { name: 'cap_add', exact: true }) });
    await row.getByRole('cell', { name: 'web', exact: true }).waitFor();
    await row.getByRole('cell', { name: capAdd!.why, exact: true }).waitFor();
    expect(await notImported.getByRole('row').count()).to.equal(expected.unsupported.length + 1);
    await form.getByRole('button', { name: 'Create 2 services' }).waitFor();
    await screenshot(a, 'compose-01-plan');
    await expectAccessible(a, 'the compose plan');

    // the bind-mounted file the daemon asks for: its content makes it a config file of web
    const siteConf = expected.unsupported.find((u) => u.service === 'web' && u.why.includes('./site.conf'));
    expect(siteConf, 'the daemon asks for ./site.conf').to.not.equal(undefined);
    await notImported.getByRole('button', { name: 'Supply the content of ./site.conf' }).click();
    await form.getByRole('textbox', { name: 'Content of ./site.conf' }).fill('listen 8080\n');
    await form.getByText('The form changed since this plan').waitFor();
    expect(await form.getByRole('button', { name: 'Create 2 services' }).isDisabled()).to.equal(true);
    await form.getByRole('button', { name: 'Preview again' }).click();
    await planRow(a, 'web').getByText('file /etc/site.conf').waitFor();
    await notImported.getByRole('cell', { name: siteConf!.key, exact: true }).waitFor({ state: 'detached' });
    await screenshot(a, 'compose-02-file-supplied');
    await expectAccessible(a, 'the plan with the file supplied');

    // keep the database a plain image: the plan is made again with plainImages
    await planRow(a, 'db').getByRole('radio', { name: 'Keep as plain image' }).check();
    await planRow(a, 'db').getByText('Image service').waitFor();
    await planRow(a, 'db').getByText('postgres:16').waitFor();
    await screenshot(a, 'compose-03-plain-image');
    // and back to a managed database
    await planRow(a, 'db').getByRole('radio', { name: 'Managed database' }).check();
    await planRow(a, 'db').getByText('Managed PostgreSQL database').waitFor();
  });

  it('Create makes the services and goes to the project page; a second page open on the project shows them without a reload', async () => {
    await go(b, `/projects/${project.slug}`);
    await b.getByRole('heading', { name: project.name, exact: true }).waitFor();
    await a.getByRole('button', { name: 'Create 2 services' }).click();
    for (const [page, timeout] of [
      [a, 30_000],
      [b, LIVE_MS],
    ] as const) {
      const services = page.getByRole('table', { name: `Services of ${project.name}` });
      await services.getByRole('link', { name: 'web', exact: true }).waitFor({ timeout });
      await services.getByRole('link', { name: 'db', exact: true }).waitFor({ timeout });
    }
    const { services } = (await t.admin.getProject(project.slug)).project;
    expect(services.map((s) => s.name).sort()).to.deep.equal(['db', 'web']);
    const web = (await t.admin.overview(services.find((s) => s.name === 'web')!.id)).service;
    expect(web.files.map((f) => [f.path, f.content])).to.deep.equal([['/etc/site.conf', 'listen 8080\n']]);
    await screenshot(b, 'compose-04-project-after-import');
    await expectAccessible(b, 'the project page after the import');
  });

  it("the gallery filters by name and description; a template's plan maps every key", async () => {
    const { templates } = await t.admin.listTemplates();
    expect(templates.length).to.be.greaterThan(1);
    await go(a, `/projects/${project.slug}`);
    await a.getByRole('button', { name: 'New from template' }).click();
    await a.getByRole('heading', { name: 'New from a template' }).waitFor();
    const list = a.getByRole('list', { name: 'Template list' });
    await list
      .getByRole('listitem')
      .nth(templates.length - 1)
      .waitFor();
    await screenshot(a, 'compose-05-gallery');
    await expectAccessible(a, 'the template gallery');

    // one that asks for a generated secret, when the gallery has one
    const chosen: ComposeTemplate = templates.find((x) => x.variables.some((v) => v.generate)) ?? templates[0]!;
    await a.getByLabel('Search templates').fill(chosen.name);
    const shown = templates.filter((x) => `${x.name} ${x.description}`.toLowerCase().includes(chosen.name.toLowerCase()));
    await a.getByRole('status').getByText(`${shown.length} of ${templates.length} templates`).waitFor();
    expect(await list.getByRole('listitem').count()).to.equal(shown.length);
    await a.getByLabel('Search templates').fill('zz-no-such-app');
    await a.getByText('No template matches').waitFor();
    await a.getByLabel('Search templates').fill(chosen.name);

    await a.getByRole('button', { name: `Use ${chosen.name}` }).click();
    const form = a.getByRole('form', { name: `Import ${chosen.name}` });
    for (const v of chosen.variables.filter((x) => x.generate)) await form.getByLabel(v.name, { exact: false }).first().waitFor();
    if (chosen.variables.some((x) => x.generate))
      await form
        .getByText(/Generated if left empty/)
        .first()
        .waitFor();
    for (const v of chosen.variables.filter((x) => x.required)) await form.getByLabel(`${v.name} (required)`).fill('example');
    await form.getByRole('button', { name: 'Preview plan' }).click();
    await form.getByText('Every key of the file is mapped: nothing is left out.').waitFor();
    expect(await a.getByRole('table', { name: 'Not imported' }).count()).to.equal(0);
    await screenshot(a, 'compose-06-template-plan');
    await expectAccessible(a, 'a template plan');
  });

  it('left no page errors', () => {
    expect(pageErrors).to.deep.equal([]);
  });
});
