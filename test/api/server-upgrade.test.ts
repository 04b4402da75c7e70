// Upgrading Berth from the API (GET/POST /api/system/upgrade). The daemon only hands a request to
// the installer's upgrader through <data>/upgrade/ and reads back its status and log, so the
// upgrader here is a fake of the installer's (test/helpers/fake-upgrader.ts), spawned by the
// daemon as BERTH_UPGRADER=spawn says; the code under test is the daemon's. Bad sources are
// refused with nothing written, a development daemon and a run under way answer 409, what the
// upgrader writes is read leniently and within bounds, and the release feed shows a newer release only.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { ServerUpgrade } from '../../shared/types.js';
import { VERSION } from '../../daemon/version.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { type FakeInstall, fakeInstall, UPGRADE_SOURCES } from '../helpers/fake-upgrader.js';
import { listenToEvents } from '../helpers/event-listener.js';
import { withKnex } from '../helpers/snapshot.js';
import { until } from '../helpers/wait.js';

type ErrorBody = { error: { code: string; message: string } };
type Answer = { upgrade: ServerUpgrade };

const NO_CADDY = { BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' };

async function upgradeOf(t: TestDaemon): Promise<ServerUpgrade> {
  const res = await t.admin.request<Answer>('GET', '/api/system/upgrade');
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.upgrade;
}

const finished = (t: TestDaemon, id: string) =>
  until(
    `run ${id} ends`,
    async () => {
      const u = await upgradeOf(t);
      return u.run?.id === id && u.run.state !== 'running' ? u.run : null;
    },
    30_000,
  );

describe('upgrading Berth from the API', function () {
  this.timeout(120_000);

  describe('on a development daemon (no BERTH_UPGRADER)', () => {
    let t: TestDaemon;
    before(async () => {
      t = await startTestDaemon(NO_CADDY);
    });
    after(async () => {
      await t?.stop();
    });

    it('GET answers the version, not available with the reason, no release and no run', async () => {
      expect(await upgradeOf(t)).to.deep.equal({
        currentVersion: VERSION,
        available: false,
        unavailableReason: 'this daemon was not installed by install.sh (a development daemon): upgrade it from its checkout',
        latest: null,
        releaseFeed: false,
        sources: [],
        run: null,
      });
    });

    it('POST answers 409 upgrade_unavailable and writes nothing; a bad source is still a 400', async () => {
      const res = await t.admin.request<ErrorBody>('POST', '/api/system/upgrade', { from: 'https://releases.example.com/berth-9.9.9.tar.gz' });
      expect(res.status).to.equal(409);
      expect(res.body.error.code).to.equal('upgrade_unavailable');
      expect(res.body.error.message).to.include('a development daemon').and.include('upgrade it from its checkout');
      expect((await t.admin.request('POST', '/api/system/upgrade', { from: 'http://x/b.tar.gz' })).status).to.equal(400);
      expect(existsSync(join(t.dataDir, 'upgrade'))).to.equal(false);
    });
  });

  describe('on an installed daemon (BERTH_UPGRADER=spawn, a fake upgrader)', () => {
    let t: TestDaemon;
    let install: FakeInstall;
    let feed: Server;
    let feedAnswer: { status: number; body: string } = { status: 200, body: JSON.stringify({ version: '99.0.0', url: 'https://releases.example.com/berth-99.0.0.tar.gz' }) };
    const dir = () => join(t.dataDir, 'upgrade');

    before(async () => {
      install = fakeInstall();
      feed = createServer((_req, res) => res.writeHead(feedAnswer.status, { 'content-type': 'application/json' }).end(feedAnswer.body));
      await new Promise<void>((r) => feed.listen(0, '127.0.0.1', r));
      t = await startTestDaemon({ ...NO_CADDY, ...install.env, BERTH_RELEASE_FEED: `http://127.0.0.1:${(feed.address() as AddressInfo).port}/latest.json` });
    });
    after(async () => {
      install?.release();
      await t?.stop();
      feed?.close();
      install?.remove();
    });

    it('GET answers available, the newer release from the feed, and no run yet', async () => {
      expect(await upgradeOf(t)).to.deep.equal({
        currentVersion: VERSION,
        available: true,
        unavailableReason: null,
        latest: { version: '99.0.0', url: 'https://releases.example.com/berth-99.0.0.tar.gz' },
        releaseFeed: true,
        sources: UPGRADE_SOURCES,
        run: null,
      });
    });

    it('refuses, with a 403 that names the setting, a bundle from anywhere BERTH_UPGRADE_SOURCES does not allow (a key chooses when, not what runs as root), and writes no request', async () => {
      for (const from of [
        'https://releases.example.com.evil.example/berth-9.9.9.tar.gz',
        'https://evil.example/releases.example.com/berth-9.9.9.tar.gz',
        '/root/berth-9.9.9.tar.gz',
        '/srvx/berth-9.9.9.tar.gz',
      ]) {
        const res = await t.admin.request<ErrorBody>('POST', '/api/system/upgrade', { from });
        expect(res.status, from).to.equal(403);
        expect(res.body.error.code, from).to.equal('upgrade_source_not_allowed');
        expect(res.body.error.message, from).to.include('BERTH_UPGRADE_SOURCES in /etc/berth/berth.env: it allows https://releases.example.com/, /srv/');
      }
      // a file in the data dir: backups and builds hold what apps wrote
      const mine = await t.admin.request<ErrorBody>('POST', '/api/system/upgrade', { from: `${t.dataDir}/backups/berth-9.9.9.tar.gz` });
      expect(mine.status).to.equal(403);
      expect(mine.body.error.message).to.match(/is never installed: apps or other users can write there/);
      expect(existsSync(join(dir(), 'request'))).to.equal(false);
      expect((await upgradeOf(t)).run).to.equal(null);
    });

    it('refuses a source that is not an https URL or a clean absolute path with a 400, and writes no request', async () => {
      const cases: [unknown, RegExp][] = [
        [{ from: 'http://releases.example.com/berth.tar.gz' }, /https:\/\/ URL/],
        [{ from: 'ftp://releases.example.com/berth.tar.gz' }, /https:\/\/ URL/],
        [{ from: 'berth-1.2.3.tar.gz' }, /absolute path/],
        [{ from: '/srv/../etc/shadow' }, /without "\.\." segments/],
        [{ from: '/srv/berth.tar.gz\nID=evil' }, /one line without control characters/],
        [{ from: '/srv/berth\u0000.tar.gz' }, /control characters/],
        [{ from: `https://releases.example.com/${'a'.repeat(2048)}` }, /at most 2048 characters/],
        [{ from: 'https://user:pw@releases.example.com/b.tar.gz' }, /credentials/],
        [{ from: '' }, /https:\/\/ URL or an absolute path/],
        [{ from: 42 }, /^from: /],
        [{}, /^from: /],
        [{ from: '/srv/b.tar.gz', force: true }, /force/],
      ];
      for (const [body, message] of cases) {
        const res = await t.admin.request<ErrorBody>('POST', '/api/system/upgrade', body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.error.message, JSON.stringify(body)).to.match(message);
      }
      expect(existsSync(join(dir(), 'request'))).to.equal(false);
      expect((await upgradeOf(t)).run).to.equal(null);
    });

    it('a read key reads it but cannot upgrade; a key over some projects can do neither', async () => {
      const readAll = await t.clientWith('read', 'all');
      const { project } = await t.admin.createProject({ name: 'upgrade-scope', description: '' });
      const writeSome = await t.clientWith('write', [project.id]);
      expect((await readAll.request('GET', '/api/system/upgrade')).status).to.equal(200);
      expect((await readAll.request('POST', '/api/system/upgrade', { from: '/srv/b.tar.gz' })).status).to.equal(403);
      const some = await writeSome.request<ErrorBody>('POST', '/api/system/upgrade', { from: '/srv/b.tar.gz' });
      expect(some.status).to.equal(403);
      expect(some.body.error.message).to.match(/upgrading Berth needs a key over all projects/);
      expect((await writeSome.request('GET', '/api/system/upgrade')).status).to.equal(403);
      expect(existsSync(join(dir(), 'request'))).to.equal(false);
    });

    it('202 starts the upgrader, which takes the request and reports each step; a second POST meanwhile is 409 upgrade_running; the run ends succeeded and is announced', async () => {
      install.hold();
      const events = listenToEvents(t.admin);
      const from = 'https://releases.example.com/berth-3.4.5.tar.gz';
      const res = await t.admin.request<Answer>('POST', '/api/system/upgrade', { from });
      expect(res.status, JSON.stringify(res.body)).to.equal(202);
      const run = res.body.upgrade.run!;
      expect(run).to.include({ state: 'running', from, fromVersion: VERSION, toVersion: null });
      expect(run.id).to.match(/^[0-9a-f-]{36}$/);

      // the request as written (the fake may have taken it already: it removes it first)
      const taken = await until('the upgrader reports', async () => (await upgradeOf(t)).run?.step?.startsWith('download') ?? false, 10_000).catch(() => false);
      expect(taken, 'the spawned upgrader took the request').to.equal(true);
      const status = readFileSync(join(dir(), 'status'), 'utf8');
      expect(status).to.include(`ID=${run.id}\n`);

      const again = await t.admin.request<ErrorBody>('POST', '/api/system/upgrade', { from });
      expect(again.status).to.equal(409);
      expect(again.body.error.code).to.equal('upgrade_running');

      install.release();
      const done = await finished(t, run.id);
      expect(done).to.include({ state: 'succeeded', fromVersion: VERSION, toVersion: '3.4.5', from, step: 'done', message: null });
      expect(done.startedAt).to.match(/^\d{4}-\d\d-\d\dT/);
      expect(done.finishedAt).to.match(/^\d{4}-\d\d-\d\dT/);
      expect(done.log).to.include(`berth: ==> download ${from}`).and.include('berth: ==> wait for the daemon').and.include(`berth: upgraded from ${VERSION} to 3.4.5`);
      // announced when it started, and once when the daemon found it finished (its timer: within 5 s)
      await until('the finished run is announced', async () => events.heard().some((e) => e.event === 'upgrade' && e.json.state === 'succeeded'), 15_000);
      const upgrades = events.heard().filter((e) => e.event === 'upgrade');
      expect(upgrades.map((e) => e.json.state)).to.deep.equal(['running', 'succeeded']);
      expect(upgrades[1]!.json).to.include({ runId: run.id, fromVersion: VERSION, toVersion: '3.4.5' });
      expect(events.heard().filter((e) => e.event === 'settings' && e.json.area === 'upgrade')).to.have.length(2);
      events.stop();
    });

    it('writes the request file exactly; it waits there while no upgrader takes it, and is stale after 30 minutes', async () => {
      // an upgrader that does not take the request (a path unit that is not running): the file stays as written
      writeFileSync(join(install.root, 'current', 'installers', 'upgrade.sh.real'), readFileSync(join(install.root, 'current', 'installers', 'upgrade.sh')));
      writeFileSync(join(install.root, 'current', 'installers', 'upgrade.sh'), '#!/bin/bash\nexit 0\n');
      try {
        const res = await t.admin.request<Answer>('POST', '/api/system/upgrade', { from: '/srv/releases/berth-4.0.0.tar.gz' });
        expect(res.status).to.equal(202);
        const file = join(dir(), 'request');
        expect(statSync(file).mode & 0o777).to.equal(0o600);
        const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
        expect(lines.map((l) => l.split('=')[0])).to.deep.equal(['ID', 'FROM', 'REQUESTED_AT']);
        expect(lines[0]).to.equal(`ID=${res.body.upgrade.run!.id}`);
        expect(lines[1]).to.equal('FROM=/srv/releases/berth-4.0.0.tar.gz');
        expect(new Date(lines[2]!.slice('REQUESTED_AT='.length)).toISOString()).to.equal(lines[2]!.slice('REQUESTED_AT='.length));
        expect(existsSync(join(dir(), 'request.tmp'))).to.equal(false);
        expect((await upgradeOf(t)).run).to.include({ state: 'running', step: 'waiting for the upgrader', from: '/srv/releases/berth-4.0.0.tar.gz' });
        expect((await t.admin.request<ErrorBody>('POST', '/api/system/upgrade', { from: '/srv/x.tar.gz' })).body.error.code).to.equal('upgrade_running');
        // a request nobody took for 30 minutes, with no upgrader process, is stale: a new one replaces it
        const old = new Date(Date.now() - 31 * 60_000);
        utimesSync(file, old, old);
        expect((await upgradeOf(t)).run).to.include({ state: 'failed' });
        const replaced = await t.admin.request<Answer>('POST', '/api/system/upgrade', { from: '/srv/x.tar.gz' });
        expect(replaced.status).to.equal(202);
        expect(readFileSync(file, 'utf8')).to.include('FROM=/srv/x.tar.gz\n');
        // that one never ran: its status as an upgrader that gave up would write it
        writeFileSync(join(dir(), 'status'), `ID=${replaced.body.upgrade.run!.id}\nSTATE=failed\nMESSAGE=no upgrader\n`);
      } finally {
        rmSync(join(dir(), 'request'), { force: true });
        writeFileSync(join(install.root, 'current', 'installers', 'upgrade.sh'), readFileSync(join(install.root, 'current', 'installers', 'upgrade.sh.real')));
      }
    });

    it('a bundle whose daemon is unhealthy ends rolled_back with the reason; one that cannot be fetched ends failed', async () => {
      const back = await t.admin.request<Answer>('POST', '/api/system/upgrade', { from: 'https://releases.example.com/unhealthy/berth-5.0.0.tar.gz' });
      expect(back.status).to.equal(202);
      const rolled = await finished(t, back.body.upgrade.run!.id);
      expect(rolled).to.include({ state: 'rolled_back', toVersion: '5.0.0', step: `roll back to ${VERSION}` });
      expect(rolled.message).to.match(/did not answer \/api\/health/);
      // the log is appended run after run: a run shows its own lines only
      expect(rolled.log[0]).to.equal('berth: ==> download https://releases.example.com/unhealthy/berth-5.0.0.tar.gz');
      expect(rolled.log.at(-1)).to.equal(`berth: rolled back to ${VERSION}`);
      const fail = await t.admin.request<Answer>('POST', '/api/system/upgrade', { from: 'https://releases.example.com/missing/berth-5.0.1.tar.gz' });
      const failed = await finished(t, fail.body.upgrade.run!.id);
      expect(failed).to.include({ state: 'failed', step: 'download', message: 'the bundle could not be downloaded: 404 Not Found' });
    });

    it('reads a status file as written: every field, a missing key as null, an unknown STATE as failed', async () => {
      const write = (text: string) => writeFileSync(join(dir(), 'status'), text);
      write('ID=11111111-2222-3333-4444-555555555555\nSTATE=running\nFROM_VERSION=1.0.0\nTO_VERSION=\nSTEP=wait for the daemon\nMESSAGE=\nSTARTED_AT=2026-01-02T03:04:05.000Z\nFINISHED_AT=\n');
      const running = (await upgradeOf(t)).run!;
      expect(running).to.deep.include({
        id: '11111111-2222-3333-4444-555555555555',
        state: 'running',
        fromVersion: '1.0.0',
        toVersion: null,
        from: null,
        step: 'wait for the daemon',
        message: null,
        startedAt: '2026-01-02T03:04:05.000Z',
        finishedAt: null,
      });
      write('ID=abc\r\nSTATE=exploded\r\nMESSAGE=disk full\r\n# a comment\r\nnot a line\r\nlower=case\r\n');
      expect((await upgradeOf(t)).run).to.deep.include({ id: 'abc', state: 'failed', message: 'the upgrader reported an unknown state "exploded": disk full', step: null, startedAt: null });
      write('');
      expect((await upgradeOf(t)).run).to.deep.include({ id: 'unknown', state: 'failed', message: 'the upgrader reported no state' });
    });

    it('a hostile status and log (huge, binary, control characters, one endless line) do not break the answer', async () => {
      const huge = `ID=x\nSTATE=rolled_back\nMESSAGE=${'m'.repeat(5 * 1024 * 1024)}\n`;
      writeFileSync(join(dir(), 'status'), `STEP=\u001b[31mred\u0007\n${huge}`);
      const binary = randomBytes(3 * 1024 * 1024);
      writeFileSync(join(dir(), 'log'), Buffer.concat([binary, Buffer.from('\nlast line \u001b]0;title\u0007 here\n')]));
      const started = Date.now();
      const u = await upgradeOf(t);
      expect(Date.now() - started).to.be.below(2000);
      const run = u.run!;
      // the status's first 64 KiB only: its MESSAGE line is cut, and so read as the value it holds so far
      expect(run.step).to.equal('\uFFFD[31mred\uFFFD');
      expect(run.log.length).to.be.at.most(200);
      expect(run.log.at(-1)).to.equal('last line \uFFFD]0;title\uFFFD here');
      // eslint-disable-next-line no-control-regex
      for (const line of run.log) expect(line).to.not.match(/[\u0000-\u0008\u000a-\u001f\u007f]/);
      expect(JSON.stringify(u).length).to.be.below(600 * 1024);
      // a directory where the log should be: as if there were none
      rmSync(join(dir(), 'log'));
      mkdirSync(join(dir(), 'log'));
      expect((await upgradeOf(t)).run!.log).to.deep.equal([]);
      rmSync(join(dir(), 'log'), { recursive: true });
    });

    it('a daemon that starts and finds a finished run it has not announced announces it once', async () => {
      writeFileSync(join(dir(), 'status'), 'ID=22222222-0000-0000-0000-000000000000\nSTATE=rolled_back\nFROM_VERSION=1.0.0\nTO_VERSION=2.0.0\nSTEP=roll back\nMESSAGE=unhealthy\n');
      await t.restart();
      const announced = () => withKnex(t.dataDir, async (k) => ((await k('settings').where({ key: 'upgradeAnnounced' }).first()) as { value: string } | undefined)?.value);
      await until('announced', async () => (await announced()) === '22222222-0000-0000-0000-000000000000', 10_000);
    });

    it('the release feed: an older or equal version, a bad answer, or none shows no release (a warning in the log, never an error)', async () => {
      const cases: [{ status: number; body: string }, RegExp | null][] = [
        [{ status: 200, body: JSON.stringify({ version: VERSION, url: 'https://r.example.com/b.tar.gz' }) }, null],
        [{ status: 200, body: JSON.stringify({ version: '0.0.1', url: 'https://r.example.com/b.tar.gz' }) }, null],
        [{ status: 200, body: 'not json' }, /release feed .*not JSON/],
        [{ status: 200, body: JSON.stringify({ version: 'latest', url: 'https://r.example.com/b.tar.gz' }) }, /no semantic "version"/],
        [{ status: 200, body: JSON.stringify({ version: '99.0.0', url: 'http://r.example.com/b.tar.gz' }) }, /its url must be an https:\/\/ URL/],
        [{ status: 500, body: '{}' }, /answered HTTP 500/],
        [{ status: 200, body: JSON.stringify({ version: '99.0.0', url: 'https://r.example.com/b.tar.gz', pad: 'x'.repeat(70 * 1024) }) }, /larger than 64 KiB/],
      ];
      for (const [answer, warning] of cases) {
        feedAnswer = answer;
        // a new daemon: the feed is read at most hourly
        await t.restart();
        const u = await upgradeOf(t);
        expect(u.latest, answer.body.slice(0, 80)).to.equal(null);
        if (warning)
          expect(
            t.logs.some((l) => warning.test(l)),
            `${warning} in ${t.logs.join('\n').slice(-2000)}`,
          ).to.equal(true);
      }
      feedAnswer = { status: 200, body: JSON.stringify({ version: '99.1.0-rc.1', url: '/srv/releases/berth-99.1.0-rc.1.tar.gz' }) };
      await t.restart();
      expect((await upgradeOf(t)).latest).to.deep.equal({ version: '99.1.0-rc.1', url: '/srv/releases/berth-99.1.0-rc.1.tar.gz' });
    });
  });
});
