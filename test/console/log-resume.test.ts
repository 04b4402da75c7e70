// The live build log survives a dropped connection: the browser reaches the daemon through a
// loopback TCP relay whose connections are all cut in the middle of a slow build; EventSource
// reconnects with Last-Event-ID, the daemon sends what was missed, and the page shows every line
// exactly once.
import { expect } from 'chai';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { Browser } from 'playwright-core';
import { slowBuildApp } from '../helpers/apps.js';
import { launchChromium, requireConsoleBuild } from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { waitForDeployment } from '../helpers/wait.js';

describe('console build log across a dropped connection', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let git: GitServer;
  let browser: Browser;

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    requireConsoleBuild();
    git = await startGitServer({});
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '10' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    for (const p of (await t?.admin.listProjects().catch(() => null))?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
  });

  /** A TCP relay to the daemon; cut() destroys every connection open through it. */
  async function relay(port: number): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
    const open = new Set<Socket>();
    const server: Server = createServer((client) => {
      const upstream = createConnection({ host: '127.0.0.1', port });
      for (const s of [client, upstream]) {
        open.add(s);
        s.on('close', () => open.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const address = server.address() as { port: number };
    return {
      url: `http://127.0.0.1:${address.port}`,
      cut: () => {
        for (const s of open) s.destroy();
      },
      close: () =>
        new Promise<void>((r) => {
          for (const s of open) s.destroy();
          server.close(() => r());
        }),
    };
  }

  it('shows every line exactly once after the connection is cut mid-build', async () => {
    const proxy = await relay(t.daemon.port);
    const repo = `acme/${uniq('slow')}` as const;
    await git.commit(repo, slowBuildApp(10));
    const { project } = await t.admin.createProject({ name: uniq('resume') });
    const { service } = await t.admin.createService(project.id, { name: 'slow', repoFullName: repo, branch: 'main', internalPort: 8080 });
    const { token } = await t.admin.createKey({ name: 'resume', access: 'read', projects: 'all' });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(proxy.url);
    await page.getByLabel('API key', { exact: true }).fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
    const { deployment } = await t.admin.deploy(service.id);
    const streamRequests: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith(`/api/deployments/${deployment.id}/stream`)) void r.allHeaders().then((h) => streamRequests.push(h['last-event-id'] ?? ''));
    });
    await page.goto(`${proxy.url}/services/${service.id}/deployments?d=${deployment.id}`);
    const log = page.getByRole('log', { name: 'Build log' });
    await log.getByText('tick 2', { exact: true }).waitFor({ timeout: 60_000 });
    proxy.cut();
    try {
      await page.getByText(/Build log complete: \w+\. \d+ lines\./).waitFor({ timeout: 90_000 });
    } catch (err) {
      const { screenshot } = await import('../helpers/browser.js');
      await screenshot(page, 'failed-log-resume');
      throw new Error(`${(err as Error).message}; stream requests ${JSON.stringify(streamRequests)}; status: ${await page.getByRole('status').allTextContents()}`, { cause: err });
    }
    const shown = Number(/(\d+) lines\./.exec((await page.getByText(/Build log complete/).textContent()) ?? '')![1]);
    await waitForDeployment(t.admin, service.id, deployment.id, ['running', 'failed']);
    const stored = (await t.admin.deploymentLogs(deployment.id)).logs;
    expect(shown).to.equal(stored.length);
    // it did reconnect, saying where it had got to
    expect(streamRequests.length, `stream requests: ${JSON.stringify(streamRequests)}`).to.be.greaterThan(1);
    expect(
      streamRequests.slice(1).every((id) => Number(id) > 0),
      JSON.stringify(streamRequests),
    ).to.equal(true);
    await context.close();
    await proxy.close();
  });
});
