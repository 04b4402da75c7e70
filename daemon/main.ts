// The composition root: read config once, start the daemon, stop cleanly on a signal.
// First of all, before anything loads dockerode: the transports it would load and Berth never uses.
import './docker/unused-transports.js';
import { ConfigError, readConfig } from './config.js';
import { reloadResetWarning } from './proxy/reload-safety.js';
import { startDaemon } from './server.js';
import { VERSION } from './version.js';

function log(message: string, err?: unknown): void {
  const detail = err instanceof Error ? `: ${err.stack ?? err.message}` : err === undefined ? '' : `: ${String(err)}`;
  process.stderr.write(`${new Date().toISOString()} berth ${message}${detail}\n`);
}

async function main(): Promise<void> {
  let config;
  try {
    config = readConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`berth: configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const daemon = await startDaemon(config, log);
  log(`${VERSION} listening on ${config.host}:${daemon.port} (data in ${config.dataDir})`);
  const warning = reloadResetWarning();
  if (warning) log(`WARNING: ${warning}`);
  const stop = (signal: string) => {
    log(`${signal} received, stopping`);
    daemon.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log('stop failed', err);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  log('failed to start', err);
  process.exit(1);
});
