// Restore tests in the console's database Backups view, in Chromium, against a real PostgreSQL:
// "Test restore" on a backup shows it running, then (live, through the backup-verification event)
// "verified · 2 tables, 8 rows · <when>"; a backup whose file was overwritten shows "restore test
// failed" with the reason; the schedule form saves the restore-test schedule and the GFS counts,
// and refuses a bad cron with the server's message. Screenshots under
// .berth-test/screenshots/restore-test-*.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Backup, Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImages } from '../helpers/databases.js';
import { uniq } from '../helpers/fixtures.js';
import { until, waitForDeployment } from '../helpers/wait.js';
import { accessibilityProblems, launchChromium, requireConsoleBuild, screenshot, screenshotsOnFailure, signedInPage } from '../helpers/browser.js';

describe('console: restore tests of database backups (Chromium)', function () {
  this.timeout(300_000);
  let t: TestDaemon;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  let a: Page;
  let db: Service;

  async function backupOf(): Promise<Backup> {
    const { backup } = await t.admin.createBackup(db.id, 'disk');
    return until('the backup', async () => (await t.admin.listBackups(db.id)).backups.find((b) => b.id === backup.id && b.status === 'succeeded'), 120_000, 250);
  }

  // the list is newest first: the backup just taken is the first row under the header
  const row = (_b: Backup) => a.getByRole('table').getByRole('row').nth(1);

  before(async function () {
    this.timeout(900_000);
    requireConsoleBuild();
    t = await startTestDaemon({ ...requireDatabaseImages(), BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
    const projectId = (await t.admin.createProject({ name: uniq('restore-console') })).project.id;
    db = (await t.admin.createService(projectId, { name: 'orders-db', repoFullName: 'database:postgres' })).service;
    const { deployment } = await t.admin.deploy(db.id);
    expect((await waitForDeployment(t.admin, db.id, deployment.id, ['running', 'failed'], 600_000)).status).to.equal('running');
    await t.admin.databaseQuery(db.id, 'CREATE TABLE orders (id int PRIMARY KEY)');
    await t.admin.databaseQuery(db.id, 'INSERT INTO orders SELECT g FROM generate_series(1, 3) g');
    await t.admin.databaseQuery(db.id, 'CREATE TABLE customers (id int PRIMARY KEY)');
    await t.admin.databaseQuery(db.id, 'INSERT INTO customers SELECT g FROM generate_series(1, 5) g');
    const token = (await t.admin.createKey({ name: 'operator', access: 'write', projects: 'all' })).token;
    browser = await launchChromium();
    a = await signedInPage(browser, { url: t.url, token, name: 'A', pageErrors, contexts, height: 1100 });
  });
  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
  });
  afterEach(async function () {
    await screenshotsOnFailure(this.currentTest, 'restore-test', { a });
  });

  it('"Test restore" shows the test running, then verified with the tables and rows, live', async () => {
    const good = await backupOf();
    await a.goto(`${t.url}/services/${db.id}/backups`);
    await row(good).getByText('not tested').waitFor();
    await screenshot(a, 'restore-test-01-untested');
    await row(good).getByRole('button', { name: 'Test restore' }).click();
    await row(good)
      .getByText(/restore test running|verified/)
      .waitFor();
    await row(good)
      .getByText(/^verified · 2 tables, 8 rows · /)
      .waitFor({ timeout: 120_000 });
    await screenshot(a, 'restore-test-02-verified');
    expect(await accessibilityProblems(a)).to.deep.equal([]);
  });

  it('a backup whose file was overwritten shows "restore test failed" with the reason', async () => {
    const bad = await backupOf();
    writeFileSync(bad.localPath!, Buffer.alloc(bad.sizeBytes, 0x5a));
    await row(bad).getByRole('button', { name: 'Test restore' }).click();
    await row(bad).getByText('restore test failed').waitFor({ timeout: 120_000 });
    await row(bad)
      .getByText(/does not match its checksum/)
      .waitFor();
    await screenshot(a, 'restore-test-03-failed');
  });

  it('the schedule form saves the restore-test schedule and the GFS counts; a bad cron is refused with the reason', async () => {
    const form = a.getByRole('form', { name: 'Backup schedule of the database' });
    await form.getByLabel('Test the newest backup on a schedule').fill('every day');
    await form.getByRole('button', { name: 'Save schedule' }).click();
    await form
      .getByText(/5-field cron/)
      .first()
      .waitFor();
    await form.getByLabel('Test the newest backup on a schedule').fill('0 4 * * *');
    await form.getByLabel('Days').fill('7');
    await form.getByLabel('Weeks').fill('4');
    await form.getByLabel('Months').fill('12');
    await form.getByRole('button', { name: 'Save schedule' }).click();
    await until('the settings saved', async () => (await t.admin.listBackups(db.id)).settings.verifySchedule === '0 4 * * *', 10_000, 100);
    expect((await t.admin.listBackups(db.id)).settings.gfs).to.deep.equal({ hourly: null, daily: 7, weekly: 4, monthly: 12 });
    await a.evaluate(() => window.scrollTo(0, 0));
    await screenshot(a, 'restore-test-04-schedule');
    expect(await accessibilityProblems(a)).to.deep.equal([]);
    expect(pageErrors).to.deep.equal([]);
  });
});
