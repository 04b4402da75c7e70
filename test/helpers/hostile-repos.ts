// A hostile tenant's tools for the security suites: repositories that aim Berth's own build files
// at the server through symbolic links, a build whose output impersonates the Engine, a
// repository too large to clone, a git "server" that never answers, a canary directory outside
// every checkout (its files must never change, its missing paths never appear), and a watch that
// the daemon keeps answering /api/health while an attack runs.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Files outside every checkout: `existing` ones hold known text, `missing` ones must never appear. */
export class Canary {
  readonly dir = mkdtempSync(join(tmpdir(), 'berth-canary-'));
  private readonly texts = new Map<string, string>();

  /** A file that exists with known content (`text`, or a marker line); returns its absolute path. */
  existing(name: string, text = `canary ${name} ${randomBytes(8).toString('hex')}\n`): string {
    const path = join(this.dir, name);
    writeFileSync(path, text);
    this.texts.set(path, text);
    return path;
  }

  /** A path that does not exist and must stay so. */
  missing(name: string): string {
    return join(this.dir, name);
  }

  /** Problems found: a changed existing file, or any file that was not there before. */
  problems(): string[] {
    const out: string[] = [];
    for (const [path, text] of this.texts) {
      if (!existsSync(path)) out.push(`${path} was removed`);
      else if (readFileSync(path, 'utf8') !== text) out.push(`${path} was overwritten`);
    }
    for (const name of readdirSync(this.dir)) if (!this.texts.has(join(this.dir, name))) out.push(`${join(this.dir, name)} appeared`);
    return out;
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Every name Berth writes into a build context, each a link to a canary path. */
export function reservedNameLinks(canary: Canary): Record<string, string> {
  return {
    '.berth-autobuild.Dockerfile#link': canary.missing('autobuild-dockerfile'),
    '.berth.Dockerfile#link': canary.existing('dockerfile'),
    '.berth-build-ca.pem#link': canary.existing('ca.pem'),
  };
}

/** A static site autobuild serves (no Dockerfile). */
export const STATIC_SITE = { 'index.html': '<h1>hostile but static</h1>\n' };

/** A Dockerfile build on busybox that answers HTTP on $PORT. */
export const BUSYBOX_WEB = {
  Dockerfile: ['FROM berth-test/busybox:latest', 'RUN mkdir -p /www && echo ok > /www/index.html', 'CMD ["sh", "-c", "exec httpd -f -p ${PORT} -h /www"]', ''].join('\n'),
};

/**
 * A Dockerfile whose RUN steps print what the classic builder prints for its own steps, naming
 * `victimId` (an image the tenant does not own), then fail, so the build's clean-up runs.
 */
export function impersonatingBuild(victimId: string): Record<string, string> {
  const short = victimId.replace(/^sha256:/, '').slice(0, 12);
  return {
    Dockerfile: [
      'FROM berth-test/busybox:latest',
      `RUN echo " ---> ${short}" && echo "Removing intermediate container $(hostname)" && echo " ---> ${short}"`,
      `RUN printf ' ---> ${short}\\nSuccessfully built ${short}\\n'`,
      'RUN echo "hostile step" > /hostile.txt',
      'RUN exit 3',
      '',
    ].join('\n'),
  };
}

/** `size` bytes that git cannot compress (random), as a file for a repository. */
export function incompressible(size: number): string {
  return randomBytes(Math.ceil(size / 2))
    .toString('hex')
    .slice(0, size);
}

/** A TCP server that accepts and never answers: a clone from it hangs until Berth stops it. */
export async function stallingServer(): Promise<{ url: (repo: string) => string; connections: () => number; stop: () => void }> {
  const sockets: Socket[] = [];
  let count = 0;
  const server: Server = createServer((s) => {
    count++;
    sockets.push(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (repo) => `http://127.0.0.1:${port}/${repo}.git`,
    connections: () => count,
    stop: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/**
 * Polls GET /api/health every 100 ms until stopped; `stop()` returns the slowest answer in ms
 * (Infinity when one failed), so a suite can assert the daemon kept answering within 1 s.
 */
export function watchHealth(baseUrl: string): { stop: () => Promise<number> } {
  let running = true;
  let slowest = 0;
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      try {
        const res = await fetch(`${baseUrl}/api/health`, { signal: AbortSignal.timeout(5000) });
        await res.arrayBuffer();
        if (res.status !== 200) slowest = Infinity;
      } catch {
        slowest = Infinity;
      }
      slowest = Math.max(slowest, Date.now() - started);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return slowest;
    },
  };
}
