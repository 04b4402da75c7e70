// A worker's engine relay (daemon/swarm/engine-relay-script.ts, run here as the node runs it) is
// root on that node, and the worker's firewall lets the manager's address in, which is also the
// address every tenant container on the manager leaves by. So its certificate check is the wall:
// the daemon's client certificate passes; a tenant's database certificate (signed by the same
// Berth CA, for serverAuth, and readable inside the tenant's own container), a certificate from
// another CA, and none at all are refused before a byte reaches Docker.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { BerthCa } from '../../daemon/databases/tls.js';
import { RELAY_SCRIPT } from '../../daemon/swarm/engine-relay-script.js';
import { freePort } from '../helpers/caddy.js';
import { requireDocker } from '../helpers/docker.js';
import { until } from '../helpers/wait.js';

/** What the relay answers a `GET /_ping` sent with `cert`: Docker's answer, or the TLS error. */
function ping(port: number, cert: { cert?: string; key?: string }): Promise<string> {
  return new Promise((resolve) => {
    let answer = '';
    const sock = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...cert }, () => sock.write('GET /_ping HTTP/1.1\r\nHost: docker\r\n\r\n'));
    sock.on('data', (d: Buffer) => {
      answer += d.toString();
      if (/\r\n\r\nOK$/.test(answer)) sock.end();
    });
    sock.on('error', (err) => (answer += `error: ${err.message}`));
    sock.on('close', () => resolve(answer));
    sock.setTimeout(10_000, () => sock.destroy());
  });
}

describe("security: a node's engine relay takes only the daemon's certificate", function () {
  this.timeout(60_000);
  let dir: string;
  let relay: ChildProcess;
  let port: number;
  let ca: BerthCa;

  before(async () => {
    requireDocker(); // the relay passes the daemon's requests to this host's Docker socket
    dir = mkdtempSync(join(tmpdir(), 'berth-relay-'));
    ca = new BerthCa(join(dir, 'tls'));
    const server = await ca.issueServer('berth-engine-test', ['127.0.0.1']);
    writeFileSync(join(dir, 'relay.mjs'), RELAY_SCRIPT);
    port = await freePort();
    relay = spawn(process.execPath, [join(dir, 'relay.mjs')], {
      env: { BERTH_RELAY_TLS_DIR: server.dir, BERTH_RELAY_KEY: join(server.dir, 'server.key'), BERTH_RELAY_PORT: String(port) },
      stdio: 'ignore',
    });
    await until('the relay listening', async () => !(await ping(port, {})).includes('ECONNREFUSED'), 10_000, 100);
  });

  after(() => {
    relay?.kill();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("passes the daemon's client certificate through to Docker", async () => {
    expect(await ping(port, await ca.client('berth-daemon'))).to.match(/^HTTP\/1.1 200 OK[\s\S]*\r\n\r\nOK$/);
  });

  it("refuses a tenant database's server certificate from the same CA", async () => {
    const db = await ca.issueServer('svc1', ['db.shop.internal']);
    const answer = await ping(port, { cert: readFileSync(join(db.dir, 'server.crt'), 'utf8'), key: readFileSync(join(db.dir, 'server.key'), 'utf8') });
    // the handshake is refused: the connection ends (or errs) before any answer from Docker
    expect(answer).to.not.match(/HTTP|OK/);
  });

  it('refuses a client certificate from another CA, and no certificate at all', async () => {
    const other = new BerthCa(join(dir, 'other-ca'));
    expect(await other.caPem()).to.not.equal(await ca.caPem());
    const foreign = await ping(port, await other.client('berth-daemon'));
    expect(foreign).to.not.match(/HTTP|OK/);
    expect(await ping(port, {})).to.not.match(/HTTP|OK/);
  });
});
