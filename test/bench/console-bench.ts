// `npm run bench:console`: the web console's speed in Debian's Chromium against a real daemon.
// - JavaScript (gzipped) the browser loads for the first view (sign-in, then the projects page);
//   target <= 250 KB.
// - With 100 projects x 10 services seeded: a fresh load of the projects page until its project
//   links are visible and clickable (target < 1 s), and of a service page until its Deploy button is
//   (target < 500 ms); median of 5 loads each, after one warm-up.
// - A real deployment whose build prints 50,000 coloured lines: its build log is opened and scrolled
//   from top to bottom in 200 steps while a PerformanceObserver records long tasks; target: no task
//   over 200 ms while scrolling (the page never freezes).
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestDaemon } from '../helpers/daemon.js';
import { launchChromium, requireConsoleBuild } from '../helpers/browser.js';
import { requireDocker } from '../helpers/docker.js';
import { startGitServer } from '../helpers/git-server.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { waitForDeployment } from '../helpers/wait.js';

const verdict = (ok: boolean): string => (ok ? 'PASS' : 'MISS');
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

requireDocker();
requireConsoleBuild();
const git = await startGitServer({});
const t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_LOG_RETENTION_LINES: '100000', BERTH_HEALTH_TIMEOUT: '10' });
const browser = await launchChromium();
try {
  const { token } = await t.admin.createKey({ name: 'bench', access: 'write', projects: 'all' });
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();

  // 1. first-view JavaScript
  const scripts = new Set<string>();
  page.on('response', (r) => {
    const u = new URL(r.url());
    if (u.pathname.endsWith('.js')) scripts.add(u.pathname);
  });
  await page.goto(t.url);
  await page.getByLabel('API key', { exact: true }).fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
  await page.waitForLoadState('networkidle');
  let gz = 0;
  for (const p of scripts) gz += gzipSync(readFileSync(join(REPO_ROOT, 'dist/console', p))).length;
  const firstKb = gz / 1024;
  console.log(`first view JavaScript: ${scripts.size} files, ${firstKb.toFixed(1)} KB gzipped (target <= 250 KB: ${verdict(firstKb <= 250)})`);

  // 2. seeded projects page and service page
  const seed0 = performance.now();
  let someService = '';
  for (let p = 0; p < 100; p++) {
    const { project } = await t.admin.createProject({ name: `bench-${String(p).padStart(3, '0')}`, description: 'seeded by bench:console' });
    for (let s = 0; s < 10; s++) {
      const { service } = await t.admin.createService(project.id, {
        name: `svc-${s}`,
        repoUrl: 'docker-image',
        dockerImage: 'berth-test/busybox:latest',
        branch: 'main',
        runtimeMode: 'web',
        internalPort: 8080,
        env: [],
      });
      someService ||= service.id;
    }
  }
  console.log(`seeded 100 projects x 10 services in ${((performance.now() - seed0) / 1000).toFixed(1)} s`);
  const loadTimes = async (url: string, ready: () => Promise<void>): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < 6; i++) {
      const t0 = performance.now();
      await page.goto(url);
      await ready();
      if (i > 0) out.push(performance.now() - t0);
    }
    return out;
  };
  const projectsMs = await loadTimes(t.url, async () => {
    const link = page.getByRole('link', { name: /bench-099/ });
    await link.waitFor();
    await link.click({ trial: true });
  });
  console.log(
    `projects page with 1000 services interactive: median ${median(projectsMs).toFixed(0)} ms of [${projectsMs.map((x) => x.toFixed(0)).join(', ')}] (target < 1000 ms: ${verdict(median(projectsMs) < 1000)})`,
  );
  const serviceMs = await loadTimes(`${t.url}/services/${someService}`, async () => {
    const deploy = page.getByRole('button', { name: 'Deploy', exact: true });
    await deploy.waitFor();
    await deploy.click({ trial: true });
  });
  console.log(`service page interactive: median ${median(serviceMs).toFixed(0)} ms of [${serviceMs.map((x) => x.toFixed(0)).join(', ')}] (target < 500 ms: ${verdict(median(serviceMs) < 500)})`);

  // 3. a 50,000-line build log
  const repo = 'acme/loud' as const;
  await git.commit(repo, {
    Dockerfile:
      'FROM berth-test/busybox:latest\nRUN i=0; while [ $i -lt 50000 ]; do printf "\\033[32mline %d\\033[0m of a long build, \\033[1mstep\\033[0m ok\\n" $i; i=$((i+1)); done\nCMD ["sh", "-c", "exec httpd -f -p ${PORT} -h /"]\n',
  });
  const { project } = await t.admin.createProject({ name: 'loud' });
  const { service } = await t.admin.createService(project.id, { name: 'loud', repoFullName: repo, branch: 'main', internalPort: 8080 });
  const { deployment } = await t.admin.deploy(service.id);
  await waitForDeployment(t.admin, service.id, deployment.id, ['running', 'failed'], 600_000);
  const lineCount = (await t.admin.deploymentLogs(deployment.id)).logs.length;
  await page.addInitScript(() => {
    const w = window as unknown as { __longTasks: number[] };
    w.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longTasks.push(e.duration);
    }).observe({ type: 'longtask', buffered: false });
  });
  const open0 = performance.now();
  await page.goto(`${t.url}/services/${service.id}`);
  const log = page.getByRole('log', { name: 'Build log' });
  await page.getByText(/Build log complete/).waitFor({ timeout: 60_000 });
  const openMs = performance.now() - open0;
  await page.evaluate(() => ((window as unknown as { __longTasks: number[] }).__longTasks = []));
  const scroll0 = performance.now();
  await log.evaluate(async (el) => {
    el.scrollTop = 0;
    for (let i = 1; i <= 200; i++) {
      el.scrollTop = (el.scrollHeight * i) / 200;
      await new Promise((r) => requestAnimationFrame(() => r(null)));
    }
  });
  const scrollMs = performance.now() - scroll0;
  const longTasks = await page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks);
  const worst = Math.max(0, ...longTasks);
  console.log(
    `build log of ${lineCount} lines: shown complete in ${openMs.toFixed(0)} ms; 200 scroll steps in ${scrollMs.toFixed(0)} ms, ${longTasks.length} long tasks, longest ${worst.toFixed(0)} ms (target: none over 200 ms: ${verdict(worst <= 200 && lineCount >= 50_000)})`,
  );
  await context.close();
} finally {
  await browser.close();
  for (const p of (await t.admin.listProjects()).projects) await t.admin.deleteProject(p.id).catch(() => undefined);
  await t.stop();
  await git.stop();
}
