// The health check a Swarm task gets (daemon/docker/task-health.ts), against real images on this
// Docker: the program is found in the image, and the check it makes passes while the app answers
// and fails while nothing listens; an image with its own HEALTHCHECK keeps it; an image without a
// shell gets none, with the reason.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { connectDocker } from '../../daemon/docker/client.js';
import { taskHealth } from '../../daemon/docker/task-health.js';
import { docker, requireDocker } from '../helpers/docker.js';

const LABELS = { 'dev.berth.instance': 'task-health-test' };

/** Runs the check's CMD-SHELL in a container of `image` whose app starts after `delay` seconds (never: -1). */
function runCheck(image: string, test: string[], appCommand: string): number {
  const name = `berth-task-health-${process.pid}-${Date.now()}`;
  docker('run', '-d', '--name', name, '--label', 'dev.berth.instance=task-health-test', '--entrypoint', 'sh', image, '-c', appCommand);
  try {
    // the app (when there is one) listens within a second
    spawnSync('sleep', ['1.5']);
    return spawnSync('docker', ['exec', name, 'sh', '-c', test[1]!]).status ?? -1;
  } finally {
    spawnSync('docker', ['rm', '-f', name], { stdio: 'ignore' });
  }
}

describe('the health check of a Swarm task', function () {
  this.timeout(120_000);
  const engine = () => connectDocker('/var/run/docker.sock');
  let dir: string;

  before(() => {
    requireDocker();
    dir = mkdtempSync(join(tmpdir(), 'berth-task-health-'));
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    spawnSync('docker', ['rmi', '-f', 'berth-test/task-health-own:1', 'berth-test/task-health-noshell:1'], { stdio: 'ignore' });
  });

  it('checks a web port by HTTP with a program the image has: passes while the app answers, fails while nothing listens', async () => {
    const health = await taskHealth(engine(), 'berth-test/httpd:latest', 8080, 'http', LABELS);
    expect(health.kind).to.equal('check');
    if (health.kind !== 'check') return;
    expect(health.check.tool).to.equal('wget');
    expect(health.check.test[0]).to.equal('CMD-SHELL');
    expect(runCheck('berth-test/httpd:latest', health.check.test, 'exec httpd -f -p 8080 -h /www')).to.equal(0);
    expect(runCheck('berth-test/httpd:latest', health.check.test, 'exec sleep 30')).to.not.equal(0);
  });

  it('counts any HTTP answer, a 404 too, as answering (as a deploy on one server does)', async () => {
    const health = await taskHealth(engine(), 'berth-test/httpd:latest', 8080, 'http', LABELS);
    if (health.kind !== 'check') throw new Error(`expected a check, got ${health.kind}`);
    expect(runCheck('berth-test/httpd:latest', health.check.test, 'mkdir -p /empty && exec httpd -f -p 8080 -h /empty')).to.equal(0);
  });

  it('checks a port that is not HTTP by a connection', async () => {
    const health = await taskHealth(engine(), 'berth-test/httpd:latest', 9000, 'tcp', LABELS);
    if (health.kind !== 'check') throw new Error(`expected a check, got ${health.kind}`);
    expect(health.check.tool).to.equal('nc');
    expect(runCheck('berth-test/httpd:latest', health.check.test, 'exec nc -ll -p 9000 -e cat')).to.equal(0);
    expect(runCheck('berth-test/httpd:latest', health.check.test, 'exec sleep 30')).to.not.equal(0);
  });

  it('keeps the image own HEALTHCHECK, and gives none to an image without a shell, saying why', async () => {
    writeFileSync(join(dir, 'Dockerfile'), 'FROM berth-test/httpd:latest\nHEALTHCHECK CMD true\n');
    docker('build', '-q', '-t', 'berth-test/task-health-own:1', dir);
    expect(await taskHealth(engine(), 'berth-test/task-health-own:1', 8080, 'http', LABELS)).to.deep.equal({ kind: 'own' });
    writeFileSync(join(dir, 'Dockerfile'), 'FROM scratch\nCOPY Dockerfile /etc/marker\nCMD ["/app"]\n');
    docker('build', '-q', '-t', 'berth-test/task-health-noshell:1', dir);
    const none = await taskHealth(engine(), 'berth-test/task-health-noshell:1', 8080, 'http', LABELS);
    expect(none).to.deep.equal({ kind: 'none', reason: 'the image has no /bin/sh to run a check with' });
    // nothing of the discovery is left behind
    expect(docker('ps', '-aq', '--filter', 'label=dev.berth.instance=task-health-test')).to.equal('');
  });
});
