// Certificate pinning for a daemon behind a self-signed certificate (the installer prints
// BERTH_CERT_SHA256=<hex> when Caddy's internal CA signs the API's certificate). The peer's
// certificate is accepted when the SHA-256 of its raw DER equals the pinned fingerprint, and
// refused otherwise, whatever the system's CAs or the hostname say. Shared by the CLI and the
// desktop app.
//
// Why a custom connector: with `rejectUnauthorized: false` Node never calls checkServerIdentity
// for a certificate that failed chain verification (a self-signed one always does), so the
// comparison has to run once the TLS handshake is done, before the socket is handed to undici.
import { createHash } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { Agent, fetch as UndiciFetch } from 'undici';

/** The error a connection with another certificate fails with (the `cause` of fetch's TypeError). */
export class FingerprintMismatchError extends Error {
  readonly code = 'BERTH_CERT_FINGERPRINT_MISMATCH';
  constructor(
    readonly expected: string,
    readonly actual: string,
    readonly host: string,
  ) {
    super(
      `the certificate of ${host} has SHA-256 fingerprint ${formatFingerprint(actual)}, not the pinned ${formatFingerprint(expected)}: refusing to connect (if the server's certificate really changed, log in again with the new fingerprint)`,
    );
    this.name = 'FingerprintMismatchError';
  }
}

/** The first bytes of a fingerprint, `AB:CD:EF:01…`: enough to tell two apart at a glance. */
export function shortFingerprint(hex: string): string {
  return `${formatFingerprint(hex).slice(0, 11)}…`;
}

/**
 * What a client pinned to another certificate tells its user. The likely cause is the user's own
 * change of the server's address (a new address gets a new certificate, and the server printed its
 * fingerprint then); the other is someone in between. The served fingerprint is given whole, so it
 * can be compared with the one the server printed. `repin` says how to re-pin in this client.
 */
export function certificateChangedMessage(e: FingerprintMismatchError, repin: string): string {
  return (
    `the server's certificate changed (pinned ${shortFingerprint(e.expected)}, served ${shortFingerprint(e.actual)}): ` +
    `if you changed the server's address, ${repin}; otherwise do not connect: someone may be in between`
  );
}

/** Lower-case hex without separators; accepts `AB:CD:...`, `abcd...` and a `sha256:` / `SHA256=` prefix. Throws on anything else. */
export function normalizeFingerprint(input: string): string {
  const hex = input
    .trim()
    .replace(/^sha-?256[:=]/i, '')
    .replace(/[:\s]/g, '')
    .toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`not a SHA-256 fingerprint (64 hex digits, colons allowed): ${input}`);
  return hex;
}

/** `AB:CD:...`, as openssl and browsers show it. */
export function formatFingerprint(hex: string): string {
  return hex.toUpperCase().match(/../g)?.join(':') ?? hex;
}

/** SHA-256 of a certificate's DER bytes, lower-case hex. */
export function certificateFingerprint(der: Buffer): string {
  return createHash('sha256').update(der).digest('hex');
}

/**
 * An undici dispatcher whose TLS connections succeed only with the pinned certificate. undici is
 * imported on first use: it takes longer to load than the rest of the CLI, and only pinned
 * servers need it.
 */
export async function pinnedAgent(fingerprint: string): Promise<Agent> {
  const expected = normalizeFingerprint(fingerprint);
  const { Agent, buildConnector } = await import('undici');
  // no TLS session reuse: a resumed TLS 1.3 session carries no peer certificate to compare
  const connect = buildConnector({ rejectUnauthorized: false, maxCachedSessions: 0 });
  return new Agent({
    connect(opts, callback) {
      connect(opts, (err, socket) => {
        if (err) return callback(err, null);
        if (opts.protocol !== 'https:') return callback(null, socket);
        const tls = socket as TLSSocket;
        const raw = tls.getPeerCertificate()?.raw;
        const actual = raw ? certificateFingerprint(raw) : 'none';
        if (actual === expected) return callback(null, socket);
        const mismatch = new FingerprintMismatchError(expected, actual, opts.hostname);
        tls.destroy();
        callback(mismatch, null);
      });
    },
  });
}

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** fetch over a pinned connection (undici's own fetch, so the dispatcher and fetch are one version). */
export function pinnedFetch(fingerprint: string): FetchLike {
  normalizeFingerprint(fingerprint); // a bad pin fails here, not at the first request
  let ready: Promise<{ dispatcher: Agent; fetch: typeof UndiciFetch }> | null = null;
  return async (input, init) => {
    ready ??= Promise.all([pinnedAgent(fingerprint), import('undici')]).then(([dispatcher, undici]) => ({ dispatcher, fetch: undici.fetch }));
    const { dispatcher, fetch } = await ready;
    return fetch(input, { ...(init as object), dispatcher }) as unknown as Promise<Response>;
  };
}
