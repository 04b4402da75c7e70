// The server's public IPv4 as far as this host can tell without asking anyone outside: the
// `publicIp` setting when one is stored, else the first non-internal IPv4 of its interfaces.
import { networkInterfaces } from 'node:os';
import type { SettingsRepo } from './core/ports/store.js';

export function detectInterfaceIpv4(): string {
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

export function publicIpSource(settings: SettingsRepo): () => Promise<string> {
  const detected = detectInterfaceIpv4();
  return async () => (await settings.get('publicIp')) ?? detected;
}
