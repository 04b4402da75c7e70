// Bad input for every mutating endpoint: malformed JSON, wrong types, missing fields, unknown enum
// values, invalid env keys and references, unsafe sources, invalid hostnames, absurdly long strings,
// bodies over the limit, unknown ids. Each request must get a 4xx `{error: {code, message}}` and
// leave the store exactly as it was (checked through a separate SQLite connection).
// The cases and their fixtures: test/helpers/bad-input-cases.ts.
import { expect } from 'chai';
import type { RawResponse } from '../../shared/client.js';
import { cases, createFixtures, type Body, type Fixtures } from '../helpers/bad-input-cases.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { snapshotStore } from '../helpers/snapshot.js';

// ---------------------------------------------------------------------------------------------
// Helpers

function fill(template: string, f: Fixtures): string {
  return template.replace(/\{(\w+)\}/g, (_whole, key: string) => {
    if (!(key in f)) throw new Error(`unknown fixture {${key}} in ${template}`);
    return f[key as keyof Fixtures];
  });
}

function bodyOf(body: Body, f: Fixtures): unknown {
  return typeof body === 'function' ? (body as (f: Fixtures) => unknown)(f) : body;
}

/** A short description of a response for assertion messages (bodies can be megabytes). */
function show(res: RawResponse): string {
  return `HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
}

/** The one error shape: exactly `{error: {code, message}}`, both non-empty strings. */
function expectErrorBody(res: RawResponse): void {
  expect(res.headers.get('content-type') ?? '', show(res)).to.include('application/json');
  const body = res.body as { error?: { code?: unknown; message?: unknown } };
  expect(body, show(res)).to.be.an('object').with.all.keys('error');
  expect(body.error, show(res)).to.be.an('object').with.all.keys('code', 'message');
  expect(body.error!.code, show(res)).to.be.a('string').and.not.equal('');
  expect(body.error!.message, show(res)).to.be.a('string').and.not.equal('');
}

// ---------------------------------------------------------------------------------------------

describe('bad input on every mutating endpoint', () => {
  let t: TestDaemon;
  let f: Fixtures;

  before(async () => {
    t = await startTestDaemon();
    f = await createFixtures(t.admin);
  });
  after(async () => t.stop());

  for (const c of cases) {
    const statuses = Array.isArray(c.status) ? c.status : [c.status];
    it(`${c.name} -> ${statuses.join(' or ')}, store unchanged`, async () => {
      if (c.setup) await c.setup(t.admin, f);
      const before = await snapshotStore(t.dataDir);
      const opts = { ...(c.rawBody !== undefined && { rawBody: c.rawBody }), ...(c.headers && { headers: c.headers }) };
      const res = await t.admin.request(c.method, fill(c.path, f), bodyOf(c.body, f), opts);
      expect(statuses, `${c.method} ${c.path}: ${show(res)}`).to.include(res.status);
      expectErrorBody(res);
      if (c.code) expect((res.body as { error: { code: string } }).error.code).to.equal(c.code);
      expect(await snapshotStore(t.dataDir), 'the store changed').to.deep.equal(before);
    });
  }

  describe('unicode names are valid', () => {
    const ASCII_SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

    it('a project named "日本語 🚀" is created with its name kept and an ASCII slug', async () => {
      const res = await t.admin.request<{ project: { id: string; name: string; slug: string } }>('POST', '/api/projects', { name: '日本語 🚀' });
      expect(res.status, show(res)).to.equal(200);
      const { project } = res.body;
      expect(project.name).to.equal('日本語 🚀');
      expect(project.slug).to.match(ASCII_SLUG);
      expect((await t.admin.getProject(project.slug)).project.id).to.equal(project.id);
    });

    it('a service named "café" is created with slug "cafe"', async () => {
      const res = await t.admin.request<{ service: { name: string; slug: string } }>('POST', `/api/projects/${f.projectA}/services`, {
        name: 'café',
        repoFullName: 'acme/cafe',
      });
      expect(res.status, show(res)).to.equal(200);
      expect(res.body.service.name).to.equal('café');
      expect(res.body.service.slug).to.equal('cafe');
    });

    it('a service named "Ünïcödé App" is created with slug "unicode-app"', async () => {
      const res = await t.admin.request<{ service: { name: string; slug: string } }>('POST', `/api/projects/${f.projectB}/services`, {
        name: 'Ünïcödé App',
        repoFullName: 'acme/unicode',
      });
      expect(res.status, show(res)).to.equal(200);
      expect(res.body.service.name).to.equal('Ünïcödé App');
      expect(res.body.service.slug).to.equal('unicode-app');
    });
  });
});
