// A public status page against a static file through the same Caddy (issue 30: the status page
// serves >= 0.9x of a static file). A daemon with its own Caddy sets up a status page (plain HTTP,
// so TLS costs the same nothing on both sides), then stops: Caddy keeps serving the page (the file
// its configuration names, proxy/page-files.ts), as it does for users. The very same HTML is written to a folder that a second
// server of that Caddy serves with file_server. autocannon runs both in turns (two rounds each,
// the best of each kept: these machines are noisy) and the ratio of requests per second is printed
// with PASS/MISS. Run: `npm run bench:status-page`.
import autocannon from 'autocannon';
import { request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/caddy.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';

const SECONDS = 5;
const CONNECTIONS = 10;
const TARGET = 0.9;

async function rate(url: string, host: string): Promise<number> {
  const r = await autocannon({ url, duration: SECONDS, connections: CONNECTIONS, headers: { host } });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url} (${host}): ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  return r.requests.average;
}

/** GET / on 127.0.0.1:port with Host `host` (fetch may not set Host). */
function getText(port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', headers: { host } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

export async function benchStatusPage(): Promise<string> {
  const t = await startTestDaemon();
  const dir = mkdtempSync(join(tmpdir(), 'berth-status-bench-'));
  try {
    await t.admin.patchSystemSettings({ httpsMode: 'http' });
    const { project } = await t.admin.createProject({ name: uniq('status-bench') });
    const names = ['Website', 'API', 'Dashboard', 'Docs'];
    const services = [];
    for (const name of names)
      services.push((await t.admin.createService(project.id, { name: name.toLowerCase(), repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080 })).service);
    const hostname = `${uniq('status')}.bench.test`;
    await t.admin.putStatusPage(project.id, { hostname, title: 'Bench status', services: services.map((s, i) => ({ serviceId: s.id, label: names[i]! })) });
    const caddy = t.caddy!;
    const pageUrl = `http://127.0.0.1:${caddy.httpPort}/`;
    const html = await getText(caddy.httpPort, hostname);
    if (!html.includes('Bench status')) throw new Error('Caddy does not serve the status page');
    // the daemon stops: Caddy keeps serving the page (and nothing re-syncs its configuration under the bench)
    await t.daemon.stop();
    writeFileSync(join(dir, 'index.html'), html);
    const staticPort = await freePort();
    const added = await fetch(`${caddy.adminUrl}/config/apps/http/servers/bench_static`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ listen: [`127.0.0.1:${staticPort}`], routes: [{ handle: [{ handler: 'file_server', root: dir }] }], automatic_https: { disable: true } }),
    });
    if (!added.ok) throw new Error(`adding the static server to Caddy: ${added.status} ${await added.text()}`);
    const staticUrl = `http://127.0.0.1:${staticPort}/`;
    let page = 0;
    let file = 0;
    for (let round = 0; round < 2; round++) {
      file = Math.max(file, await rate(staticUrl, 'static.bench.test'));
      page = Math.max(page, await rate(pageUrl, hostname));
    }
    const ratio = page / file;
    return `status page: ${page.toFixed(0)} req/s vs the same HTML as a static file ${file.toFixed(0)} req/s through the same Caddy (${Buffer.byteLength(html)} bytes): ${ratio.toFixed(2)}x ${ratio >= TARGET ? 'PASS' : 'MISS'} (target >= ${TARGET}x)`;
  } finally {
    await t.caddy?.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('status-page-bench.js')) {
  benchStatusPage().then(
    (line) => console.log(line),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
