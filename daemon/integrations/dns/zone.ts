// Which of an account's zones a hostname belongs to: the longest zone name that is the hostname
// itself or a suffix of it at a label boundary (shop.example.com wins over example.com).

export function longestZone(hostname: string, zones: readonly string[]): string | null {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  let best: string | null = null;
  for (const raw of zones) {
    const zone = raw.toLowerCase().replace(/\.$/, '');
    if (zone === '') continue;
    if (host === zone || host.endsWith(`.${zone}`)) {
      if (best === null || zone.length > best.length) best = zone;
    }
  }
  return best;
}

/** The label part of a hostname inside its zone: `app` for app.example.com, `@` for the apex. */
export function hostLabel(hostname: string, zone: string): string {
  const host = hostname.toLowerCase();
  if (host === zone) return '@';
  return host.slice(0, host.length - zone.length - 1);
}
