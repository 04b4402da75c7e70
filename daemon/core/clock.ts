// Time and identifiers, passed in so tests can drive them.

export interface Clock {
  /** ISO 8601 UTC with milliseconds, the only timestamp format the API uses. */
  now(): string;
}

export const systemClock: Clock = { now: () => new Date().toISOString() };
