// Records that already answer for a name: a key that does not cover every project may only add
// the A record of a name nobody uses yet, never repoint one the administrator (or another tenant)
// set up: `example.com`, `www`, `mail` of the administrator's zones would otherwise be one custom
// domain and one call away from being taken over.
import { Conflict, Forbidden } from '../../core/errors.js';

/** Record types that already make a name answer (an A record beside them would change where it goes). */
const ANSWERING = new Set(['A', 'AAAA', 'CNAME', 'ALIAS']);

export interface ExistingRecord {
  type: string;
  /** The address or target the record holds. */
  value: string;
}

/** Refuses (409 `dns_record_exists`, naming the record) when a record other than an A record at `ip` answers for `hostname`. */
export function refuseExisting(hostname: string, zone: string, records: ExistingRecord[], ip: string): void {
  const other = records.find((r) => ANSWERING.has(r.type.toUpperCase()) && !(r.type.toUpperCase() === 'A' && r.value === ip));
  if (other) {
    throw new Conflict(`${hostname} already has a DNS record in ${zone}: ${other.type.toUpperCase()} ${other.value}; only a key over all projects may change an existing record`, 'dns_record_exists');
  }
}

/** Refuses (403) a zone's apex unless the caller may write it: the apex is the zone owner's, never a tenant's. */
export function refuseApex(hostname: string, zone: string, host: string, apex: boolean): void {
  if (host === '@' && !apex) {
    throw new Forbidden(`${hostname} is the apex of the zone ${zone}; only a key over all projects may write its record`);
  }
}
