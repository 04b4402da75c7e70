// The audit log view in the console, in Chromium: an all-projects key sees the nav entry and the
// table (time, who, from, action in words, target linked, result), filters narrow it, "Load more"
// follows the cursor, and a change another client makes appears without a reload; a key over some
// projects has no nav entry. Screenshots under .berth-test/screenshots/audit-*.
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeProjectWorld, uniq, type ProjectWorld } from '../helpers/fixtures.js';
import { until } from '../helpers/wait.js';
import { accessibilityProblems, launchChromium, requireConsoleBuild, screenshot, screenshotsOnFailure, signedInPage } from '../helpers/browser.js';

describe('console: the audit log (Chromium)', function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let w: ProjectWorld;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  let a: Page;
  let scoped: Page;

  const table = (page: Page) => page.getByRole('table', { name: 'Audit log, newest first' });

  before(async function () {
    this.timeout(600_000);
    requireConsoleBuild();
    t = await startTestDaemon({ BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
    w = await makeProjectWorld(t.admin, 'shop');
    // a few calls of every kind: done, refused, failed, by another key, from a forwarding proxy
    const ci = await t.admin.createKey({ name: 'ci-deployer', access: 'write', projects: 'all' });
    const ciClient = t.anonymous.withToken(ci.token);
    await ciClient.request('PATCH', `/api/services/${w.web.id}`, { branch: 'release' });
    await ciClient.request('POST', `/api/services/${w.web.id}/env`, { key: 'FEATURE_FLAG', value: 'on' });
    await t.anonymous.request('POST', '/api/projects', { name: 'x' }, { headers: { 'x-forwarded-for': '203.0.113.50' } });
    await t.admin.request('PATCH', `/api/projects/${w.project.id}`, { name: 7 });
    const token = (await t.admin.createKey({ name: 'operator', access: 'write', projects: 'all' })).token;
    const scopedToken = (await t.admin.createKey({ name: 'team-shop', access: 'write', projects: [w.project.id] })).token;
    browser = await launchChromium();
    a = await signedInPage(browser, { url: t.url, token, name: 'A', pageErrors, contexts, height: 1000 });
    scoped = await signedInPage(browser, { url: t.url, token: scopedToken, name: 'S', pageErrors, contexts, height: 700 });
  });
  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await t?.stop();
  });
  afterEach(async function () {
    await screenshotsOnFailure(this.currentTest, 'audit', { a, scoped });
  });

  it('lists every change newest first: who, from where, the action in words, the target linked, the result', async () => {
    await a.goto(t.url);
    await a.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click();
    await table(a).waitFor();
    const rows = table(a).getByRole('row');
    await rows.filter({ hasText: 'change service' }).first().waitFor();
    const patch = rows.filter({ hasText: 'change service' }).first();
    expect(await patch.textContent())
      .to.include('ci-deployer')
      .and.include('127.0.0.1')
      .and.include('200');
    await patch.getByRole('link', { name: w.project.name }).waitFor();
    await patch.getByRole('link', { name: 'web' }).waitFor();
    const refused = rows.filter({ hasText: '203.0.113.50' });
    expect(await refused.textContent())
      .to.include('no valid key')
      .and.include('create project')
      .and.include('401')
      .and.include('unauthorized');
    expect(await rows.filter({ hasText: 'invalid_input' }).count()).to.be.at.least(1);
    await screenshot(a, 'audit-01-table');
    expect(await accessibilityProblems(a)).to.deep.equal([]);
  });

  it('filters by project, action and result', async () => {
    await a.getByLabel('Project').selectOption({ label: w.project.name });
    await a.getByLabel('Result').selectOption('error');
    await table(a).getByRole('row').filter({ hasText: 'invalid_input' }).waitFor();
    await a.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 1);
    expect(await table(a).getByRole('row').filter({ hasText: 'change project' }).count()).to.equal(1);
    await screenshot(a, 'audit-02-filtered');
    await a.getByLabel('Result').selectOption('');
    await a.getByLabel('Action').selectOption({ label: 'set variable' });
    await a.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 1);
    expect(await table(a).textContent())
      .to.include('set variable')
      .and.include('ci-deployer');
    await a.getByLabel('Action').selectOption('');
    await a.getByLabel('Project').selectOption('');
  });

  it('shows a change another client makes without a reload', async () => {
    const name = uniq('made-elsewhere');
    const before = await table(a).getByRole('row').count();
    await t.admin.createProject({ name, description: '' });
    const row = table(a)
      .getByRole('row')
      .filter({ hasText: 'create project' })
      .filter({ has: a.getByRole('link', { name }) });
    await row.waitFor({ timeout: 10_000 });
    expect(await table(a).getByRole('row').count()).to.equal(before + 1);
  });

  it('pages with "Load more"', async () => {
    for (let i = 0; i < 55; i++) await t.anonymous.request('DELETE', `/api/keys/k${i}`);
    await a.reload();
    await table(a).waitFor();
    await a.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 50);
    await a.getByRole('button', { name: 'Load more' }).click();
    await a.waitForFunction(() => document.querySelectorAll('table tbody tr').length > 50);
    const total = (await t.admin.auditLog({ limit: 200 })).entries.length;
    expect(await table(a).locator('tbody tr').count()).to.equal(total);
    expect(await a.getByRole('button', { name: 'Load more' }).count()).to.equal(0);
  });

  it('has no nav entry for a key over some projects', async () => {
    await scoped.goto(t.url);
    await scoped.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).waitFor();
    expect(await scoped.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).count()).to.equal(0);
    expect(pageErrors).to.deep.equal([]);
  });

  it('sets how long the audit log keeps its entries from the settings (the change recorded in the log itself)', async () => {
    await a.goto(`${t.url}/settings`);
    const card = a.getByRole('form', { name: 'Audit log retention' });
    await card.getByLabel('Keep entries for (days)').fill('30');
    await card.getByRole('button', { name: 'Save retention' }).click();
    await until('the setting to be saved', async () => (await t.admin.systemSettings()).settings.auditRetentionDays === 30, 10_000);
    await card.scrollIntoViewIfNeeded();
    await screenshot(a, 'audit-03-retention');
    expect((await t.admin.auditLog({ action: 'system.settings.patch', limit: 1 })).entries[0]).to.include({ status: 200, outcome: 'ok' });
  });
});
