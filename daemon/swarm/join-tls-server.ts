// A development daemon's own HTTPS listener for joining nodes (BERTH_JOIN_TLS_ADDR): the same Koa
// app as the plain listener, with a certificate from Berth's CA for that address. An installed
// server does not need it: Caddy serves the API over HTTPS (BERTH_API_TLS_ADDR). Nodes do not
// trust Berth's CA: the join command pins this certificate's public key instead.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BerthCa } from '../databases/tls.js';
import { splitAddr } from './join-endpoint.js';

/** The CA's directory for this certificate: no service id has a dash. */
const CERT_ID = 'berth-join-api';

export async function startJoinTlsServer(addr: string, ca: BerthCa, handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<Server> {
  const { host, port } = splitAddr(addr);
  const cert = await ca.issueServer(CERT_ID, [host]);
  const server = createServer({ cert: readFileSync(`${cert.dir}/server.crt`), key: readFileSync(`${cert.dir}/server.key`) }, (req, res) => void handler(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  server.keepAliveTimeout = 65_000;
  return server;
}
