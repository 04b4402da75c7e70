// A hostile tenant's container, or build step, printing 200 MB without a line break: the daemon
// stores it as lines of at most 16 KB within its log budget (the rest dropped, with a marker line),
// its memory stays bounded, it keeps answering health within
// a second, and after a restart it does not read the output again. Lines a container prints while
// its service is deleted are dropped without a FOREIGN KEY error.
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { join } from 'node:path';
import type { BerthClient } from '../../shared/client.js';
import { DB_FILE } from '../../daemon/store/open.js';
import { MAX_LINE_CHARS } from '../../daemon/docker/output-lines.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { containersWithLabel, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { expectHealthy } from '../helpers/hostile-checks.js';
import { until, waitForDeployment } from '../helpers/wait.js';

const FLOOD_BYTES = 200_000_000;
/** Prints FLOOD_BYTES of `x` with no line break (a shell command line). */
const FLOOD = `head -c ${FLOOD_BYTES} /dev/zero | tr '\\0' x`;
/** The same inside a Dockerfile's JSON CMD, where a backslash is escaped. */
const FLOOD_JSON = FLOOD.replace('\\', '\\\\');
const RSS_GROWTH_LIMIT = 100 * 1024 * 1024;
/** BERTH_LOG_RETENTION_MB's default (8) and what one batch adds before it is trimmed. */
const STORE_BUDGET = 9 * 1024 * 1024;

interface Stored {
  lines: number;
  chars: number;
  longest: number;
}

