// The certificate Caddy serves the daemon's API with (BERTH_API_TLS_ADDR), read the way a client
// meets it: a TLS handshake to the listener, without SNI (clients reach the API by its IP, and
// Caddy's `default_sni` then picks the certificate for the server's address). The fingerprint is
// the SHA-256 of the leaf's DER in lower-case hex, the form install.sh prints as BERTH_CERT_SHA256
// and `berth login --fingerprint` pins. After the address changes, Caddy issues the new
// certificate asynchronously: the reader waits until the served one names the new address.
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { certificateFingerprint } from '../../shared/pinned-tls.js';
import type { ApiCertificatePort } from '../core/ports/api-certificate.js';

const RETRY_MS = 200;
const HANDSHAKE_TIMEOUT_MS = 3000;

/** Where to connect for a listen address: its host, or loopback when it listens on every address. */
function dialTarget(listen: string): { host: string; port: number } {
  const at = listen.lastIndexOf(':');
  const host = listen.slice(0, at).replace(/^\[(.*)\]$/, '$1');
  const port = Number(listen.slice(at + 1));
  if (host === '' || host === '0.0.0.0') return { host: '127.0.0.1', port };
  return { host: host === '::' ? '::1' : host, port };
}

/** The leaf certificate served at host:port (its DER). */
function servedCertificate(host: string, port: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // no servername: an IP is never sent as SNI, exactly as a client reaching https://<ip>:4310
    const socket = connect({ host, port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] }, () => {
      const raw = socket.getPeerCertificate()?.raw;
      socket.end();
      if (raw) resolve(raw);
      else reject(new Error(`no certificate served at ${host}:${port}`));
    });
    socket.setTimeout(HANDSHAKE_TIMEOUT_MS, () => socket.destroy(new Error(`no TLS answer at ${host}:${port}`)));
    socket.on('error', reject);
  });
}

/** Whether a certificate's subject alternative names include this IP address. */
function namesAddress(der: Buffer, address: string): boolean {
  const names = new X509Certificate(der).subjectAltName ?? '';
  return names.split(/,\s*/).some((n) => n === `IP Address:${address}`);
}

export class CaddyApiCertificate implements ApiCertificatePort {
  readonly served: boolean;

  /** `listen`: BERTH_API_TLS_ADDR (null: the API is not served over HTTPS by Caddy). */
  constructor(private readonly listen: string | null) {
    this.served = listen !== null;
  }

  urlFor(address: string): string | null {
    return this.listen === null ? null : `https://${address}:${dialTarget(this.listen).port}`;
  }

  async fingerprintFor(address: string, waitMs: number): Promise<string | null> {
    if (this.listen === null) return null;
    const { host, port } = dialTarget(this.listen);
    const deadline = Date.now() + waitMs;
    for (;;) {
      try {
        const der = await servedCertificate(host, port);
        if (namesAddress(der, address)) return certificateFingerprint(der);
      } catch {
        // Caddy restarting its servers for the new configuration, or not up yet: try again
      }
      if (Date.now() + RETRY_MS > deadline) return null;
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  }
}
