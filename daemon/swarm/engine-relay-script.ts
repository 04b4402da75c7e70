// The program a node's engine relay runs (node-engines.ts), delivered to the node as a Swarm
// config: a TLS server (its key a Swarm secret at BERTH_RELAY_KEY, its certificate and the CA in
// BERTH_RELAY_TLS_DIR) that requires a client certificate from Berth's CA and joins each
// connection byte for byte to the node's /var/run/docker.sock. It does not speak HTTP: Docker's
// hijacked streams (exec, attach) pass as they are, half-closes included (a client that ends its
// stdin still reads the command's output and exit code). Dependency-free, for any `node` image.
export const RELAY_SCRIPT = `
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { createServer } from 'node:tls';

const dir = process.env.BERTH_RELAY_TLS_DIR;
const port = Number(process.env.BERTH_RELAY_PORT);
const server = createServer(
  {
    key: readFileSync(process.env.BERTH_RELAY_KEY),
    cert: readFileSync(dir + '/server.crt'),
    ca: readFileSync(dir + '/ca.crt'),
    requestCert: true,
    rejectUnauthorized: true,
    minVersion: 'TLSv1.2',
    allowHalfOpen: true,
  },
  (client) => {
    const engine = connect({ path: '/var/run/docker.sock', allowHalfOpen: true });
    const drop = () => {
      client.destroy();
      engine.destroy();
    };
    // a client gone takes its engine connection with it; the engine done, what it sent still goes out
    client.on('error', drop).on('close', () => engine.destroy());
    engine.on('error', drop).on('close', () => client.end());
    client.pipe(engine);
    engine.pipe(client);
  },
);
server.on('tlsClientError', () => undefined);
server.listen(port, '0.0.0.0', () => console.log('berth engine relay listening on ' + port));
// PID 1 in its container: without handlers Node would ignore SIGTERM and Swarm would wait 10 s to kill it
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
`;
