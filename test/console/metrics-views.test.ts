// Metrics history in the console, in Chromium: a service's Metrics tab draws CPU, memory (with its
// limit), network and disk I/O over 1 hour and 24 hours; the server page adds the host's history
// and Berth's footprint (the daemon's and its Caddy's memory, the store's size); the settings page
// saves the metric alerts and holds back a value past the server's bound. The history is written to the store as
// the sampler would (no container needed). Screenshots under .berth-test/screenshots/metrics-*.
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { HOST_SERIES, type Point, zeroValues } from '../../daemon/core/metrics-tiers.js';
import { openDataDir } from '../../daemon/runtime.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeProjectWorld, type ProjectWorld } from '../helpers/fixtures.js';
import { until } from '../helpers/wait.js';
import { accessibilityProblems, launchChromium, requireConsoleBuild, screenshot, screenshotsOnFailure, signedInPage } from '../helpers/browser.js';

const MiB = 2 ** 20;

/** An hour of 10 s points and a day of 1 min averages: a service with a daily rhythm, and the host. */
function history(serviceId: string, nowMs: number): Point[] {
  const points: Point[] = [];
  const wave = (ms: number, period: number) => (Math.sin((ms / period) * 2 * Math.PI) + 1) / 2;
  for (const [tierMs, count] of [
    [10_000, 360],
    [60_000, 1440],
  ] as const) {
    const end = nowMs - (nowMs % tierMs);
    for (let i = count; i >= 1; i--) {
      const atMs = end - i * tierMs;
      const busy = wave(atMs, 1_800_000);
      points.push({
        series: serviceId,
        tierMs,
        atMs,
        values: {
          ...zeroValues(),
          cpu: 8 + 55 * busy,
          mem: (180 + 140 * wave(atMs, 5_400_000)) * MiB,
          memLimit: 512 * MiB,
          rx: 40_000 * busy,
          tx: 120_000 * busy,
          blkRead: 2_000 * busy,
          blkWrite: 30_000 * (1 - busy),
        },
      });
      points.push({
        series: HOST_SERIES,
        tierMs,
        atMs,
        values: {
          ...zeroValues(),
          cpu: 12 + 30 * busy,
          mem: 6 * 1024 * MiB + 900 * MiB * busy,
          memLimit: 16 * 1024 * MiB,
          diskUsed: 41_000 * MiB + (atMs % 86_400_000) / 20,
          diskTotal: 80 * 1024 * MiB,
          rx: 90_000 * busy,
          tx: 150_000 * busy,
        },
      });
    }
  }
  return points;
}

describe('console: metrics history (Chromium)', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  let a: Page;
  let w: ProjectWorld;

  before(async function () {
    this.timeout(600_000);
    requireConsoleBuild();
    t = await startTestDaemon();
    w = await makeProjectWorld(t.admin, 'metrics-console');
    const store = await openDataDir(t.dataDir);
    try {
      await store.metrics.insert(history(w.web.id, Date.now()));
    } finally {
      await store.close();
    }
    const token = (await t.admin.createKey({ name: 'operator', access: 'write', projects: 'all' })).token;
    browser = await launchChromium();
    a = await signedInPage(browser, { url: t.url, token, name: 'A', pageErrors, contexts, height: 1100 });
  });
  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await t?.stop();
  });
  afterEach(async function () {
    await screenshotsOnFailure(this.currentTest, 'metrics', { a });
  });

  it("a service's Metrics tab draws CPU, memory with its limit, network and disk I/O, over 1 hour and 24 hours", async () => {
    await a.goto(`${t.url}/services/${w.web.id}/metrics`);
    for (const title of ['CPU', 'Memory', 'Network', 'Disk I/O']) await a.getByRole('region', { name: `${title} chart` }).waitFor();
    await a
      .getByRole('region', { name: 'Memory chart' })
      .getByText(/ of 512 MB$/)
      .waitFor();
    expect(await a.locator('.uplot').count()).to.equal(4);
    await screenshot(a, 'metrics-01-service-1h');
    await a.getByRole('button', { name: '24 hours' }).click();
    await a.getByRole('button', { name: '24 hours', pressed: true }).waitFor();
    await a
      .getByRole('region', { name: 'CPU chart' })
      .getByRole('img', { name: /over the last 24 hours/ })
      .waitFor();
    await screenshot(a, 'metrics-02-service-24h');
    expect(await accessibilityProblems(a)).to.deep.equal([]);
  });

  it("the server page shows the host's history and Berth's footprint (daemon, Caddy, store)", async () => {
    await a.goto(`${t.url}/server`);
    await a.getByRole('region', { name: 'Data disk history chart' }).waitFor();
    const footprint = a.getByRole('region', { name: "Berth's footprint" });
    await footprint.getByText(/rows of metrics history/).waitFor();
    expect(await footprint.innerText())
      .to.match(/daemon\s+\d[\d.]* MB/i)
      .and.match(/caddy\s+\d[\d.]* MB/i);
    await a.waitForTimeout(1000);
    await screenshot(a, 'metrics-03-server');
    expect(await accessibilityProblems(a)).to.deep.equal([]);
  });

  it('the settings page saves the metric alerts, and holds back a value past the bound', async () => {
    await a.goto(`${t.url}/settings`);
    const form = a.getByRole('form', { name: 'Metric alerts' });
    await form.getByLabel('CPU above (%)').fill('80');
    await form.getByLabel('Memory above (% of the limit)').fill('');
    await form.getByRole('button', { name: 'Save alerts' }).click();
    await until('the alerts saved', async () => ((await t.admin.metricAlerts()).cpuPercent === 80 ? true : null), 10_000, 200);
    expect(await t.admin.metricAlerts()).to.deep.equal({ cpuPercent: 80, memoryPercent: null, forMinutes: 5, diskFullHours: 24 });
    // past the server's bound: the browser's own check holds it back, and nothing changes (typed
    // again if the saved values, read back after the first save, landed over it)
    const minutes = form.getByLabel('For at least (minutes)');
    await until(
      'the browser to hold 5000 minutes back',
      async () => {
        if ((await minutes.inputValue()) !== '5000') await minutes.fill('5000');
        await form.getByRole('button', { name: 'Save alerts' }).click();
        return (await minutes.evaluate((el) => (el as HTMLInputElement).validity.valid)) ? null : true;
      },
      10_000,
      200,
    );
    expect(await minutes.inputValue()).to.equal('5000');
    expect((await t.admin.metricAlerts()).forMinutes).to.equal(5);
    await form.scrollIntoViewIfNeeded();
    await screenshot(a, 'metrics-04-settings-alerts');
    expect(pageErrors).to.deep.equal([]);
  });
});
