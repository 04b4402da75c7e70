// Uptime checks' cost in the daemon (issue 30: an uptime check adds < 5 ms of daemon CPU): an
// in-process daemon (no Caddy; port checks of a local app on the service's host port, the app in a
// child process so its work is not counted) runs 200 checks through its own scheduler, probe and
// recorder (result rows, rollups, state). process.cpuUsage over the window, minus an idle window of
// the same length before the checks were armed, divided by the results written. Run by
// `npm run bench:api` (its last line) or alone: `node dist/test/bench/check-bench.js`.
import { spawn } from 'node:child_process';
import { startTestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';

const CHECKS = 200;
const PER_SECOND_CHECKS = 10; // 20 checks (the per-service cap) every 2 s
const TARGET_MS = 5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

export async function benchUptimeChecks(): Promise<string> {
  const t = await startTestDaemon({ BERTH_CADDY_ADMIN: 'http://127.0.0.1:1', BERTH_CHECK_MIN_INTERVAL_SECONDS: '2' });
  const { project } = await t.admin.createProject({ name: uniq('check-bench') });
  const { service } = await t.admin.createService(project.id, { name: 'app', repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080 });
  const app = spawn(process.execPath, ['-e', `require('node:http').createServer((q, s) => s.end('ok ' + 'x'.repeat(2000))).listen(${service.hostPort}, '127.0.0.1')`], { stdio: 'ignore' });
  try {
    await sleep(500);
    const n = (PER_SECOND_CHECKS * 2) | 0;
    const ids: string[] = [];
    for (let i = 0; i < n; i++)
      ids.push((await t.admin.createCheck(service.id, { target: { kind: 'port' }, name: `c${i}`, keyword: 'ok', intervalSeconds: 2, timeoutSeconds: 1, enabled: false })).check.id);
    const windowMs = Math.ceil(CHECKS / PER_SECOND_CHECKS) * 1000;
    const idle0 = process.cpuUsage();
    await sleep(windowMs);
    const idle = cpuMs(process.cpuUsage(idle0));
    const count = async () => (await Promise.all(ids.map(async (id) => (await t.admin.checkResults(service.id, id)).results.length))).reduce((a, b) => a + b, 0);
    const before = await count();
    for (const id of ids) await t.admin.patchCheck(service.id, id, { enabled: true });
    const busy0 = process.cpuUsage();
    await sleep(windowMs);
    const busy = cpuMs(process.cpuUsage(busy0));
    const done = (await count()) - before;
    const perCheck = (busy - idle) / Math.max(1, done);
    const line = `uptime check: ${perCheck.toFixed(2)} ms daemon CPU per check (${done} checks in ${windowMs / 1000} s; ${busy.toFixed(0)} ms busy, ${idle.toFixed(0)} ms idle) ${perCheck < TARGET_MS ? 'PASS' : 'MISS'} (target < ${TARGET_MS} ms)`;
    console.log(line);
    return line;
  } finally {
    app.kill();
    await t.admin.deleteProject(project.id).catch(() => undefined);
    await t.stop();
  }
}

if (process.argv[1]?.endsWith('check-bench.js')) {
  benchUptimeChecks().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
