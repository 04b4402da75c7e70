// One-off commands and the terminal against real Docker: an image service on the busybox httpd
// fixture (sh, no bash). exec attach and run stream output and the exit code, run's container sees
// the service's env and is removed, every command is recorded with its key, the terminal is a real
// WebSocket with resize, and keys are checked exactly as on the HTTP API.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import WebSocket from 'ws';
import { routePath } from '../../shared/api-routes.js';
import { ApiError } from '../../shared/client/base.js';
import { BerthClient } from '../../shared/client.js';
import { openTerminalSocket, type TerminalSocket } from '../../shared/terminal-socket.js';
import type { ExecStreamPayloads, Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { until, waitForDeployment } from '../helpers/wait.js';

const IDLE_SECONDS = 4;

/** Reads a terminal's output until `re` matches it. */
async function expectOutput(term: { text: () => string }, re: RegExp, what: string): Promise<string> {
  return until(what, async () => (re.test(term.text()) ? term.text() : null), 15_000, 50);
}

function collect(sock: TerminalSocket) {
  let out = '';
  sock.onData((b) => (out += b.toString('utf8')));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => sock.onClose((code, reason) => resolve({ code, reason })));
  return { text: () => out, closed };
}

describe('exec and terminal', function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let projectId: string;
  let service: Service;
  let idle: Service;
  let writeToken: string;
  let writer: BerthClient;

  before(async function () {
    this.timeout(300_000);
    requireDocker();
    t = await startTestDaemon({ BERTH_TERMINAL_IDLE_SECONDS: String(IDLE_SECONDS), BERTH_HEALTH_TIMEOUT: '30' });
    projectId = (await t.admin.createProject({ name: uniq('exec') })).project.id;
    ({ service } = await t.admin.createService(projectId, { name: uniq('web'), repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080 }));
    ({ service: idle } = await t.admin.createService(projectId, { name: uniq('never'), repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080 }));
    await t.admin.setEnv(service.id, 'GREETING', 'hello from env');
    const { deployment } = await t.admin.deploy(service.id);
    await waitForDeployment(t.admin, service.id, deployment.id, ['running']);
    writeToken = (await t.admin.createKey({ name: 'exec writer', access: 'write', projects: [projectId] })).token;
    writer = new BerthClient(t.url, writeToken);
  });

  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
  });

  it('exec attach streams stdout and stderr lines and ends with the exit code', async () => {
    const lines: ExecStreamPayloads['output'][] = [];
    const exit = await writer.exec(service.id, { command: ['sh', '-c', 'echo out; echo err >&2; exit 3'] }, (o) => lines.push(o));
    expect(lines).to.deep.include({ stream: 'stdout', line: 'out' });
    expect(lines).to.deep.include({ stream: 'stderr', line: 'err' });
    expect(exit).to.deep.equal({ exitCode: 3 });
  });

  it('exec of a command that does not exist says so in its exit event', async () => {
    const exit = await writer.exec(service.id, { command: ['no-such-command-here'] });
    expect(exit.exitCode).to.equal(127);
    expect(exit.error).to.match(/no-such-command-here: command not found/);
  });

  it('exec run runs in a new container that sees the env, and removes it afterwards', async () => {
    const lines: string[] = [];
    const exit = await writer.exec(service.id, { command: ['sh', '-c', 'echo "$GREETING"; hostname'], mode: 'run' }, (o) => lines.push(o.line));
    expect(exit).to.deep.equal({ exitCode: 0 });
    expect(lines[0]).to.equal('hello from env');
    const liveHost: string[] = [];
    await writer.exec(service.id, { command: ['hostname'] }, (o) => liveHost.push(o.line));
    expect(liveHost).to.have.length(1);
    expect(lines[1]).to.not.equal(liveHost[0]);
    const left = execFileSync('docker', ['ps', '-a', '--filter', `label=dev.berth.service=${service.id}`, '--filter', 'label=dev.berth.role=one-off', '-q'], { encoding: 'utf8' }).trim();
    expect(left).to.equal('');
  });

  it('refuses exec on a service without a live deployment with 409 before any stream', async () => {
    const err = await writer.exec(idle.id, { command: ['true'] }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ApiError);
    expect((err as ApiError).status).to.equal(409);
    expect((err as ApiError).message).to.match(/no live deployment/);
  });

  it('refuses a command that is not a non-empty argv array with 400 naming the rule', async () => {
    for (const command of [[], [''], 'echo hi', [1]]) {
      const res = await writer.request('POST', routePath('exec.start', { serviceId: service.id }), { command });
      expect(res.status, JSON.stringify(command)).to.equal(400);
    }
  });

  it('lists every exec with its key name, command, mode and exit code, newest first', async () => {
    await writer.exec(service.id, { command: ['sh', '-c', 'exit 5'] });
    const { execs } = await writer.listExecs(service.id);
    expect(execs[0]).to.include({ keyName: 'exec writer', mode: 'attach', exitCode: 5 });
    expect(execs[0]!.command).to.deep.equal(['sh', '-c', 'exit 5']);
    expect(execs[0]!.finishedAt).to.be.a('string');
    expect(execs.some((e) => e.mode === 'run' && e.exitCode === 0)).to.equal(true);
    // a read key may list them
    const reader = await t.clientWith('read', [projectId]);
    expect((await reader.listExecs(service.id)).execs.length).to.equal(execs.length);
  });

  it('opens a terminal over a real WebSocket: runs echo, resizes, and ends with exit', async () => {
    const sock = await openTerminalSocket({ baseUrl: t.url, token: writeToken, serviceId: service.id, cols: 100, rows: 30 });
    const term = collect(sock);
    sock.write('echo hel""lo\n');
    await expectOutput(term, /hello/, 'the echo');
    sock.resize(123, 45);
    await new Promise((r) => setTimeout(r, 300));
    sock.write('stty size\n');
    await expectOutput(term, /45 123/, 'the new size');
    sock.write('exit\n');
    const closed = await term.closed;
    expect(closed.code).to.equal(1000);
    expect(closed.reason).to.match(/exited with code 0/);
    const { execs } = await writer.listExecs(service.id);
    await until('the terminal recorded as ended', async () => (await writer.listExecs(service.id)).execs.find((e) => e.mode === 'terminal' && e.finishedAt !== null), 10_000);
    expect(execs.find((e) => e.mode === 'terminal')!.command).to.deep.equal(['/bin/sh']);
  });

  it('answers a plain GET of the terminal 426, a read key 403, another project 404, no key 401, before upgrading', async () => {
    const path = routePath('terminal', { serviceId: service.id });
    expect((await writer.request('GET', path)).status).to.equal(426);
    const readToken = (await t.admin.createKey({ name: 'reader', access: 'read', projects: [projectId] })).token;
    const otherProject = (await t.admin.createProject({ name: uniq('other') })).project.id;
    const otherToken = (await t.admin.createKey({ name: 'other', access: 'write', projects: [otherProject] })).token;
    for (const [token, status] of [
      [readToken, 403],
      [otherToken, 404],
      ['', 401],
    ] as const) {
      const err = await openTerminalSocket({ baseUrl: t.url, token, serviceId: service.id }).catch((e: unknown) => e);
      expect(err, `token ${token.slice(0, 8)}`).to.be.instanceOf(ApiError);
      expect((err as ApiError).status).to.equal(status);
    }
    const res = await new BerthClient(t.url, readToken).request('POST', routePath('exec.start', { serviceId: service.id }), { command: ['true'] });
    expect(res.status).to.equal(403);
  });

  it('accepts a console session from its own origin and refuses one from a foreign Origin', async () => {
    const origin = t.url;
    const opened = await fetch(`${t.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify({ key: writeToken }) });
    expect(opened.status).to.equal(200);
    const cookie = opened.headers.get('set-cookie')!.split(';')[0]!;
    const url = `${t.url.replace('http:', 'ws:')}${routePath('terminal', { serviceId: service.id })}`;
    const attempt = (o: string | null) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(url, { headers: { cookie, ...(o ? { origin: o } : {}) } });
        ws.once('open', () => {
          ws.close();
          resolve(101);
        });
        ws.once('unexpected-response', (_req, r) => {
          resolve(r.statusCode ?? 0);
          ws.terminate();
        });
        ws.once('error', () => resolve(-1));
      });
    expect(await attempt('https://evil.example')).to.equal(403);
    expect(await attempt(null)).to.equal(403);
    expect(await attempt(origin)).to.equal(101);
  });

  it('refuses a terminal past the cap per key with a close reason naming the cap', async () => {
    const token = (await t.admin.createKey({ name: 'many terminals', access: 'write', projects: [projectId] })).token;
    const open: TerminalSocket[] = [];
    for (let i = 0; i < 4; i++) open.push(await openTerminalSocket({ baseUrl: t.url, token, serviceId: service.id }));
    const fifth = collect(await openTerminalSocket({ baseUrl: t.url, token, serviceId: service.id }));
    const closed = await fifth.closed;
    expect(closed.code).to.equal(4429);
    expect(closed.reason).to.match(/4 terminals open already \(the cap per key\)/);
    for (const s of open) s.close();
  });

  it('closes a terminal that gets no input for the idle timeout', async () => {
    const term = collect(await openTerminalSocket({ baseUrl: t.url, token: writeToken, serviceId: service.id }));
    const started = Date.now();
    const closed = await term.closed;
    expect(closed.code).to.equal(4408);
    expect(closed.reason).to.match(/idle timeout/);
    expect(Date.now() - started).to.be.within(IDLE_SECONDS * 1000 - 500, IDLE_SECONDS * 1000 + 5000);
  });
});
