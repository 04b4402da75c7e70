// Scheduled jobs against real Docker: one daemon and one live image service (busybox httpd) shared
// by the suite. A job scheduled every minute runs through node-cron on its own (created first,
// checked last, so the suite waits for the real minute only once); the other scheduled-path cases
// take the same path at once through the scheduler's test hook (`fire`).
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BerthClient } from '../../shared/client.js';
import type { Job, JobRun, Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { cliHome, type CliHome } from '../helpers/cli.js';
import { containersWithLabel, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { allowLoopbackNotifyTargets } from '../helpers/notify-targets.js';
import { until, waitForDeployment } from '../helpers/wait.js';

describe('scheduled jobs', function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let service: Service;
  let everyMinute: Job;
  let otherProjectKey: BerthClient;
  let readKey: BerthClient;
  let hook: Server;
  let cli: CliHome;
  let cliEnv: Record<string, string>;
  let projectSlug: string;
  /** What the generic webhook receives: the notice's fields and its data, flat. */
  const notices: { event: string; jobId?: string; runId?: string; status?: string }[] = [];

  const create = async (input: Partial<Job> & { name: string; command: string[] }, schedule = '0 3 * * *') => (await t.admin.createJob(service.id, { schedule, ...input })).job;
  const ended = (job: Job, runId: string, timeoutMs = 60_000) =>
    until(
      `run ${runId} to end`,
      async () => {
        const run = (await t.admin.listJobRuns(service.id, job.id)).runs.find((r) => r.id === runId);
        return run && run.status !== 'running' ? run : null;
      },
      timeoutMs,
      250,
    );
  const output = async (job: Job, run: JobRun) => (await t.admin.jobRunLogs(service.id, job.id, run.id)).lines.map((l) => l.line);

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    hook = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        notices.push(JSON.parse(body) as (typeof notices)[number]);
        res.end('ok');
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    t = await startTestDaemon({ BERTH_HEALTH_TIMEOUT: '20' });
    await allowLoopbackNotifyTargets(t.admin);
    await t.admin.createNotificationChannel({ type: 'webhook', name: 'jobs hook', url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`, events: ['job_failed'] });
    const { project } = await t.admin.createProject({ name: uniq('jobs') });
    service = (await t.admin.createService(project.id, { name: 'app', repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080 })).service;
    await t.admin.setEnv(service.id, 'JOB_GREETING', 'hello from the service env');
    const { deployment } = await t.admin.deploy(service.id);
    expect((await waitForDeployment(t.admin, service.id, deployment.id, ['running', 'failed'], 120_000)).status).to.equal('running');
    // the real cron path: armed now, checked by the last test
    everyMinute = await create({ name: 'every-minute', command: ['sh', '-c', 'echo tick from cron'] }, '* * * * *');
    const other = (await t.admin.createProject({ name: uniq('other') })).project;
    otherProjectKey = await t.clientWith('write', [other.id]);
    readKey = await t.clientWith('read', [project.id]);
    const { token } = await t.admin.createKey({ name: 'cli', access: 'write', projects: 'all' });
    cliEnv = { BERTH_SERVER: t.url, BERTH_TOKEN: token };
    projectSlug = project.slug;
    cli = cliHome();
  });

  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    hook?.close();
    cli?.remove();
  });

  it('creates a job (201) with its schedule in words, its time zone, the next run and no run yet', async () => {
    const res = await t.admin.request('POST', `/api/services/${service.id}/jobs`, { name: 'nightly', schedule: '0 3 * * *', timezone: 'Europe/Paris', command: ['true'] });
    expect(res.status).to.equal(201);
    const job = (res.body as { job: Job }).job;
    expect(job).to.include({ name: 'nightly', schedule: '0 3 * * *', timezone: 'Europe/Paris', timeoutSeconds: 3600, enabled: true, concurrency: 'forbid', lastRun: null });
    expect(job.description).to.equal('At 03:00 (Europe/Paris)');
    expect(Date.parse(job.nextRunAt!)).to.be.greaterThan(Date.now());
    const disabled = (await t.admin.patchJob(service.id, job.id, { enabled: false })).job;
    expect(disabled.nextRunAt).to.equal(null);
    expect((await t.admin.listJobs(service.id)).jobs.map((j) => j.name)).to.include.members(['nightly', 'every-minute']);
    await t.admin.deleteJob(service.id, job.id);
  });

  it('refuses bad input with a 400 naming the rule, and changes nothing', async () => {
    const before = (await t.admin.listJobs(service.id)).jobs.length;
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ schedule: '* * * * * *' }, /seconds field is not allowed/],
      [{ schedule: '*/0 * * * *' }, /step of 0/],
      [{ schedule: '0 3 * *' }, /exactly 5 cron fields/],
      [{ schedule: '99 3 * * *' }, /not a valid cron expression/],
      [{ timezone: 'Mars/Olympus' }, /not an IANA time zone/],
      [{ command: 'echo hi; rm -rf /' }, /argv array/],
      [{ command: [] }, /non-empty argv/],
      [{ command: ['echo', 7] }, /string/],
      [{ timeoutSeconds: 0 }, /at least 1/],
      [{ timeoutSeconds: 86_401 }, /at most 86400/],
      [{ concurrency: 'sometimes' }, /concurrency/],
      [{ name: 'Not A Slug' }, /job name is 1 to 63 lowercase/],
    ];
    for (const [patch, message] of bad) {
      const res = await t.admin.request('POST', `/api/services/${service.id}/jobs`, { name: uniq('bad'), schedule: '0 3 * * *', command: ['true'], ...patch });
      expect(res.status, JSON.stringify(patch)).to.equal(400);
      expect(JSON.stringify(res.body), JSON.stringify(patch)).to.match(message);
    }
    // a database service has no app image to run jobs from
    const db = (await t.admin.createService(service.projectId, { name: uniq('db'), repoFullName: 'database:postgres' })).service;
    const onDb = await t.admin.request('POST', `/api/services/${db.id}/jobs`, { name: 'dump', schedule: '0 3 * * *', command: ['true'] });
    expect(onDb.status).to.equal(400);
    expect(JSON.stringify(onDb.body)).to.match(/database service cannot have jobs/);
    await t.admin.deleteService(db.id);
    const dup = await t.admin.request('POST', `/api/services/${service.id}/jobs`, { name: 'every-minute', schedule: '0 3 * * *', command: ['true'] });
    expect(dup.status).to.equal(409);
    expect((await t.admin.listJobs(service.id)).jobs.length).to.equal(before);
    // the cap of jobs per service
    const made: Job[] = [];
    for (let i = before; i < 20; i++) made.push(await create({ name: `cap-${i}`, command: ['true'] }));
    const over = await t.admin.request('POST', `/api/services/${service.id}/jobs`, { name: 'one-too-many', schedule: '0 3 * * *', command: ['true'] });
    expect(over.status).to.equal(400);
    expect(JSON.stringify(over.body)).to.match(/cap of 20 jobs per service/);
    for (const j of made) await t.admin.deleteJob(service.id, j.id);
  });

  it('runs a job now: it succeeds with exit code 0 and its log shows the output and the service env', async () => {
    const job = await create({ name: 'hello', command: ['sh', '-c', 'echo "greeting: $JOB_GREETING"; echo to-stderr >&2'] });
    const res = await t.admin.request('POST', `/api/services/${service.id}/jobs/${job.id}/runs`);
    expect(res.status).to.equal(202);
    const { run } = res.body as { run: JobRun };
    expect(run).to.include({ status: 'running', trigger: 'manual', exitCode: null });
    const done = await ended(job, run.id);
    expect(done).to.include({ status: 'succeeded', exitCode: 0, error: null });
    expect(done.finishedAt).to.be.a('string');
    const lines = (await t.admin.jobRunLogs(service.id, job.id, run.id)).lines;
    expect(lines.map((l) => l.line)).to.include('greeting: hello from the service env');
    expect(lines.find((l) => l.line === 'to-stderr')?.stream).to.equal('stderr');
    expect(lines[0]).to.have.all.keys('id', 'line', 'stream', 'createdAt');
    expect((await t.admin.listJobs(service.id)).jobs.find((j) => j.id === job.id)?.lastRun?.id).to.equal(run.id);
    expect(containersWithLabel(`dev.berth.job-run=${run.id}`)).to.deep.equal([]);
  });

  it('records a failing run (exit 3) as failed with exitCode 3 and notifies once', async () => {
    const job = await create({ name: 'fails', command: ['sh', '-c', 'echo about to fail; exit 3'] });
    const { run } = await t.admin.runJob(service.id, job.id);
    const done = await ended(job, run.id);
    expect(done).to.include({ status: 'failed', exitCode: 3 });
    expect(await output(job, run)).to.include('about to fail');
    await until('the notice', async () => notices.some((n) => n.runId === run.id), 20_000);
    await new Promise((r) => setTimeout(r, 1500));
    const mine = notices.filter((n) => n.runId === run.id);
    expect(mine).to.have.length(1);
    expect(mine[0]).to.deep.include({ event: 'job_failed' });
    expect(mine[0]).to.include({ jobId: job.id, status: 'failed' });
  });

  it('ends a run past its time limit timed_out, removes its container and notifies', async () => {
    const job = await create({ name: 'slow', command: ['sleep', '60'], timeoutSeconds: 2 });
    const { run } = await t.admin.runJob(service.id, job.id);
    const done = await ended(job, run.id, 30_000);
    expect(done.status).to.equal('timed_out');
    expect(done.exitCode).to.equal(null);
    expect(done.error).to.match(/time limit of 2 s/);
    expect(containersWithLabel(`dev.berth.job-run=${run.id}`)).to.deep.equal([]);
    await until('the notice', async () => notices.some((n) => n.runId === run.id && n.status === 'timed_out'), 20_000);
  });

  it('skips a scheduled run while one runs under forbid, and starts it under allow', async () => {
    const forbid = await create({ name: 'forbid', command: ['sleep', '4'] });
    await t.daemon.jobScheduler.fire(forbid.id);
    await t.daemon.jobScheduler.fire(forbid.id);
    const runs = (await t.admin.listJobRuns(service.id, forbid.id)).runs;
    expect(runs).to.have.length(1);
    expect(runs[0]!.trigger).to.equal('schedule');
    expect(t.logs.some((l) => /forbid.*skipped|skipped.*forbid/.test(l))).to.equal(true);
    // a manual run under forbid while one runs is refused
    expect((await t.admin.request('POST', `/api/services/${service.id}/jobs/${forbid.id}/runs`)).status).to.equal(409);
    const allow = await create({ name: 'allow', command: ['sleep', '1'], concurrency: 'allow' });
    await t.daemon.jobScheduler.fire(allow.id);
    await t.daemon.jobScheduler.fire(allow.id);
    expect((await t.admin.listJobRuns(service.id, allow.id)).runs).to.have.length(2);
    await t.daemon.jobRunner.settled();
    const statuses = [...(await t.admin.listJobRuns(service.id, forbid.id)).runs, ...(await t.admin.listJobRuns(service.id, allow.id)).runs].map((r) => r.status);
    expect(statuses).to.deep.equal(['succeeded', 'succeeded', 'succeeded']);
  });

  it('records a run over the per-service cap as failed with the cap named', async () => {
    const job = await create({ name: 'crowd', command: ['sleep', '3'], concurrency: 'allow' });
    const runs: JobRun[] = [];
    for (let i = 0; i < 4; i++) runs.push((await t.admin.runJob(service.id, job.id)).run);
    // (the every-minute job's run may hold one of the 3 places meanwhile)
    expect(runs.filter((r) => r.status === 'running').length).to.be.within(2, 3);
    expect(runs[3]).to.include({ status: 'failed' });
    for (const r of runs.filter((x) => x.status === 'failed')) expect(r.error).to.match(/cap of 3 job runs at a time per service/);
    await t.daemon.jobRunner.settled();
  });

  it('pages the run history newest first with limit and before', async () => {
    const job = await create({ name: 'pages', command: ['true'], concurrency: 'allow' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { run } = await t.admin.runJob(service.id, job.id);
      ids.push(run.id);
      await ended(job, run.id);
    }
    const first = (await t.admin.listJobRuns(service.id, job.id, { limit: 2 })).runs.map((r) => r.id);
    expect(first).to.deep.equal([ids[2], ids[1]]);
    expect((await t.admin.listJobRuns(service.id, job.id, { limit: 2, before: ids[1] })).runs.map((r) => r.id)).to.deep.equal([ids[0]]);
    expect((await t.admin.listJobRuns(service.id, job.id, { offset: 2 })).runs.map((r) => r.id)).to.deep.equal([ids[0]]);
  });

  it('stops the run under way when its job is deleted', async () => {
    const job = await create({ name: 'deleted', command: ['sleep', '60'] });
    const { run } = await t.admin.runJob(service.id, job.id);
    await until('the container to run', async () => containersWithLabel(`dev.berth.job-run=${run.id}`).length > 0, 20_000);
    await t.admin.deleteJob(service.id, job.id);
    expect(containersWithLabel(`dev.berth.job-run=${run.id}`)).to.deep.equal([]);
    expect((await t.admin.request('GET', `/api/services/${service.id}/jobs/${job.id}/runs`)).status).to.equal(404);
  });

  it("refuses job changes to a read key (403) and hides jobs from another project's key (404)", async () => {
    expect((await readKey.listJobs(service.id)).jobs.length).to.be.greaterThan(0);
    const path = `/api/services/${service.id}/jobs`;
    expect((await readKey.request('POST', path, { name: 'nope', schedule: '0 3 * * *', command: ['true'] })).status).to.equal(403);
    expect((await readKey.request('POST', `${path}/${everyMinute.id}/runs`)).status).to.equal(403);
    expect((await readKey.request('PATCH', `${path}/${everyMinute.id}`, { enabled: false })).status).to.equal(403);
    expect((await readKey.request('DELETE', `${path}/${everyMinute.id}`)).status).to.equal(403);
    expect((await otherProjectKey.request('GET', path)).status).to.equal(404);
    expect((await otherProjectKey.request('POST', `${path}/${everyMinute.id}/runs`)).status).to.equal(404);
  });

  it('berth jobs: create after --, list, run --wait (exit 1 on failure, the output printed), runs, logs, disable and delete', async () => {
    const berth = (...args: string[]) => cli.run(['--project', projectSlug, ...args], { env: cliEnv });
    const made = await berth('jobs', 'create', 'app', '--name', 'cli-job', '--schedule', '30 4 * * 1', '--timezone', 'Europe/Berlin', '--', 'sh', '-c', 'echo cli says $0; exit 3');
    expect(made.code, made.stderr).to.equal(0);
    const listed = await berth('--json', 'jobs', 'list', 'app');
    const job = listed.json<Job>().find((j) => j.name === 'cli-job')!;
    expect(job).to.include({ schedule: '30 4 * * 1', timezone: 'Europe/Berlin' });
    expect(job.command).to.deep.equal(['sh', '-c', 'echo cli says $0; exit 3']);
    const failed = await berth('jobs', 'run', 'app', 'cli-job', '--wait');
    expect(failed.code).to.equal(1);
    expect(failed.stdout).to.include('cli says sh');
    expect(failed.stderr).to.match(/failed \(exit code 3\)/);
    const runs = (await berth('--json', 'jobs', 'runs', 'app', 'cli-job')).json<JobRun>();
    expect(runs.map((r) => [r.status, r.exitCode])).to.deep.equal([['failed', 3]]);
    expect((await berth('jobs', 'logs', 'app', 'cli-job')).stdout).to.include('cli says sh');
    expect((await berth('jobs', 'disable', 'app', 'cli-job')).code).to.equal(0);
    expect((await t.admin.listJobs(service.id)).jobs.find((j) => j.name === 'cli-job')?.enabled).to.equal(false);
    expect((await berth('jobs', 'delete', 'app', 'cli-job')).code).to.equal(0);
    expect((await t.admin.listJobs(service.id)).jobs.some((j) => j.name === 'cli-job')).to.equal(false);
  });

  it("mounts the service's volume in its job runs: a file one run writes, the next run reads", async () => {
    const { service: withVolume } = await t.admin.createService(service.projectId, {
      name: uniq('vol'),
      repoUrl: 'docker-image',
      dockerImage: 'berth-test/httpd:latest',
      internalPort: 8080,
      volumes: [{ name: uniq('data'), mountPath: '/data' }],
    });
    const { deployment } = await t.admin.deploy(withVolume.id);
    expect((await waitForDeployment(t.admin, withVolume.id, deployment.id, ['running', 'failed'], 120_000)).status).to.equal('running');
    const write = (await t.admin.createJob(withVolume.id, { name: 'write', schedule: '0 3 * * *', command: ['sh', '-c', 'echo kept in the volume > /data/from-job.txt'] })).job;
    const read = (await t.admin.createJob(withVolume.id, { name: 'read', schedule: '0 3 * * *', command: ['cat', '/data/from-job.txt'] })).job;
    const finished = async (job: Job, runId: string) =>
      until(`run ${runId}`, async () => (await t.admin.listJobRuns(withVolume.id, job.id)).runs.find((r) => r.id === runId && r.status !== 'running'), 60_000, 250);
    expect((await finished(write, (await t.admin.runJob(withVolume.id, write.id)).run.id)).status).to.equal('succeeded');
    const readRun = await finished(read, (await t.admin.runJob(withVolume.id, read.id)).run.id);
    expect(readRun.status).to.equal('succeeded');
    expect((await t.admin.jobRunLogs(withVolume.id, read.id, readRun.id)).lines.map((l) => l.line)).to.deep.equal(['kept in the volume']);
  });

  it('runs a job scheduled every minute on its own through node-cron, listed with its output and exit code', async function () {
    this.timeout(100_000);
    // (a run due while the other tests filled the per-service cap ends failed, naming the cap: a later minute's run succeeds)
    const run = await until('the every-minute job to run', async () => (await t.admin.listJobRuns(service.id, everyMinute.id)).runs.find((r) => r.status === 'succeeded'), 80_000, 1000);
    expect(run).to.include({ trigger: 'schedule', status: 'succeeded', exitCode: 0 });
    expect(await output(everyMinute, run)).to.include('tick from cron');
  });
});
