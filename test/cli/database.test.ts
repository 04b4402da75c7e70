// `berth db` and `berth backup` against a real PostgreSQL (the stand-in image) run by a real
// daemon: queries as a table, CSV and JSON; an import from a second PostgreSQL with --wait; a
// backup created with --wait, downloaded byte for byte, and restored with --yes.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Backup, BackupSettings, DataImport, DatabaseQueryResult, DatabaseTable, Service } from '../../shared/types.js';
import { cliHome, type CliHome } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImages } from '../helpers/databases.js';
import { docker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { until, waitForDeployment } from '../helpers/wait.js';

describe('berth db and berth backup, on a real PostgreSQL service', function () {
  this.timeout(240_000);
  let t: TestDaemon;
  let cli: CliHome;
  let db: Service;
  let env: Record<string, string>;
  let projectId: string;
  const containers: string[] = [];

  before(async function () {
    this.timeout(900_000);
    t = await startTestDaemon(requireDatabaseImages());
    const { project } = await t.admin.createProject({ name: uniq('cli-db') });
    projectId = project.id;
    db = (await t.admin.createService(project.id, { name: 'pg', repoFullName: 'database:postgres' })).service;
    const { deployment } = await t.admin.deploy(db.id);
    const done = await waitForDeployment(t.admin, db.id, deployment.id, ['running', 'failed'], 600_000);
    if (done.status !== 'running') throw new Error((await t.admin.deploymentLogs(deployment.id)).logs.map((l) => l.line).join('\n'));
    const { token } = await t.admin.createKey({ name: 'cli', access: 'write', projects: [project.id] });
    env = { BERTH_SERVER: t.url, BERTH_TOKEN: token };
    cli = cliHome();
  });
  after(async () => {
    for (const c of containers) spawnSync('docker', ['rm', '-f', c], { stdio: 'ignore' });
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    cli?.remove();
  });

  it('db query runs SQL and prints a table, CSV (quoted as RFC 4180 says) or JSON; db tables lists the table; bad SQL exits 1', async () => {
    const create = await cli.run(['db', 'query', 'pg', 'CREATE TABLE notes (id int PRIMARY KEY, body text)'], { env });
    expect(create.code, create.stderr).to.equal(0);
    const insert = await cli.run(['db', 'query', 'pg'], { env, input: `INSERT INTO notes VALUES (1, 'plain'), (2, 'a, "quoted" one'), (3, NULL)` });
    expect(insert.code, insert.stderr).to.equal(0);

    const csv = await cli.run(['db', 'query', 'pg', 'SELECT id, body FROM notes ORDER BY id', '--csv'], { env });
    expect(csv.code, csv.stderr).to.equal(0);
    expect(csv.stdout).to.equal('id,body\n1,plain\n2,"a, ""quoted"" one"\n3,\n');

    const human = await cli.run(['db', 'query', 'pg', 'SELECT id, body FROM notes ORDER BY id'], { env });
    expect(human.stdout.split('\n')[0]).to.match(/^id\s+body$/);
    expect(human.stderr).to.include('(3 rows)');

    const json = await cli.run(['db', 'query', 'pg', 'SELECT id, body FROM notes ORDER BY id', '--json'], { env });
    const [result] = json.json<DatabaseQueryResult>();
    expect(result!.rows).to.deep.equal([
      { id: 1, body: 'plain' },
      { id: 2, body: 'a, "quoted" one' },
      { id: 3, body: null },
    ]);

    const tables = await cli.run(['db', 'tables', db.id, '--json'], { env });
    expect(tables.code, tables.stderr).to.equal(0);
    expect(tables.json<DatabaseTable>().map((x) => x.name)).to.include('notes');

    const bad = await cli.run(['db', 'query', 'pg', 'SELECT * FROM no_such_table'], { env });
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include('no_such_table');
  });

  it('db import --wait copies a second PostgreSQL (URL from stdin, never printed), prints its log, and lists it; a bad password exits 1; an unknown scheme exits 2 and starts nothing', async () => {
    const name = uniq('berth-test-cli-src');
    const password = `pw-${randomBytes(8).toString('hex')}`;
    containers.push(name);
    docker(
      'run',
      '-d',
      '--name',
      name,
      '--network',
      `berth-${projectId}`,
      '-e',
      `POSTGRES_PASSWORD=${password}`,
      '-e',
      'POSTGRES_USER=src',
      '-e',
      'POSTGRES_DB=srcdb',
      requireDatabaseImages().BERTH_IMAGE_POSTGRES!,
    );
    // over TCP: the image's first start answers on its socket from an init server that then restarts
    const psql = ['exec', '-e', `PGPASSWORD=${password}`, name, 'psql', '-h', '127.0.0.1', '-U', 'src', '-d', 'srcdb', '-v', 'ON_ERROR_STOP=1', '-c'];
    await until('the source to answer', async () => spawnSync('docker', [...psql, 'SELECT 1'], { stdio: 'ignore' }).status === 0, 120_000, 500);
    docker(...psql, "CREATE TABLE migrated (id int PRIMARY KEY, v text); INSERT INTO migrated VALUES (1, 'from the old server')");

    const unknown = await cli.run(['db', 'import', 'pg', 'mysql://src@elsewhere/srcdb'], { env });
    expect(unknown.code, unknown.stderr).to.equal(2);
    expect(unknown.stderr).to.include('postgres://');
    expect((await t.admin.listImports(db.id)).imports).to.deep.equal([]);

    const url = `postgresql://src:${password}@${name}:5432/srcdb`;
    const run = await cli.run(['db', 'import', 'pg', '--wait', '--json'], { env, input: `${url}\n`, timeoutMs: 200_000 });
    expect(run.code, run.stderr).to.equal(0);
    const [done] = run.json<DataImport>();
    expect(done).to.include({ status: 'succeeded', source: 'postgres-url', sourceLabel: `postgresql://***@${name}:5432/srcdb` });
    expect(run.stderr).to.match(/Importing from postgresql:\/\/\*\*\*@/);
    expect(run.stdout + run.stderr).not.to.include(password);
    expect((await t.admin.databaseQuery(db.id, 'SELECT v FROM migrated')).rows).to.deep.equal([{ v: 'from the old server' }]);

    const listed = await cli.run(['db', 'imports', 'pg'], { env });
    expect(listed.code, listed.stderr).to.equal(0);
    expect(listed.stdout).to.match(new RegExp(`^${done!.id}\\s+succeeded\\s+postgresql://\\*\\*\\*@`, 'm'));

    const wrong = await cli.run(['db', 'import', 'pg', `postgresql://src:not-${password}@${name}:5432/srcdb`, '--wait'], { env, timeoutMs: 200_000 });
    expect(wrong.code).to.equal(1);
    expect(wrong.stderr).to.match(/Import failed: .*password authentication failed/);
    expect(wrong.stderr).to.match(/berth: import \S+ failed \(its log is above\)/);
    const quiet = await cli.run(['db', 'import', 'pg', `postgresql://src:not-${password}@${name}:5432/srcdb`, '--wait', '--quiet'], { env, timeoutMs: 200_000 });
    expect(quiet.code).to.equal(1);
    expect(quiet.stderr.trim()).to.match(/^berth: import \S+ failed: .*password authentication failed/);
    expect((await t.admin.listImports(db.id)).imports.map((i) => i.status)).to.deep.equal(['failed', 'failed', 'succeeded']);
  });

  it('backup create --wait ends succeeded; download writes the exact bytes; restore --yes brings the data back', async () => {
    await t.admin.databaseQuery(db.id, 'CREATE TABLE IF NOT EXISTS kept (v text)');
    await t.admin.databaseQuery(db.id, "INSERT INTO kept VALUES ('before the backup')");

    const created = await cli.run(['backup', 'create', 'pg', '--wait', '--json'], { env, timeoutMs: 200_000 });
    expect(created.code, created.stderr).to.equal(0);
    const [backup] = created.json<Backup>();
    expect(backup!.status).to.equal('succeeded');
    expect((await t.admin.listBackups(db.id)).backups.find((b) => b.id === backup!.id)!.status).to.equal('succeeded');

    const listed = await cli.run(['backup', 'list', 'pg', '--json'], { env });
    expect(listed.json<Backup>().map((b) => b.id)).to.include(backup!.id);

    const file = join(cli.cwd, 'pg.backup');
    const dl = await cli.run(['backup', 'download', 'pg', backup!.id, '-o', file], { env });
    expect(dl.code, dl.stderr).to.equal(0);
    const bytes = readFileSync(file);
    expect(bytes.length).to.equal(backup!.sizeBytes);
    expect(`sha256:${createHash('sha256').update(bytes).digest('hex')}`).to.equal(backup!.checksum);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    const again = await cli.run(['backup', 'download', 'pg', backup!.id, '-o', file], { env });
    expect(again.code, 'an existing file is not overwritten').to.equal(1);

    await t.admin.databaseQuery(db.id, "UPDATE kept SET v = 'changed'");
    const refused = await cli.run(['backup', 'restore', 'pg', backup!.id], { env });
    expect(refused.code).to.equal(2);
    expect((await t.admin.databaseQuery(db.id, 'SELECT v FROM kept')).rows).to.deep.equal([{ v: 'changed' }]);
    const restored = await cli.run(['backup', 'restore', 'pg', backup!.id, '--yes'], { env, timeoutMs: 200_000 });
    expect(restored.code, restored.stderr).to.equal(0);
    expect((await t.admin.databaseQuery(db.id, 'SELECT v FROM kept')).rows).to.deep.equal([{ v: 'before the backup' }]);
  });

  it('backup verify --wait ends verified with the counts; the list shows it; schedule takes --verify-schedule and the GFS counts', async () => {
    await t.admin.databaseQuery(db.id, 'CREATE TABLE IF NOT EXISTS tested (v text)');
    const { backup } = await t.admin.createBackup(db.id, 'disk');
    await until('the backup', async () => (await t.admin.listBackups(db.id)).backups.find((b) => b.id === backup.id && b.status === 'succeeded'), 120_000, 250);
    const verified = await cli.run(['backup', 'verify', 'pg', backup.id, '--wait', '--json'], { env, timeoutMs: 200_000 });
    expect(verified.code, verified.stderr).to.equal(0);
    const [shown] = verified.json<Backup>();
    expect(shown!.verification).to.include({ status: 'verified', error: null });
    expect(shown!.verification!.tables).to.be.greaterThan(0);
    const text = await cli.run(['backup', 'verify', 'pg', backup.id, '--wait'], { env, timeoutMs: 200_000 });
    expect(text.stdout + text.stderr).to.match(/verified · \d+ tables?, [\d,]+ rows?/);
    const listed = await cli.run(['backup', 'list', 'pg'], { env });
    expect(listed.stdout).to.match(new RegExp(`${backup.id}.*verified · `));
    expect((await cli.run(['backup', 'verify', 'pg', 'no-such-backup'], { env })).code).to.equal(1);

    const set = await cli.run(['backup', 'schedule', 'pg', '--verify-schedule', '0 4 * * *', '--gfs-daily', '7', '--gfs-monthly', '12', '--json'], { env });
    expect(set.code, set.stderr).to.equal(0);
    expect(set.json<BackupSettings>()[0]).to.deep.include({ verifySchedule: '0 4 * * *', gfs: { hourly: null, daily: 7, weekly: null, monthly: 12 } });
    const more = await cli.run(['backup', 'schedule', 'pg', '--gfs-weekly', '4', '--gfs-daily', 'off'], { env });
    expect(more.code, more.stderr).to.equal(0);
    expect(more.stdout).to.match(/^gfs +hourly -, daily -, weekly 4, monthly 12/m);
    expect(more.stdout).to.match(/^restore +tests the newest backup at "0 4 \* \* \*" \(UTC\)$/m);
    expect((await cli.run(['backup', 'schedule', 'pg', '--verify-schedule', 'every day'], { env })).code).to.equal(1);
    const off = await cli.run(['backup', 'schedule', 'pg', '--verify-schedule', 'off', '--no-gfs', '--json'], { env });
    expect(off.json<BackupSettings>()[0]).to.deep.include({ verifySchedule: null, gfs: null });
  });

  it('backup schedule shows the settings and changes only the options given', async () => {
    const before = (await t.admin.listBackups(db.id)).settings;
    const set = await cli.run(['backup', 'schedule', 'pg', '--daily', 'on', '--keep-daily', '3', '--json'], { env });
    expect(set.code, set.stderr).to.equal(0);
    const [settings] = set.json<BackupSettings>();
    expect(settings).to.deep.include({ dailyEnabled: true, keepDaily: 3, weeklyEnabled: before.weeklyEnabled, keepWeekly: before.keepWeekly, storage: before.storage });
    expect((await t.admin.listBackups(db.id)).settings).to.deep.include({ dailyEnabled: true, keepDaily: 3 });
    const shown = await cli.run(['backup', 'schedule', 'pg'], { env });
    expect(shown.stdout).to.match(/^daily +on, keep 3$/m);
    expect((await cli.run(['backup', 'schedule', 'pg', '--daily', 'maybe'], { env })).code).to.equal(2);
  });
});
