// `berth server ...`: the server's own state. `server disk` (commands-quotas.ts); `server address`
// (the address clients and DNS records use, detected or set, and the API certificate's
// fingerprint); `server version` and `server upgrade` (commands-upgrade.ts); `server backups` (Berth's own backup through the API: commands-server-backups.ts); `server footprint` (commands-metrics.ts); `server set-address IP`, which re-issues that certificate: every client pinned to
// the old one is refused until it re-pins, so it says so and asks first, then prints the new
// fingerprint with the exact `berth login` line, and re-pins this CLI's own contexts for the server.
import type { Command } from 'commander';
import type { ServerAddress, ServerAddressChange } from '../../shared/types.js';
import { registerServerDiskCommand } from './commands-quotas.js';
import { registerServerUpgradeCommands } from './commands-upgrade.js';
import { registerServerBackupsCommands } from './commands-server-backups.js';
import { footprintLines } from './commands-metrics.js';
import { readCliConfig, writeCliConfig } from './config-store.js';
import { confirm } from './confirm.js';
import { CliError, EXIT } from './exit-codes.js';
import { openSession, type Session } from './session.js';

function addressLines(a: ServerAddress): string {
  const rows: [string, string][] = [
    ['address', `${a.address} (${a.detected ? 'detected on the first start' : 'set by hand'})`],
    ...(a.detected ? [] : ([['detected', a.detectedAddress]] as [string, string][])),
    ['fingerprint', a.fingerprint ?? 'none: the API is not served over HTTPS with the internal CA here'],
  ];
  return rows.map(([k, v]) => `${k.padEnd(12)}${v}`).join('\n');
}

/** The URL other clients log in at: this one, with the old address swapped for the new one when it named the server by it. */
function loginUrl(server: string, from: string, to: string): string {
  const url = new URL(server);
  if (url.hostname === from) url.hostname = to;
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/** Re-pins the saved contexts of this server that held the old pin; their names. */
function repinContexts(server: string, from: string | null, to: string): string[] {
  const config = readCliConfig();
  const names = Object.entries(config.contexts)
    .filter(([, c]) => c.server === server && c.fingerprint !== undefined && c.fingerprint === from)
    .map(([name]) => name);
  if (names.length === 0) return [];
  for (const name of names) config.contexts[name] = { ...config.contexts[name]!, fingerprint: to };
  writeCliConfig(config);
  return names;
}

async function setAddress(s: Session, address: string): Promise<void> {
  const { address: now } = await s.client.serverAddress();
  if (now.address !== address.trim() || now.detected) {
    s.out.warn(
      `the server's address goes from ${now.address} to ${address.trim()}: the API certificate is re-issued for it, and every client pinned to the current one ` +
        '(other machines, other contexts, the desktop app) is refused until it re-pins with the new fingerprint printed below; generated URLs and DNS records will name the new address',
    );
    await confirm(s, `change the address of ${s.server} to ${address.trim()}`, 'the address was not changed');
  }
  const change: ServerAddressChange = await s.client.setServerAddress(address);
  const { fingerprint } = change.address;
  const login = fingerprint ? `berth login ${loginUrl(s.server, now.address, change.address.address)} --fingerprint ${fingerprint}` : null;
  // this CLI made the change itself: its own pin follows (an env pin, BERTH_CERT_SHA256, is the user's to change)
  const repinned = fingerprint && change.changed ? repinContexts(s.server, change.previousFingerprint, fingerprint) : [];
  s.out.result({ ...change, login, repinned }, () => {
    const lines = [change.changed ? `address set to ${change.address.address} (was ${now.address})` : `address ${change.address.address}: no change`];
    if (!change.proxy.ok) lines.push(`reverse proxy: ${change.proxy.detail}`);
    if (fingerprint) {
      lines.push(`fingerprint ${fingerprint}`);
      if (change.changed) lines.push(`re-pin every other client: ${login}`, '(desktop app: edit the server and paste the new fingerprint)');
    } else if (change.changed) {
      lines.push('no fingerprint: the API is not served over HTTPS with the internal CA here, or its certificate was not served in time (berth server address reads it again)');
    }
    if (repinned.length > 0) lines.push(`re-pinned this CLI's context${repinned.length === 1 ? '' : 's'} ${repinned.join(', ')}`);
    return lines.join('\n');
  });
  if (!change.proxy.ok) throw new CliError('the address is saved, but the reverse proxy did not load it: the old certificate is still served', EXIT.failed);
}

export function registerServerCommands(program: Command): void {
  const server = program.command('server').description("the server's own state (berth server disk|address|set-address|version|upgrade|backups|footprint)");
  registerServerDiskCommand(server);
  registerServerUpgradeCommands(server);
  registerServerBackupsCommands(server);
  server
    .command('footprint')
    .description("Berth's own footprint: the daemon's and Caddy's memory and CPU, the store's size and its metrics rows")
    .action(async (_o, cmd: Command) => {
      const s = openSession(cmd);
      const footprint = await s.client.footprint();
      s.out.result(footprint, () => footprintLines(footprint));
    });
  server
    .command('address')
    .description("the server's address (detected on the first start, or set), and the fingerprint of the API certificate served for it")
    .action(async (_o, cmd: Command) => {
      const s = openSession(cmd);
      const { address } = await s.client.serverAddress();
      s.out.result(address, () => addressLines(address));
    });
  server
    .command('set-address')
    .description("change the server's address (a write key over all projects): re-issues the API certificate; asks unless --yes")
    .argument('<ip>', 'the IPv4 address clients reach this server at, e.g. 203.0.113.10')
    .action(async (ip: string, _o, cmd: Command) => {
      await setAddress(openSession(cmd), ip);
    });
}
