// A service's jobs, commands and terminal in the console, in Chromium against a real daemon and a
// deployed busybox service: a job created from the form is listed with its schedule in words and
// its next run; Run now shows the run and its log as it happens; a second page sees jobs made
// elsewhere without a reload; a command run from the Commands tab streams its output and exit
// code and lands in the history; the Terminal tab runs `echo hello` over a real WebSocket.
// Each view is screenshotted and checked with axe.
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Job } from '../../shared/types/jobs.js';
import type { Project, Service } from '../../shared/types.js';
import { accessibilityProblems, launchChromium, requireConsoleBuild, screenshot, signedInPage } from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { waitForDeployment } from '../helpers/wait.js';

const LIVE_MS = 2000;

describe('console: jobs, commands and the terminal of a service (Chromium)', function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let a: Page;
  let b: Page;
  let token: string;
  let project: Project;
  let svc: Service;
  const pageErrors: string[] = [];

  const signedIn = (name: string): Promise<Page> => signedInPage(browser, { url: t.url, token, name, pageErrors, contexts, height: 900 });

  async function openTab(page: Page, tab: string): Promise<void> {
    await page.goto(`${t.url}/services/${svc.id}/${tab.toLowerCase()}`);
    await page.getByRole('tab', { name: tab, exact: true, selected: true }).waitFor();
    await page.waitForLoadState('networkidle').catch(() => undefined);
  }

  async function expectAccessible(page: Page, what: string): Promise<void> {
    expect(await accessibilityProblems(page), `accessibility of ${what}`).to.deep.equal([]);
  }

  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const json = (await res.json()) as T;
    if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(json)}`);
    return json;
  };

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    requireConsoleBuild();
    t = await startTestDaemon();
    token = (await t.admin.createKey({ name: 'operator', access: 'write', projects: 'all' })).token;
    project = (await t.admin.createProject({ name: uniq('ops') })).project;
    svc = (await t.admin.createService(project.id, { name: 'web', repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080 })).service;
    const { deployment } = await t.admin.deploy(svc.id);
    await waitForDeployment(t.admin, svc.id, deployment.id, ['running']);
    browser = await launchChromium();
    a = await signedIn('A');
    b = await signedIn('B');
  });
  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    // the project's network and containers go with it: Docker's address pools are shared by every suite
    if (project) await t.admin.deleteProject(project.id).catch(() => undefined);
    await t?.stop();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && a) await screenshot(a, `ops-failed-${this.currentTest.title.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
  });

  it('a job created from the form is listed with its schedule in words and its next run, and a second page sees it without a reload', async () => {
    await openTab(b, 'Jobs');
    await openTab(a, 'Jobs');
    await a.getByText('No scheduled jobs').waitFor();
    await screenshot(a, 'ops-01-jobs-empty');
    await a.getByRole('button', { name: 'New job' }).click();
    const dialog = a.getByRole('dialog', { name: 'New scheduled job' });
    await dialog.getByLabel('Name', { exact: true }).fill('nightly-report');
    await dialog.getByLabel('Schedule', { exact: true }).fill('0 3 * * *');
    await dialog.getByText('At 03:00 (UTC)').waitFor();
    await dialog.getByLabel('Schedule', { exact: true }).fill('0 3 * *');
    await dialog.getByText(/five fields/).waitFor();
    await dialog.getByLabel('Schedule', { exact: true }).fill('0 3 * * *');
    await dialog.getByLabel('Command', { exact: true }).fill(`sh -c 'echo "report for $HOSTNAME"; echo warning >&2'`);
    // the argv the job will run, word by word
    await dialog.getByLabel('Runs as 3 arguments').waitFor();
    expect(await dialog.locator('.argv-word').allTextContents()).to.deep.equal(['sh', '-c', 'echo "report for $HOSTNAME"; echo warning >&2']);
    await expectAccessible(a, 'the job form');
    await screenshot(a, 'ops-02-job-form');
    await dialog.getByRole('button', { name: 'Create job' }).click();
    await dialog.waitFor({ state: 'hidden' });

    const table = a.getByRole('table', { name: 'Scheduled jobs' });
    const row = table.getByRole('row', { name: /nightly-report/ });
    await row.getByText(/^At 03:00/).waitFor();
    await row.getByText(/^in \d+ (h|min)$/).waitFor();
    await row.getByText('Never run').waitFor();
    const jobs = await api<{ jobs: Job[] }>('GET', `/api/services/${svc.id}/jobs`);
    expect(jobs.jobs.map((j) => [j.name, j.command])).to.deep.equal([['nightly-report', ['sh', '-c', 'echo "report for $HOSTNAME"; echo warning >&2']]]);
    await b.getByRole('table', { name: 'Scheduled jobs' }).getByRole('button', { name: 'nightly-report' }).waitFor({ timeout: LIVE_MS });
    await expectAccessible(a, 'the jobs list');
    await screenshot(a, 'ops-03-jobs-list');
  });

  it('Run now shows the run and its log as they happen, in this page and the other', async () => {
    // page A shows the job it just created; page B picks it
    await b.getByRole('button', { name: 'nightly-report' }).click();
    await a.getByText('No runs yet').waitFor();
    await b.getByText('No runs yet').waitFor();
    await a.getByRole('button', { name: 'Run now' }).click();
    for (const page of [a, b]) {
      const runs = page.getByRole('table', { name: 'Runs' });
      await runs.getByText('succeeded').waitFor({ timeout: 30_000 });
      await runs.getByRole('cell', { name: '0', exact: true }).waitFor();
      await runs.getByRole('cell', { name: 'Run now', exact: true }).waitFor();
      const log = page.getByRole('log', { name: 'Run log' });
      await log.getByText(/^report for /).waitFor({ timeout: 10_000 });
      await log.getByText('warning').waitFor();
    }
    await a.getByRole('table', { name: 'Scheduled jobs' }).getByText('succeeded').waitFor({ timeout: LIVE_MS });
    await expectAccessible(a, 'the job runs');
    await screenshot(a, 'ops-04-job-run-log');
  });

  it('a job created elsewhere, switched off and deleted shows so in the open page without a reload', async () => {
    const { job } = await api<{ job: Job }>('POST', `/api/services/${svc.id}/jobs`, { name: 'api-made', schedule: '*/5 * * * *', command: ['true'] });
    const row = b.getByRole('table', { name: 'Scheduled jobs' }).getByRole('row', { name: /api-made/ });
    await row.getByText('Every 5 minutes', { exact: false }).waitFor({ timeout: LIVE_MS });
    await api('PATCH', `/api/services/${svc.id}/jobs/${job.id}`, { enabled: false });
    await row.getByText('Disabled').waitFor({ timeout: LIVE_MS });
    expect(await row.getByRole('checkbox').isChecked()).to.equal(false);
    // delete from page A with its confirm; page B loses the row
    await a.getByRole('button', { name: 'api-made' }).click();
    await a.getByRole('button', { name: 'Delete', exact: true }).click();
    await a.getByRole('dialog', { name: 'Delete api-made?' }).getByRole('button', { name: 'Delete job' }).click();
    await row.waitFor({ state: 'detached', timeout: LIVE_MS });
    expect((await api<{ jobs: Job[] }>('GET', `/api/services/${svc.id}/jobs`)).jobs.map((j) => j.name)).to.deep.equal(['nightly-report']);
  });

  it('a command run from the Commands tab streams its output and exit code, and the history lists it', async function () {
    await openTab(a, 'Commands');
    await a.getByLabel('Command', { exact: true }).fill(`sh -c 'echo out-line; echo err-line >&2; exit 3'`);
    await a.getByRole('radio', { name: /In a new container/ }).check();
    await a.getByRole('radio', { name: /In the live container/ }).check();
    await a.getByRole('button', { name: 'Run', exact: true }).click();
    const out = a.getByRole('log', { name: 'Command output' });
    await out.getByText('out-line').waitFor({ timeout: 20_000 });
    expect(await out.locator('.log-line.err').allTextContents()).to.deep.equal(['err-line']);
    await a.getByText('Exited with code 3').waitFor({ timeout: 20_000 });
    const history = a.getByRole('table', { name: 'Commands and terminals run in this service' });
    await history.getByRole('row', { name: /operator.*echo out-line.*live container.*3/ }).waitFor({ timeout: LIVE_MS });
    await expectAccessible(a, 'the commands tab');
    await screenshot(a, 'ops-05-commands');
  });

  it('the Terminal tab opens a shell in the live container: echo hello shows hello', async function () {
    await openTab(a, 'Terminal');
    await a.getByText(/^Connected to web/).waitFor({ timeout: 20_000 });
    await a.locator('.xterm-helper-textarea').focus();
    await a.keyboard.type('echo hel""lo\n');
    // the command echoes as typed (hel""lo); the shell's output is the word hello on its own line
    await a.waitForFunction(() => Array.from(document.querySelectorAll('.xterm-rows > div')).some((r) => r.textContent?.trim() === 'hello'), undefined, { timeout: 10_000 });
    await expectAccessible(a, 'the terminal tab');
    await screenshot(a, 'ops-06-terminal');
    await a.keyboard.type('exit\n');
    await a.getByRole('button', { name: 'Reconnect' }).waitFor({ timeout: 10_000 });
    await a.getByText(/^Disconnected: /).waitFor();
    await screenshot(a, 'ops-07-terminal-closed');
    expect(pageErrors).to.deep.equal([]);
  });
});
