// Docker's multiplexed stream, what attach, logs and exec answer for a container without a TTY:
// frames of [stream type, 0, 0, 0, payload size (uint32 BE)] followed by the payload. Type 1 is
// stdout, 2 stderr. Payload bytes are handed on as they arrive: a frame is never held whole, so a
// frame of any size costs no memory here. The one reader of this framing; log lines
// (output-lines.ts) and exec streams (exec.ts) sit on it.

export class DockerFrameReader {
  private readonly header = Buffer.alloc(8);
  private headerFill = 0;
  private remaining = 0;
  private type = 0;

  /**
   * `onPayload` gets each piece of payload with its frame's type (1 stdout, 2 stderr, 0 stdin).
   * `strict`: a header that is not a frame header (a type other than 0-2, non-zero padding) throws
   * instead of being read on; for exec streams, whose bytes become a backup file.
   */
  constructor(
    private readonly onPayload: (type: number, part: Buffer) => void,
    private readonly opts: { strict?: boolean } = {},
  ) {}

  /** True when the bytes so far end inside a frame (a cut stream). */
  get midFrame(): boolean {
    return this.headerFill !== 0 || this.remaining !== 0;
  }

  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.remaining === 0) {
        const n = Math.min(8 - this.headerFill, chunk.length - at);
        chunk.copy(this.header, this.headerFill, at, at + n);
        this.headerFill += n;
        at += n;
        if (this.headerFill < 8) return;
        this.headerFill = 0;
        this.type = this.header[0]!;
        if (this.opts.strict && (this.type > 2 || this.header[1] !== 0 || this.header[2] !== 0 || this.header[3] !== 0)) {
          throw new Error('unexpected data in the Docker stream (not a multiplexed stream)');
        }
        this.remaining = this.header.readUInt32BE(4);
        continue;
      }
      const n = Math.min(this.remaining, chunk.length - at);
      this.onPayload(this.type, chunk.subarray(at, at + n));
      this.remaining -= n;
      at += n;
    }
  }
}
