// When a swap retires a container, Caddy may still be finishing requests on it (a reload lets the
// old server drain in the background). Caddy's admin API forgets an upstream as soon as the new
// configuration runs, so the host's own socket table says it instead: the old container is stopped
// once no established connection to its published loopback port remains, or after a grace period.
import { readFile } from 'node:fs/promises';

const ESTABLISHED = '01';

/** Established TCP connections whose remote end is 127.0.0.1:<port> (IPv4, and IPv4-mapped IPv6). */
async function connectionsTo(port: number): Promise<number> {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const remotes = new Set([`0100007F:${hex}`, `0000000000000000FFFF00000100007F:${hex}`]);
  let count = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 3 && cols[3] === ESTABLISHED && remotes.has(cols[2]!)) count++;
    }
  }
  return count;
}

/** Resolves once nothing is connected to 127.0.0.1:<port> any more, or after `maxMs`. */
export async function drained(port: number, maxMs: number, pollMs = 250): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (Date.now() < deadline) {
    if ((await connectionsTo(port)) === 0) return;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
