// The desktop app's relays for a service's terminal and one-off commands, and its tray
// notification for failed job runs. The window (the compiled preload on the IPC stand-in) never
// holds the key: the main process opens the terminal WebSocket and the exec stream to a real daemon
// behind a pinned TLS certificate, with a deployed busybox service in real Docker.
import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBridgeHandlers } from '../../desktop/main/bridge-handlers.js';
import { DesktopApp } from '../../desktop/main/desktop-app.js';
import { registerIpcHandlers } from '../../desktop/main/ipc-main.js';
import type { BerthApi, IpcStreamEvent, TerminalMessage } from '../../desktop/ipc/contract.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startTlsFront } from '../helpers/proxies.js';
import { until, waitForDeployment } from '../helpers/wait.js';
import { ipcStandIn, notificationStandIn, powerMonitorStandIn, safeStorageStandIn } from './stand-ins.js';

const APP_ORIGIN = 'berth-app://console';

function desktopApp() {
  const notes = notificationStandIn();
  const opened: { serverId: string; route: string }[] = [];
  const app = new DesktopApp({
    configDir: mkdtempSync(join(tmpdir(), 'berth-desktop-ops-')),
    safeStorage: safeStorageStandIn(),
    platform: 'linux',
    createNotification: (c) => notes.create(c),
    powerMonitor: powerMonitorStandIn(),
    tray: null,
    openInWindow: (serverId, route) => opened.push({ serverId, route }),
    quit: () => undefined,
  });
  return { app, notes, opened };
}

const text = (m: TerminalMessage[]) =>
  m
    .filter((x): x is Extract<TerminalMessage, { type: 'output' }> => x.type === 'output')
    .map((x) => (typeof x.data === 'string' ? x.data : new TextDecoder().decode(x.data)))
    .join('');

