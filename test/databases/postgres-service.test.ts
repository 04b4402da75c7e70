// A PostgreSQL service as a user runs it: TLS from the Berth CA checked by the real psql client,
// a public port, logical replication, data that survives a redeploy, another service of the
// project connecting through `${db.POSTGRES_URL}`, and the data volume going with the service.
import { expect } from 'chai';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImages } from '../helpers/databases.js';
import { docker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { until, waitForDeployment } from '../helpers/wait.js';

/** The real psql client; asynchronous, because the daemon (and its port proxy) runs in this process. */
function psql(conninfo: string, sql: string): Promise<{ ok: boolean; out: string }> {
  return new Promise((resolve) => {
    execFile('psql', [conninfo, '-tAc', sql], { encoding: 'utf8', env: { ...process.env, PGCONNECT_TIMEOUT: '5' } }, (err, stdout, stderr) => {
      resolve({ ok: err === null, out: `${stdout}${stderr}`.trim() });
    });
  });
}

function listening(port: number): string[] {
  return execFileSync('ss', ['-Hltn', `sport = :${port}`], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((l) => l.trim().split(/\s+/)[3]!);
}

describe('a postgres service', function () {
  this.timeout(300_000);
  let t: TestDaemon;
  let git: GitServer;
  let projectId: string;
  let db: Service;
  let password: string;
  let dir: string;

  before(async function () {
    this.timeout(1_200_000);
    const images = requireDatabaseImages();
    git = await startGitServer();
    t = await startTestDaemon({ ...images, BERTH_GIT_BASE_URL: git.baseUrl });
    dir = mkdtempSync(join(tmpdir(), 'berth-pg-'));
    await t.admin.patchSystemSettings({ rootDomain: 'berth.test' });
    projectId = (await t.admin.createProject({ name: uniq('pg') })).project.id;
    db = (
      await t.admin.createService(projectId, {
        name: 'db',
        repoFullName: 'database:postgres',
        databasePublicEnabled: true,
        postgresLogicalReplicationEnabled: true,
      })
    ).service;
    password = (await t.admin.overview(db.id)).env.find((e) => e.key === 'POSTGRES_PASSWORD')!.value;
    const { deployment } = await t.admin.deploy(db.id);
    const done = await waitForDeployment(t.admin, db.id, deployment.id, ['running', 'failed'], 600_000);
    if (done.status !== 'running') throw new Error((await t.admin.deploymentLogs(deployment.id)).logs.map((l) => l.line).join('\n'));
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gets a public hostname from the root domain, and its port listens beyond loopback', async () => {
    expect(db.databasePublicHostname).to.match(/^db-[a-z0-9-]+\.berth\.test$/);
    expect(listening(db.hostPort!)).to.deep.equal([`0.0.0.0:${db.hostPort}`]);
  });

  it('reports TLS truthfully and serves the CA', async () => {
    const { tls } = await t.admin.databaseTls(db.id);
    expect(tls).to.deep.equal({ active: true, caCertAvailable: true, publicHostname: db.databasePublicHostname, publicPort: db.hostPort });
    const pem = await t.admin.databaseCaPem(db.id);
    expect(pem).to.match(/^-----BEGIN CERTIFICATE-----/);
    const raw = await t.admin.request('GET', `/api/services/${db.id}/database/tls/ca`);
    expect(raw.headers.get('content-type')).to.equal('application/x-pem-file');
  });

  it('psql verifies the server with the downloaded CA (verify-full, by public hostname; not by IP, shared by every tenant), and fails without it', async () => {
    const ca = join(dir, 'berth-ca.crt');
    writeFileSync(ca, await t.admin.databaseCaPem(db.id));
    const base = `user=app password=${password} dbname=app port=${db.hostPort}`;
    const byName = await psql(`host=${db.databasePublicHostname} hostaddr=127.0.0.1 ${base} sslmode=verify-full sslrootcert=${ca}`, 'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()');
    expect(byName).to.deep.equal({ ok: true, out: 't' });
    const byIp = await psql(`host=127.0.0.1 ${base} sslmode=verify-full sslrootcert=${ca}`, 'SELECT 1');
    expect(byIp.ok).to.equal(false);
    expect(byIp.out).to.match(/does not match host name/);
    // verify-ca (the CA's signature, no name) still works by IP
    expect(await psql(`host=127.0.0.1 ${base} sslmode=verify-ca sslrootcert=${ca}`, 'SELECT 1')).to.deep.equal({ ok: true, out: '1' });
    // the system's own CAs do not vouch for the Berth CA's certificate
    const otherCa = await psql(`host=${db.databasePublicHostname} hostaddr=127.0.0.1 ${base} sslmode=verify-full sslrootcert=/etc/ssl/certs/ca-certificates.crt`, 'SELECT 1');
    expect(otherCa.ok).to.equal(false);
    expect(otherCa.out).to.match(/certificate verify failed/);
    const wrongName = await psql(`host=other.example hostaddr=127.0.0.1 ${base} sslmode=verify-full sslrootcert=${ca}`, 'SELECT 1');
    expect(wrongName.ok).to.equal(false);
    expect(wrongName.out).to.match(/does not match host name/);
  });

  it('runs with logical replication on', async () => {
    const res = await t.admin.databaseQuery(db.id, 'SHOW wal_level');
    expect(res.rows).to.deep.equal([{ wal_level: 'logical' }]);
  });

  it('offers private and public connection variables to the other services', async () => {
    const { suggestions } = await t.admin.projectDatabaseVariableSuggestions(projectId);
    const keys = suggestions.filter((v) => v.dbType === 'postgres').map((v) => v.key);
    expect(keys).to.include.members(['POSTGRES_URL', 'DATABASE_URL', 'POSTGRES_PUBLIC_URL', 'DATABASE_PUBLIC_URL']);
  });

  it('an app container connects with ${db.POSTGRES_URL} over the project network', async () => {
    await t.admin.databaseQuery(db.id, 'CREATE TABLE pings (note text)');
    const repo = `acme/${uniq('pinger')}` as const;
    await git.commit(repo, {
      // the psql client of the stand-in image, as a worker that writes one row and stays up
      Dockerfile: `FROM ${requireDatabaseImages().BERTH_IMAGE_POSTGRES}\nENTRYPOINT []\nCMD ["sh", "-c", "until psql \\"$DB_URL\\" -c \\"INSERT INTO pings VALUES ('from the app')\\"; do sleep 1; done; exec sleep 100000"]\n`,
    });
    const { service: app } = await t.admin.createService(projectId, {
      name: 'pinger',
      repoFullName: repo,
      runtimeMode: 'worker',
      env: [{ key: 'DB_URL', value: '${db.POSTGRES_URL}' }],
    });
    const { deployment } = await t.admin.deploy(app.id);
    const done = await waitForDeployment(t.admin, app.id, deployment.id, ['running', 'failed'], 300_000);
    expect(done.status, (await t.admin.deploymentLogs(deployment.id)).logs.map((l) => l.line).join('\n')).to.equal('running');
    await until('the app to write its row', async () => (await t.admin.databaseQuery(db.id, 'SELECT note FROM pings')).rows.length > 0, 60_000);
    expect((await t.admin.databaseQuery(db.id, 'SELECT note FROM pings')).rows).to.deep.equal([{ note: 'from the app' }]);
  });

  it('keeps its data across a redeploy, and loses it only when the service is deleted', async () => {
    await t.admin.databaseQuery(db.id, 'CREATE TABLE kept (v text)');
    await t.admin.databaseQuery(db.id, "INSERT INTO kept VALUES ('survives')");
    const { deployment } = await t.admin.deploy(db.id);
    const done = await waitForDeployment(t.admin, db.id, deployment.id, ['running', 'failed'], 300_000);
    expect(done.status).to.equal('running');
    expect((await t.admin.databaseQuery(db.id, 'SELECT v FROM kept')).rows).to.deep.equal([{ v: 'survives' }]);
    const volume = `berth-data-${db.id}`;
    expect(docker('volume', 'ls', '-q', '--filter', `name=${volume}`)).to.equal(volume);
    await t.admin.deleteService(db.id);
    expect(docker('volume', 'ls', '-q', '--filter', `name=${volume}`)).to.equal('');
  });
});
