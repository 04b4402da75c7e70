// Caddy 2.6 swaps its SO_REUSEPORT listener at every configuration load; without
// net.ipv4.tcp_migrate_req=1 the connections queued on the old socket are reset, which is a failed
// request during a zero-downtime deploy. The installer and `npm start` set it
// (installers/tune-kernel.sh); a daemon started another way says so once at start.
import { readFileSync } from 'node:fs';

const SETTING = '/proc/sys/net/ipv4/tcp_migrate_req';

/** A warning for the start-up log when the kernel would reset connections at a Caddy reload; null when it would not (or cannot say). */
export function reloadResetWarning(read: (path: string) => string = (p) => readFileSync(p, 'utf8')): string | null {
  let value: string;
  try {
    value = read(SETTING).trim();
  } catch {
    return null;
  }
  if (value === '1') return null;
  return 'net.ipv4.tcp_migrate_req is 0: each Caddy reload (every deploy swap) may reset a few new connections; run installers/tune-kernel.sh apply as root (the installer and npm start do)';
}
