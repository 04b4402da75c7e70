// daemon/docker/client.ts: connecting to the Engine leaves dockerode's BuildKit session (gRPC,
// protobufjs) and ssh transport (ssh2) unloaded (they would stay resident), and the stand-ins still
// load the real modules when called. Each case runs in a fresh Node process, where nothing else
// has loaded dockerode yet.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from '../helpers/repo-root.js';

const client = fileURLToPath(new URL('../../daemon/docker/client.js', import.meta.url));

function run(script: string): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: REPO_ROOT }).trim();
}

const LOADED = `const heavy = () => Object.keys(req.cache).filter((k) => /node_modules\\/(@grpc|protobufjs|ssh2)\\//.test(k)).map((k) => k.match(/node_modules\\/((@grpc\\/)?[^/]+)/)[1]);`;

describe('Docker client', () => {
  it('connects without loading gRPC, protobufjs or ssh2', () => {
    const out = run(`
      import { createRequire } from 'node:module';
      import { connectDocker } from ${JSON.stringify(client)};
      const req = createRequire(import.meta.url);
      ${LOADED}
      const docker = connectDocker('/nonexistent/docker.sock');
      if (typeof docker.listContainers !== 'function') throw new Error('not a dockerode client');
      console.log(JSON.stringify([...new Set(heavy())]));
    `);
    expect(JSON.parse(out)).to.deep.equal([]);
  });

  it('loads ssh2 when the ssh transport is first used', () => {
    const out = run(`
      import { createRequire } from 'node:module';
      import { connectDocker } from ${JSON.stringify(client)};
      const req = createRequire(import.meta.url);
      ${LOADED}
      connectDocker('/nonexistent/docker.sock');
      const fromDockerode = createRequire(req.resolve('dockerode'));
      const ssh = req(createRequire(fromDockerode.resolve('docker-modem')).resolve('./ssh.js'));
      const agent = ssh({ host: '127.0.0.1', port: 1 });
      if (typeof agent.createConnection !== 'function') throw new Error('no agent');
      console.log(JSON.stringify([...new Set(heavy())]));
    `);
    expect(JSON.parse(out)).to.include('ssh2');
  });
});
