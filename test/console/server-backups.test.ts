// The "Backup of Berth" card in the console's settings, in Chromium, against a daemon whose
// /etc/berth and Caddy home are temporary folders: idle with no passphrase (Back up now waits for
// one), a passphrase saved (shown only as "set") with a preset schedule, a run started here listed
// with its size and a Download button, a run started by another client appearing without a reload
// (the events), a failed run with its reason, a deletion that asks first; a read key sees the card
// without the form. Screenshots under .berth-test/screenshots/server-backups-*.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startS3Server } from '../helpers/s3-server.js';
import { accessibilityProblems, launchChromium, requireConsoleBuild, screenshot, screenshotsOnFailure, signedInPage } from '../helpers/browser.js';

const PASSPHRASE = 'the console test passphrase';

describe('console: backup of Berth (Chromium)', function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let root: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  let a: Page;
  let reader: Page;
  const saved = { etc: process.env.BERTH_ETC_DIR, caddy: process.env.BERTH_CADDY_HOME };

  const card = (page: Page) => page.getByRole('region', { name: 'Backup of Berth' });

  before(async function () {
    this.timeout(600_000);
    requireConsoleBuild();
    root = mkdtempSync(join(tmpdir(), 'berth-console-server-backups-'));
    process.env.BERTH_ETC_DIR = join(root, 'etc');
    process.env.BERTH_CADDY_HOME = join(root, 'caddy');
    mkdirSync(join(root, 'etc'));
    writeFileSync(join(root, 'etc/berth.env'), 'BERTH_PORT=4311\n');
    t = await startTestDaemon({ BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
    const token = (await t.admin.createKey({ name: 'operator', access: 'write', projects: 'all' })).token;
    const readToken = (await t.admin.createKey({ name: 'viewer', access: 'read', projects: 'all' })).token;
    browser = await launchChromium();
    a = await signedInPage(browser, { url: t.url, token, name: 'A', pageErrors, contexts, height: 1400 });
    reader = await signedInPage(browser, { url: t.url, token: readToken, name: 'R', pageErrors, contexts, height: 1400 });
  });
  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await t?.daemon.core.serverBackups.settled();
    await t?.stop();
    if (saved.etc === undefined) delete process.env.BERTH_ETC_DIR;
    else process.env.BERTH_ETC_DIR = saved.etc;
    if (saved.caddy === undefined) delete process.env.BERTH_CADDY_HOME;
    else process.env.BERTH_CADDY_HOME = saved.caddy;
    rmSync(root, { recursive: true, force: true });
  });
  afterEach(async function () {
    await screenshotsOnFailure(this.currentTest, 'server-backups', { a, reader });
  });

  it('idle: no schedule, this disk, no passphrase, no runs; Back up now waits for a passphrase; the restore line is shown', async () => {
    await a.goto(`${t.url}/settings`);
    await card(a).getByText('No backups of Berth yet').waitFor();
    await card(a).getByText('install.sh --from <bundle> --restore <archive> --passphrase-file <file>').waitFor();
    expect(await card(a).getByRole('button', { name: 'Back up now' }).isDisabled()).to.equal(true);
    await card(a).scrollIntoViewIfNeeded();
    await screenshot(a, 'server-backups-01-idle');
    expect(await accessibilityProblems(a)).to.deep.equal([]);
  });

  it('saves a passphrase (then shown only as set) with the daily preset, and a run now is listed with its size and Download', async () => {
    await card(a).getByLabel('Schedule').selectOption('daily');
    await card(a).getByLabel('Passphrase').fill(PASSPHRASE);
    await card(a).getByRole('button', { name: 'Save' }).click();
    await card(a).getByText('Daily at 03:00 UTC').first().waitFor();
    await card(a).getByText('Set. Type a new one to change it.').waitFor();
    expect(await card(a).getByLabel('Passphrase').inputValue()).to.equal('');
    expect(await a.content()).not.to.include(PASSPHRASE);
    await card(a).getByRole('button', { name: 'Back up now' }).click();
    const row = card(a).getByRole('row').filter({ hasText: 'manual' });
    await row.getByText('succeeded').waitFor({ timeout: 30_000 });
    await row.getByRole('button', { name: 'Download' }).waitFor();
    await row.getByText(/KB|kB|KiB|MB|MiB/).waitFor();
    await card(a).scrollIntoViewIfNeeded();
    await screenshot(a, 'server-backups-02-run-listed');
    expect(await accessibilityProblems(a)).to.deep.equal([]);
  });

  it("another client's run shows up without a reload; a failed run shows its reason", async () => {
    await t.daemon.serverBackupSchedule.fire();
    await card(a).getByRole('row').filter({ hasText: 'scheduled' }).getByText('succeeded').waitFor({ timeout: 30_000 });
    // a run whose upload the S3 storage refuses (a wrong secret)
    const s3 = await startS3Server();
    try {
      await t.admin.request('PUT', '/api/system/backup-storage', { endpoint: s3.endpoint, region: s3.region, bucket: s3.bucket, accessKeyId: s3.accessKeyId, secretAccessKey: 'not-the-secret' });
      await t.admin.patchServerBackups({ storageId: 'remote' });
      await t.daemon.core.serverBackups.settled();
      expect((await t.admin.runServerBackup()).run.status).to.equal('running');
      // the status on the run's row, the reason on a full-width row under it
      await card(a).getByRole('row').filter({ hasText: 'SignatureDoesNotMatch' }).waitFor({ timeout: 30_000 });
      await card(a).getByRole('row').filter({ hasText: 'failed' }).filter({ hasText: 'manual' }).first().waitFor();
      await t.daemon.core.serverBackups.settled();
      await card(a).scrollIntoViewIfNeeded();
      await screenshot(a, 'server-backups-03-failed-run');
      expect(await accessibilityProblems(a)).to.deep.equal([]);
    } finally {
      await t.admin.patchServerBackups({ storageId: null });
      await t.admin.request('DELETE', '/api/system/backup-storage');
      await s3.stop();
    }
  });

  it('Delete asks first, then the run is gone; a read key sees the list without the form or the buttons', async () => {
    const before = (await t.admin.serverBackups()).runs.length;
    const row = card(a).getByRole('row').filter({ hasText: 'manual' }).filter({ hasText: 'succeeded' }).first();
    await row.getByRole('button', { name: 'Delete' }).click();
    const dialog = a.getByRole('dialog', { name: 'Delete this backup of Berth?' });
    await dialog.getByText('and its checksum are removed from this server').waitFor();
    await dialog.getByRole('button', { name: 'Delete backup' }).click();
    await a.waitForFunction((n) => document.querySelectorAll('section[aria-labelledby="server-backups-title"] tbody tr:not(.run-error)').length === n, before - 1);
    await reader.goto(`${t.url}/settings`);
    await card(reader).getByText('scheduled').first().waitFor();
    expect(await card(reader).getByRole('button', { name: 'Back up now' }).count()).to.equal(0);
    expect(await card(reader).getByRole('button', { name: 'Download' }).count()).to.equal(0);
    await card(reader).scrollIntoViewIfNeeded();
    await screenshot(reader, 'server-backups-04-read-key');
    expect(pageErrors).to.deep.equal([]);
  });
});
