// Custom-domain hostnames: DNS names only (no IPs, no wildcards, no ports), stored lower-case.
import { isIP } from 'node:net';
import { InvalidInput } from './errors.js';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_HOSTNAME = 253;

export function normalizeHostname(input: string): string {
  const host = input.trim().toLowerCase().replace(/\.$/, '');
  if (host.length === 0) throw new InvalidInput('hostname is empty');
  if (host.length > MAX_HOSTNAME) throw new InvalidInput(`hostname is longer than ${MAX_HOSTNAME} characters`);
  if (host.includes('*')) throw new InvalidInput('wildcard hostnames are not supported');
  if (isIP(host) || isIP(host.replace(/^\[|\]$/g, ''))) throw new InvalidInput('hostname must be a DNS name, not an IP address');
  if (/[/:@?#\s]/.test(host)) throw new InvalidInput('hostname must be a bare DNS name, without scheme, port or path');
  const labels = host.split('.');
  if (labels.length < 2) throw new InvalidInput('hostname must have at least two labels, like app.example.com');
  for (const label of labels) {
    if (!LABEL.test(label)) {
      throw new InvalidInput(`hostname label "${label.slice(0, 70)}" is invalid: use 1-63 letters, digits or inner hyphens`);
    }
  }
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) throw new InvalidInput('hostname must end in a top-level domain, not a number');
  return host;
}
