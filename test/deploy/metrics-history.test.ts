// Metrics history against real containers: what the daemon sampled every 10 s for a CPU-burning
// service and for a memory hog agrees with `docker stats --no-stream` over the same window (within
// 5%: averages of several readings); the host's history and Berth's footprint are plausible; a CPU
// alert with a low threshold fires once and clears once, one notice each way to a local HTTP channel.
import { expect } from 'chai';
import { execFile, execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import type { Service, ServiceMetricsPoint } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { allowLoopbackNotifyTargets } from '../helpers/notify-targets.js';
import { until, waitForDeployment } from '../helpers/wait.js';

const TOKEN = 'git-token-metrics-history';
const run = promisify(execFile);
const UNITS: Record<string, number> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, kB: 1000, MB: 1e6, GB: 1e9 };

function bytesOf(text: string): number {
  const m = /^([\d.]+)\s*([A-Za-z]+)$/.exec(text.trim());
  if (!m || UNITS[m[2]!] === undefined) throw new Error(`not a size: ${text}`);
  return Number(m[1]) * UNITS[m[2]!]!;
}

function average(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

interface DockerReading {
  cpu: number;
  memory: number;
}

/** `docker stats --no-stream` of one container, back to back until `ms` have passed. */
async function dockerStatsFor(container: string, ms: number): Promise<DockerReading[]> {
  const readings: DockerReading[] = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const { stdout } = await run('docker', ['stats', '--no-stream', '--format', '{{.CPUPerc}}|{{.MemUsage}}', container]);
    const [cpu, mem] = stdout.trim().split('|');
    readings.push({ cpu: Number(cpu!.replace('%', '')), memory: bytesOf(mem!.split('/')[0]!) });
  }
  return readings;
}