describe('security: output without line breaks', function () {
  this.timeout(400_000);
  let t: TestDaemon;
  let git: GitServer;
  let tenant: BerthClient;
  let projectId: string;
  let db: Knex;

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    git = await startGitServer();
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '15' });
    projectId = (await t.admin.createProject({ name: uniq('flood') })).project.id;
    tenant = await t.clientWith('write', [projectId]);
    db = knexFactory({ client: 'sqlite3', connection: { filename: join(t.dataDir, DB_FILE) }, useNullAsDefault: true });
  });
  after(async () => {
    await db?.destroy();
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
  });

  async function count(table: 'runtime_logs' | 'deployment_logs', column: string, owner: string): Promise<number> {
    const row = (await db(table).where(column, owner).count({ n: '*' }).first()) as { n: number };
    return row.n;
  }

  /** Lines saying that output was dropped over the ingestion rate. */
  async function markers(table: 'runtime_logs' | 'deployment_logs', column: string, owner: string): Promise<number> {
    const row = (await db(table).where(column, owner).andWhere('line', 'like', 'berth: % dropped: %').count({ n: '*' }).first()) as { n: number };
    return row.n;
  }

  async function stored(table: 'runtime_logs' | 'deployment_logs', column: string, owner: string): Promise<Stored> {
    const row = (await db(table).where(column, owner).select(db.raw('count(*) as lines, coalesce(sum(length(line)), 0) as chars, coalesce(max(length(line)), 0) as longest')).first()) as Stored;
    return row;
  }

  /** Until `done`, every half second: health answers within 1 s; returns the highest RSS seen. */
  async function watch(what: string, done: () => Promise<boolean>, timeoutMs: number): Promise<number> {
    let highest = process.memoryUsage().rss;
    await until(
      what,
      async () => {
        await expectHealthy(t.url);
        highest = Math.max(highest, process.memoryUsage().rss);
        return done();
      },
      timeoutMs,
      500,
    );
    return highest;
  }

  async function deployWorker(name: string, dockerfile: string, statuses = ['running']): Promise<{ serviceId: string; deploymentId: string }> {
    const repo = `acme/${uniq(name)}` as const;
    await git.commit(repo, { Dockerfile: dockerfile });
    const { service } = await tenant.createService(projectId, { name, repoFullName: repo, runtimeMode: 'worker' });
    const { deployment } = await tenant.deploy(service.id);
    await waitForDeployment(tenant, service.id, deployment.id, statuses, 180_000);
    return { serviceId: service.id, deploymentId: deployment.id };
  }

  it('a container printing 200 MB without a newline is stored as capped lines, memory bounded, and is not read again after a restart', async () => {
    const rssBefore = process.memoryUsage().rss;
    const { serviceId } = await deployWorker('flood', `FROM berth-test/busybox:latest\nCMD ["sh", "-c", "${FLOOD_JSON}; sleep 3600"]\n`);
    // ingestion is rate-limited (drop markers) and retention trims as lines are written: wait until
    // the flood is over (no new line for 3 s), then the store holds at most the service's budget
    const newestId = async () => ((await db('runtime_logs').where('service_id', serviceId).max({ id: 'id' }).first()) as { id: number | null }).id ?? 0;
    let seen = -1;
    let stableSince = Date.now();
    const highest = await watch(
      'the flood to end',
      async () => {
        const now = await newestId();
        if (now !== seen) {
          seen = now;
          stableSince = Date.now();
        }
        return now > 0 && Date.now() - stableSince > 3000;
      },
      300_000,
    );
    const after = await stored('runtime_logs', 'service_id', serviceId);
    expect(after.longest).to.be.at.most(MAX_LINE_CHARS);
    expect(after.chars).to.be.at.most(STORE_BUDGET);
    expect(await markers('runtime_logs', 'service_id', serviceId)).to.be.greaterThan(0);
    expect(highest - rssBefore, 'RSS growth').to.be.below(RSS_GROWTH_LIMIT);

    await t.restart();
    await expectHealthy(t.url);
    // the adopted container is followed from now on: nothing of what it printed before comes back
    // (start-up trims the log to the newest BERTH_LOG_RETENTION_LINES; no line is added)
    const newest = async () => ((await db('runtime_logs').where('service_id', serviceId).max({ id: 'id' }).first()) as { id: number }).id;
    const newestBefore = await newest();
    await new Promise((r) => setTimeout(r, 3000));
    await expectHealthy(t.url);
    expect(await newest()).to.equal(newestBefore);
    expect(await count('runtime_logs', 'service_id', serviceId)).to.be.at.most(5000);
    expect((await tenant.overview(serviceId)).service.status).to.equal('active');
  });

  it('a build step printing 200 MB without a newline is stored as capped lines, memory bounded', async () => {
    const rssBefore = process.memoryUsage().rss;
    const { deploymentId } = await deployWorker('build-flood', `FROM berth-test/busybox:latest\nRUN ${FLOOD}\nCMD ["sleep", "3600"]\n`);
    const highest = await watch('the build to be over', async () => (await markers('deployment_logs', 'deployment_id', deploymentId)) > 0, 60_000);
    const after = await stored('deployment_logs', 'deployment_id', deploymentId);
    expect(after.chars).to.be.at.most(STORE_BUDGET);
    expect(after.longest).to.be.at.most(MAX_LINE_CHARS);
    expect(highest - rssBefore, 'RSS growth').to.be.below(RSS_GROWTH_LIMIT);
    await expectHealthy(t.url);
  });

  it('lines a container prints while its service is deleted are dropped without a FOREIGN KEY error', async () => {
    const { serviceId } = await deployWorker('chatty', 'FROM berth-test/busybox:latest\nCMD ["sh", "-c", "while true; do echo still talking; usleep 500; done"]\n');
    await until('lines to arrive', async () => (await stored('runtime_logs', 'service_id', serviceId)).lines > 100, 30_000);
    const logged = t.logs.length;
    await tenant.deleteService(serviceId);
    expect(containersWithLabel(`dev.berth.service=${serviceId}`)).to.deep.equal([]);
    await new Promise((r) => setTimeout(r, 1000));
    expect(t.logs.slice(logged).filter((l) => /FOREIGN KEY/i.test(l))).to.deep.equal([]);
    expect((await stored('runtime_logs', 'service_id', serviceId)).lines).to.equal(0);
    await expectHealthy(t.url);
  });
});
