// One copy of each repeated value within one read. SQLite hands back a new string for every value
// of every row, so a read of 10,000 services held 10,000 copies of "rolling", of "main", of each
// project's id (10 services each) and so on, for as long as the read cache keeps the records.
// The table lives for one read only: values that never repeat cost nothing afterwards.

/** A function that returns the first copy it was given of each string value (other values as they are). */
export function stringSharer(): <T>(value: T) => T {
  const seen = new Map<string, string>();
  return <T>(value: T): T => {
    if (typeof value !== 'string') return value;
    const first = seen.get(value);
    if (first !== undefined) return first as T;
    seen.set(value, value);
    return value;
  };
}
