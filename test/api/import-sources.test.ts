// The import routes of the real daemon accept exactly what the engine capability table
// (shared/engines.ts) says, for every engine and every source: an import the table allows gets past
// every check but the last (the database is not running: 409), one it does not is refused with 400
// before anything starts, and a source the table does not name is no route at all. No database runs.
import { expect } from 'chai';
import { DATABASE_ENGINES } from '../../shared/constants.js';
import { ENGINE_CAPABILITIES, IMPORT_SOURCE_NAMES, IMPORT_SOURCES } from '../../shared/engines.js';
import type { DatabaseEngine, Project, Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';

type ErrorBody = { error: { code: string; message: string } };

describe('database imports follow the engine capability table', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let project: Project;
  const services = new Map<DatabaseEngine, Service>();
  const post = (serviceId: string, source: string, sourceUrl: string) => t.admin.request<ErrorBody>('POST', `/api/services/${serviceId}/database/import/${source}`, { sourceUrl });

  before(async () => {
    t = await startTestDaemon();
    ({ project } = await t.admin.createProject({ name: uniq('imports'), description: 'import sources' }));
    for (const engine of DATABASE_ENGINES) {
      const { service } = await t.admin.createService(project.id, {
        name: engine,
        repoFullName: `database:${engine}`,
        repoUrl: 'database',
        branch: 'main',
        internalPort: ENGINE_CAPABILITIES[engine].port,
        databasePublicEnabled: false,
        postgresLogicalReplicationEnabled: false,
        env: [],
      });
      services.set(engine, service);
    }
  });

  after(async () => {
    await t?.admin.deleteProject(project.id).catch(() => undefined);
    await t?.stop();
  });

  it('an import the table allows reaches the running check (409); one it does not is refused with 400', async () => {
    for (const engine of DATABASE_ENGINES) {
      for (const source of IMPORT_SOURCE_NAMES) {
        const url = `${IMPORT_SOURCES[source].schemes[0]}://user:pw@db.example.com:1234/0`;
        const res = await post(services.get(engine)!.id, source, url);
        const allowed = ENGINE_CAPABILITIES[engine].importSources.includes(source);
        expect(res.status, `${source} into ${engine}: ${JSON.stringify(res.body)}`).to.equal(allowed ? 409 : 400);
        if (allowed) expect(res.body.error.code).to.equal('database_unavailable');
      }
    }
    const { imports } = await t.admin.request<{ imports: unknown[] }>('GET', `/api/services/${services.get('postgres')!.id}/database/imports`).then((r) => r.body);
    expect(imports).to.deep.equal([]);
  });

  it('a source the table does not name is not a route', async () => {
    const res = await post(services.get('mysql')!.id, 'mysql-url', 'mysql://user:pw@db.example.com:3306/app');
    expect(res.status).to.equal(404);
  });
});
