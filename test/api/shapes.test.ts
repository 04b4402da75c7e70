// Every endpoint's response, field for field, against the spec's tables.
import { expect } from 'chai';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeProjectWorld, uniq } from '../helpers/fixtures.js';
import { DATABASE_VARIABLE, DEPLOYMENT, DOMAIN, ENV_VAR, KEY, PROJECT, PROXY, SERVICE, SUGGESTION, expectShape } from '../helpers/shapes.js';

const ENGINE_DEFAULTS = {
  postgres: { port: 5432, keys: ['POSTGRES_DB', 'POSTGRES_USER', 'POSTGRES_PASSWORD'] },
  timescale: { port: 5432, keys: ['POSTGRES_DB', 'POSTGRES_USER', 'POSTGRES_PASSWORD', 'TIMESCALEDB_TELEMETRY'] },
  mysql: { port: 3306, keys: ['MYSQL_DATABASE', 'MYSQL_USER', 'MYSQL_PASSWORD', 'MYSQL_ROOT_PASSWORD'] },
  redis: { port: 6379, keys: ['REDIS_PASSWORD'] },
  mongodb: { port: 27017, keys: ['MONGO_INITDB_ROOT_USERNAME', 'MONGO_INITDB_ROOT_PASSWORD'] },
  clickhouse: { port: 8123, keys: ['CLICKHOUSE_DB', 'CLICKHOUSE_USER', 'CLICKHOUSE_PASSWORD', 'CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT'] },
} as const;

