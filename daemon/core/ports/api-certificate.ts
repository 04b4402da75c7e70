// The certificate the daemon's API is served with over HTTPS, as core sees it (the adapter:
// daemon/proxy/api-certificate.ts reads it by a TLS handshake to the listener Caddy serves).

export interface ApiCertificatePort {
  /** False when this daemon's API is not served over HTTPS with Caddy's certificate (no BERTH_API_TLS_ADDR). */
  readonly served: boolean;
  /**
   * SHA-256 of the served certificate's DER (lower-case hex) once the certificate served names
   * `address`, waiting at most `waitMs` for Caddy to issue and serve it; null when not served or
   * not within that time.
   */
  fingerprintFor(address: string, waitMs: number): Promise<string | null>;
  /** `https://<address>:<port>` of the listener; null when not served. */
  urlFor(address: string): string | null;
}
