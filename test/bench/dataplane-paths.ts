// The paths bench:dataplane loads besides Berth's own (test/bench/dataplane-bench.ts): a bare Caddy
// reverse_proxy, Docker's docker-proxy run by hand, nginx, and a second Caddy loaded with Berth's
// own config generator; plus how to find the process behind a loopback port. Each path started
// here registers its own clean-up in `cleanups`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { caddyConfig } from '../../daemon/proxy/caddy-config.js';
import { TestCaddy, freePort } from '../helpers/caddy.js';

export type Cleanups = (() => Promise<void>)[];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The pid of the process listening on 127.0.0.1:<port> (ss -p), or null. */
export function listenerPid(port: number): number | null {
  const res = spawnSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8' });
  const m = /pid=(\d+)/.exec(res.stdout ?? '');
  return m ? Number(m[1]) : null;
}

/** A second Caddy whose whole config is one server with a bare `reverse_proxy` to `upstream`. */
export async function minimalCaddy(cleanups: Cleanups, upstream: string): Promise<{ port: number; pid: number }> {
  const caddy = await TestCaddy.create();
  await caddy.start({ resume: false });
  cleanups.push(() => caddy.dispose());
  const port = await freePort();
  const config = {
    admin: { listen: `127.0.0.1:${caddy.adminPort}` },
    apps: {
      http: { servers: { minimal: { listen: [`127.0.0.1:${port}`], routes: [{ handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: upstream }] }] }], automatic_https: { disable: true } } } },
    },
  };
  const res = await fetch(`${caddy.adminUrl}/load`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(config) });
  if (!res.ok) throw new Error(`the minimal Caddy refused its config: ${await res.text()}`);
  return { port, pid: listenerPid(port)! };
}

/**
 * dockerd's userland proxy run by hand, as dockerd runs it for a published port: a docker-proxy
 * process on 127.0.0.1:<free port> copying each connection to the container's address. Null (with
 * the reason printed) where the binary is missing.
 */
export async function handDockerProxy(cleanups: Cleanups, containerIp: string, containerPort: number): Promise<{ port: number; pid: number } | null> {
  const bin = ['/usr/sbin/docker-proxy', '/usr/bin/docker-proxy', '/usr/libexec/docker/docker-proxy'].find((p) => existsSync(p));
  if (!bin) {
    console.log('(no docker-proxy binary here: the "before" paths cannot be measured)\n');
    return null;
  }
  const port = await freePort();
  const args = ['-proto', 'tcp', '-host-ip', '127.0.0.1', '-host-port', String(port), '-container-ip', containerIp, '-container-port', String(containerPort)];
  // fd 3 is where docker-proxy tells dockerd it listens ("0\n")
  const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'inherit', 'pipe'] });
  cleanups.push(async () => void child.kill('SIGTERM'));
  await new Promise<void>((resolve, reject) => {
    child.stdio[3]!.once('data', (b: Buffer) => (b.toString().startsWith('0') ? resolve() : reject(new Error(`docker-proxy: ${b.toString()}`))));
    child.once('exit', (code) => reject(new Error(`docker-proxy exited (${code})`)));
  });
  return { port, pid: child.pid! };
}

/** An nginx binary: the machine's, or Debian's package unpacked into a cache folder (nothing installed). */
export function nginxBinary(): string | null {
  const own = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).stdout.trim();
  if (own) return own;
  const dir = '/var/cache/berth-bench/nginx';
  const bin = join(dir, 'usr/sbin/nginx');
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  const got = spawnSync('sh', ['-c', `cd ${dir} && apt-get download nginx >/dev/null 2>&1 && dpkg -x nginx_*.deb . && rm -f nginx_*.deb`]);
  return got.status === 0 && existsSync(bin) ? bin : null;
}

/** nginx (2 workers, like Caddy's 2 cores; keep-alive upstream connections) proxying a loopback port to `upstream`. */
export async function nginxProxy(cleanups: Cleanups, tmp: string, upstream: string): Promise<{ port: number; pids: number[] } | null> {
  const bin = nginxBinary();
  if (!bin) {
    console.log("(no nginx here and Debian's package could not be fetched: no nginx reference)\n");
    return null;
  }
  const dir = mkdtempSync(join(tmp, 'nginx-'));
  const port = await freePort();
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `${t}_temp_path ${dir}/${t};`).join(' ');
  const conf = [
    'worker_processes 2;',
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log;`,
    'events { worker_connections 1024; }',
    `http { access_log off; keepalive_requests 10000000; ${temp}`,
    `  upstream app { server ${upstream}; keepalive 32; keepalive_requests 10000000; }`,
    `  server { listen 127.0.0.1:${port}; location / { proxy_pass http://app; proxy_http_version 1.1; proxy_set_header Connection ""; } } }`,
  ].join('\n');
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const child = spawn(bin, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'inherit'] });
  cleanups.push(async () => void child.kill('SIGQUIT'));
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(100)) {
    const workers = spawnSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
    if (workers.length === 2 && listenerPid(port) !== null) return { port, pids: [child.pid!, ...workers] };
  }
  throw new Error(`nginx did not start: ${readFileSync(join(dir, 'error.log'), 'utf8')}`);
}

/**
 * A second Caddy loaded with Berth's own config generator: one host-port server and one hostname
 * per upstream given, so the paths differ only in how the upstream is reached.
 */
export async function berthShapedCaddy(cleanups: Cleanups, upstreams: Record<string, string>): Promise<{ pid: number; httpPort: number; hostPorts: Record<string, number> }> {
  const caddy = await TestCaddy.create();
  await caddy.start({ resume: false });
  cleanups.push(() => caddy.dispose());
  const hostPorts: Record<string, number> = {};
  for (const name of Object.keys(upstreams)) hostPorts[name] = await freePort();
  const config = caddyConfig({
    routes: Object.entries(upstreams).map(([name, upstream]) => ({ hostname: `${name}.bench.test`, upstream })),
    hostPorts: Object.entries(upstreams).map(([name, upstream]) => ({ hostPort: hostPorts[name]!, bindHost: '127.0.0.1', upstream })),
    httpsMode: 'http',
    acmeEmail: null,
    httpAddr: `127.0.0.1:${caddy.httpPort}`,
    httpsAddr: `127.0.0.1:${caddy.httpsPort}`,
    adminListen: `127.0.0.1:${caddy.adminPort}`,
  });
  const res = await fetch(`${caddy.adminUrl}/load`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(config) });
  if (!res.ok) throw new Error(`Caddy refused Berth's config: ${await res.text()}`);
  return { pid: listenerPid(caddy.httpPort)!, httpPort: caddy.httpPort, hostPorts };
}

/** The docker-proxy process that publishes 127.0.0.1:<port> (dockerd's userland proxy), or null. */
export function dockerProxyPid(port: number): number | null {
  const pid = listenerPid(port);
  if (pid === null) return null;
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]!.endsWith('docker-proxy') ? pid : null;
}
