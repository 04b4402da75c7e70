// Projects and services over their life: slugs, host ports, patching, moving and deleting, and
// everything that belongs to a project leaving with it.
import { expect } from 'chai';
import knexFactory from 'knex';
import { join } from 'node:path';
import type { ApiError } from '../../shared/client.js';
import { DB_FILE } from '../../daemon/store/open.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeProjectWorld, uniq } from '../helpers/fixtures.js';
import { snapshotStore } from '../helpers/snapshot.js';

describe('projects and services', () => {
  let t: TestDaemon;
  before(async () => {
    t = await startTestDaemon();
  });
  after(async () => t.stop());

  describe('slugs', () => {
    it('derive from the name, unique among projects', async () => {
      const name = uniq('Acme Shop');
      const a = await t.admin.createProject({ name });
      const b = await t.admin.createProject({ name });
      expect(a.project.slug).to.equal(name.toLowerCase().replace(/ /g, '-'));
      expect(b.project.slug).to.equal(`${a.project.slug}-2`);
    });

    it('turn unicode into ASCII words, with a fallback when nothing is left', async () => {
      expect((await t.admin.createProject({ name: `Crème Brûlée ${uniq('x')}` })).project.slug).to.match(/^creme-brulee-x-[0-9a-f]{8}$/);
      expect((await t.admin.createProject({ name: '日本語 🚀' })).project.slug).to.match(/^project(-\d+)?$/);
    });

    it('are unique within a project but may repeat across projects', async () => {
      const a = await makeProjectWorld(t.admin);
      const b = await makeProjectWorld(t.admin);
      expect(a.web.slug).to.equal('web');
      expect(b.web.slug).to.equal('web');
      const { service } = await t.admin.createService(a.project.id, { name: 'Web!', repoFullName: 'acme/web2' });
      expect(service.slug).to.equal('web-2');
    });

    it('stay unchanged when a project or a service is renamed', async () => {
      const w = await makeProjectWorld(t.admin);
      const { project } = await t.admin.patchProject(w.project.id, { name: 'Totally New' });
      expect(project.slug).to.equal(w.project.slug);
      const { service } = await t.admin.patchService(w.web.id, { name: 'frontend' });
      expect(service).to.include({ name: 'frontend', slug: 'web' });
    });

    it('service names are unique within a project (409)', async () => {
      const w = await makeProjectWorld(t.admin);
      const err = await t.admin.createService(w.project.id, { name: 'web', repoFullName: 'acme/dup' }).catch((e: ApiError) => e);
      expect((err as ApiError).status).to.equal(409);
      const rename = await t.admin.patchService(w.worker.id, { name: 'web' }).catch((e: ApiError) => e);
      expect((rename as ApiError).status).to.equal(409);
    });
  });

  describe('host ports', () => {
    it('are unique, inside BERTH_PORT_RANGE, and released when a service is deleted', async () => {
      const w = await makeProjectWorld(t.admin);
      const { projects } = await t.admin.listProjects();
      const ports = projects.flatMap((p) => p.services.map((s) => s.hostPort)).filter((p): p is number => p !== null);
      expect(new Set(ports).size).to.equal(ports.length);
      const freed = w.web.hostPort!;
      await t.admin.deleteService(w.web.id);
      const { service } = await t.admin.createService(w.project.id, { name: uniq('reuse'), repoFullName: 'acme/reuse' });
      expect(service.hostPort).to.equal(freed);
    });

    it('skip a port something else on the host already listens on', async () => {
      const { createServer } = await import('node:net');
      const { project } = await t.admin.createProject({ name: uniq('busy') });
      const probe = await t.admin.createService(project.id, { name: 'probe', repoFullName: 'acme/probe' });
      const next = probe.service.hostPort!;
      await t.admin.deleteService(probe.service.id);
      const squatter = createServer();
      await new Promise<void>((r) => squatter.listen(next, '127.0.0.1', () => r()));
      try {
        const { service } = await t.admin.createService(project.id, { name: 'after', repoFullName: 'acme/after' });
        expect(service.hostPort).not.to.equal(next);
      } finally {
        squatter.close();
      }
    });

    it('a database keeps its port; switching a worker back to web allocates one', async () => {
      const w = await makeProjectWorld(t.admin);
      expect(w.worker.hostPort).to.equal(null);
      const { service } = await t.admin.patchService(w.worker.id, { runtimeMode: 'web', internalPort: 8080 });
      expect(service.internalPort).to.equal(8080);
      expect(service.hostPort).to.be.a('number');
    });
  });

  describe('project status', () => {
    it('is idle with no services and active with some', async () => {
      const { project } = await t.admin.createProject({ name: uniq('status') });
      expect(project.status).to.equal('idle');
      await t.admin.createService(project.id, { name: 'one', repoFullName: 'acme/one' });
      const { project: after } = await t.admin.getProject(project.id);
      expect(after).to.include({ status: 'active', serviceCount: 1 });
    });
  });

  describe('transfer', () => {
    it('moves the service with its variables and domains; source and target counts follow', async () => {
      const from = await makeProjectWorld(t.admin);
      const { project: target } = await t.admin.createProject({ name: uniq('target') });
      const { service } = await t.admin.createService(from.project.id, { name: 'mover', repoFullName: 'acme/mover', env: [{ key: 'K', value: 'v' }] });
      await t.admin.addDomain(service.id, `${uniq('mover')}.example.com`);
      const res = await t.admin.transferService(service.id, target.id);
      expect(res.project.services.map((s) => s.id)).to.deep.equal([service.id]);
      const overview = await t.admin.overview(service.id);
      expect(overview.service.projectId).to.equal(target.id);
      expect(overview.env.map((e) => e.key)).to.deep.equal(['K']);
      expect(overview.domains).to.have.length(1);
      expect((await t.admin.getProject(from.project.id)).project.serviceCount).to.equal(3);
    });

    it('refuses a move that would break references, on either side (409, nothing moves)', async () => {
      const from = await makeProjectWorld(t.admin);
      const { project: target } = await t.admin.createProject({ name: uniq('target') });
      const before = await snapshotStore(t.dataDir);
      const dbMove = await t.admin.transferService(from.db.id, target.id).catch((e: ApiError) => e);
      expect((dbMove as ApiError).status).to.equal(409);
      expect((dbMove as ApiError).message).to.include('web');
      const webMove = await t.admin.transferService(from.web.id, target.id).catch((e: ApiError) => e);
      expect((webMove as ApiError).status).to.equal(409);
      expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    });

    it('a name taken in the target project is a 409', async () => {
      const a = await makeProjectWorld(t.admin);
      const b = await makeProjectWorld(t.admin);
      const err = await t.admin.transferService(a.worker.id, b.project.id).catch((e: ApiError) => e);
      expect((err as ApiError).status).to.equal(409);
    });
  });

  describe('delete', () => {
    it('a project takes its services, variables, domains, deployments and logs with it', async () => {
      const w = await makeProjectWorld(t.admin);
      const keep = await makeProjectWorld(t.admin);
      // Deployments cannot be created through the API yet: write a deployment and its log lines
      // straight into the store, as the deployment runner will.
      const knex = knexFactory({ client: 'sqlite3', connection: { filename: join(t.dataDir, DB_FILE) }, useNullAsDefault: true });
      const now = new Date().toISOString();
      try {
        await knex('deployments').insert({ id: `dep-${w.web.id}`, service_id: w.web.id, status: 'running', trigger: 'manual', created_at: now });
        await knex('deployment_logs').insert([
          { deployment_id: `dep-${w.web.id}`, line: 'one', stream: 'stdout', created_at: now },
          { deployment_id: `dep-${w.web.id}`, line: 'two', stream: 'stdout', created_at: now },
        ]);
      } finally {
        await knex.destroy();
      }
      expect((await t.admin.listDeployments(w.web.id)).deployments).to.have.length(1);

      await t.admin.deleteProject(w.project.id);

      const after = await snapshotStore(t.dataDir);
      const ids = [w.project.id, w.web.id, w.db.id, w.worker.id, `dep-${w.web.id}`];
      expect(JSON.stringify(after)).not.to.match(new RegExp(ids.join('|')));
      expect(JSON.stringify(after)).to.include(keep.web.id);
      const res = await t.admin.request('GET', `/api/services/${w.web.id}/overview`);
      expect(res.status).to.equal(404);
      // the domain's hostname is free again
      await t.admin.addDomain(keep.web.id, w.domain.hostname);
    });

    it('a service takes its variables and domains with it; its project stays', async () => {
      const w = await makeProjectWorld(t.admin);
      await t.admin.deleteService(w.web.id);
      const after = JSON.stringify(await snapshotStore(t.dataDir));
      expect(after).not.to.include(w.web.id);
      expect(after).not.to.include(w.domain.hostname);
      expect((await t.admin.getProject(w.project.id)).project.serviceCount).to.equal(2);
    });
  });
});
