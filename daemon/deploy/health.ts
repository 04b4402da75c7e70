// "Answers on its port": an HTTP response of any status for web services (the app is up, even if
// `/` is a 404), or an accepted TCP connection for other ports.
import http from 'node:http';
import net from 'node:net';

export type HealthKind = 'http' | 'tcp';

function probeHttp(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ host, port, path: '/', timeout: 2000, agent: false }, (res) => {
      res.resume();
      resolve(true);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
  });
}

function probeTcp(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    socket.setTimeout(2000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Pause after the first failed probe; it doubles after each further one, up to PROBE_MAX_INTERVAL_MS. */
const PROBE_FIRST_INTERVAL_MS = 20;
const PROBE_MAX_INTERVAL_MS = 250;

/**
 * Polls until the port answers, `timeoutMs` passes, `stillRunning` says no, or `signal` aborts.
 * Most apps answer within a few hundred ms of their start, so the first probes come quickly (20 ms
 * apart, doubling) and a slow one is polled every 250 ms, as before. `host`: where the port is
 * published (another Swarm node's address for a database created there).
 */
export async function waitUntilAnswering(
  port: number,
  kind: HealthKind | (() => Promise<boolean>),
  timeoutMs: number,
  signal: AbortSignal,
  stillRunning: () => Promise<boolean>,
  host = '127.0.0.1',
): Promise<'answering' | 'timeout' | 'exited' | 'aborted'> {
  const deadline = Date.now() + timeoutMs;
  let interval = PROBE_FIRST_INTERVAL_MS;
  let checkedAt = -Infinity;
  while (Date.now() < deadline) {
    if (signal.aborted) return 'aborted';
    const probe = typeof kind === 'function' ? kind : kind === 'http' ? () => probeHttp(port, host) : () => probeTcp(port, host);
    if (await probe()) return 'answering';
    const pause = new Promise((r) => setTimeout(r, interval));
    // whether it still runs (an Engine round trip, during the pause): after the first failed
    // probe, then at the slow cadence
    if (Date.now() - checkedAt >= PROBE_MAX_INTERVAL_MS) {
      checkedAt = Date.now();
      if (!(await stillRunning())) return 'exited';
    }
    await pause;
    interval = Math.min(interval * 2, PROBE_MAX_INTERVAL_MS);
  }
  return 'timeout';
}