describe('metrics history with running containers', function () {
  this.timeout(300_000);
  let t: TestDaemon;
  let git: GitServer;
  let http: Server;
  /** The generic webhook's bodies: event, at, text and the notice's data, flat. */
  const notices: Record<string, string | null>[] = [];
  let burner: Service;
  let hog: Service;

  async function deployWorker(projectId: string, cmd: string, extra: Record<string, unknown> = {}): Promise<Service> {
    const repo = `acme/${uniq('hist')}` as const;
    await git.commit(repo, { Dockerfile: `FROM berth-test/busybox:latest\nCMD ["sh", "-c", ${JSON.stringify(cmd)}]\n` });
    const { service } = await t.admin.createService(projectId, { name: uniq('svc'), repoFullName: repo, githubToken: TOKEN, runtimeMode: 'worker', internalPort: null, ...extra });
    const { deployment } = await t.admin.deploy(service.id);
    await waitForDeployment(t.admin, service.id, deployment.id, ['running']);
    return service;
  }

  function containerOf(serviceId: string): string {
    return execFileSync('docker', ['ps', '-q', '--filter', `label=dev.berth.service=${serviceId}`], { encoding: 'utf8' })
      .trim()
      .split('\n')[0]!;
  }

  /** The daemon's 10 s points of a service whose interval lies inside [fromMs, toMs]. */
  async function pointsWithin(serviceId: string, fromMs: number, toMs: number): Promise<ServiceMetricsPoint[]> {
    // a point stamped `at` measured the 10 s before its tick: wait for the round after the window
    await until('the round after the window', async () => Date.now() > toMs + 12_000 || null, 30_000, 500);
    const { points, step } = await t.admin.serviceMetrics(serviceId, { from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString(), step: '10s' });
    expect(step).to.equal('10s');
    return points.filter((p) => Date.parse(p.at) >= fromMs + 10_000);
  }

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    http = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        notices.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as (typeof notices)[number]);
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    git = await startGitServer({ token: TOKEN });
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '20' });
    await allowLoopbackNotifyTargets(t.admin);
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/hook`;
    await t.admin.createNotificationChannel({ type: 'webhook', name: 'metric alerts', url, events: ['metric_alert'] });
    // alerts stay quiet until the alert test lowers the threshold
    await t.admin.patchMetricAlerts({ cpuPercent: null, memoryPercent: null, diskFullHours: null });
    const projectId = (await t.admin.createProject({ name: uniq('history') })).project.id;
    [burner, hog] = await Promise.all([
      // held to half a core by its limit: a steady load on a machine whose other work comes and goes
      deployWorker(projectId, 'while true; do :; done', { limits: { cpus: 0.5 } }),
      // 48 MB in the container's /dev/shm (shared memory counts as used, not as reclaimable page cache)
      deployWorker(projectId, 'head -c 48000000 /dev/zero > /dev/shm/hog; while true; do sleep 1; done'),
    ]);
  });

  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
    await new Promise((r) => http?.close(r));
  });

  it("samples a CPU-burning service's CPU and memory as docker stats shows them (averages over one window, within 5%)", async () => {
    // the first round of a container only seeds its CPU counter
    await until('two rounds sampled', async () => ((await t.admin.serviceMetrics(burner.id)).points.length >= 1 ? true : null), 40_000, 1_000);
    const fromMs = Date.now();
    const docker = await dockerStatsFor(containerOf(burner.id), 60_000);
    const points = await pointsWithin(burner.id, fromMs, Date.now());
    expect(points.length, JSON.stringify(points)).to.be.at.least(3);
    expect(docker.length).to.be.at.least(5);
    const ours = average(points.map((p) => p.cpuPercent));
    const theirs = average(docker.map((r) => r.cpu));
    expect(theirs).to.be.greaterThan(20);
    expect(ours, `daemon ${ours}% vs docker stats ${theirs}%`).to.be.closeTo(theirs, theirs * 0.05);
    const mem = average(points.map((p) => p.memoryBytes));
    const dockerMem = average(docker.map((r) => r.memory));
    // docker stats prints two or three significant digits (e.g. 356KiB): compare within 5% or 64 KiB
    expect(mem).to.be.closeTo(dockerMem, Math.max(dockerMem * 0.05, 65_536));
    expect(points.every((p) => p.memoryLimitBytes > p.memoryBytes)).to.equal(true);
  });

  it("samples a memory hog's memory as docker stats shows it (within 5%)", async () => {
    const fromMs = Date.now();
    const docker = await dockerStatsFor(containerOf(hog.id), 25_000);
    const points = await pointsWithin(hog.id, fromMs, Date.now());
    expect(points.length).to.be.at.least(1);
    const theirs = average(docker.map((r) => r.memory));
    expect(theirs).to.be.greaterThan(40e6);
    const ours = average(points.map((p) => p.memoryBytes));
    expect(ours, `daemon ${ours} B vs docker stats ${theirs} B`).to.be.closeTo(theirs, theirs * 0.05);
    expect(average(points.map((p) => p.cpuPercent))).to.be.lessThan(10);
  });

  it("keeps the host's history and shows Berth's footprint to keys over all projects only", async () => {
    const host = await t.admin.hostMetricsHistory();
    expect(host.step).to.equal('10s');
    expect(host.points.length).to.be.at.least(3);
    const last = host.points.at(-1)!;
    expect(last.memoryUsedBytes).to.be.greaterThan(0).and.at.most(last.memoryTotalBytes);
    expect(last.diskUsedBytes).to.be.greaterThan(0).and.at.most(last.diskTotalBytes);
    expect(last.cpuPercent).to.be.within(0, 100);
    const footprint = await t.admin.footprint();
    expect(footprint.daemon.rssBytes).to.be.greaterThan(20e6);
    expect(footprint.caddy, 'the test Caddy is found by its admin port').to.not.equal(null);
    expect(footprint.caddy!.rssBytes).to.be.greaterThan(5e6);
    expect(footprint.storeBytes).to.be.greaterThan(0);
    expect(footprint.metricsRows).to.be.greaterThan(10);
    const again = await t.admin.footprint();
    expect(again.daemon.cpuPercent).to.be.a('number').at.least(0);
    const scoped = await t.clientWith('read', [burner.projectId]);
    expect((await scoped.request('GET', '/api/system/footprint')).status).to.equal(403);
    expect((await scoped.request('GET', '/api/system/metrics/history')).status).to.equal(403);
    expect((await scoped.request('GET', `/api/services/${burner.id}/metrics?step=1m`)).status).to.equal(200);
  });

  it('fires a CPU alert once when the burner stays above the threshold, and clears it once (one notice each way)', async () => {
    await t.admin.patchMetricAlerts({ cpuPercent: 20, forMinutes: 0 });
    const firing = await until('a firing notice', async () => notices.find((n) => n.serviceId === burner.id && n.state === 'firing') ?? null, 40_000, 500);
    expect(firing).to.deep.include({ event: 'metric_alert' });
    expect(firing).to.include({ alertKind: 'cpu', threshold: '20', serviceId: burner.id });
    // the burner stays over it: a few more rounds, still one notice
    await new Promise((r) => setTimeout(r, 21_000));
    expect(notices.filter((n) => n.serviceId === burner.id)).to.have.length(1);
    await t.admin.patchMetricAlerts({ cpuPercent: 900 });
    await until('a resolved notice', async () => notices.find((n) => n.serviceId === burner.id && n.state === 'resolved') ?? null, 40_000, 500);
    await new Promise((r) => setTimeout(r, 11_000));
    expect(notices.filter((n) => n.serviceId === burner.id).map((n) => n.state)).to.deep.equal(['firing', 'resolved']);
  });
});
