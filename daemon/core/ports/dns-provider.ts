// The port every DNS provider implements (daemon/integrations/dns/*): make sure one A record
// points at an address.

import { DNS_PROVIDER_IDS } from '../../../shared/constants.js';
import type { DnsAction, DnsProviderId } from '../../../shared/types.js';

// Provider ids and actions are the wire's (shared/), defined once.
export { DNS_PROVIDER_IDS };
export type { DnsProviderId };

export interface ARecordOutcome {
  action: DnsAction;
  /** The zone (a domain the account owns) the record was written in. */
  zone: string;
  /** The label part of the hostname inside the zone, `@` for the apex. */
  host: string;
}

interface DnsWriteOptions {
  /** Repoint a record that already answers for the name (keys over all projects only). */
  overwrite: boolean;
  /** Write the zone's apex itself (keys over all projects only); otherwise the apex is Forbidden, nothing written. */
  apex: boolean;
}

export interface DnsProvider {
  readonly id: DnsProviderId;
  readonly name: string;
  /**
   * Creates the A record of `hostname`, or points the existing one at `ip`; no change when it
   * already does. Without `overwrite`, a record already answering for the name (an A record
   * elsewhere, AAAA, CNAME) is a Conflict naming it and nothing is written.
   */
  upsertA(hostname: string, ip: string, opts: DnsWriteOptions): Promise<ARecordOutcome>;
  /**
   * Removes the A record of `hostname` at `ip` (one Berth created), and nothing else: a record
   * someone changed since (another address) and every other record stay. `absent` when none was left.
   */
  removeA(hostname: string, ip: string): Promise<'removed' | 'absent'>;
}
