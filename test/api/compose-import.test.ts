// POST /api/projects/:projectId/compose through the real daemon: dry runs answer the plan and
// store nothing; bad input is a 4xx naming what is wrong and changes nothing; an import creates
// the services all or nothing (the quota is checked for the whole plan first, a failure half-way
// removes what was created).
import { expect } from 'chai';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';
import { refusal } from '../helpers/hostile-checks.js';
import { snapshotStore } from '../helpers/snapshot.js';

const APP = `
services:
  web:
    image: nginx:1.27
    ports: ["8080:80"]
    environment:
      DATABASE_URL: postgres://app:pw@db:5432/app
      CACHE_HOST: cache
    depends_on:
      db: { condition: service_healthy }
      cache: { condition: service_started }
    volumes: [site:/usr/share/nginx/html]
  db:
    image: postgres:16
    environment: { POSTGRES_USER: app, POSTGRES_PASSWORD: pw, POSTGRES_DB: app }
    healthcheck: { test: ["CMD-SHELL", "pg_isready -U app"], interval: 5s }
  cache:
    image: redis:7-alpine
volumes:
  site:
`;

describe('compose import (API)', () => {
  let t: TestDaemon;
  let projectId: string;
  before(async () => {
    t = await startTestDaemon();
    projectId = (await t.admin.createProject({ name: uniq('compose'), description: '' })).project.id;
  });
  after(async () => t.stop());

  it('a dry run answers the plan (databases first, env references, volumes) and stores nothing', async () => {
    const before = await snapshotStore(t.dataDir);
    const plan = await t.admin.importCompose(projectId, { compose: APP, dryRun: true });
    expect(plan.order).to.deep.equal(['db', 'cache', 'web']);
    expect(plan.services.map((s) => [s.service, s.becomes])).to.deep.equal([
      ['web', 'image'],
      ['db', 'database:postgres'],
      ['cache', 'database:redis'],
    ]);
    const web = plan.services[0]!.berthService!;
    expect(web.input).to.include({ dockerImage: 'nginx:1.27', internalPort: 80, runtimeMode: 'web' });
    expect(web.input.volumes).to.deep.equal([{ name: 'site', mountPath: '/usr/share/nginx/html', readOnly: false }]);
    expect(web.env).to.deep.equal([
      { key: 'DATABASE_URL', value: '${db.DATABASE_URL}' },
      { key: 'CACHE_HOST', value: '${cache.PRIVATE_HOST}' },
    ]);
    expect(web.dependsOn).to.deep.equal([
      { service: 'db', condition: 'service_healthy' },
      { service: 'cache', condition: 'service_started' },
    ]);
    expect(web.generatedName).to.equal(true);
    expect(plan.unsupported).to.deep.equal([]);
    expect(plan.mapped).to.deep.equal(['services', 'volumes']);
    expect(plan.created).to.equal(undefined);
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
  });

  it('plainImages keeps a known database image as a plain image service', async () => {
    const plan = await t.admin.importCompose(projectId, { compose: APP, dryRun: true, plainImages: ['cache'] });
    const cache = plan.services.find((s) => s.service === 'cache')!;
    expect(cache.becomes).to.equal('image');
    expect(cache.berthService!.input).to.include({ dockerImage: 'redis:7-alpine', runtimeMode: 'worker' });
    const refused = await refusal(t.admin.importCompose(projectId, { compose: APP, dryRun: true, plainImages: ['nope'] }));
    expect(refused.status).to.equal(400);
    expect(refused.message).to.include('plainImages');
  });

  it('lists the gallery: at least 8 templates, each with a compose file and its variables', async () => {
    const { templates } = await t.admin.listTemplates();
    expect(templates.length).to.be.at.least(8);
    for (const tpl of templates) {
      expect(tpl.compose).to.include('services:');
      expect(tpl.name).to.be.a('string').and.not.equal('');
      expect(tpl.variables).to.be.an('array');
    }
  });

  describe('bad input: a 4xx naming what is wrong, and nothing changed', () => {
    const cases: { name: string; body: Record<string, unknown>; status: number; names: string }[] = [
      { name: 'invalid YAML', body: { compose: 'services:\n  web:\n    image: [a\n' }, status: 400, names: 'line' },
      { name: 'a depends_on cycle', body: { compose: 'services:\n  a:\n    image: app\n    depends_on: [b]\n  b:\n    image: img2\n    depends_on: [a]\n' }, status: 400, names: 'a -> b -> a' },
      { name: 'a file over the cap', body: { compose: `services: {}\n#${'x'.repeat(300 * 1024)}` }, status: 400, names: '256 KiB' },
      { name: 'a required variable not set', body: { compose: 'services:\n  a:\n    image: app\n    environment: { K: "${SECRET:?set SECRET}" }\n' }, status: 400, names: 'SECRET' },
      { name: 'an image named by its ID', body: { compose: 'services:\n  a:\n    image: abc123\n' }, status: 400, names: 'services.a.image' },
      { name: 'no services', body: { compose: 'volumes: {}\n' }, status: 400, names: 'services' },
      { name: 'an unknown template', body: { template: 'no-such-app' }, status: 404, names: 'no-such-app' },
      { name: "a template's required variable missing", body: { template: 'plausible' }, status: 400, names: 'BASE_URL' },
      { name: 'a variable the template does not have', body: { template: 'umami', variables: { NOPE: '1' } }, status: 400, names: 'NOPE' },
      { name: 'both compose and template', body: { template: 'umami', compose: 'services: {}' }, status: 400, names: 'template' },
      { name: 'neither compose nor template', body: {}, status: 400, names: 'compose' },
      { name: 'a wrong type', body: { compose: 12 }, status: 400, names: 'compose' },
    ];
    for (const c of cases) {
      it(`${c.name}: ${c.status}`, async () => {
        const before = await snapshotStore(t.dataDir);
        const err = await refusal(t.admin.importCompose(projectId, c.body as never));
        expect(err.status).to.equal(c.status);
        expect(err.message).to.include(c.names);
        expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
      });
    }
  });

  it('a read key gets 403 and a key outside the project 404, even for a dry run', async () => {
    const reader = await t.clientWith('read', 'all');
    expect((await refusal(reader.importCompose(projectId, { compose: APP, dryRun: true }))).status).to.equal(403);
    const other = (await t.admin.createProject({ name: uniq('other'), description: '' })).project.id;
    const outsider = await t.clientWith('write', [other]);
    expect((await refusal(outsider.importCompose(projectId, { compose: APP, dryRun: true }))).status).to.equal(404);
  });

  it('a failure half-way removes the services the import had created and answers the error', async () => {
    const project = (await t.admin.createProject({ name: uniq('halfway'), description: '' })).project.id;
    const before = await snapshotStore(t.dataDir);
    // the database is created first; the app's CPU limit passes the plan and is refused by the service rules
    const compose = 'services:\n  app:\n    image: app\n    depends_on: [db]\n    cpus: 100000\n  db:\n    image: postgres:16\n';
    const err = await refusal(t.admin.importCompose(project, { compose }));
    expect(err.status).to.equal(400);
    expect(err.message).to.include('stopped at app').and.include('cpus').and.include('were removed');
    expect((await t.admin.getProject(project)).project.services).to.deep.equal([]);
    const after = await snapshotStore(t.dataDir);
    expect(after.services).to.deep.equal(before.services);
    expect(after.env_vars).to.deep.equal(before.env_vars);
  });

  it('the whole plan must fit the project quota: 409 quota_exceeded and nothing created', async () => {
    const project = (await t.admin.createProject({ name: uniq('quota'), description: '' })).project.id;
    await t.admin.patchProjectQuotas(project, { maxServices: 2 });
    const err = await refusal(t.admin.importCompose(project, { compose: APP }));
    expect(err.status).to.equal(409);
    expect(err.code).to.equal('quota_exceeded');
    expect((await t.admin.getProject(project)).project.services).to.deep.equal([]);
  });
});
