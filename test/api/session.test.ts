// Console sessions (POST/GET/DELETE /api/session) and the console's static serving: the cookie's
// attributes, the same-origin check on cookie requests, sign-out, revocation ending sessions and
// their open event streams, sessions surviving a restart, Bearer keys untouched.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readConfig } from '../../daemon/config.js';
import { startDaemon } from '../../daemon/server.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function call(base: string, method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const res = await fetch(base + path, {
    method,
    headers: { ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers },
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  });
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status: res.status, headers: res.headers, body };
}

/** Headers a same-origin fetch from the console sends. */
function page(base: string, cookie: string): Record<string, string> {
  return { cookie, origin: base, 'sec-fetch-site': 'same-origin' };
}

async function signIn(base: string, key: string, headers: Record<string, string> = {}): Promise<{ cookie: string; setCookie: string; answer: Answer }> {
  const answer = await call(base, 'POST', '/api/session', { body: { key }, headers: { origin: base, 'sec-fetch-site': 'same-origin', ...headers } });
  const setCookie = answer.headers.get('set-cookie') ?? '';
  return { cookie: setCookie.split(';')[0]!, setCookie, answer };
}

describe('console sessions', () => {
  let t: TestDaemon;
  let consoleDir: string;
  before(async () => {
    consoleDir = mkdtempSync(join(tmpdir(), 'berth-console-'));
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: 'http://127.0.0.1:9', BERTH_CONSOLE_DIR: consoleDir });
  });
  after(async () => {
    await t.stop();
    rmSync(consoleDir, { recursive: true, force: true });
  });

  async function newKey(access: 'read' | 'write' = 'write'): Promise<{ id: string; token: string }> {
    const { key, token } = await t.admin.createKey({ name: uniq('console'), access, projects: 'all' });
    return { id: key.id, token };
  }

  it('exchanges a key for an HttpOnly SameSite=Strict cookie that authenticates same-origin requests', async () => {
    const key = await newKey();
    const { cookie, setCookie, answer } = await signIn(t.url, key.token);
    expect(answer.status).to.equal(200);
    expect(answer.body.key).to.include({ id: key.id, access: 'write', projects: 'all' });
    expect(setCookie).to.match(/^berth_session=[A-Za-z0-9_-]{40,};/);
    expect(setCookie).to.include('HttpOnly').and.include('SameSite=Strict').and.include('Path=/');
    expect(setCookie).not.to.include('Secure'); // plain HTTP here
    expect(setCookie).not.to.include(key.token);
    const projects = await call(t.url, 'GET', '/api/projects', { headers: page(t.url, cookie) });
    expect(projects.status).to.equal(200);
    const me = await call(t.url, 'GET', '/api/session', { headers: page(t.url, cookie) });
    expect(me.body).to.deep.include({ session: true });
    const created = await call(t.url, 'POST', '/api/projects', { body: { name: uniq('p'), description: '' }, headers: page(t.url, cookie) });
    expect(created.status).to.equal(200);
  });

  it('refuses an unknown key without setting a cookie', async () => {
    const { setCookie, answer } = await signIn(t.url, 'berth_nope');
    expect(answer.status).to.equal(401);
    expect(setCookie).to.equal('');
    const empty = await signIn(t.url, '');
    expect(empty.answer.status).to.equal(400);
  });

  it('marks the cookie Secure behind a local HTTPS proxy, and only for a loopback peer', async () => {
    const key = await newKey();
    const { setCookie } = await signIn(t.url, key.token, { 'x-forwarded-proto': 'https', origin: t.url.replace('http:', 'https:') });
    expect(setCookie).to.include('Secure');
  });

  it('refuses cross-site cookie requests with 403 and changes nothing', async () => {
    const key = await newKey();
    const { cookie } = await signIn(t.url, key.token);
    const before = (await t.admin.listProjects()).projects.length;
    const name = uniq('csrf');
    const evil = await call(t.url, 'POST', '/api/projects', { body: { name, description: '' }, headers: { cookie, origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' } });
    expect(evil.status).to.equal(403);
    const sameSite = await call(t.url, 'POST', '/api/projects', { body: { name, description: '' }, headers: { cookie, 'sec-fetch-site': 'same-site' } });
    expect(sameSite.status).to.equal(403);
    const noHeaders = await call(t.url, 'POST', '/api/projects', { body: { name, description: '' }, headers: { cookie } });
    expect(noHeaders.status).to.equal(403);
    const read = await call(t.url, 'GET', '/api/projects', { headers: { cookie, origin: 'http://evil.example' } });
    expect(read.status).to.equal(403);
    const loginCsrf = await signIn(t.url, key.token, { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' });
    expect(loginCsrf.answer.status).to.equal(403);
    expect((await t.admin.listProjects()).projects.length).to.equal(before);
  });

  it('keeps Bearer keys working from anywhere, as before', async () => {
    const key = await newKey();
    const r = await call(t.url, 'GET', '/api/projects', { headers: { authorization: `Bearer ${key.token}`, origin: 'http://elsewhere.example' } });
    expect(r.status).to.equal(200);
  });

  it('sign-out ends the session and its event stream', async () => {
    const key = await newKey();
    const { cookie } = await signIn(t.url, key.token);
    const stream = await fetch(`${t.url}/api/events`, { headers: page(t.url, cookie) });
    expect(stream.status).to.equal(200);
    const out = await call(t.url, 'DELETE', '/api/session', { headers: page(t.url, cookie) });
    expect(out.status).to.equal(200);
    expect(out.headers.get('set-cookie')).to.match(/^berth_session=;.*Max-Age=0/);
    await readToEnd(stream);
    const after = await call(t.url, 'GET', '/api/projects', { headers: page(t.url, cookie) });
    expect(after.status).to.equal(401);
    // the health check does not care about a dead cookie, nor about where it comes from
    expect((await call(t.url, 'GET', '/api/health', { headers: { cookie, origin: 'http://elsewhere.example' } })).status).to.equal(200);
  });

  it('revoking the key ends its sessions and closes their open event streams', async () => {
    const key = await newKey('read');
    const { cookie } = await signIn(t.url, key.token);
    const stream = await fetch(`${t.url}/api/events`, { headers: page(t.url, cookie) });
    expect(stream.status).to.equal(200);
    await t.admin.revokeKey(key.id);
    await readToEnd(stream);
    const after = await call(t.url, 'GET', '/api/projects', { headers: page(t.url, cookie) });
    expect(after.status).to.equal(401);
    expect(String((after.body.error as { message: string }).message)).to.match(/sign in again/);
  });

  it('serves the console with a strict CSP, long-cached hashed assets and an SPA fallback', async () => {
    const none = await fetch(`${t.url}/`);
    expect(none.status).to.equal(200);
    expect(await none.text()).to.match(/console is not built/);
    mkdirSync(join(consoleDir, 'assets'), { recursive: true });
    writeFileSync(join(consoleDir, 'index.html'), '<!doctype html><title>Berth</title><script type="module" src="/assets/index-abc123.js"></script>');
    writeFileSync(join(consoleDir, 'assets', 'index-abc123.js'), 'console.log(1)');
    const index = await fetch(`${t.url}/`);
    expect(index.headers.get('content-type')).to.match(/text\/html/);
    expect(index.headers.get('cache-control')).to.equal('no-cache');
    const csp = index.headers.get('content-security-policy') ?? '';
    expect(csp).to.include("script-src 'self'").and.include("frame-ancestors 'none'").and.not.include('unsafe-inline');
    expect(index.headers.get('x-content-type-options')).to.equal('nosniff');
    const asset = await fetch(`${t.url}/assets/index-abc123.js`);
    expect(asset.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).to.match(/javascript/);
    const deep = await fetch(`${t.url}/projects/some-project`);
    expect(await deep.text()).to.include('<title>Berth</title>');
    expect((await fetch(`${t.url}/assets/missing-0000.js`)).status).to.equal(404);
    writeFileSync(join(consoleDir, '.inputs-hash'), 'secret-ish');
    expect(await (await fetch(`${t.url}/.inputs-hash`)).text()).not.to.include('secret-ish');
    expect((await fetch(`${t.url}/../../etc/passwd`)).status).not.to.equal(500);
    const api = await call(t.url, 'GET', '/api/nothing-here', { headers: { authorization: `Bearer ${(await newKey()).token}` } });
    expect(api.status).to.equal(404);
    expect(api.body).to.have.property('error');
  });
});

describe('console sessions across a restart', () => {
  it('a session survives a daemon restart, and only a hash of its secret is stored', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'berth-test-'));
    const config = readConfig({
      BERTH_HOST: '127.0.0.1',
      BERTH_PORT: '0',
      BERTH_DATA_DIR: dataDir,
      BERTH_BOOTSTRAP_KEY: `test_${uniq('k')}_0123456789abcdef`,
      BERTH_CADDY_ADMIN: 'http://127.0.0.1:1',
      BERTH_GIT_BASE_URL: 'http://127.0.0.1:9',
    });
    const quiet = () => undefined;
    try {
      let d = await startDaemon(config, quiet);
      const { cookie } = await signIn(d.url, config.bootstrapKey!);
      expect(cookie).to.match(/^berth_session=/);
      await d.stop();
      const secret = cookie.split('=')[1]!;
      for (const f of readdirSync(dataDir).filter((n) => /\.(db|sqlite3?)(-wal)?$/.test(n))) {
        expect(readFileSync(join(dataDir, f)).includes(secret)).to.equal(false);
      }
      d = await startDaemon(config, quiet);
      try {
        const r = await call(d.url, 'GET', '/api/projects', { headers: page(d.url, cookie) });
        expect(r.status).to.equal(200);
      } finally {
        await d.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** Reads the stream until the server ends it; throws when it is still open after 5 s. */
async function readToEnd(res: Response): Promise<void> {
  const reader = res.body!.getReader();
  let timedOut = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    void reader.cancel();
  }, 5000);
  try {
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
  } catch {
    // a destroyed socket ends the body with an error: closed either way
  } finally {
    clearTimeout(deadline);
  }
  if (timedOut) throw new Error('the event stream stayed open');
}
