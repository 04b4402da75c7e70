// What both parts of test/bench/api-bench.ts (the comparison with a bare Koa server and the scale
// sweep) share: the load settings, the child processes (the daemon as `npm start` runs it, the bare
// server) and their temporary directory, readings (RSS, one answer's bytes) and the table printer.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { PORT_RANGES } from '../helpers/port-ranges.js';

export const IDLE_SECONDS = 12;
export const LOAD = { connections: 10, pipelining: 1 };

export const children: ChildProcess[] = [];
export const tmp = mkdtempSync(join(tmpdir(), 'berth-bench-'));

/** Free loopback ports, held open together so that the OS cannot hand out the same one twice. */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<Server>((resolve, reject) => {
          const srv = createServer().once('error', reject);
          srv.listen(0, '127.0.0.1', () => resolve(srv));
        }),
    ),
  );
  const ports = servers.map((srv) => (srv.address() as AddressInfo).port);
  await Promise.all(servers.map((srv) => new Promise((resolve) => srv.close(resolve))));
  return ports;
}

/** Starts a command as a child process; its stderr is kept for the failure message. */
export function startChild(command: string, args: string[], env: Record<string, string> = {}): { child: ChildProcess; stderr: () => string } {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, stderr: () => stderr };
}

export async function waitForOk(url: string, started: { child: ChildProcess; stderr: () => string }, pollMs = 100): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null) throw new Error(`${url}: the process exited (${started.child.exitCode}):\n${started.stderr()}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  throw new Error(`${url} did not answer 200 within 20 s:\n${started.stderr()}`);
}

export function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!kb) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kb[1]) / 1024;
}

export async function fetchBytes(url: string, token: string): Promise<{ contentType: string; body: Buffer }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status}`);
  return { contentType: res.headers.get('content-type') ?? '', body: Buffer.from(await res.arrayBuffer()) };
}

export interface Side {
  rps: number;
  p99: number;
  /** Bytes of one answer as sent (compressed when the server compressed it); loop() only. */
  bytes?: number;
}

export const verdict = (ok: boolean): string => (ok ? 'PASS' : 'MISS');

/** The daemon as `npm start` runs it (the launcher execs node, so the child's pid is the daemon's). */
export function startDaemonProcess(port: number, dataDir: string, key: string, env: Record<string, string>) {
  return startChild('bash', [join(REPO_ROOT, 'installers/run-daemon.sh')], {
    BERTH_HOST: '127.0.0.1',
    BERTH_PORT: String(port),
    BERTH_DATA_DIR: dataDir,
    BERTH_BOOTSTRAP_KEY: key,
    BERTH_PORT_RANGE: PORT_RANGES.apiBench,
    BERTH_CADDY_ADMIN: 'http://127.0.0.1:1',
    // a shared test machine: host-wide firewall rules are test/security/container-egress.test.ts's
    BERTH_FIREWALL: 'off',
    ...env,
  });
}

export function printTable(rows: string[][]): void {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const r of rows) console.log(r.map((cell, c) => cell.padEnd(widths[c]!)).join('  '));
}

export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => (clearTimeout(force), resolve()));
    child.kill('SIGTERM');
  });
}

/**
 * Runs a bench's main part: on SIGINT/SIGTERM every child is killed and the temporary directory
 * removed; a failure is printed and sets the exit code; the children are stopped at the end.
 */
export async function runBench(name: string, main: () => Promise<void>): Promise<void> {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const child of children) child.kill('SIGKILL');
      rmSync(tmp, { recursive: true, force: true });
      process.exit(130);
    });
  }
  try {
    await main();
  } catch (err) {
    console.error(`${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exitCode = 1;
  } finally {
    await Promise.all(children.map(stopChild));
    rmSync(tmp, { recursive: true, force: true });
  }
}
