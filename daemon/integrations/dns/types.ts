// Options every DNS provider client takes. The port they implement is core's
// (daemon/core/ports/dns-provider.ts).
import type { FetchLike } from './http.js';

export interface DnsClientOptions {
  timeoutMs?: number | undefined;
  fetch?: FetchLike | undefined;
}
