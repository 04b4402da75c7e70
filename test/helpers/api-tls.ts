// A test daemon whose API Caddy serves over HTTPS with its internal CA, as on an installed server
// (BERTH_API_TLS_ADDR), and the certificate served there read the way a client meets it: a TLS
// handshake to 127.0.0.1 without SNI.
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { freePort } from './caddy.js';
import { startTestDaemon, type TestDaemon } from './daemon.js';
import { until } from './wait.js';

export interface ServedCertificate {
  /** SHA-256 of the DER, lower-case hex without colons (BERTH_CERT_SHA256's form). */
  fingerprint: string;
  /** The IP addresses the certificate names. */
  ips: string[];
}

export function servedCertificate(port: number): Promise<ServedCertificate> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const cert = socket.getPeerCertificate();
      socket.end();
      const names = new X509Certificate(cert.raw).subjectAltName ?? '';
      resolve({
        fingerprint: cert.fingerprint256.replace(/:/g, '').toLowerCase(),
        ips: names
          .split(/,\s*/)
          .filter((n) => n.startsWith('IP Address:'))
          .map((n) => n.slice('IP Address:'.length)),
      });
    });
    socket.on('error', reject);
  });
}

export interface TlsTestDaemon {
  t: TestDaemon;
  /** The HTTPS port Caddy serves the API on (127.0.0.1). */
  port: number;
  /** https://127.0.0.1:<port> */
  url: string;
}

/** A test daemon plus Caddy's HTTPS listener for its API; resolves once a certificate is served there. */
export async function startTlsTestDaemon(): Promise<TlsTestDaemon> {
  const port = await freePort();
  const t = await startTestDaemon({ BERTH_API_TLS_ADDR: `127.0.0.1:${port}` });
  await until('the API certificate to be served', async () => servedCertificate(port).catch(() => null), 30_000);
  return { t, port, url: `https://127.0.0.1:${port}` };
}