describe('desktop relays: the terminal and one-off commands through the main process, and job-run notifications', function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let front: Awaited<ReturnType<typeof startTlsFront>>;
  let serviceId: string;
  let projectId: string | undefined;
  let serverId: string;
  let berth: BerthApi;
  let x: ReturnType<typeof desktopApp>;

  before(async function () {
    this.timeout(300_000);
    requireDocker();
    t = await startTestDaemon();
    const { token } = await t.admin.createKey({ name: 'desktop-ops', access: 'write', projects: 'all' });
    const { project } = await t.admin.createProject({ name: uniq('dops') });
    projectId = project.id;
    const { service } = await t.admin.createService(project.id, { name: 'web', repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080 });
    serviceId = service.id;
    front = await startTlsFront(t.url);
    x = desktopApp();
    const added = await x.app.addServer({ name: 'pinned', url: front.url, key: token, fingerprint: front.fingerprint });
    expect(added.test.ok, added.test.error).to.equal(true);
    serverId = added.server.id;
    const ipc = ipcStandIn();
    registerIpcHandlers(ipc.ipcMain, createBridgeHandlers(x.app, { appOrigin: APP_ORIGIN, trustedWebContents: new Set([7]) }));
    berth = ipc.window({ frameUrl: `${APP_ORIGIN}/`, webContentsId: 7 }).berth;
  });
  /** The service's live container, deployed once by the first case that needs it. */
  let deployed: Promise<unknown> | null = null;
  const live = () => (deployed ??= t.admin.deploy(serviceId).then(({ deployment }) => waitForDeployment(t.admin, serviceId, deployment.id, ['running'])));

  after(async () => {
    x?.app.stop();
    await front?.stop();
    // the project's network and containers go with it: Docker's address pools are shared by every suite
    if (projectId) await t.admin.deleteProject(projectId).catch(() => undefined);
    await t?.stop();
  });

  it('the terminal relay over the pinned connection: the window types echo hello and reads hello; exit ends it with the reason', async () => {
    await live();
    const got: TerminalMessage[] = [];
    const term = berth.openTerminal(serverId, `/api/services/${serviceId}/terminal`, (m) => got.push(m));
    await until('the terminal to open', async () => got.some((m) => m.type === 'open'), 20_000, 50);
    term.resize(100, 30);
    term.input('echo hel""lo\r');
    await until('hello on its own line', async () => /\r?\nhello\r?\n/.test(text(got)), 10_000, 50);
    term.input('exit\r');
    await until('the terminal to close', async () => got.some((m) => m.type === 'closed'), 10_000, 50);
    const closed = got.find((m) => m.type === 'closed') as Extract<TerminalMessage, { type: 'closed' }>;
    expect(closed.code).to.equal(1000);
    expect(closed.reason).to.match(/shell exited with code 0|shell ended/);
    const execs = (await t.admin.listExecs(serviceId)).execs;
    expect(
      execs.some((e) => e.mode === 'terminal' && e.keyName === 'desktop-ops'),
      'the session is recorded under the stored key',
    ).to.equal(true);
  });

  it('the bridge refuses a terminal on a path that is not the terminal route, before any connection', async () => {
    const got: TerminalMessage[] = [];
    berth.openTerminal(serverId, `/api/services/${serviceId}/exec`, (m) => got.push(m));
    await until('the refusal', async () => got.length > 0, 5_000, 20);
    expect(got).to.have.length(1);
    expect(got[0]).to.include({ type: 'closed' });
    expect((got[0] as { reason: string }).reason).to.include('is not a terminal the app opens');
  });

  it('a one-off command through the bridge streams stdout and stderr, then its exit code', async () => {
    await live();
    const events: IpcStreamEvent[] = [];
    const states: string[] = [];
    berth.postStream(
      serverId,
      `/api/services/${serviceId}/exec`,
      { command: ['sh', '-c', 'echo out-line; echo err-line >&2; exit 4'], mode: 'attach' },
      (e) => events.push(e),
      (s) => states.push(s),
    );
    await until('the exit event', async () => events.some((e) => e.event === 'exit'), 20_000, 50);
    const output = events.filter((e) => e.event === 'output').map((e) => e.data);
    expect(output).to.deep.include({ stream: 'stdout', line: 'out-line' });
    expect(output).to.deep.include({ stream: 'stderr', line: 'err-line' });
    expect(events.at(-1)).to.deep.include({ event: 'exit' });
    expect((events.at(-1)!.data as { exitCode: number }).exitCode).to.equal(4);
  });

  it('a failed or timed-out job run raises one tray notification each, never for running or succeeded, and a click opens the job', () => {
    const before = x.notes.shown.length;
    const ev = (runId: string, status: string) => ({ event: 'job', data: { jobId: 'j1', runId, serviceId: 'svc1', projectId: 'p1', status, at: '2026-11-25T03:00:00.000Z' } });
    for (const e of [ev('r1', 'running'), ev('r1', 'failed'), ev('r2', 'running'), ev('r2', 'succeeded'), ev('r3', 'running'), ev('r3', 'timed_out')]) x.app.notifier.onEvent(serverId, e);
    // a reconnect replays the same events: nothing new
    for (const e of [ev('r1', 'failed'), ev('r3', 'timed_out')]) x.app.notifier.onEvent(serverId, e);
    // a hostile server's odd payloads notify nothing
    x.app.notifier.onEvent(serverId, { event: 'job', data: { runId: 'r9', status: 'exploded' } });
    x.app.notifier.onEvent(serverId, { event: 'job', data: { runId: 42, status: 'failed' } });
    const shown = x.notes.shown.slice(before);
    expect(shown.map((n) => n.title)).to.deep.equal(['A scheduled job failed on pinned', 'A scheduled job timed out on pinned']);
    shown[0]!.click();
    expect(x.opened.at(-1)).to.deep.equal({ serverId, route: '/services/svc1/jobs?job=j1' });
  });
});
