// One container's one-shot stats straight from the Engine's socket: the metrics sampler asks for
// every running container every 10 s, and on that path dockerode's request building and wrapping
// cost about as much CPU as the request itself (0.9 against 0.6 ms a container, measured with a
// hundred: test/bench/metrics-bench.ts). The answer is the Engine's own JSON, as `docker stats` reads it.
import type Docker from 'dockerode';
import { request } from 'node:http';

/** A stats document is about 2 KB; an answer past this is not one. */
const MAX_BYTES = 1 << 20;

export type StatsReader = (containerId: string, timeoutMs: number, oneShot: boolean) => Promise<unknown>;

/** Reads stats over `docker`'s own socket, or through dockerode when it talks to the Engine some other way. */
export function statsReader(docker: Docker): StatsReader {
  const socketPath = (docker.modem as { socketPath?: unknown }).socketPath;
  if (typeof socketPath !== 'string') {
    return (id, timeoutMs, oneShot) => {
      // dockerode sends these as the query string; abortSignal is taken out of it first
      const options = { stream: false as const, 'one-shot': oneShot, abortSignal: AbortSignal.timeout(timeoutMs) };
      return docker.getContainer(id).stats(options);
    };
  }
  return (id, timeoutMs, oneShot) =>
    new Promise((resolve, reject) => {
      const path = `/containers/${encodeURIComponent(id)}/stats?stream=false${oneShot ? '&one-shot=true' : ''}`;
      const req = request({ socketPath, path, method: 'GET', timeout: timeoutMs }, (res) => {
        const parts: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BYTES) req.destroy(new Error(`the Engine's stats answer passed ${MAX_BYTES} bytes`));
          else parts.push(chunk);
        });
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 299) {
            // the Engine's error, with its status, as dockerode reports it (a 404 is a container gone)
            let message = text.trim();
            try {
              message = (JSON.parse(text) as { message?: string }).message ?? message;
            } catch {
              // not JSON: the text as it is
            }
            return reject(Object.assign(new Error(`(HTTP code ${status}) ${message.slice(0, 500)}`), { statusCode: status }));
          }
          try {
            resolve(JSON.parse(text));
          } catch (err) {
            reject(err instanceof Error ? err : new Error(String(err)));
          }
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(Object.assign(new Error('the Engine did not answer for stats in time'), { name: 'TimeoutError' })));
      req.on('error', reject);
      req.end();
    });
}
