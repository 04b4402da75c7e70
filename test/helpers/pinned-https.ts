// An HTTPS client that trusts exactly one certificate, by its SHA-256 fingerprint, the way a client
// of an installed Berth pins BERTH_CERT_SHA256: the TLS handshake finishes, the server's leaf is
// compared with the pin, and only then is the request (with its key) written to the socket.
import { request } from 'node:https';
import { connect, type PeerCertificate, type TLSSocket } from 'node:tls';

export interface PinnedResponse<T = unknown> {
  status: number;
  body: T;
  cert: PeerCertificate;
}

/** Lower-case hex without separators: the form the installer prints. */
export function normalFingerprint(fp: string): string {
  return fp.replace(/:/g, '').toLowerCase();
}

function pinnedSocket(host: string, port: number, fingerprint: string): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    // The chain is not checked against any CA: the pin is the only trust, as in the CLI.
    const socket = connect({ host, port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
    socket.once('error', reject);
    socket.once('secureConnect', () => {
      const cert = socket.getPeerCertificate();
      if (!cert.fingerprint256 || normalFingerprint(cert.fingerprint256) !== normalFingerprint(fingerprint)) {
        socket.destroy();
        reject(new Error(`certificate fingerprint ${cert.fingerprint256} does not match the pinned ${fingerprint}`));
        return;
      }
      socket.removeListener('error', reject);
      resolve(socket);
    });
  });
}

/**
 * One JSON request to `https://<host>:<port><path>` over a pinned connection. `host` is where the
 * connection goes (tests use 127.0.0.1 whatever address the URL names).
 */
export async function pinnedRequest<T = unknown>(
  target: { host: string; port: number; fingerprint: string },
  method: string,
  path: string,
  opts: { token?: string; body?: unknown } = {},
): Promise<PinnedResponse<T>> {
  const socket = await pinnedSocket(target.host, target.port, target.fingerprint);
  const cert = socket.getPeerCertificate();
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const headers: Record<string, string> = { accept: 'application/json', connection: 'close' };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (payload !== undefined) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const req = request({ createConnection: () => socket, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const type = res.headers['content-type'] ?? '';
        resolve({ status: res.statusCode ?? 0, body: (type.includes('json') && text ? JSON.parse(text) : text) as T, cert });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}
