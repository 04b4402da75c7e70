// A read key against a deployment with 100,000 stored build-log lines (some of 16 KB): every log
// answer (a page of GET .../logs, a stream's snapshot, the runtime stream's snapshot) is bounded in
// lines and bytes, reading on through the cursors returns every line exactly once, and more than
// two log reads in flight with one key are refused with 429 while another key still reads.
import { expect } from 'chai';
import { BerthClient } from '../../shared/client.js';
import type { LogLineInsert } from '../../daemon/core/ports/store.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { waitForDeployment } from '../helpers/wait.js';

const LINES = 100_000;
const BIG_EVERY = 500; // every 500th line is 16 KB: 200 big lines, 3.2 MB
const BIG = 16_384;
const PAGE_LINES = 1000;
const PAGE_BYTES = 1024 * 1024;
/** The JSON around the lines of a page (keys, cursors) and each line's other fields. */
const SLACK = 64 * 1024;
/** Far above any id the daemon's own log book reaches in this suite. */
const FIRST_ID = 50_000_000;

interface Page {
  logs: { id: number; line: string; deploymentId: string }[];
  nextCursor: string | null;
  prevCursor: string | null;
}

describe('security: bounded log answers', function () {
  this.timeout(300_000);
  let t: TestDaemon;
  let git: GitServer;
  let reader: BerthClient;
  let readToken: string;
  let otherReader: BerthClient;
  let serviceId: string;
  let deploymentId: string;

  before(async function () {
    this.timeout(300_000);
    requireDocker();
    git = await startGitServer();
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl });
    const projectId = (await t.admin.createProject({ name: uniq('logs') })).project.id;
    const repo = `acme/${uniq('quiet')}` as const;
    await git.commit(repo, { Dockerfile: 'FROM berth-test/busybox:latest\nCMD ["sleep", "3600"]\n' });
    const { service } = await t.admin.createService(projectId, { name: 'quiet', repoFullName: repo, runtimeMode: 'worker' });
    serviceId = service.id;
    deploymentId = (await t.admin.deploy(service.id)).deployment.id;
    await waitForDeployment(t.admin, service.id, deploymentId, ['running'], 120_000);
    // the 100,000-line case through the production store API (the log book would trim it to its budget)
    const now = new Date().toISOString();
    const rows: LogLineInsert[] = [];
    for (let i = 0; i < LINES; i++) {
      const id = FIRST_ID + i;
      rows.push({ id, line: i % BIG_EVERY === 0 ? `big ${id} `.padEnd(BIG, 'x') : `line ${id}`, stream: 'stdout', createdAt: now, owner: deploymentId, deploymentId });
    }
    await t.daemon.store.logs.insert('deployment_logs', rows);
    // and 600 runtime lines of 16 KB (9.6 MB) for the runtime stream's snapshot
    await t.daemon.store.logs.insert(
      'runtime_logs',
      Array.from({ length: 600 }, (_, i) => ({ id: FIRST_ID + i, line: `rt ${i} `.padEnd(BIG, 'r'), stream: 'stdout' as const, createdAt: now, owner: serviceId, deploymentId })),
    );
    const { token } = await t.admin.createKey({ name: 'reader', access: 'read', projects: [projectId] });
    readToken = token;
    reader = new BerthClient(t.url, token);
    otherReader = await t.clientWith('read', [projectId]);
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
  });

  async function rawPage(query: string, token = readToken): Promise<{ status: number; bytes: number; body: Page & { error?: { code: string; message: string } } }> {
    const res = await fetch(`${t.url}/api/deployments/${deploymentId}/logs${query}`, { headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    return { status: res.status, bytes: Buffer.byteLength(text), body: JSON.parse(text) as Page & { error?: { code: string; message: string } } };
  }

  function expectBounded(p: { status: number; bytes: number; body: Page }, what: string): void {
    expect(p.status, what).to.equal(200);
    expect(p.body.logs.length, `${what}: lines`).to.be.within(1, PAGE_LINES);
    expect(p.bytes, `${what}: bytes`).to.be.at.most(PAGE_BYTES + SLACK);
  }

  it('a read key gets the build log in bounded pages, and reading on with nextCursor returns every line once, in order', async () => {
    const own = (await rawPage('')).body.logs.filter((l) => l.id < FIRST_ID).length; // the deployment's own lines
    const ids: number[] = [];
    let query = '';
    let pages = 0;
    for (;;) {
      const page = await rawPage(query);
      expectBounded(page, `page ${pages}`);
      ids.push(...page.body.logs.map((l) => l.id));
      pages++;
      if (page.body.nextCursor === null) break;
      query = `?after=${page.body.nextCursor}`;
    }
    expect(ids.length).to.equal(LINES + own);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
    expect(pages).to.be.at.least(LINES / PAGE_LINES);
  });

  it('reading back from the tail with prevCursor returns every line once too, and limit bounds a page', async () => {
    const ids: number[] = [];
    let query = '?tail=true';
    for (;;) {
      const page = await rawPage(query);
      expectBounded(page, query);
      ids.unshift(...page.body.logs.map((l) => l.id));
      if (page.body.prevCursor === null) break;
      query = `?before=${page.body.prevCursor}`;
    }
    expect(ids.filter((id) => id >= FIRST_ID)).to.deep.equal(Array.from({ length: LINES }, (_, i) => FIRST_ID + i));
    expect((await rawPage('?limit=10')).body.logs).to.have.length(10);
    const refused = await rawPage('?limit=100000');
    expect(refused.status).to.equal(400);
    expect(refused.body.error!.message).to.match(/limit/);
  });

  it("the build log stream's snapshot holds the newest lines within the page bounds", async () => {
    const ac = new AbortController();
    for await (const ev of reader.deploymentStream(deploymentId, { signal: ac.signal })) {
      if (ev.event !== 'snapshot') continue;
      ac.abort();
      const lines = JSON.parse(ev.data) as { id: number }[];
      expect(lines.length).to.be.within(1, PAGE_LINES);
      expect(Buffer.byteLength(ev.data)).to.be.at.most(PAGE_BYTES + SLACK);
      expect(lines.at(-1)!.id).to.equal(FIRST_ID + LINES - 1);
      break;
    }
  });

  it("the runtime stream's snapshot is bounded in bytes too (600 lines of 16 KB are stored)", async () => {
    const ac = new AbortController();
    for await (const ev of reader.runtimeLogStream(serviceId, { signal: ac.signal })) {
      if (ev.event !== 'snapshot') continue;
      ac.abort();
      const lines = JSON.parse(ev.data) as { id: number }[];
      expect(Buffer.byteLength(ev.data)).to.be.at.most(PAGE_BYTES + SLACK);
      expect(lines.at(-1)!.id).to.equal(FIRST_ID + 599);
      break;
    }
  });

  it('a third log read in flight with one key is refused with 429 saying why; another key still reads', async () => {
    // pages from the 16 KB part of the log: each takes the daemon a moment to read and encode
    const answers = await Promise.all(Array.from({ length: 12 }, () => rawPage('?tail=true')));
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length, 'refused reads').to.be.at.least(1);
    expect(answers.filter((a) => a.status === 200).length, 'answered reads').to.be.at.least(2);
    expect(refused[0]!.body.error!.code).to.equal('too_many_reads');
    expect(refused[0]!.body.error!.message).to.match(/in flight/);
    expect((await otherReader.deploymentLogs(deploymentId, { tail: true })).logs.length).to.be.greaterThan(0);
    // once they are answered, the key reads again
    expectBounded(await rawPage('?tail=true'), 'after the burst');
  });
});
