// The VPS installer, for real, on this machine: two release bundles are built (`installers/
// release.sh`), then `installers/install.sh --from <bundle> --yes` installs, reruns, upgrades,
// uninstalls and purges. These machines run no systemd, so the installer takes its supervisor path
// (the unit is verified statically). The suite refuses to run (skips) where an installed Berth, its
// data or anything on the ports it uses already exists, and removes everything it made.
import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID, X509Certificate } from 'node:crypto';
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docker, requireDocker } from '../helpers/docker.js';
import {
  CADDY_AUTOSAVE,
  CADDY_HOME,
  CLI_LINK,
  DATA,
  ETC,
  install,
  INSTALL,
  installAsync,
  listening,
  LOG,
  OPT,
  pidAlive,
  PORTS,
  PREVIOUS,
  printLogTails,
  readPid,
  releaseBundles,
  removeLeftovers,
  resultLines,
  RUN,
  snapshot,
  SUPERVISOR_LOGS,
  VERSION,
} from '../helpers/installer.js';
import { normalFingerprint, pinnedRequest } from '../helpers/pinned-https.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { until } from '../helpers/wait.js';

describe('installer: release bundle and install.sh on this machine (supervisor mode)', function () {
  this.timeout(600_000);
  let work = '';
  let previousBundle = '';
  let currentBundle = '';
  let caddyHomeBefore: string[] = [];
  let started = false;
  let url = '';
  let key = '';
  let fingerprint = '';
  let api = { host: '127.0.0.1', port: 4310, fingerprint: '' };
  let projectId = '';
  let serviceId = '';
  let hostPort = 0;
  let instance = '';
  let sentinel = '';

  before(function () {
    if (process.getuid?.() !== 0) this.skip();
    // The firewall for Berth's networks is host-wide and would match every Berth network on this
    // shared dockerd (other suites' too): the installs here run without it
    // (test/security/container-egress.test.ts applies it to a network of its own).
    process.env.BERTH_FIREWALL = 'off';
    // Nor may an install restart that shared Engine or rewrite its daemon.json (the userland proxy
    // step runs for real in test/installer/systemd-vps.test.ts, on a VPS of its own).
    process.env.BERTH_KEEP_ENGINE_CONFIG = '1';
    const found = [OPT, ETC, DATA, RUN].filter((p) => existsSync(p));
    const busy = PORTS.filter((p) => listening().has(p));
    if (found.length > 0 || busy.length > 0) {
      // Never touch a real installation, its data or someone else's Caddy.
      console.log(`      installer suite skipped: ${[...found.map((p) => `${p} exists`), ...busy.map((p) => `port ${p} is in use`)].join(', ')}`);
      this.skip();
    }
    const tools = spawnSync('bash', [join(REPO_ROOT, 'test/setup/installer-tools.sh')], { encoding: 'utf8' });
    if (tools.status !== 0) throw new Error(`installing shellcheck/systemd failed:\n${tools.stderr}`);
    requireDocker();
    caddyHomeBefore = existsSync(CADDY_HOME) ? readdirSync(CADDY_HOME) : [];
    work = mkdtempSync(join(tmpdir(), 'berth-installer-test-'));
    ({ previous: previousBundle, current: currentBundle } = releaseBundles());
  });

  afterEach(function () {
    if (this.currentTest?.state !== 'failed') return;
    printLogTails();
  });

  after(function () {
    delete process.env.BERTH_FIREWALL;
    delete process.env.BERTH_KEEP_ENGINE_CONFIG;
    if (!work) return;
    removeLeftovers(started ? currentBundle : null, caddyHomeBefore);
    if (sentinel) spawnSync('docker', ['rm', '-f', sentinel]);
    rmSync(work, { recursive: true, force: true });
  });

  it('shellcheck -S warning finds nothing in installers/*.sh', () => {
    const scripts = readdirSync(join(REPO_ROOT, 'installers'))
      .filter((f) => f.endsWith('.sh'))
      .map((f) => join(REPO_ROOT, 'installers', f));
    const r = spawnSync('shellcheck', ['-S', 'warning', ...scripts], { encoding: 'utf8' });
    expect(r.stdout + r.stderr).to.equal('');
    expect(r.status).to.equal(0);
  });

  it('refuses to run without a terminal and without --yes, and changes nothing', () => {
    // setsid: no controlling terminal, as under a pipe from curl or in CI.
    const r = spawnSync('setsid', ['-w', 'bash', INSTALL, '--from', previousBundle], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
    expect(r.status).to.equal(1);
    expect(r.stderr).to.include('no terminal to confirm on: run again with --yes');
    for (const p of [OPT, ETC, DATA, LOG, RUN]) expect(existsSync(p), p).to.equal(false);
  });

  it('--dry-run prints the plan and changes nothing', () => {
    const r = install('--from', previousBundle, '--dry-run');
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stderr).to.include(`install Berth ${PREVIOUS}`);
    expect(r.stderr).to.include('no systemd: a small supervisor');
    expect(r.stderr).to.include('dry run: nothing was changed');
    expect(r.stdout).to.equal('');
    for (const p of [OPT, ETC, DATA, LOG, RUN]) expect(existsSync(p), p).to.equal(false);
  });

  it('--from an http:// URL needs --insecure, then downloads the bundle and SHA256SUMS and checks the checksum (dry run: nothing changes)', async () => {
    const dir = join(previousBundle, '..');
    const server = createServer((req, res) => {
      const file = join(dir, (req.url ?? '/').slice(1));
      if (!existsSync(file) || file.includes('..')) return void res.writeHead(404).end();
      res.writeHead(200);
      createReadStream(file).pipe(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const name = previousBundle.slice(dir.length + 1);
      // plain http:// is refused unless the user says the network is trusted
      const refused = await installAsync('--from', `${base}/${name}`, '--dry-run');
      expect(refused.status, refused.stderr).to.equal(2);
      expect(refused.stderr).to.include('--insecure');
      const ok = await installAsync('--from', `${base}/${name}`, '--insecure', '--dry-run');
      expect(ok.status, ok.stderr).to.equal(0);
      expect(ok.stderr).to.include(`install Berth ${PREVIOUS}`);
      // A bundle whose bytes differ from what SHA256SUMS says is refused.
      const sums = readFileSync(join(dir, 'SHA256SUMS'), 'utf8');
      writeFileSync(join(dir, 'SHA256SUMS'), sums.replace(/^[0-9a-f]{64}(?=\s+berth-)/m, '0'.repeat(64)));
      const bad = await installAsync('--from', `${base}/${name}`, '--insecure', '--dry-run');
      writeFileSync(join(dir, 'SHA256SUMS'), sums);
      expect(bad.status).to.equal(1);
      expect(bad.stderr).to.include(`checksum mismatch for ${name}`);
      for (const p of [OPT, ETC, DATA, LOG, RUN]) expect(existsSync(p), p).to.equal(false);
    } finally {
      server.close();
    }
  });

  it('installs: the API answers over HTTPS only, to a client pinning the printed fingerprint', async () => {
    started = true;
    const t0 = Date.now();
    const r = install('--from', previousBundle, '--yes');
    expect(r.status, r.stderr).to.equal(0);
    console.log(`      install took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const lines = resultLines(r.stdout);
    expect(Object.keys(lines)).to.deep.equal(['BERTH_URL', 'BERTH_KEY', 'BERTH_CERT_SHA256']);
    url = lines.BERTH_URL!;
    key = lines.BERTH_KEY!;
    fingerprint = lines.BERTH_CERT_SHA256!;
    expect(url).to.match(/^https:\/\/[0-9.]+:4310$/);
    expect(fingerprint).to.match(/^[0-9a-f]{64}$/);
    expect(key.length).to.be.greaterThan(15);
    expect(r.stderr).to.include(`berth login ${url} --fingerprint ${fingerprint}`);
    expect(r.stderr).to.include('No systemd here: the daemon and Caddy run under Berth');
    api = { host: '127.0.0.1', port: Number(new URL(url).port), fingerprint };

    const health = await pinnedRequest<{ ok: boolean; version: string }>(api, 'GET', '/api/health');
    expect(health.status).to.equal(200);
    expect(health.body).to.deep.equal({ ok: true, version: PREVIOUS });
    expect(normalFingerprint(health.cert.fingerprint256)).to.equal(fingerprint);
    // The certificate names the address in BERTH_URL, and lives for years (clients pin it).
    const cert = new X509Certificate(health.cert.raw);
    expect(cert.subjectAltName).to.include(`IP Address:${new URL(url).hostname}`);
    expect(new Date(cert.validTo).getTime() - Date.now()).to.be.greaterThan(4 * 365 * 86_400_000);

    // Any other certificate is refused before a byte of the request is sent.
    const wrong = fingerprint.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    let refused: Error | null = null;
    await pinnedRequest({ ...api, fingerprint: wrong }, 'GET', '/api/health').catch((err: Error) => (refused = err));
    expect(String(refused)).to.match(/does not match the pinned/);

    // The daemon listens on loopback only; port 4310 does not answer plain HTTP with the API.
    expect(listening().get(4311)).to.deep.equal(['0100007F']);
    const plain = await fetch('http://127.0.0.1:4310/api/health').then(async (res) => ({ status: res.status, text: await res.text() }));
    expect(plain.status).to.equal(400);
    expect(plain.text).to.not.include('"ok"');
  });

  it('the printed key works over HTTPS and is written in no log; the configuration is 0600', async () => {
    expect((await pinnedRequest(api, 'GET', '/api/projects')).status).to.equal(401);
    const created = await pinnedRequest<{ project: { id: string } }>(api, 'POST', '/api/projects', { token: key, body: { name: 'Kept shop', description: 'survives upgrades' } });
    expect(created.status).to.equal(200);
    projectId = created.body.project.id;
    const logs = [LOG, ...readdirSync(SUPERVISOR_LOGS).map((f) => join(SUPERVISOR_LOGS, f))];
    for (const file of logs) expect(readFileSync(file, 'utf8'), file).to.not.include(key);
    expect(readFileSync(LOG, 'utf8')).to.include('==> first key');
    expect(statSync(`${ETC}/berth.env`).mode & 0o777).to.equal(0o600);
    expect(statSync(DATA).mode & 0o777).to.equal(0o700);
    expect(readFileSync(`${ETC}/berth.env`, 'utf8')).to.include('BERTH_HOST=127.0.0.1');
    expect(readlinkSync(`${OPT}/current`)).to.equal(`${OPT}/releases/${PREVIOUS}`);
    expect(existsSync(`${OPT}/uninstall.sh`)).to.equal(true);
  });

  it("the generated units pass systemd-analyze verify (berth, berth-upgrade path and service), and Caddy's unit with Berth's drop-in too", () => {
    for (const name of ['berth.service', 'berth-upgrade.path', 'berth-upgrade.service']) {
      const unit = spawnSync('systemd-analyze', ['verify', `${OPT}/current/installers/${name}`], { encoding: 'utf8' });
      expect(unit.stderr, name).to.equal('');
      expect(unit.status, name).to.equal(0);
    }
    // Debian's caddy.service beside the drop-in, as /etc/systemd/system/caddy.service.d/ holds it.
    const dir = join(work, 'units');
    execFileSync('mkdir', ['-p', join(dir, 'caddy.service.d')]);
    execFileSync('cp', ['/lib/systemd/system/caddy.service', dir]);
    execFileSync('cp', [join(REPO_ROOT, 'installers/caddy-berth.conf'), join(dir, 'caddy.service.d/berth.conf')]);
    const caddy = spawnSync('systemd-analyze', ['verify', join(dir, 'caddy.service')], { encoding: 'utf8' });
    expect(caddy.stderr).to.equal('');
    expect(caddy.status).to.equal(0);
  });

  it('the bundled Node.js 22 opens a database with the bundled sqlite3', () => {
    const out = execFileSync(
      `${OPT}/current/node/bin/node`,
      [
        '-e',
        `
      const sqlite3 = require('sqlite3');
      const db = new sqlite3.Database(':memory:');
      db.get('select sqlite_version() as v, 6 * 7 as n', (err, row) => { if (err) throw err; console.log(process.version + ' ' + row.n); });
    `,
      ],
      { cwd: `${OPT}/current`, encoding: 'utf8' },
    );
    expect(out.trim()).to.match(/^v22\.\d+\.\d+ 42$/);
  });

  it('the supervisor restarts the daemon when it exits', async () => {
    const before = readPid('berth.child')!;
    expect(pidAlive(before)).to.equal(true);
    process.kill(before, 'SIGKILL');
    await until(
      'a new daemon process',
      async () => {
        const now = readPid('berth.child');
        return now !== null && now !== before && pidAlive(now);
      },
      30_000,
    );
    await until('the restarted daemon to answer', async () => (await pinnedRequest(api, 'GET', '/api/health').catch(() => null))?.status === 200, 30_000);
  });

  it('a rerun with the same bundle says "no change" and changes nothing', async () => {
    const files = snapshot(OPT, ETC, `${OPT}/current/`);
    const pids = ['berth.pid', 'berth.child', 'caddy.pid', 'caddy.child'].map(readPid);
    const r = install('--from', previousBundle, '--yes');
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stderr).to.include(`Berth ${PREVIOUS}: no change`);
    expect(resultLines(r.stdout)).to.deep.equal({ BERTH_URL: url, BERTH_CERT_SHA256: fingerprint });
    expect(snapshot(OPT, ETC, `${OPT}/current/`)).to.deep.equal(files);
    expect(['berth.pid', 'berth.child', 'caddy.pid', 'caddy.child'].map(readPid)).to.deep.equal(pids);
    expect((await pinnedRequest(api, 'GET', '/api/projects', { token: key })).status).to.equal(200);
  });

  it('an upgrade from the previous bundle keeps projects, services, variables, keys and the running app', async () => {
    requireDocker();
    const svc = await pinnedRequest<{ service: { id: string; hostPort: number } }>(api, 'POST', `/api/projects/${projectId}/services`, {
      token: key,
      body: { name: 'web', repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080, env: [{ key: 'WORD', value: 'kept' }] },
    });
    expect(svc.status).to.equal(200);
    serviceId = svc.body.service.id;
    hostPort = svc.body.service.hostPort;
    expect((await pinnedRequest(api, 'POST', `/api/services/${serviceId}/deployments`, { token: key })).status).to.equal(200);
    const overview = () =>
      pinnedRequest<{ service: { status: string }; deployments: { id: string; status: string }[]; env: { key: string; value: string }[] }>(api, 'GET', `/api/services/${serviceId}/overview`, {
        token: key,
      });
    await until('the service to be active', async () => (await overview()).body.service?.status === 'active', 90_000);
    const live = (await overview()).body.deployments.find((d) => d.status === 'running')!;
    expect(await fetch(`http://127.0.0.1:${hostPort}/`).then((res) => res.text())).to.equal('image ok\n');
    instance = docker('ps', '-a', '--filter', `label=dev.berth.service=${serviceId}`, '--format', '{{.Label "dev.berth.instance"}}').split('\n')[0]!;
    expect(instance).to.match(/^[0-9a-f-]{36}$/);

    const t0 = Date.now();
    const r = install('--from', currentBundle, '--yes');
    expect(r.status, r.stderr).to.equal(0);
    console.log(`      upgrade took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    expect(r.stderr).to.include(`Berth upgraded from ${PREVIOUS} to ${VERSION}`);
    const lines = resultLines(r.stdout);
    expect(lines).to.deep.equal({ BERTH_URL: url, BERTH_CERT_SHA256: fingerprint });
    expect(readlinkSync(`${OPT}/current`)).to.equal(`${OPT}/releases/${VERSION}`);
    expect(existsSync(`${OPT}/releases/${PREVIOUS}`), 'the previous release is kept for a rollback').to.equal(true);

    expect((await pinnedRequest(api, 'GET', '/api/health')).body).to.deep.equal({ ok: true, version: VERSION });
    const project = await pinnedRequest<{ project: { name: string; description: string } }>(api, 'GET', `/api/projects/${projectId}`, { token: key });
    expect(project.status).to.equal(200);
    expect(project.body.project).to.include({ name: 'Kept shop', description: 'survives upgrades' });
    const after = await until(
      'the service to be adopted as active',
      async () => {
        const o = await overview();
        return o.body.service?.status === 'active' ? o : null;
      },
      60_000,
    );
    expect(after.body.env.find((e) => e.key === 'WORD')?.value).to.equal('kept');
    expect(after.body.deployments.find((d) => d.status === 'running')?.id).to.equal(live.id);
    await until(
      'the app to answer on its host port',
      async () =>
        (await fetch(`http://127.0.0.1:${hostPort}/`)
          .then((res) => res.text())
          .catch(() => '')) === 'image ok\n',
      30_000,
    );
  });

  it('--uninstall stops Berth and removes /opt/berth, keeping configuration, data and Docker objects', async () => {
    const supervisors = ['berth.pid', 'caddy.pid', 'berth.child', 'caddy.child'].map(readPid);
    const r = install('--uninstall', '--yes');
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stderr).to.include('Berth is removed; kept: /etc/berth, /var/lib/berth');
    for (const pid of supervisors) expect(pidAlive(pid!), `pid ${pid}`).to.equal(false);
    for (const p of [OPT, RUN, CLI_LINK]) expect(existsSync(p), p).to.equal(false);
    for (const p of [`${ETC}/berth.env`, `${DATA}/berth.sqlite`, CADDY_AUTOSAVE]) expect(existsSync(p), p).to.equal(true);
    expect(docker('ps', '-a', '-q', '--filter', `label=dev.berth.instance=${instance}`)).to.not.equal('');
    for (const port of [4310, 4311]) expect(listening().has(port), `port ${port}`).to.equal(false);
  });

  it("--purge removes data, configuration, logs and exactly this installation's Docker objects", () => {
    const ours = (what: string[]) =>
      docker(...what, '--filter', `label=dev.berth.instance=${instance}`)
        .split('\n')
        .filter(Boolean);
    expect(ours(['network', 'ls', '-q'])).to.not.deep.equal([]);
    // Another Berth's container on the same Engine (another instance id) must survive the purge.
    sentinel = docker('create', '--label', 'dev.berth.managed=true', '--label', `dev.berth.instance=${randomUUID()}`, '--label', `dev.berth.project=${projectId}`, requireDocker(), 'true');
    // The release is gone (uninstalled): the bundle's own runtime finds the objects.
    const r = install('--purge', '--yes', '--from', currentBundle);
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stderr).to.include('Berth is removed, with its data, configuration and Docker objects');
    expect(ours(['ps', '-a', '-q'])).to.deep.equal([]);
    expect(ours(['network', 'ls', '-q'])).to.deep.equal([]);
    expect(ours(['volume', 'ls', '-q'])).to.deep.equal([]);
    expect(docker('ps', '-a', '-q', '--no-trunc', '--filter', `id=${sentinel}`)).to.equal(sentinel);
    for (const p of [OPT, ETC, DATA, RUN, LOG, SUPERVISOR_LOGS, CLI_LINK, CADDY_AUTOSAVE]) expect(existsSync(p), p).to.equal(false);
    for (const port of PORTS) expect(listening().has(port), `port ${port}`).to.equal(false);
  });

  it('a failed step is reported as a failure, with no result lines and its key revoked; the next run finishes the install', async () => {
    // A configuration the daemon refuses (kept as it is, like any existing berth.env).
    execFileSync('mkdir', ['-m', '0700', '-p', ETC]);
    execFileSync('install', ['-m', '0600', '/dev/null', `${ETC}/berth.env`]);
    execFileSync('bash', ['-c', `printf 'BERTH_HOST=127.0.0.1\nBERTH_PORT=4311\nBERTH_DATA_DIR=${DATA}\nBERTH_PORT_RANGE=not-a-range\n' > ${ETC}/berth.env`]);
    const failed = install('--from', currentBundle, '--yes');
    expect(failed.status).to.equal(1);
    expect(failed.stdout).to.equal('');
    expect(failed.stderr).to.include('the daemon exited while starting');
    expect(failed.stderr).to.include('BERTH_PORT_RANGE must look like 20000-29999');
    expect(failed.stderr).to.include('FAILED during "wait for the daemon');
    expect(readFileSync(LOG, 'utf8')).to.include('FAILED (exit 1) during: wait for the daemon');
    expect(execFileSync(CLI_LINK, ['keys', 'list'], { encoding: 'utf8' })).to.equal('');

    execFileSync('sed', ['-i', '/BERTH_PORT_RANGE/d', `${ETC}/berth.env`]);
    const fixed = install('--from', currentBundle, '--yes');
    expect(fixed.status, fixed.stderr).to.equal(0);
    expect(fixed.stderr).to.include('the last run stopped before it was done');
    const lines = resultLines(fixed.stdout);
    expect(Object.keys(lines)).to.deep.equal(['BERTH_URL', 'BERTH_KEY', 'BERTH_CERT_SHA256']);
    const target = { host: '127.0.0.1', port: Number(new URL(lines.BERTH_URL!).port), fingerprint: lines.BERTH_CERT_SHA256! };
    expect((await pinnedRequest(target, 'GET', '/api/projects', { token: lines.BERTH_KEY! })).status).to.equal(200);

    const purged = install('--purge', '--yes');
    expect(purged.status, purged.stderr).to.equal(0);
    for (const p of [OPT, ETC, DATA, RUN, LOG]) expect(existsSync(p), p).to.equal(false);
  });
});
