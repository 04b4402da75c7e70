// Every tenant's database answers on the same addresses: 127.0.0.1, localhost and the server's
// public IP. A certificate from the Berth CA that named those would pass `verify-full` by IP for
// any tenant's database in place of another's (a tenant's database, or one it moved onto another's
// port, impersonating the victim's). Each service's certificate names only its own public
// hostname and its name on the project network: by IP, `verify-full` fails; by name it works.
// Real postgres containers, a selected-projects key, the certificate read over the wire.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import type { BerthClient } from '../../shared/client.js';
import type { Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImages } from '../helpers/databases.js';
import { uniq } from '../helpers/fixtures.js';
import { waitForDeployment } from '../helpers/wait.js';

/** The subjectAltName of the certificate the postgres server on `port` presents (after SSLRequest). */
async function serverNames(port: number): Promise<string> {
  const socket = tcpConnect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const request = Buffer.alloc(8);
  request.writeInt32BE(8, 0);
  request.writeInt32BE(80877103, 4); // SSLRequest
  socket.write(request);
  const answer = await new Promise<Buffer>((resolve, reject) => socket.once('data', resolve).once('error', reject));
  expect(answer.toString('latin1', 0, 1)).to.equal('S');
  const secure = tlsConnect({ socket, rejectUnauthorized: false });
  await new Promise<void>((resolve, reject) => secure.once('secureConnect', resolve).once('error', reject));
  const names = secure.getPeerCertificate().subjectaltname ?? '';
  secure.destroy();
  return names;
}

function psql(conninfo: string): Promise<{ ok: boolean; out: string }> {
  return new Promise((resolve) => {
    execFile('psql', [conninfo, '-tAc', 'SELECT 1'], { encoding: 'utf8', env: { ...process.env, PGCONNECT_TIMEOUT: '5' } }, (err, stdout, stderr) => {
      resolve({ ok: err === null, out: `${stdout}${stderr}`.trim() });
    });
  });
}

describe('hostile tenant: database certificates name only their own service', function () {
  this.timeout(300_000);
  let t: TestDaemon;
  let tenant: BerthClient;
  let db: Service;
  let password: string;
  let dir: string;

  before(async function () {
    this.timeout(900_000);
    const images = requireDatabaseImages();
    t = await startTestDaemon(images);
    dir = mkdtempSync(join(tmpdir(), 'berth-tls-names-'));
    await t.admin.patchSystemSettings({ rootDomain: 'apps.example.com' });
    const projectId = (await t.admin.createProject({ name: uniq('tls') })).project.id;
    tenant = await t.clientWith('write', [projectId]);
    db = (await tenant.createService(projectId, { name: 'db', repoFullName: 'database:postgres', databasePublicEnabled: true })).service;
    password = (await tenant.overview(db.id)).env.find((e) => e.key === 'POSTGRES_PASSWORD')!.value;
    const { deployment } = await tenant.deploy(db.id);
    const done = await waitForDeployment(tenant, db.id, deployment.id, ['running', 'failed'], 600_000);
    if (done.status !== 'running') throw new Error('postgres did not deploy');
    writeFileSync(join(dir, 'ca.crt'), await tenant.databaseCaPem(db.id));
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the certificate lists the public hostname and the project-network name, not 127.0.0.1, localhost or the public IP', async () => {
    const names = await serverNames(db.hostPort!);
    const { tls } = await tenant.databaseTls(db.id);
    expect(names).to.include(`DNS:${db.databasePublicHostname}`);
    expect(names).to.include(`DNS:${db.slug}`);
    expect(names).not.to.match(/IP Address:/);
    expect(names).not.to.include('localhost');
    expect(names).not.to.include('127.0.0.1');
    expect(tls.publicHostname).to.equal(db.databasePublicHostname);
  });

  it('verify-full by IP fails, by the public hostname it works', async () => {
    const base = `user=app password=${password} dbname=app port=${db.hostPort} sslrootcert=${join(dir, 'ca.crt')} sslmode=verify-full`;
    const byIp = await psql(`host=127.0.0.1 ${base}`);
    expect(byIp.ok, byIp.out).to.equal(false);
    expect(byIp.out).to.match(/does not match host name/);
    expect((await psql(`host=localhost ${base}`)).ok).to.equal(false);
    expect(await psql(`host=${db.databasePublicHostname} hostaddr=127.0.0.1 ${base}`)).to.deep.equal({ ok: true, out: '1' });
  });
});
