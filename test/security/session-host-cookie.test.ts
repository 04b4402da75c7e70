// Console cookie tossing: a tenant's app on a sibling subdomain of the console can set a cookie
// for the parent domain (`berth_session=...; Domain=example.com`) that the browser then sends to
// the console too, e.g. a session of the tenant's own key, so that the operator's console acts
// under the tenant's key (and what the operator types lands in the tenant's project). Over HTTPS
// the console's cookie is `__Host-berth_session` (Secure, Path=/, no Domain), which no other host
// can set, and a plain `berth_session` is never read there. Over plain HTTP the plain name stays.
// The daemon is behind a "proxy on this host" here: X-Forwarded-Proto from a loopback peer.
import { expect } from 'chai';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';

interface Answer {
  status: number;
  setCookie: string;
  body: Record<string, unknown>;
}

describe('hostile tenant: console session cookies over HTTPS carry the __Host- prefix', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let https: string;
  let tenantToken: string;
  let operatorToken: string;

  before(async () => {
    t = await startTestDaemon();
    https = t.url.replace('http:', 'https:');
    const projectId = (await t.admin.createProject({ name: uniq('cookies') })).project.id;
    tenantToken = (await t.admin.createKey({ name: uniq('tenant'), access: 'write', projects: [projectId] })).token;
    operatorToken = (await t.admin.createKey({ name: uniq('operator'), access: 'write', projects: 'all' })).token;
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
  });

  /** A same-origin request of the console page at `origin`, as the browser sends it. */
  async function call(origin: string, method: string, path: string, cookie: string | null, body?: unknown): Promise<Answer> {
    const headers: Record<string, string> = { origin, 'sec-fetch-site': 'same-origin' };
    if (origin.startsWith('https:')) headers['x-forwarded-proto'] = 'https';
    if (cookie) headers.cookie = cookie;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(t.url + path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    return { status: res.status, setCookie: res.headers.get('set-cookie') ?? '', body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
  }

  it('sets __Host-berth_session over HTTPS: Secure, Path=/, no Domain', async () => {
    const signIn = await call(https, 'POST', '/api/session', null, { key: operatorToken });
    expect(signIn.status).to.equal(200);
    expect(signIn.setCookie).to.match(/^__Host-berth_session=[A-Za-z0-9_-]{40,};/);
    expect(signIn.setCookie).to.include('Secure').and.include('Path=/').and.include('HttpOnly');
    expect(signIn.setCookie.toLowerCase()).not.to.include('domain=');
    const me = await call(https, 'GET', '/api/session', signIn.setCookie.split(';')[0]!);
    expect(me.status).to.equal(200);
    expect(me.body).to.deep.include({ session: true });
  });

  it("a tenant's session tossed in as a plain berth_session cookie is not read over HTTPS", async () => {
    // the tenant signs in with its own key (over plain HTTP: the plain name) and plants that session
    const tenant = await call(t.url, 'POST', '/api/session', null, { key: tenantToken });
    expect(tenant.setCookie).to.match(/^berth_session=/);
    const tossed = tenant.setCookie.split(';')[0]!;
    // the operator's browser, not signed in, sends the tossed cookie: nobody is signed in
    const alone = await call(https, 'GET', '/api/session', tossed);
    expect(alone.status, JSON.stringify(alone.body)).to.equal(401);
    // signed in, the browser sends both: the operator's own session is the one that counts
    const operator = (await call(https, 'POST', '/api/session', null, { key: operatorToken })).setCookie.split(';')[0]!;
    for (const cookie of [`${tossed}; ${operator}`, `${operator}; ${tossed}`]) {
      const me = await call(https, 'GET', '/api/session', cookie);
      expect(me.status).to.equal(200);
      expect((me.body.key as { projects: unknown }).projects, cookie).to.equal('all');
    }
    // a write through the tossed cookie alone is refused and creates nothing
    const before = (await t.admin.listProjects()).projects.length;
    const write = await call(https, 'POST', '/api/projects', tossed, { name: uniq('tossed'), description: '' });
    expect(write.status).to.equal(401);
    expect((await t.admin.listProjects()).projects.length).to.equal(before);
  });

  it('keeps the plain berth_session name over plain HTTP, where Secure is impossible', async () => {
    const signIn = await call(t.url, 'POST', '/api/session', null, { key: operatorToken });
    expect(signIn.setCookie).to.match(/^berth_session=/);
    expect(signIn.setCookie).not.to.include('Secure');
    expect((await call(t.url, 'GET', '/api/session', signIn.setCookie.split(';')[0]!)).status).to.equal(200);
  });
});
