// The port every DNS provider implements (daemon/integrations/dns/*): make sure one A record
// points at an address.

export type DnsProviderId = 'cloudflare' | 'namecheap' | 'spaceship';
export const DNS_PROVIDER_IDS: readonly DnsProviderId[] = ['cloudflare', 'namecheap', 'spaceship'];

export type DnsAction = 'created' | 'updated' | 'unchanged';

export interface ARecordOutcome {
  action: DnsAction;
  /** The zone (a domain the account owns) the record was written in. */
  zone: string;
  /** The label part of the hostname inside the zone, `@` for the apex. */
  host: string;
}

export interface DnsProvider {
  readonly id: DnsProviderId;
  readonly name: string;
  /**
   * Creates the A record of `hostname`, or points the existing one at `ip`; no change when it
   * already does. Without `overwrite`, a record already answering for the name (an A record
   * elsewhere, AAAA, CNAME) is a Conflict naming it and nothing is written.
   */
  upsertA(hostname: string, ip: string, opts: { overwrite: boolean }): Promise<ARecordOutcome>;
}
