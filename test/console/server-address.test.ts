// The server's address in the console's settings, in Chromium against a daemon whose API Caddy
// serves over HTTPS (as installed): the card shows the detected address and the fingerprint
// served; a change warns first that pinned clients must re-pin, then shows the new fingerprint
// (the one the listener serves) and the line to re-pin; another page follows without a reload; a
// loopback address is refused where the form is. Screenshots under .berth-test/screenshots/address-*.
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { servedCertificate, startTlsTestDaemon, type TlsTestDaemon } from '../helpers/api-tls.js';
import { accessibilityProblems, launchChromium, requireConsoleBuild, screenshot, screenshotsOnFailure, signedInPage } from '../helpers/browser.js';

describe("console: the server's address and the API certificate (Chromium)", function () {
  this.timeout(120_000);
  let s: TlsTestDaemon;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  let a: Page;
  let b: Page;
  let first: string;

  const card = (page: Page) => page.getByRole('region', { name: 'Address' });

  before(async function () {
    this.timeout(600_000);
    requireConsoleBuild();
    s = await startTlsTestDaemon();
    first = (await servedCertificate(s.port)).fingerprint;
    const token = (await s.t.admin.createKey({ name: 'operator', access: 'write', projects: 'all' })).token;
    browser = await launchChromium();
    // the console over the daemon's own HTTP port: the certificate that changes is the API listener's
    a = await signedInPage(browser, { url: s.t.url, token, name: 'A', pageErrors, contexts, height: 900 });
    b = await signedInPage(browser, { url: s.t.url, token, name: 'B', pageErrors, contexts, height: 900 });
  });
  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await s?.t.stop();
  });
  afterEach(async function () {
    await screenshotsOnFailure(this.currentTest, 'address', { a, b });
  });

  it('shows the detected address and the fingerprint of the certificate served', async () => {
    for (const page of [a, b]) await page.goto(`${s.t.url}/settings`);
    await card(a).getByText(first).waitFor();
    expect(await card(a).getByText('detected on the first start').count()).to.equal(1);
    await screenshot(a, 'address-01-detected');
    expect(await accessibilityProblems(a)).to.deep.equal([]);
  });

  it('a change warns about re-pinning first, then shows the new fingerprint served and the login line; another page follows', async () => {
    await card(a).getByLabel('New address').fill('198.51.100.71');
    await card(a).getByRole('button', { name: 'Change address…' }).click();
    const dialog = a.getByRole('dialog', { name: "Change the server's address" });
    await dialog.getByText('is refused until it re-pins with the new fingerprint').waitFor();
    await screenshot(a, 'address-02-confirm');
    expect(await accessibilityProblems(a)).to.deep.equal([]);
    await dialog.getByRole('button', { name: 'Change to 198.51.100.71' }).click();

    const shown = card(a).getByLabel('New certificate fingerprint');
    await shown.waitFor({ timeout: 40_000 });
    const served = await servedCertificate(s.port);
    expect(served.ips).to.deep.equal(['198.51.100.71']);
    expect(await shown.inputValue()).to.equal(served.fingerprint);
    expect(served.fingerprint).to.not.equal(first);
    await card(a).getByText(`berth login https://198.51.100.71:${s.port} --fingerprint ${served.fingerprint}`).waitFor();
    await card(a).getByText('198.51.100.71 (set by hand;').waitFor();
    await screenshot(a, 'address-03-changed');
    expect(await accessibilityProblems(a)).to.deep.equal([]);

    // B was open on the settings before the change: the settings event refreshes it
    await card(b).getByText(served.fingerprint).waitFor({ timeout: 10_000 });
    await card(b).getByText('198.51.100.71 (set by hand;').waitFor();
    await screenshot(b, 'address-04-other-page');
  });

  it('a loopback address is refused beside the form, and nothing changes', async () => {
    const before = await servedCertificate(s.port);
    await card(a).getByLabel('New address').fill('127.0.0.1');
    await card(a).getByRole('button', { name: 'Change address…' }).click();
    await a.getByRole('dialog', { name: "Change the server's address" }).getByRole('button', { name: 'Change to 127.0.0.1' }).click();
    await card(a).getByText('a loopback address is this machine itself').first().waitFor();
    await screenshot(a, 'address-05-refused');
    expect(await servedCertificate(s.port)).to.deep.equal(before);
    expect(pageErrors).to.deep.equal([]);
  });
});
