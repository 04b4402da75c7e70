// What core needs to show a volume's size: a lookup answered from memory (the Engine's measure is
// refreshed in the background, never while a request waits).
export interface VolumeSizes {
  /** Bytes the project's volume `name` uses, when measured recently; null when not known. */
  sizeOf(projectId: string, name: string): number | null;
}
