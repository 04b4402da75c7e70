// Name resolution for notification targets (the adapter: daemon/notify/lookup.ts).

/** Every address a name resolves to (an IP resolves to itself). */
export type Lookup = (hostname: string) => Promise<string[]>;