describe('response shapes', () => {
  let t: TestDaemon;
  before(async () => {
    t = await startTestDaemon();
  });
  after(async () => t.stop());

  it('GET /api/health is {ok: true, version}', async () => {
    expectShape(await t.anonymous.health(), { ok: { enum: [true] }, version: 'string' });
  });

  it('keys: POST gives {key, token}, GET gives {keys}, DELETE gives {ok}', async () => {
    const created = await t.admin.createKey({ name: 'shape', access: 'write', projects: 'all' });
    expectShape(created, { key: { object: KEY }, token: 'string' });
    expectShape(await t.admin.listKeys(), { keys: { array: KEY } });
    expect(await t.admin.revokeKey(created.key.id)).to.deep.equal({ ok: true });
  });

  it('POST /api/projects answers an idle project with no services', async () => {
    const res = await t.admin.createProject({ name: uniq('Shape Project'), description: 'd' });
    expectShape(res, { project: { object: PROJECT } });
    expect(res.project).to.include({ status: 'idle', serviceCount: 0, description: 'd' });
    expect(res.project.services).to.deep.equal([]);
  });

  it('GET /api/projects lists projects with their services', async () => {
    const w = await makeProjectWorld(t.admin);
    const res = await t.admin.listProjects();
    expectShape(res, { projects: { array: PROJECT } });
    const listed = res.projects.find((p) => p.id === w.project.id)!;
    expect(listed).to.include({ status: 'active', serviceCount: 3 });
    expect(listed.services.map((s) => s.name)).to.have.members(['db', 'web', 'worker']);
  });

  it('GET /api/projects/:projectSlug answers by slug and by id', async () => {
    const w = await makeProjectWorld(t.admin);
    const bySlug = await t.admin.getProject(w.project.slug);
    expectShape(bySlug, { project: { object: PROJECT } });
    expect(await t.admin.getProject(w.project.id)).to.deep.equal(bySlug);
  });

  it('PATCH /api/projects/:projectId updates name and description, keeps the slug, moves lastUpdatedAt', async () => {
    const { project } = await t.admin.createProject({ name: uniq('Before'), description: 'old' });
    await new Promise((r) => setTimeout(r, 5));
    const res = await t.admin.patchProject(project.id, { name: 'After', description: 'new' });
    expectShape(res, { project: { object: PROJECT } });
    expect(res.project).to.include({ name: 'After', description: 'new', slug: project.slug });
    expect(res.project.lastUpdatedAt > project.lastUpdatedAt).to.equal(true);
  });

  it('DELETE /api/projects/:projectId answers {ok, proxy}', async () => {
    const w = await makeProjectWorld(t.admin);
    const res = await t.admin.deleteProject(w.project.id);
    expectShape(res, { ok: { enum: [true] }, proxy: { object: PROXY } });
  });

  it('GET /api/projects/:projectId/database-variable-suggestions lists {key, value, label, dbType}', async () => {
    const w = await makeProjectWorld(t.admin);
    const res = await t.admin.projectDatabaseVariableSuggestions(w.project.id);
    expectShape(res, { suggestions: { array: DATABASE_VARIABLE } });
    expect(res.suggestions.map((s) => s.value)).to.include.members(['${db.POSTGRES_URL}', '${db.DATABASE_URL}']);
    expect(res.suggestions.every((s) => s.dbType === 'postgres')).to.equal(true);
  });

  describe('POST /api/projects/:projectId/services', () => {
    let projectId: string;
    before(async () => {
      projectId = (await t.admin.createProject({ name: uniq('kinds') })).project.id;
    });

    it('creates a git service from owner/name: idle, never deployed, local URLs on its host port', async () => {
      const res = await t.admin.createService(projectId, { name: 'api', repoFullName: 'acme/api', branch: 'main', internalPort: 3000, env: [] });
      expectShape(res, { service: { object: SERVICE } });
      const s = res.service;
      expect(s).to.include({ status: 'idle', lastDeployedAt: null, detectedBuildMethod: null, repoFullName: 'acme/api', repoUrl: null, buildMethod: 'auto' });
      expect(s.hostPort).to.be.a('number');
      expect(s.localUrl).to.equal(`http://127.0.0.1:${s.hostPort}`);
      expect(s.primaryUrl).to.equal(s.localUrl);
    });

    it('creates a git service from a direct URL with repoFullName null', async () => {
      const { service } = await t.admin.createService(projectId, {
        name: 'by-url',
        repoFullName: null,
        repoUrl: 'https://git.example.com/acme/site.git',
        branch: 'release',
        rootDir: 'apps/site',
        buildMethod: 'dockerfile',
        dockerfilePath: 'docker/Dockerfile',
        githubToken: 'ghp_secret',
      });
      expect(service).to.include({
        repoFullName: null,
        repoUrl: 'https://git.example.com/acme/site.git',
        branch: 'release',
        rootDir: 'apps/site',
        buildMethod: 'dockerfile',
        dockerfilePath: 'docker/Dockerfile',
        hasGithubToken: true,
      });
      expect(JSON.stringify(service)).not.to.include('ghp_secret');
    });

    it('creates an image service: repoFullName image:<ref>, repoUrl docker-image', async () => {
      const { service } = await t.admin.createService(projectId, {
        name: 'nginx',
        repoUrl: 'docker-image',
        dockerImage: 'nginx:1.27',
        branch: 'main',
        runtimeMode: 'web',
        internalPort: 80,
        env: [{ key: 'A', value: '1' }],
      });
      expectShape(service, SERVICE);
      expect(service).to.include({ repoFullName: 'image:nginx:1.27', repoUrl: 'docker-image', dockerImage: 'nginx:1.27', internalPort: 80, status: 'idle' });
    });

    for (const [engine, want] of Object.entries(ENGINE_DEFAULTS)) {
      it(`creates a ${engine} database with port ${want.port} and its initial variables`, async () => {
        const { service } = await t.admin.createService(projectId, {
          name: `db-${engine}`,
          repoFullName: `database:${engine}`,
          repoUrl: 'database',
          branch: 'main',
          internalPort: want.port,
          databasePublicEnabled: false,
          postgresLogicalReplicationEnabled: false,
          env: [],
        });
        expectShape(service, SERVICE);
        expect(service).to.include({ repoFullName: `database:${engine}`, repoUrl: 'database', internalPort: want.port, status: 'idle' });
        expect(service.hostPort).to.be.a('number');
        const { env } = await t.admin.overview(service.id);
        expect(env.map((e) => e.key)).to.deep.equal([...want.keys]);
        for (const e of env) expect(e.hasValue, e.key).to.equal(true);
      });
    }

    it('keeps database values the user gives and generates only the missing ones', async () => {
      const { service } = await t.admin.createService(projectId, {
        name: 'given-pg',
        repoFullName: 'database:postgres',
        repoUrl: 'database',
        env: [
          { key: 'POSTGRES_PASSWORD', value: 'chosen' },
          { key: 'EXTRA', value: 'x' },
        ],
      });
      const { env } = await t.admin.overview(service.id);
      const byKey = Object.fromEntries(env.map((e) => [e.key, e.value]));
      expect(byKey.POSTGRES_PASSWORD).to.equal('chosen');
      expect(byKey.EXTRA).to.equal('x');
      expect(byKey.POSTGRES_USER).to.be.a('string').and.not.equal('');
    });

    it('generates strong, distinct passwords for each database', async () => {
      const a = await t.admin.createService(projectId, { name: 'r1', repoFullName: 'database:redis', repoUrl: 'database' });
      const b = await t.admin.createService(projectId, { name: 'r2', repoFullName: 'database:redis', repoUrl: 'database' });
      const pa = (await t.admin.overview(a.service.id)).env[0]!.value;
      const pb = (await t.admin.overview(b.service.id)).env[0]!.value;
      expect(pa).to.have.length.of.at.least(20);
      expect(pa).not.to.equal(pb);
    });

    it('creates a worker with no internal port and no host port', async () => {
      const { service } = await t.admin.createService(projectId, { name: 'jobs', repoFullName: 'acme/jobs', runtimeMode: 'worker' });
      expectShape(service, SERVICE);
      expect(service).to.include({ runtimeMode: 'worker', internalPort: null, hostPort: null, localUrl: '', primaryUrl: '' });
    });

    it('creates a static site (staticOutput with internalPort 80, or runtimeMode static)', async () => {
      const a = await t.admin.createService(projectId, { name: 'site', repoFullName: 'acme/site', staticOutput: 'dist', internalPort: 80 });
      expect(a.service).to.include({ staticOutput: 'dist', internalPort: 80, runtimeMode: 'web' });
      const b = await t.admin.createService(projectId, { name: 'docs', repoFullName: 'acme/docs', runtimeMode: 'static', staticOutput: 'build' });
      expect(b.service).to.include({ runtimeMode: 'static', internalPort: 80, staticOutput: 'build' });
    });
  });

  it('GET /api/services/:serviceId/overview is {service, deployments, env, domains, publicIp}', async () => {
    const w = await makeProjectWorld(t.admin);
    const res = await t.admin.overview(w.web.id);
    expectShape(res, {
      service: { object: SERVICE },
      deployments: { array: DEPLOYMENT },
      env: { array: ENV_VAR },
      domains: { array: DOMAIN },
      publicIp: 'string',
    });
    expect(res.domains.map((d) => d.hostname)).to.deep.equal([w.domain.hostname]);
    expect(res.publicIp).to.match(/^\d+\.\d+\.\d+\.\d+$/);
  });

  it('PATCH /api/services/:serviceId answers {service} with the new values and updatedAt', async () => {
    const w = await makeProjectWorld(t.admin);
    await new Promise((r) => setTimeout(r, 5));
    const res = await t.admin.patchService(w.web.id, {
      branch: 'develop',
      rootDir: 'apps/web',
      buildCommand: 'npm run build',
      startCommand: 'node server.js',
      buildMethod: 'autobuild',
      dockerfilePath: 'Dockerfile.prod',
      runtimeMode: 'web',
      internalPort: 8080,
    });
    expectShape(res, { service: { object: SERVICE } });
    expect(res.service).to.include({
      branch: 'develop',
      rootDir: 'apps/web',
      buildCommand: 'npm run build',
      startCommand: 'node server.js',
      buildMethod: 'autobuild',
      dockerfilePath: 'Dockerfile.prod',
      internalPort: 8080,
    });
    expect(res.service.updatedAt > w.web.updatedAt).to.equal(true);
  });

  it('POST /api/services/:serviceId/transfer answers {service: {id, projectId, name, slug}, project, proxy}', async () => {
    const from = await makeProjectWorld(t.admin);
    const { project: target } = await t.admin.createProject({ name: uniq('target') });
    const { service } = await t.admin.createService(from.project.id, { name: 'lonely', repoFullName: 'acme/lonely' });
    const res = await t.admin.transferService(service.id, target.id);
    expectShape(res, {
      service: { object: { id: 'string', projectId: 'string', name: 'string', slug: 'string' } },
      project: { object: { id: 'string', name: 'string', slug: 'string', serviceCount: 'integer', services: { array: SERVICE } } },
      proxy: { object: PROXY },
    });
    expect(res.service.projectId).to.equal(target.id);
    expect(res.project).to.include({ id: target.id, serviceCount: 1 });
  });

  it('DELETE /api/services/:serviceId answers {ok, proxy}', async () => {
    const w = await makeProjectWorld(t.admin);
    expectShape(await t.admin.deleteService(w.worker.id), { ok: { enum: [true] }, proxy: { object: PROXY } });
  });

  it('GET /api/services/:serviceId/suggestion-keys has hostPort and <service>.<VARIABLE> forms', async () => {
    const w = await makeProjectWorld(t.admin);
    const res = await t.admin.suggestionKeys(w.web.id);
    expectShape(res, { suggestions: { array: SUGGESTION }, databaseVariables: { array: DATABASE_VARIABLE } });
    const keys = res.suggestions.map((s) => s.key);
    expect(keys).to.include.members(['hostPort', 'db.POSTGRES_URL', 'db.DATABASE_URL', 'db.POSTGRES_PASSWORD']);
    expect(res.databaseVariables.map((d) => d.value)).to.include('${db.DATABASE_URL}');
  });

  it('env: POST and DELETE answer {ok: true}', async () => {
    const w = await makeProjectWorld(t.admin);
    expect(await t.admin.setEnv(w.web.id, 'PLAIN', 'x')).to.deep.equal({ ok: true });
    expect(await t.admin.deleteEnv(w.web.id, w.env.id)).to.deep.equal({ ok: true });
  });

  it('domains: POST answers {ok, proxy, domain}; PATCH and DELETE answer {ok, proxy}', async () => {
    const w = await makeProjectWorld(t.admin);
    const created = await t.admin.addDomain(w.web.id, `${uniq('shape')}.example.com`);
    expectShape(created, { ok: { enum: [true] }, proxy: { object: PROXY }, domain: { object: DOMAIN } });
    expectShape(await t.admin.patchDomain(w.web.id, created.domain.id, `${uniq('shape2')}.example.com`), { ok: { enum: [true] }, proxy: { object: PROXY } });
    expectShape(await t.admin.deleteDomain(w.web.id, created.domain.id), { ok: { enum: [true] }, proxy: { object: PROXY } });
  });

  it('GET /api/services/:serviceId/deployments is {deployments: []} before any deploy', async () => {
    const w = await makeProjectWorld(t.admin);
    expect(await t.admin.listDeployments(w.web.id)).to.deep.equal({ deployments: [] });
  });

  it('errors are {error: {code, message}} for unknown routes too', async () => {
    const res = await t.admin.request('GET', '/api/nope');
    expect(res.status).to.equal(404);
    expectShape(res.body, { error: { object: { code: 'string', message: 'string' } } });
  });
});
