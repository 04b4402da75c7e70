// The release bundle's installer on a fresh VPS with systemd as PID 1 (a container of
// berth-test/vps that boots systemd, with Debian's docker.io inside: test/helpers/vps.ts), driven
// from outside as a user's laptop would: the HTTPS API pinned to the printed fingerprint at the
// VPS's address, an app on a domain over HTTPS through Caddy. Install, units, an app, the daemon
// killed, a reboot in which Docker's bridges come before the network card, a rerun, an upgrade,
// uninstall and purge. Pollers count the app's failed requests wherever the issue says "0 failed".
import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cliHome, type CliHome } from '../helpers/cli.js';
import { requireDocker } from '../helpers/docker.js';
import { brokenBundle, PREVIOUS, releaseBundles, resultLines, VERSION } from '../helpers/installer.js';
import { normalFingerprint, pinnedRequest } from '../helpers/pinned-https.js';
import { httpsProbe, pollAll, type Poller } from '../helpers/pollers.js';
import { enginePath, printLogsOnFailure, removeAllVps, runInstaller, startVps, type Vps } from '../helpers/vps.js';
import { until } from '../helpers/wait.js';

const DOMAIN = 'shop.berth.test';

describe('installer: release bundle on a fresh VPS with systemd (simulated: systemd in a container)', function () {
  this.timeout(600_000);
  let vps: Vps;
  let api = { host: '', port: 4310, fingerprint: '' };
  let key = '';
  let url = '';
  let projectId = '';
  let serviceId = '';
  let liveDeployment = '';
  const bundlePath = { previous: '', current: '', broken: '' };
  const BROKEN = `${VERSION}-broken.1`;
  let work = '';
  let cli: CliHome | null = null;

  const installer = (...args: string[]) => runInstaller(vps, ...args);
  const call = <T>(method: string, path: string, body?: unknown) => pinnedRequest<T>(api, method, path, { token: key, body });
  const appProbe = () => httpsProbe(vps.address, 443, DOMAIN);
  const unitStates = async (what: 'is-active' | 'is-enabled') => (await vps.sh(`systemctl ${what} berth caddy docker`)).stdout.trim().split('\n');
  const mainPid = async () => Number(await vps.run('systemctl show -p MainPID --value berth'));
  const failuresOf = (pollers: Poller[]) => pollers.flatMap((p) => p.failures.map((f) => `${p.name}: ${f}`));

  before(async function () {
    if (process.getuid?.() !== 0) this.skip();
    requireDocker();
    removeAllVps();
    const t0 = Date.now();
    const bundles = releaseBundles();
    vps = await startVps('a', 10);
    work = mkdtempSync(join(tmpdir(), 'berth-vps-test-'));
    const broken = brokenBundle(bundles.current, BROKEN, join(work, 'broken'));
    for (const [which, path] of Object.entries({ ...bundles, broken }) as ['previous' | 'current' | 'broken', string][]) {
      // the tarball, its SHA256SUMS and install.sh, as a user downloads them
      for (const file of ['SHA256SUMS', 'install.sh', path.split('/').pop()!]) vps.copyIn(`${dirname(path)}/${file}`, `/root/${which}`);
      bundlePath[which] = `/root/${which}/${path.split('/').pop()}`;
    }
    vps.loadImage('berth-test/httpd:latest');
    api = { host: vps.address, port: 4310, fingerprint: '' };
    console.log(`      VPS booted, bundles and the app's image in it: ${Math.round((Date.now() - t0) / 1000)} s`);
  });

  afterEach(printLogsOnFailure(() => vps));

  after(() => {
    removeAllVps();
    cli?.remove();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('installs: units active and enabled, Caddy from Debian, the API over HTTPS at the VPS address pinned to the printed fingerprint', async () => {
    const r = await installer('--from', bundlePath.previous, '--yes');
    expect(r.status, r.stderr).to.equal(0);
    console.log(`      install took ${r.seconds.toFixed(1)} s`);
    expect(r.stderr).to.include('==> systemd units');
    expect(r.stderr).to.not.include('No systemd here');
    // Caddy was not on the VPS: the installer installed it from the distribution
    expect(r.stderr).to.include('==> packages: caddy').and.include('restarting Docker without its userland proxy (no container runs yet)');
    const lines = resultLines(r.stdout);
    expect(Object.keys(lines)).to.deep.equal(['BERTH_URL', 'BERTH_KEY', 'BERTH_CERT_SHA256']);
    url = lines.BERTH_URL!;
    key = lines.BERTH_KEY!;
    expect(url).to.equal(`https://${vps.address}:4310`);
    api.fingerprint = lines.BERTH_CERT_SHA256!;

    expect(await unitStates('is-active')).to.deep.equal(['active', 'active', 'active']);
    expect(await unitStates('is-enabled')).to.deep.equal(['enabled', 'enabled', 'enabled']);
    const health = await pinnedRequest<{ ok: boolean; version: string }>(api, 'GET', '/api/health');
    expect(health.body).to.deep.equal({ ok: true, version: PREVIOUS });
    expect(normalFingerprint(health.cert.fingerprint256)).to.equal(api.fingerprint);
    expect(new X509Certificate(health.cert.raw).subjectAltName).to.include(`IP Address:${vps.address}`);
    // the daemon itself listens on the VPS's loopback only
    expect(await vps.run('ss -ltnH "sport = :4311" | awk \'{print $4}\'')).to.equal('127.0.0.1:4311');
  });

  it('an app deployed through the API answers on its domain over HTTPS through Caddy', async () => {
    const project = await call<{ project: { id: string } }>('POST', '/api/projects', { name: 'Shop' });
    expect(project.status).to.equal(200);
    projectId = project.body.project.id;
    const service = await call<{ service: { id: string } }>('POST', `/api/projects/${projectId}/services`, {
      name: 'web',
      repoUrl: 'docker-image',
      dockerImage: 'berth-test/httpd:latest',
      internalPort: 8080,
      env: [{ key: 'WORD', value: 'kept' }],
    });
    expect(service.status).to.equal(200);
    serviceId = service.body.service.id;
    const deployment = await call<{ deployment: { id: string } }>('POST', `/api/services/${serviceId}/deployments`);
    expect(deployment.status).to.equal(200);
    liveDeployment = deployment.body.deployment.id;
    await until(
      'the deployment to be running',
      async () =>
        (await call<{ deployments: { id: string; status: string }[] }>('GET', `/api/services/${serviceId}/overview`)).body.deployments.find((d) => d.id === liveDeployment)?.status === 'running',
      90_000,
    );
    expect((await call('POST', `/api/services/${serviceId}/domains`, { hostname: DOMAIN })).status).to.equal(200);
    await until('the domain to answer over HTTPS', async () => (await appProbe()()).ok, 30_000);
    expect(await appProbe()()).to.deep.equal({ ok: true, text: 'image ok' });
    expect(await enginePath(vps), 'no userland proxy (Docker restarted before any container ran)').to.equal('{"storage-driver":"vfs","userland-proxy":false}, 0 docker-proxy, guarded');
  });

  it("a project's status page is served by the installed Caddy (its own user) from a file the sandboxed daemon wrote", async () => {
    const hostname = 'status.shop.berth.test';
    const put = await call('PUT', `/api/projects/${projectId}/status-page`, { hostname, title: 'Shop status', services: [{ serviceId, label: 'Storefront' }] });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    const page = httpsProbe(vps.address, 443, hostname);
    await until('the status page to answer over HTTPS', async () => (await page()).ok, 30_000);
    const answer = await page();
    expect(answer.ok && answer.text).to.include('Shop status');
    expect(answer.ok && answer.text).to.include('Storefront');
    // Debian's Caddy runs as user caddy: it reads the page because the folder is not Berth's private data
    expect(await vps.run('ps -o user= -C caddy | sort -u')).to.equal('caddy');
    expect(await vps.run('stat -c %a /var/lib/berth-status-pages /var/lib/berth')).to.equal('755\n700');
    expect((await call('DELETE', `/api/projects/${projectId}/status-page`)).status).to.equal(200);
    expect(await vps.run('ls /var/lib/berth-status-pages | wc -l')).to.equal('0');
  });

  it('SIGKILL of the daemon: systemd starts it again, and the app answers throughout (0 failed requests)', async () => {
    const before = await mainPid();
    const restarts = Number(await vps.run('systemctl show -p NRestarts --value berth'));
    const pollers = pollAll({ domain: appProbe() });
    await new Promise((r) => setTimeout(r, 500));
    await vps.run(`kill -KILL ${before}`);
    await until('systemd to start the daemon again', async () => ((await mainPid()) || before) !== before, 30_000);
    await until('the API to answer again', async () => (await pinnedRequest(api, 'GET', '/api/health').catch(() => null))?.status === 200, 30_000);
    await new Promise((r) => setTimeout(r, 1000));
    const done = await pollers.stop();
    expect(Number(await vps.run('systemctl show -p NRestarts --value berth'))).to.equal(restarts + 1);
    expect(failuresOf(done)).to.deep.equal([]);
    expect(done[0]!.answers.length).to.be.greaterThan(10);
  });

  it("a reboot in which Docker's bridges come before the network card keeps the address, the certificate and the app, with no step by hand", async () => {
    const addressBefore = (await call<{ address: { address: string } }>('GET', '/api/system/address')).body.address.address;
    expect(addressBefore).to.equal(vps.address);
    await vps.reboot();
    // The case the bug needed: interfaces in index order list a Docker bridge (with an IPv4 address) before eth0.
    const order = (await vps.run("ip -o -4 addr show | awk '{print $2}'")).split('\n');
    console.log(`      interfaces in order after the reboot: ${order.join(', ')}`);
    expect(order.findIndex((n) => n === 'docker0' || n.startsWith('brth') || n.startsWith('br-'))).to.be.lessThan(order.indexOf('eth0'));

    await until('the app to answer after the reboot', async () => (await appProbe()()).ok, 60_000);
    await until('the API to answer after the reboot', async () => (await pinnedRequest(api, 'GET', '/api/health').catch(() => null))?.status === 200, 60_000);
    expect(await unitStates('is-active')).to.deep.equal(['active', 'active', 'active']);
    expect(await enginePath(vps), 'berth.service guards at every start').to.match(/"userland-proxy":false\}, 0 docker-proxy, guarded$/);
    // the same certificate (pinned: a different one is refused before any byte is sent) and address
    const address = await call<{ address: { address: string; fingerprint: string; apiUrl: string } }>('GET', '/api/system/address');
    expect(address.body.address).to.include({ address: vps.address, fingerprint: api.fingerprint, apiUrl: url });
    const overview = await call<{ service: { status: string; primaryUrl: string }; deployments: { id: string; status: string }[] }>('GET', `/api/services/${serviceId}/overview`);
    expect(overview.body.service.status).to.equal('active');
    expect(overview.body.deployments.find((d) => d.status === 'running')?.id).to.equal(liveDeployment);
  });

  it('a rerun with the same bundle says "no change" and leaves the daemon running as it was', async () => {
    const pid = await mainPid();
    const r = await installer('--from', bundlePath.previous, '--yes');
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stderr).to.include(`Berth ${PREVIOUS}: no change`);
    expect(resultLines(r.stdout)).to.deep.equal({ BERTH_URL: url, BERTH_CERT_SHA256: api.fingerprint });
    expect(await mainPid()).to.equal(pid);
  });

  it('an upgrade through the API takes only a bundle from where Berth was installed from: the daemon refuses another source, and upgrade.sh refuses one even when the request bypasses the daemon', async () => {
    // set by the install from /root/previous/<bundle>: the folder releases sit side by side in
    expect(await vps.run("sed -n 's/^BERTH_UPGRADE_SOURCES=//p' /etc/berth/berth.env")).to.equal('/root/');
    await vps.run('cp /root/current/*.tar.gz /root/current/SHA256SUMS /tmp/');
    const refused = await call<{ error: { code: string; message: string } }>('POST', '/api/system/upgrade', { from: `/tmp/${bundlePath.current.split('/').pop()}` });
    expect(refused.status).to.equal(403);
    expect(refused.body.error.code).to.equal('upgrade_source_not_allowed');
    // a request written straight into the daemon's data dir (as a daemon taken over could): the path unit runs upgrade.sh, which checks again
    await vps.run(`printf 'ID=bypass-1\\nFROM=/var/lib/berth/evil/berth.tar.gz\\n' > /var/lib/berth/upgrade/request`);
    const status = await until(
      'upgrade.sh to refuse the request',
      async () => {
        const text = await vps.run('cat /var/lib/berth/upgrade/status 2>/dev/null || true');
        return text.includes('ID=bypass-1') && text.includes('STATE=failed') ? text : null;
      },
      30_000,
    );
    expect(status).to.include('MESSAGE=/var/lib/berth/evil/berth.tar.gz is not an upgrade source this server accepts (BERTH_UPGRADE_SOURCES: /root/)');
    expect(await vps.run('readlink /opt/berth/current')).to.equal(`/opt/berth/releases/${PREVIOUS}`);
  });

  it('berth server upgrade from a laptop (the API, the path unit, upgrade.sh) keeps projects, variables, keys and the running app, with 0 failed app requests; an app the user stopped stays stopped', async () => {
    const worker = await call<{ service: { id: string } }>('POST', `/api/projects/${projectId}/services`, {
      name: 'paused',
      repoUrl: 'docker-image',
      dockerImage: 'berth-test/httpd:latest',
      internalPort: 8080,
    });
    const workerDeploy = await call<{ deployment: { id: string } }>('POST', `/api/services/${worker.body.service.id}/deployments`);
    await until(
      'the second app to run',
      async () =>
        (await call<{ deployments: { id: string; status: string }[] }>('GET', `/api/services/${worker.body.service.id}/overview`)).body.deployments.find(
          (d) => d.id === workerDeploy.body.deployment.id,
        )?.status === 'running',
      90_000,
    );
    const stopped = await vps.run(`docker ps -q --filter label=dev.berth.service=${worker.body.service.id}`);
    await vps.run(`docker stop ${stopped}`);
    cli = cliHome();
    const login = await cli.run(['login', url, '--fingerprint', api.fingerprint], { env: { BERTH_TOKEN: key } });
    expect(login.code, login.stderr).to.equal(0);
    // a server installed before Berth turned Docker's userland proxy off: the upgrade must not restart Docker under running apps
    await vps.run(`echo '{"storage-driver":"vfs"}' > /etc/docker/daemon.json; rm /etc/berth/docker-userland-proxy-added`);
    const dockerSince = await vps.run('systemctl show -p ActiveEnterTimestampMonotonic --value docker');
    const pollers = pollAll({ domain: appProbe() });
    const t0 = Date.now();
    const r = await cli.run(['server', 'upgrade', '--from', bundlePath.current, '--yes'], { timeoutMs: 300_000 });
    await new Promise((res) => setTimeout(res, 1000));
    const done = await pollers.stop();
    expect(r.code, `${r.stdout}\n${r.stderr}`).to.equal(0);
    console.log(`      upgrade through the API took ${((Date.now() - t0) / 1000).toFixed(1)} s; ${done[0]!.answers.length} app requests meanwhile`);
    expect(`${r.stdout}${r.stderr}`).to.include(`upgraded from ${PREVIOUS} to ${VERSION}`);
    // the installer's own steps, followed live
    expect(`${r.stdout}${r.stderr}`).to.include("==> back up Berth's state").and.include("Docker's userland proxy goes off at Docker's next restart");
    expect(failuresOf(done)).to.deep.equal([]);
    expect(await vps.run('systemctl show -p ActiveEnterTimestampMonotonic --value docker'), 'Docker not restarted').to.equal(dockerSince);
    expect(await enginePath(vps), 'applies at its next restart').to.match(/^\{"storage-driver":"vfs","userland-proxy":false\}, /);
    const state = await call<{ upgrade: { currentVersion: string; run: { state: string; fromVersion: string; toVersion: string } } }>('GET', '/api/system/upgrade');
    expect(state.body.upgrade.currentVersion).to.equal(VERSION);
    expect(state.body.upgrade.run).to.include({ state: 'succeeded', fromVersion: PREVIOUS, toVersion: VERSION });
    expect((await pinnedRequest(api, 'GET', '/api/health')).body).to.deep.equal({ ok: true, version: VERSION });
    expect(await vps.run('readlink /opt/berth/current')).to.equal(`/opt/berth/releases/${VERSION}`);
    const overview = await until(
      'the service to be adopted as active',
      async () => {
        const o = await call<{ service: { status: string }; env: { key: string; value: string }[]; deployments: { id: string; status: string }[] }>('GET', `/api/services/${serviceId}/overview`);
        return o.body.service?.status === 'active' ? o : null;
      },
      60_000,
    );
    expect(overview.body.env.find((e) => e.key === 'WORD')?.value).to.equal('kept');
    expect(overview.body.deployments.find((d) => d.status === 'running')?.id).to.equal(liveDeployment);
    expect(await unitStates('is-enabled')).to.deep.equal(['enabled', 'enabled', 'enabled']);
    await new Promise((res) => setTimeout(res, 3000));
    // not started again by the upgrade (the daemon records its deployment as stopped: failed, with a log line)
    expect(await vps.run(`docker ps -q --filter label=dev.berth.service=${worker.body.service.id}`)).to.equal('');
    const paused = await call<{ deployments: { id: string; status: string }[] }>('GET', `/api/services/${worker.body.service.id}/overview`);
    expect(paused.body.deployments.find((d) => d.id === workerDeploy.body.deployment.id)?.status).to.not.equal('running');
  });

  it('an upgrade to a release whose daemon fails at start rolls back by itself: exit 3, the previous release and its state, 0 failed app requests', async () => {
    const pollers = pollAll({ domain: appProbe() });
    const r = await installer('--from', bundlePath.broken, '--yes');
    await new Promise((res) => setTimeout(res, 1000));
    const done = await pollers.stop();
    console.log(`      the failed upgrade and its rollback took ${r.seconds.toFixed(1)} s`);
    expect(r.status, r.stderr).to.equal(3);
    expect(r.stdout).to.equal('');
    expect(r.stderr).to.include(`==> roll back to ${VERSION}`);
    expect(r.stderr).to.include('the daemon exited while starting');
    expect(r.stderr).to.include(`rolled back: Berth ${VERSION} runs again`);
    expect(r.stderr).to.not.include('FAILED during');
    expect(failuresOf(done)).to.deep.equal([]);
    expect((await pinnedRequest(api, 'GET', '/api/health')).body).to.deep.equal({ ok: true, version: VERSION });
    expect(await vps.run('readlink /opt/berth/current')).to.equal(`/opt/berth/releases/${VERSION}`);
    expect(await vps.run(`test -e /opt/berth/releases/${BROKEN} && echo kept || echo removed`)).to.equal('removed');
    expect(await vps.run('ls /var/lib/berth/upgrade-backups | wc -l')).to.not.equal('0');
    expect(await unitStates('is-active')).to.deep.equal(['active', 'active', 'active']);
    const overview = await call<{ service: { status: string }; env: { key: string; value: string }[] }>('GET', `/api/services/${serviceId}/overview`);
    expect(overview.body.env.find((e) => e.key === 'WORD')?.value).to.equal('kept');
    // the broken release renamed every project before it failed: the state copy undid that
    expect((await call<{ project: { name: string } }>('GET', `/api/projects/${projectId}`)).body.project.name).to.equal('Shop');
    // a rerun with the good bundle is "no change": the rollback left the installation as it was
    const again = await installer('--from', bundlePath.current, '--yes');
    expect(again.stderr).to.include(`Berth ${VERSION}: no change`);
  });

  it('berth server upgrade to the broken release: rolled back by itself, said with the reason, exit 1, and the API answers the previous version', async () => {
    const r = await cli!.run(['server', 'upgrade', '--from', bundlePath.broken, '--yes'], { timeoutMs: 300_000 });
    expect(r.code, `${r.stdout}\n${r.stderr}`).to.equal(1);
    expect(`${r.stdout}${r.stderr}`).to.match(new RegExp(`rolled back to ${VERSION.replace(/\./g, '\\.')}: the daemon exited while starting`));
    expect((await pinnedRequest(api, 'GET', '/api/health')).body).to.deep.equal({ ok: true, version: VERSION });
    const state = await call<{ upgrade: { run: { state: string; toVersion: string; message: string; log: string[] } } }>('GET', '/api/system/upgrade');
    expect(state.body.upgrade.run).to.include({ state: 'rolled_back', toVersion: BROKEN });
    expect(state.body.upgrade.run.log.join('\n')).to.include(`==> roll back to ${VERSION}`);
    expect(await unitStates('is-active')).to.deep.equal(['active', 'active', 'active']);
  });

  it("berth server backup on the server, and a backup of Berth the sandboxed daemon takes when the API asks, write encrypted archives; install.sh --restore of the daemon's on a fresh second server brings back the projects, the keys and the app", async () => {
    await vps.run("printf 'correct horse battery staple\\n' > /root/passphrase && chmod 600 /root/passphrase");
    const made = await vps.run('berth server backup --passphrase-file /root/passphrase', 120_000);
    expect(made).to.match(/^\/var\/lib\/berth\/server-backups\/berth-server-vps-a-\d{8}T\d{6}Z\.tar\.gz\.enc$/);
    // encrypted: no byte of the store, the sealing secret or a project's name is readable in it
    expect(await vps.run(`grep -c -a -e 'SQLite format' -e 'Shop' ${made} || true`)).to.equal('0');
    // the daemon under berth.service's sandbox reads /etc/berth and Caddy's state itself
    const started = await call<{ run: { id: string } }>('POST', '/api/system/backups', { passphrase: 'correct horse battery staple' });
    expect(started.status, JSON.stringify(started.body)).to.equal(202);
    type Runs = { runs: { id: string; status: string; fileName: string; error: string | null }[] };
    const run = await until(
      'the backup of Berth to end',
      async () => (await call<Runs>('GET', '/api/system/backups')).body.runs.find((r) => r.id === started.body.run.id && r.status !== 'running'),
      120_000,
    );
    expect(run.status, run.error ?? '').to.equal('succeeded');
    const archive = `/var/lib/berth/server-backups/${run.fileName}`;
    const local = join(work, 'archive');
    for (const file of [archive, `${archive}.sha256`]) vps.copyOut(file, local);

    const second = await startVps('b', 11);
    second.loadImage('berth-test/httpd:latest');
    const { current } = releaseBundles();
    for (const file of [current, join(dirname(current), 'SHA256SUMS'), join(dirname(current), 'install.sh')]) second.copyIn(file, '/root/current');
    const name = archive.split('/').pop()!;
    for (const file of [name, `${name}.sha256`]) second.copyIn(join(local, file), '/root/archive');
    await second.run("printf 'wrong passphrase, surely\\n' > /root/wrong && printf 'correct horse battery staple\\n' > /root/passphrase");
    const wrong = await second.sh(`bash /root/current/install.sh --from ${bundlePath.current} --restore /root/archive/${name} --passphrase-file /root/wrong --yes`, 300_000);
    expect(wrong.status).to.equal(1);
    expect(wrong.stderr).to.include('the archive does not open with this passphrase');
    // the failed run left no store: the next run with the right passphrase finishes the restore

    const t0 = Date.now();
    const r = await second.sh(`bash /root/current/install.sh --from ${bundlePath.current} --restore /root/archive/${name} --passphrase-file /root/passphrase --yes`, 300_000);
    expect(r.status, r.stderr).to.equal(0);
    console.log(`      restore on the second server took ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    expect(r.stderr).to.include("restored Berth's state from vps-a");
    expect(r.stderr).to.include('Shop/web: deploying');
    const lines = resultLines(r.stdout);
    // no new key: the restored keys work; the address is the second server's own
    expect(Object.keys(lines)).to.deep.equal(['BERTH_URL', 'BERTH_CERT_SHA256']);
    expect(lines.BERTH_URL).to.equal(`https://${second.address}:4310`);
    const there = { host: second.address, port: 4310, fingerprint: lines.BERTH_CERT_SHA256! };
    const projects = await pinnedRequest<{ projects: { id: string; name: string; services: { id: string }[] }[] }>(there, 'GET', '/api/projects', { token: key });
    expect(projects.status).to.equal(200);
    expect(projects.body.projects.map((p) => [p.id, p.name])).to.deep.equal([[projectId, 'Shop']]);
    await until('the restored app to answer on the second server', async () => (await httpsProbe(second.address, 443, DOMAIN)()).ok, 120_000);
    second.remove();
  });

  it('--address moves the server to another of its addresses: a new certificate, its fingerprint printed, the old pin refused with the reason', async () => {
    const second = vps.addNetworkCard(10);
    const r = await installer('--from', bundlePath.current, '--yes', '--address', second);
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stderr).to.include(`the server's address is now ${second}`);
    const lines = resultLines(r.stdout);
    expect(lines.BERTH_URL).to.equal(`https://${second}:4310`);
    expect(lines.BERTH_CERT_SHA256).to.match(/^[0-9a-f]{64}$/);
    expect(lines.BERTH_CERT_SHA256).to.not.equal(api.fingerprint);
    expect(r.stderr).to.include(`berth login https://${second}:4310 --fingerprint ${lines.BERTH_CERT_SHA256}`);
    // a client still pinned to the old certificate is refused before it sends anything
    const old = await pinnedRequest({ ...api, host: second }, 'GET', '/api/health').catch((err: Error) => err);
    expect(String(old)).to.match(/does not match the pinned/);
    api = { host: second, port: 4310, fingerprint: lines.BERTH_CERT_SHA256! };
    const health = await pinnedRequest<{ ok: boolean }>(api, 'GET', '/api/health');
    expect(new X509Certificate(health.cert.raw).subjectAltName).to.include(`IP Address:${second}`);
    expect((await call<{ address: { address: string; detected: boolean } }>('GET', '/api/system/address')).body.address).to.include({ address: second, detected: false });
    // the same address again: no change, the same certificate
    const again = await installer('--from', bundlePath.current, '--yes', '--address', second);
    expect(again.stderr).to.include(`address ${second}: no change`);
    expect(resultLines(again.stdout).BERTH_CERT_SHA256).to.equal(api.fingerprint);
  });

  it('--uninstall disables and removes the unit and /opt/berth, keeping data, Caddy and the app', async () => {
    const r = await installer('--uninstall', '--yes');
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stderr).to.include('Berth is removed; kept: /etc/berth, /var/lib/berth');
    expect((await vps.sh('systemctl is-active berth')).stdout.trim()).to.not.equal('active');
    expect(await vps.run('test -e /etc/systemd/system/berth.service || test -e /opt/berth || echo gone')).to.equal('gone');
    expect(await vps.run('ls /etc/berth/berth.env /var/lib/berth/berth.sqlite')).to.equal('/etc/berth/berth.env\n/var/lib/berth/berth.sqlite');
    // Caddy keeps serving the routes Berth last gave it
    expect(await appProbe()()).to.deep.equal({ ok: true, text: 'image ok' });
  });

  it("--purge removes data, configuration and Berth's Docker objects; Docker and Caddy stay", async () => {
    const r = await installer('--purge', '--yes', '--from', bundlePath.current);
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stderr).to.include('Berth is removed, with its data, configuration and Docker objects');
    expect(await vps.run('docker ps -aq --filter label=dev.berth.managed=true | wc -l')).to.equal('0');
    expect(await vps.run('for p in /opt/berth /etc/berth /var/lib/berth /var/lib/berth-status-pages /etc/systemd/system/caddy.service.d/berth.conf; do test -e $p && echo $p; done; true')).to.equal(
      '',
    );
    expect(await vps.run('systemctl is-active docker caddy')).to.equal('active\nactive');
    expect((await appProbe()()).ok).to.equal(false);
    expect(r.stderr).to.include('give Docker its userland proxy back');
    expect(await enginePath(vps), "the key Berth added is gone, the VPS's own stays").to.match(/^\{"storage-driver":"vfs"\}, /);
  });
});
