// A Server-Sent Events reader over a fetch body (WHATWG "event stream" parsing rules), with a size
// cap: a server that never ends a line, or piles `data:` lines into one event, makes the reader
// stop with SseTooLargeError instead of buffering without bound.

export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

export interface SseReadOptions {
  /** Most characters one event may hold (its pending line plus its data lines); default SSE_MAX_EVENT_CHARS. */
  maxEventChars?: number;
}

/**
 * 16 Mi characters: a log stream's `snapshot` event carries a deployment's whole build log in one
 * JSON array, so the default leaves room for large logs; `/api/events` readers pass a smaller cap.
 */
export const SSE_MAX_EVENT_CHARS = 16 * 1024 * 1024;
/** For streams of small events (`/api/events`: ids and statuses). */
export const SSE_SMALL_EVENT_CHARS = 1024 * 1024;

export class SseTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the server sent an event-stream event over ${limit} characters; the stream was stopped rather than buffered`);
    this.name = 'SseTooLargeError';
  }
}

export async function* readSse(body: ReadableStream<Uint8Array>, opts: SseReadOptions = {}): AsyncGenerator<SseEvent> {
  const limit = opts.maxEventChars ?? SSE_MAX_EVENT_CHARS;
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  /** Where the search for the next line end resumes in `buffer` (what is before it has none). */
  let scanned = 0;
  let event = '';
  let data: string[] = [];
  let dataChars = 0;
  let id: string | undefined;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (;;) {
        const rest = buffer.slice(scanned).search(/[\r\n]/);
        if (rest < 0) break;
        const nl = scanned + rest;
        // a CR at the very end may be the first half of CRLF: wait for the next chunk
        if (buffer[nl] === '\r' && nl === buffer.length - 1) break;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1));
        scanned = 0;
        if (line === '') {
          if (data.length > 0) yield { event: event || 'message', data: data.join('\n'), id };
          event = '';
          data = [];
          dataChars = 0;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let val = colon < 0 ? '' : line.slice(colon + 1);
        if (val.startsWith(' ')) val = val.slice(1);
        if (field === 'event') event = val;
        else if (field === 'data') {
          data.push(val);
          dataChars += val.length + 1;
        } else if (field === 'id' && !val.includes('\0')) id = val;
      }
      scanned = Math.max(0, buffer.length - 1);
      if (buffer.length + dataChars > limit) throw new SseTooLargeError(limit);
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}
