// dockerode loads, as it loads, two transports Berth never uses, and they cost every daemon about
// 30 MB resident: docker-modem's SSH transport (ssh2, whose poly1305 WebAssembly module takes 16 MiB
// of memory as it loads) and BuildKit's session (gRPC and protobuf, only for builds with
// `version: "2"`). Berth reaches Docker over its socket or TLS and builds with the classic builder,
// so both go into Node's module cache as stubs before dockerode loads; a stub that is ever used
// fails with an error that says why. The daemon's entry point (main.ts) imports this first.
import { createRequire, Module } from 'node:module';

const require = createRequire(import.meta.url);

function unused(what: string): never {
  throw new Error(`Berth does not load ${what}: dockerode's ${what} is kept out (daemon/docker/unused-transports.ts)`);
}

/** Puts `exports` in the module cache where `from` (a package) resolves `request`, unless that is loaded already. */
function stub(from: string, request: string, exports: object): void {
  let path: string;
  try {
    path = createRequire(require.resolve(from)).resolve(request);
  } catch {
    return; // not installed: nothing to keep out
  }
  if (require.cache[path]) return;
  const module = new Module(path);
  module.filename = path;
  module.loaded = true;
  module.exports = exports;
  require.cache[path] = module;
}

const ssh = 'the SSH transport (ssh2)';
const buildkit = 'the BuildKit session (gRPC)';
stub('docker-modem', 'ssh2', {
  Client: class {
    constructor() {
      unused(ssh);
    }
  },
});
stub('dockerode', '@grpc/grpc-js', {
  Server: class {
    constructor() {
      unused(buildkit);
    }
  },
  ServerCredentials: { createInsecure: () => unused(buildkit) },
  loadPackageDefinition: () => unused(buildkit),
});
stub('dockerode', '@grpc/proto-loader', { loadSync: () => unused(buildkit) });
