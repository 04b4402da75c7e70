// The console in desktop mode: the same build, with window.berth (the Electron preload of issue 15)
// emulated over two real daemons. The emulation plays the main process: it holds the keys and
// makes the calls; the page never sees a key and gets no cookie. Switching servers shows the
// other daemon's projects.
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { BerthClient } from '../../shared/client.js';
import { accessibilityProblems, launchChromium, requireConsoleBuild, screenshot } from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';

describe('console in desktop mode (the preload bridge emulated)', function () {
  this.timeout(120_000);
  let a: TestDaemon;
  let b: TestDaemon;
  let browser: Browser;
  let page: Page;
  const names = { a: uniq('alpha'), b: uniq('beta') };
  const calls: string[] = [];

  before(async function () {
    this.timeout(600_000);
    requireConsoleBuild();
    a = await startTestDaemon({ BERTH_GIT_BASE_URL: 'http://127.0.0.1:9' });
    b = await startTestDaemon({ BERTH_GIT_BASE_URL: 'http://127.0.0.1:9' });
    await a.admin.createProject({ name: names.a });
    await b.admin.createProject({ name: names.b });
    const clients: Record<string, BerthClient> = {
      a: a.admin.withToken((await a.admin.createKey({ name: 'desktop', access: 'write', projects: 'all' })).token),
      b: b.admin.withToken((await b.admin.createKey({ name: 'desktop', access: 'read', projects: 'all' })).token),
    };
    browser = await launchChromium();
    page = await (await browser.newContext()).newPage();
    const streams = new Map<string, AbortController>();
    // the "main process": requests and streams with the key added, results handed to the page
    await page.exposeFunction('__mainRequest', async (serverId: string, method: string, path: string, body: unknown) => {
      calls.push(`${serverId} ${method} ${path}`);
      const res = await clients[serverId]!.request(method, path, body === undefined || body === null ? undefined : body);
      return { status: res.status, body: res.body };
    });
    await page.exposeFunction('__mainSubscribe', (serverId: string, path: string, subId: string) => {
      calls.push(`${serverId} SUBSCRIBE ${path}`);
      const ctl = new AbortController();
      streams.set(subId, ctl);
      void (async () => {
        try {
          await page.evaluate(([id]) => (window as unknown as { __bridgeState(id: string, s: string): void }).__bridgeState(id!, 'open'), [subId]);
          for await (const e of clients[serverId]!.stream(path, { signal: ctl.signal })) {
            await page.evaluate(([id, ev]) => (window as unknown as { __bridgeEvent(id: string, e: unknown): void }).__bridgeEvent(id as string, ev), [subId, { event: e.event, data: JSON.parse(e.data) as unknown, id: e.id }] as const);
          }
        } catch {
          // aborted or page gone
        }
      })();
    });
    await page.exposeFunction('__mainUnsubscribe', (subId: string) => streams.get(subId)?.abort());
    await page.addInitScript(() => {
      type Listener = { onEvent: (e: unknown) => void; onState?: (s: string) => void };
      const w = window as unknown as Record<string, unknown> & {
        __mainRequest(...a: unknown[]): Promise<unknown>;
        __mainSubscribe(...a: unknown[]): Promise<void>;
        __mainUnsubscribe(id: string): Promise<void>;
      };
      const listeners = new Map<string, Listener>();
      let next = 0;
      w.__bridgeEvent = (id: string, e: unknown) => listeners.get(id)?.onEvent(e);
      w.__bridgeState = (id: string, s: string) => listeners.get(id)?.onState?.(s);
      w.berth = {
        servers: async () => [
          { id: 'a', name: 'Alpha server' },
          { id: 'b', name: 'Beta server' },
        ],
        request: (serverId: string, method: string, path: string, body?: unknown) => w.__mainRequest(serverId, method, path, body ?? null),
        subscribe(serverId: string, stream: string, onEvent: Listener['onEvent'], onState?: Listener['onState']) {
          const id = `s${next++}`;
          listeners.set(id, { onEvent, ...(onState ? { onState } : {}) });
          void w.__mainSubscribe(serverId, stream, id);
          return () => {
            listeners.delete(id);
            void w.__mainUnsubscribe(id);
          };
        },
      };
    });
  });
  after(async () => {
    await browser?.close();
    await a?.stop();
    await b?.stop();
  });

  it('shows the first server through the bridge, without a session cookie or a sign-in page', async () => {
    await page.goto(a.url);
    await page.getByRole('link', { name: new RegExp(names.a) }).waitFor();
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).to.equal(0);
    expect(await page.context().cookies()).to.deep.equal([]);
    expect(calls).to.include('a GET /api/session').and.include('a GET /api/projects').and.include('a SUBSCRIBE /api/events');
    await screenshot(page, '20-desktop-alpha');
    expect(await accessibilityProblems(page)).to.deep.equal([]);
  });

  it('switches to the second server and shows its projects', async () => {
    await page.getByRole('combobox', { name: 'Server' }).selectOption('b');
    await page.getByRole('link', { name: new RegExp(names.b) }).waitFor();
    expect(await page.getByRole('link', { name: new RegExp(names.a) }).count()).to.equal(0);
    // a read key on that server: no project creation offered
    expect(await page.getByRole('button', { name: 'New project' }).count()).to.equal(0);
    expect(calls).to.include('b GET /api/projects');
    await screenshot(page, '21-desktop-beta');
  });
});
