// dockerode's SSH transport and BuildKit session are kept out of the daemon (daemon/docker/unused-transports.ts):
// dockerode still works over Docker's socket with them out, and using either fails with an error that says why.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { requireDocker } from '../helpers/docker.js';

const STUBS = fileURLToPath(new URL('../../daemon/docker/unused-transports.js', import.meta.url));

function run(script: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `await import(${JSON.stringify(STUBS)});\nconst { createRequire } = await import('node:module');\nconst require = createRequire(${JSON.stringify(STUBS)});\n${script}`,
    ],
    { encoding: 'utf8', timeout: 30_000 },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('dockerode without the transports Berth never uses', () => {
  it('loads neither ssh2 nor gRPC, and still talks to Docker over its socket', () => {
    requireDocker();
    const r = run(`
const Docker = require('dockerode');
const loaded = Object.keys(require.cache).filter((k) => /node_modules\\/(ssh2|@grpc|protobufjs)\\//.test(k) && require.cache[k].children.length > 0);
const ping = String(await new Docker({ socketPath: '/var/run/docker.sock' }).ping());
console.log(JSON.stringify({ loaded, ping }));`);
    expect(r.status, r.stderr).to.equal(0);
    expect(JSON.parse(r.stdout)).to.deep.equal({ loaded: [], ping: 'OK' });
  });

  it('an ssh:// Docker host and a BuildKit session fail with a message naming what was kept out', () => {
    const r = run(`
const Docker = require('dockerode');
const errors = [];
try { await new Docker({ protocol: 'ssh', host: 'example.invalid', username: 'x' }).ping(); } catch (err) { errors.push(err.message); }
try { new (require(require.resolve('@grpc/grpc-js', { paths: [require.resolve('dockerode')] })).Server)(); } catch (err) { errors.push(err.message); }
console.log(JSON.stringify(errors));`);
    expect(r.status, r.stderr).to.equal(0);
    const errors = JSON.parse(r.stdout) as string[];
    expect(errors).to.have.length(2);
    expect(errors[0]).to.match(/does not load the SSH transport/);
    expect(errors[1]).to.match(/does not load the BuildKit session/);
  });
});
