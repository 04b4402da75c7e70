// Version and upgrades in the console's settings, in Chromium, against a daemon whose upgrader is a
// fake of the installer's (test/helpers/fake-upgrader.ts; BERTH_UPGRADER=spawn) and whose release
// feed names a newer release: the card shows the version and the newer release with its bundle
// prefilled; an upgrade asks first, saying what happens, then shows the run's step and log as it
// goes, through the daemon restarting, to the outcome; a read key sees the card without the button;
// a development daemon says why upgrades are not available. Screenshots under
// .berth-test/screenshots/upgrade-*.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { VERSION } from '../../daemon/version.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { fakeInstall, type FakeInstall } from '../helpers/fake-upgrader.js';
import { accessibilityProblems, launchChromium, requireConsoleBuild, screenshot, screenshotsOnFailure, signedInPage } from '../helpers/browser.js';

const BUNDLE = 'https://releases.example.com/berth-99.0.0.tar.gz';

describe('console: version and upgrades (Chromium)', function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let dev: TestDaemon;
  let install: FakeInstall;
  let feed: Server;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  let a: Page;
  let reader: Page;

  const card = (page: Page) => page.getByRole('region', { name: 'Version and upgrades' });

  before(async function () {
    this.timeout(600_000);
    requireConsoleBuild();
    install = fakeInstall();
    feed = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ version: '99.0.0', url: BUNDLE })));
    await new Promise<void>((r) => feed.listen(0, '127.0.0.1', r));
    t = await startTestDaemon({ BERTH_CADDY_ADMIN: 'http://127.0.0.1:1', ...install.env, BERTH_RELEASE_FEED: `http://127.0.0.1:${(feed.address() as AddressInfo).port}/latest.json` });
    const token = (await t.admin.createKey({ name: 'operator', access: 'write', projects: 'all' })).token;
    const readToken = (await t.admin.createKey({ name: 'viewer', access: 'read', projects: 'all' })).token;
    browser = await launchChromium();
    a = await signedInPage(browser, { url: t.url, token, name: 'A', pageErrors, contexts, height: 1100 });
    reader = await signedInPage(browser, { url: t.url, token: readToken, name: 'R', pageErrors, contexts, height: 1100 });
  });
  after(async () => {
    install?.release();
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await t?.stop();
    await dev?.stop();
    feed?.close();
    install?.remove();
  });
  afterEach(async function () {
    await screenshotsOnFailure(this.currentTest, 'upgrade', { a, reader });
  });

  it('shows the version and the newer release, its bundle prefilled', async () => {
    await a.goto(`${t.url}/settings`);
    await card(a).getByText(`Berth ${VERSION}`).waitFor();
    await card(a).getByText('A newer release 99.0.0 is available').waitFor();
    expect(await card(a).getByLabel('Release bundle').inputValue()).to.equal(BUNDLE);
    await card(a).scrollIntoViewIfNeeded();
    await screenshot(a, 'upgrade-01-idle');
    expect(await accessibilityProblems(a)).to.deep.equal([]);
  });

  it('an upgrade asks first, then shows its step and log while it runs, through the daemon restarting, to the outcome', async () => {
    install.hold();
    await card(a).getByRole('button', { name: 'Upgrade…' }).click();
    const dialog = a.getByRole('dialog', { name: 'Upgrade Berth' });
    await dialog.getByText('switches back to').waitFor();
    await dialog.getByText('Apps keep serving throughout').waitFor();
    await screenshot(a, 'upgrade-02-confirm');
    await dialog.getByRole('button', { name: 'Upgrade now' }).click();

    const progress = card(a).getByRole('region', { name: 'Upgrade progress' });
    await progress.getByText(`now: download ${BUNDLE}`).waitFor({ timeout: 15_000 });
    await progress.getByRole('log', { name: 'Upgrade log' }).getByText(`berth: ==> download ${BUNDLE}`).waitFor();
    await screenshot(a, 'upgrade-03-running');
    expect(await accessibilityProblems(a)).to.deep.equal([]);

    // the daemon restarts during the upgrade: the card says the server is away, then follows again
    const restarted = t.restart(6000);
    await progress.getByText('The server is not answering').waitFor({ timeout: 15_000 });
    await screenshot(a, 'upgrade-04-daemon-away');
    await restarted;
    install.release();
    await progress.getByText(`Upgraded from ${VERSION} to 99.0.0.`).waitFor({ timeout: 20_000 });
    await progress.getByRole('log', { name: 'Upgrade log' }).getByText(`berth: upgraded from ${VERSION} to 99.0.0`).waitFor();
    await screenshot(a, 'upgrade-05-succeeded');
    expect(await accessibilityProblems(a)).to.deep.equal([]);
  });

  it('a rolled-back upgrade shows why; a read key sees it without the button', async () => {
    await card(a).getByLabel('Release bundle').fill('/srv/releases/unhealthy/berth-5.0.0.tar.gz');
    await card(a).getByRole('button', { name: 'Upgrade…' }).click();
    await a.getByRole('dialog', { name: 'Upgrade Berth' }).getByRole('button', { name: 'Upgrade now' }).click();
    await card(a).getByText(`Rolled back to ${VERSION}: the new daemon did not answer /api/health within 60 s`).waitFor({ timeout: 20_000 });
    // this run's own log lines: the earlier run's are not shown again
    const log = card(a).getByRole('log', { name: 'Upgrade log' });
    await log.getByText('berth: ==> download /srv/releases/unhealthy/berth-5.0.0.tar.gz').waitFor();
    expect(await log.getByText('berth: upgraded from').count()).to.equal(0);
    await screenshot(a, 'upgrade-06-rolled-back');

    await reader.goto(`${t.url}/settings`);
    await card(reader).getByText(`Rolled back to ${VERSION}: the new daemon`).waitFor();
    expect(await card(reader).getByRole('button', { name: 'Upgrade…' }).count()).to.equal(0);
    expect(await card(reader).getByLabel('Release bundle').count()).to.equal(0);
    await card(reader).scrollIntoViewIfNeeded();
    await screenshot(reader, 'upgrade-07-read-key');
  });

  it('a development daemon says why upgrades are not available', async () => {
    dev = await startTestDaemon({ BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
    const token = (await dev.admin.createKey({ name: 'dev', access: 'write', projects: 'all' })).token;
    const page = await signedInPage(browser, { url: dev.url, token, name: 'D', pageErrors, contexts, height: 900 });
    await page.goto(`${dev.url}/settings`);
    await card(page).getByText('Upgrades are not available here: this daemon was not installed by install.sh').waitFor();
    expect(await card(page).getByRole('button', { name: 'Upgrade…' }).count()).to.equal(0);
    await card(page).scrollIntoViewIfNeeded();
    await screenshot(page, 'upgrade-08-unavailable');
    // requests refused while the daemon restarted are expected; nothing else went wrong on the pages
    expect(pageErrors.filter((e) => !/Failed to fetch|NetworkError|ERR_CONNECTION_REFUSED|status of 50/.test(e))).to.deep.equal([]);
  });
});
