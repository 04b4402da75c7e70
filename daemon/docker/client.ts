// The Docker Engine client (dockerode over the local socket).
//
// dockerode requires, when it loads, two parts Berth never uses on a local socket: BuildKit
// sessions (@grpc/grpc-js, @grpc/proto-loader, protobufjs) and the ssh:// transport (ssh2). They
// would stay resident for the daemon's life (about 20 MB). Before dockerode is loaded, each of the
// two files that pull them in is put in the require cache as a stand-in that loads the real file
// on its first call, so they still work for whoever calls them, and cost nothing until then.
import type DockerClient from 'dockerode';
import { createRequire, Module } from 'node:module';

const require = createRequire(import.meta.url);

/** `path` (a CommonJS file exporting one function) is loaded on the first call of that function. */
function deferFunctionModule(path: string): void {
  if (require.cache[path]) return;
  let real: ((...args: unknown[]) => unknown) | null = null;
  const stand = new Module(path);
  const load = () => {
    if (!real) {
      delete require.cache[path];
      real = require(path) as (...args: unknown[]) => unknown;
    }
    return real;
  };
  stand.filename = path;
  stand.loaded = true;
  stand.exports = function deferred(this: unknown, ...args: unknown[]) {
    return load().apply(this, args);
  };
  require.cache[path] = stand;
}

let loaded: typeof DockerClient | null = null;

function dockerode(): typeof DockerClient {
  if (loaded) return loaded;
  const dockerodeMain = require.resolve('dockerode');
  const fromDockerode = createRequire(dockerodeMain);
  deferFunctionModule(fromDockerode.resolve('./session.js'));
  deferFunctionModule(createRequire(fromDockerode.resolve('docker-modem')).resolve('./ssh.js'));
  loaded = require(dockerodeMain) as typeof DockerClient;
  return loaded;
}

export function connectDocker(socketPath: string): DockerClient {
  const Docker = dockerode();
  return new Docker({ socketPath });
}

/** True when an error means the Engine's socket is not there or not answering (dockerd stopped). */
export function isDockerUnreachable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'EACCES' || code === 'ECONNRESET';
}
