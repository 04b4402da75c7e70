// How fast one source may write log lines (a service's running container, a deployment's build):
// two token buckets, lines per second and bytes per second, each holding BURST_SECONDS of its rate.
// A line over either is dropped, counted, and said once a second in a marker line (stream stderr),
// so a container printing 16 KB lines as fast as it can neither fills the store nor hides that it
// lost output.
const BURST_SECONDS = 2;
const MARKER_EVERY_MS = 1000;

export interface LogRate {
  linesPerSecond: number;
  bytesPerSecond: number;
}

export class LogGate {
  private lines: number;
  private bytes: number;
  private at: number;
  private droppedLines = 0;
  private droppedBytes = 0;
  private timer: NodeJS.Timeout | null = null;

  /** `say` writes the marker line (past the gate); `now` is milliseconds. */
  constructor(
    private rate: LogRate,
    private say: (marker: string) => void,
    private what = 'this service',
    private now: () => number = () => performance.now(),
  ) {
    this.lines = rate.linesPerSecond * BURST_SECONDS;
    this.bytes = rate.bytesPerSecond * BURST_SECONDS;
    this.at = now();
  }

  /** Whether `line` may be written; when it may not, it is counted for the next marker. */
  admit(line: string): boolean {
    const now = this.now();
    const elapsed = Math.max(0, now - this.at) / 1000;
    this.at = now;
    this.lines = Math.min(this.rate.linesPerSecond * BURST_SECONDS, this.lines + elapsed * this.rate.linesPerSecond);
    this.bytes = Math.min(this.rate.bytesPerSecond * BURST_SECONDS, this.bytes + elapsed * this.rate.bytesPerSecond);
    const size = Buffer.byteLength(line);
    if (this.lines >= 1 && this.bytes >= size) {
      this.lines -= 1;
      this.bytes -= size;
      return true;
    }
    this.droppedLines += 1;
    this.droppedBytes += size;
    if (!this.timer) {
      this.timer = setTimeout(() => this.report(), MARKER_EVERY_MS);
      this.timer.unref();
    }
    return false;
  }

  /** Says what was dropped and not said yet (the source ended or is no longer followed). */
  close(): void {
    this.report();
  }

  private report(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.droppedLines === 0) return;
    const { droppedLines: n, droppedBytes: b } = this;
    this.droppedLines = 0;
    this.droppedBytes = 0;
    this.say(
      `berth: ${n} lines (${b} bytes) dropped: ${this.what} writes logs faster than ${this.rate.linesPerSecond} lines/s or ` + `${Math.round(this.rate.bytesPerSecond / 1024)} KiB/s, Berth's limit`,
    );
  }
}
