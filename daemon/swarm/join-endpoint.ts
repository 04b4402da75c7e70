// Where a joining server reaches this daemon's API over HTTPS, and the pin of the certificate
// served there (JoinEndpointPort). On an installed server Caddy serves the API at BERTH_API_TLS_ADDR
// (a certificate of Caddy's internal CA for the public IP); a development daemon serves it itself
// at BERTH_JOIN_TLS_ADDR (join-tls-server.ts). The pin is read from the certificate actually served
// (a TLS handshake, SHA-256 of its DER SubjectPublicKeyInfo, as curl's --pinnedpubkey takes it), so it
// is right whoever issued it; it is read again after a minute (Caddy renews its certificates).
import { createHash, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isIP, isIPv6 } from 'node:net';
import { connect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import type { JoinEndpointPort } from '../core/ports/swarm-control.js';

const PIN_CACHE_MS = 60_000;
/** installers/join-node.sh, from dist/daemon/swarm/ (the release bundle keeps the same layout). */
const TEMPLATE = fileURLToPath(new URL('../../../installers/join-node.sh', import.meta.url));

/** `host:port` (or `[v6]:port`, or `:port`) split; the host is '' when only a port is given. */
export function splitAddr(addr: string): { host: string; port: number } {
  const at = addr.lastIndexOf(':');
  return { host: addr.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(addr.slice(at + 1)) };
}

/** curl's `sha256//` pin of the certificate served at host:port. */
function servedPin(host: string, port: number, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, rejectUnauthorized: false, ...(isIP(host) === 0 ? { servername: host } : {}) }, () => {
      const cert = socket.getPeerCertificate();
      socket.end();
      if (!cert?.raw) reject(new Error(`no certificate served at ${host}:${port}`));
      else {
        // curl pins the DER SubjectPublicKeyInfo (`pubkey` alone is an EC key's bare point)
        const spki = new X509Certificate(cert.raw).publicKey.export({ type: 'spki', format: 'der' });
        resolve(createHash('sha256').update(spki).digest('base64'));
      }
    });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no TLS answer at ${host}:${port} within ${timeoutMs} ms`)));
    socket.on('error', reject);
  });
}

export class JoinEndpoint implements JoinEndpointPort {
  private pinned: { key: string; at: number; pin: string } | null = null;

  constructor(
    private readonly d: {
      joinTlsAddr: string | null;
      apiTlsAddr: string | null;
      /** The `publicIp` setting, else the detected address: what an address without a host means. */
      publicIp: () => Promise<string>;
    },
  ) {}

  async endpoint(): Promise<{ baseUrl: string; pin: string } | null> {
    const addr = this.d.joinTlsAddr ?? this.d.apiTlsAddr;
    if (addr === null) return null;
    const { host: listened, port } = splitAddr(addr);
    // Caddy listening on every address: nodes reach it at the public address, and so does the pin check
    const host = listened === '' || listened === '0.0.0.0' || listened === '::' ? await this.d.publicIp() : listened;
    const key = `${host}:${port}`;
    if (!this.pinned || this.pinned.key !== key || Date.now() - this.pinned.at > PIN_CACHE_MS) {
      this.pinned = { key, at: Date.now(), pin: await servedPin(host, port) };
    }
    return { baseUrl: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`, pin: this.pinned.pin };
  }

  scriptTemplate(): Promise<string> {
    return readFile(TEMPLATE, 'utf8');
  }
}
