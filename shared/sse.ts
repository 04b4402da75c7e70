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
  // the unfinished line, kept as the chunks it came in (joined once, when it ends)
  let pending: string[] = [];
  let pendingChars = 0;
  /** The last chunk ended with CR: a LF starting the next one is the rest of that line break. */
  let afterCr = false;
  let event = '';
  let data: string[] = [];
  let dataChars = 0;
  let id: string | undefined;
  const lineBreak = /\r\n|\r|\n/g;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const text = decoder.decode(value, { stream: true });
      let from: number = afterCr && text.startsWith('\n') ? 1 : 0;
      if (text.length > 0) afterCr = false;
      lineBreak.lastIndex = from;
      for (let m: RegExpExecArray | null = lineBreak.exec(text); m; m = lineBreak.exec(text)) {
        const line = (pendingChars > 0 ? pending.join('') : '') + text.slice(from, m.index);
        pending = [];
        pendingChars = 0;
        from = m.index + m[0].length;
        afterCr = m[0] === '\r' && from === text.length;
        if (line === '') {
          if (data.length > 0) yield { event: event || 'message', data: data.join('\n'), id };
          event = '';
          data = [];
          dataChars = 0;
        } else if (!line.startsWith(':')) {
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
        lineBreak.lastIndex = from;
      }
      if (from < text.length) {
        pending.push(text.slice(from));
        pendingChars += text.length - from;
      }
      if (pendingChars + dataChars > limit) throw new SseTooLargeError(limit);
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}
