// POST /api/projects/:projectId/compose through the real daemon: dry runs answer the plan and
// store nothing; bad input is a 4xx naming what is wrong and changes nothing; an import creates
// the services all or nothing (the quota is checked for the whole plan first, a failure half-way
// removes what was created).
import { expect } from 'chai';
import { ApiError } from '../../shared/client.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';
import { snapshotStore } from '../helpers/snapshot.js';

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, 'the request should have failed').to.be.instanceOf(ApiError);
  return err as ApiError;
}

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
});
