// The most bytes one database answer may bring into the daemon. Drivers buffer a whole protocol
// message (a pg DataRow, a mysql row packet, a redis reply) before handing it over, so a row cap
// alone does not bound memory: `SELECT repeat('x', 500000000) ...` is one message. The budget
// counts what the driver's socket receives while one answer is read and, past the cap, destroys
// the socket: the driver never holds more than the cap (plus one read chunk), and the server
// stops the statement at its next write to the closed connection. What was complete before the
// cut is answered with `truncated: true`.
import type { Socket } from 'node:net';

export class SocketBudget {
  private used = 0;
  private limit = Infinity;
  /** True once the current answer went past its cap and the socket was destroyed. */
  exceeded = false;

  constructor(socket: Socket) {
    // First in line, so the cut happens before the driver's parser sees more than this chunk.
    socket.prependListener('data', (chunk: Buffer) => {
      this.used += chunk.length;
      if (this.used > this.limit && !this.exceeded) {
        this.exceeded = true;
        socket.destroy();
      }
    });
  }

  /** Starts counting one answer; at most `limit` bytes may arrive before the socket is cut. */
  begin(limit: number): void {
    this.used = 0;
    this.limit = limit;
  }

  /** Stops counting (the answer is complete). */
  end(): void {
    this.limit = Infinity;
  }
}
