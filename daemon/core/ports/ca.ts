// Berth's certificate authority as core sees it (the adapter: daemon/databases/tls.ts).

/** Where Berth's CA lives: the database TLS endpoints read it. */
export interface CaPort {
  caPem(): Promise<string>;
  hasCa(): boolean;
}
