// The Engine's image-build response is a stream of JSON objects, one per line, possibly split
// across chunks: {"stream": "..."} output, {"aux": {"ID": "sha256:..."}} the result of a stage,
// {"error": "...", "errorDetail": {...}} a failed step. This turns it into log lines and a result.
// Ids come only from the Engine's structured `aux` messages: a build's own output (a RUN step
// printing " ---> <id>" or "Successfully built <id>") is text for the log and nothing else.
import type { Readable } from 'node:stream';
import { BuildError } from '../core/build-error.js';
import { CappedLineSplitter } from './output-lines.js';

export interface BuildOutcome {
  /** The built image: the last `aux.ID` the Engine sent. */
  imageId: string | null;
  /** Every `aux.ID` the Engine sent, one per finished stage; the last is the image. */
  stageIds: string[];
}

interface BuildMessage {
  stream?: string;
  status?: string;
  progress?: string;
  error?: string;
  errorDetail?: { message?: string };
  aux?: { ID?: unknown };
}

/**
 * One Engine message (a JSON line) longer than this is skipped, not parsed: real ones are a chunk
 * of a step's output or a short status, and a line that never ends must not grow without bound.
 */
export const MAX_MESSAGE_CHARS = 1024 * 1024;

export function parseBuildStream(body: Readable, onLine: (line: string, stream: 'stdout' | 'stderr') => void, busy: () => Promise<void> | null = () => null): Promise<BuildOutcome> {
  return new Promise((resolve, reject) => {
    const outcome: BuildOutcome = { imageId: null, stageIds: [] };
    let buffer = '';
    /** Inside a message over MAX_MESSAGE_CHARS: everything up to its end is dropped. */
    let skipping = false;
    let failed: string | null = null;
    let textStream: 'stdout' | 'stderr' = 'stdout';

    // Step output without line breaks is cut into lines of MAX_LINE_CHARS (see output-lines.ts).
    const splitter = new CappedLineSplitter(
      (part) => {
        const line = part.trimEnd();
        if (line === '') return;
        onLine(line, textStream);
      },
      { bareCr: true },
    );
    const emitText = (text: string, stream: 'stdout' | 'stderr') => {
      textStream = stream;
      splitter.push(text);
    };

    const handle = (json: string) => {
      if (json.trim() === '') return;
      let msg: BuildMessage;
      try {
        msg = JSON.parse(json) as BuildMessage;
      } catch {
        emitText(json + '\n', 'stdout');
        return;
      }
      if (msg.stream !== undefined) emitText(msg.stream, 'stdout');
      if (msg.status !== undefined) emitText(`${msg.status}${msg.progress ? ' ' + msg.progress : ''}\n`, 'stdout');
      if (typeof msg.aux?.ID === 'string' && /^sha256:[0-9a-f]{64}$/.test(msg.aux.ID)) {
        outcome.imageId = msg.aux.ID;
        outcome.stageIds.push(msg.aux.ID);
      }
      if (msg.error !== undefined) {
        failed = msg.errorDetail?.message ?? msg.error;
        emitText(`${failed}\n`, 'stderr');
      }
    };

    body.setEncoding('utf8');
    const skip = () => {
      buffer = '';
      skipping = true;
      splitter.end(); // the note is a line of its own
      emitText(`(a build message over ${MAX_MESSAGE_CHARS} characters was skipped)\n`, 'stderr');
    };
    body.on('data', (chunk: string) => {
      let at = 0;
      let nl: number;
      while ((nl = chunk.indexOf('\n', at)) >= 0) {
        if (!skipping && buffer.length + nl - at > MAX_MESSAGE_CHARS) skip();
        if (!skipping) handle(buffer + chunk.slice(at, nl));
        buffer = '';
        skipping = false;
        at = nl + 1;
      }
      if (!skipping) {
        buffer += chunk.slice(at);
        if (buffer.length > MAX_MESSAGE_CHARS) skip();
      }
      const wait = busy();
      if (wait) {
        body.pause();
        void wait.then(() => body.resume());
      }
    });
    body.on('error', (err) => reject(err));
    body.on('end', () => {
      if (!skipping) handle(buffer);
      splitter.end();
      if (failed !== null) return reject(new BuildError(`image build failed: ${failed}`));
      resolve(outcome);
    });
  });
}
