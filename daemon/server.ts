// Starting the daemon in-process: store, core, HTTP. main.ts wraps this for production; tests call
// it with a temporary data dir and port 0.
import { writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Config } from './config.js';
import { systemClock } from './core/clock.js';
import { buildCore, type Core } from './core/core.js';
import { probeFree } from './core/host-ports.js';
import { unconfiguredProxy } from './core/proxy.js';
import type { Store } from './core/store.js';
import { createApp } from './http/app.js';
import type { Logger } from './http/errors.js';
import { publicIpSource } from './public-ip.js';
import { openDataDir } from './runtime.js';
import { VERSION } from './version.js';

export interface RunningDaemon {
  url: string;
  port: number;
  core: Core;
  store: Store;
  stop(): Promise<void>;
}

export const INITIAL_KEY_FILE = 'initial-key';

export async function startDaemon(config: Config, log: Logger): Promise<RunningDaemon> {
  const store = await openDataDir(config.dataDir);
  const core = buildCore({
    store,
    clock: systemClock,
    proxy: unconfiguredProxy,
    portRange: config.portRange,
    probePort: probeFree,
    publicIp: publicIpSource(store.settings),
  });

  if (config.bootstrapKey !== null) {
    await core.keys.ensureBootstrap(config.bootstrapKey);
  } else if ((await core.keys.count()) === 0) {
    // First start with no key at all: issue one and hand it over through a file only root can read,
    // never through the log.
    const { token } = await core.keys.create({ name: 'initial', access: 'write', projects: 'all' });
    const path = join(config.dataDir, INITIAL_KEY_FILE);
    writeFileSync(path, token + '\n', { mode: 0o600 });
    log(`no API key existed: an all-projects write key was written to ${path}`);
  }

  const app = createApp({ core, version: VERSION, log, storeVersion: store.version });
  const server: Server = await new Promise((resolve, reject) => {
    const srv = app.listen(config.port, config.host, () => resolve(srv));
    srv.once('error', reject);
  });
  server.keepAliveTimeout = 65_000;
  const port = (server.address() as AddressInfo).port;
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    core,
    store,
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await store.close();
    },
  };
}
