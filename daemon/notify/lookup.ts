// Every address a notification target's name resolves to, the way the send itself will resolve it
// (getaddrinfo: /etc/hosts first, then DNS), so the check sees what fetch and nodemailer connect to.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

export async function lookupAll(hostname: string): Promise<string[]> {
  if (isIP(hostname)) return [hostname];
  return (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);
}
