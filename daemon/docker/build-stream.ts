// The Engine's image-build response is a stream of JSON objects, one per line, possibly split
// across chunks: {"stream": "..."} output, {"aux": {"ID": "sha256:..."}} the result,
// {"error": "...", "errorDetail": {...}} a failed step. This turns it into log lines and a result.
import type { Readable } from 'node:stream';
import { BuildError } from '../build/build-error.js';
import { CappedLineSplitter } from './output-lines.js';

export interface BuildOutcome {
  imageId: string | null;
  /** Images committed by intermediate steps ("---> 1a2b3c"), so an aborted build can clean up. */
  intermediateIds: string[];
}

interface BuildMessage {
  stream?: string;
  status?: string;
  progress?: string;
  error?: string;
  errorDetail?: { message?: string };
  aux?: { ID?: string };
}

/**
 * One Engine message (a JSON line) longer than this is skipped, not parsed: real ones are a chunk
 * of a step's output or a short status, and a line that never ends must not grow without bound.
 */
export const MAX_MESSAGE_CHARS = 1024 * 1024;

export function parseBuildStream(
  body: Readable,
  onLine: (line: string, stream: 'stdout' | 'stderr') => void,
  onStep: (imageId: string) => void = () => undefined,
  busy: () => Promise<void> | null = () => null,
): Promise<BuildOutcome> {
  return new Promise((resolve, reject) => {
    const outcome: BuildOutcome = { imageId: null, intermediateIds: [] };
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
        const step = /^ ---> ([0-9a-f]{12,64})$/.exec(line);
        if (step) {
          outcome.intermediateIds.push(step[1]!);
          onStep(step[1]!);
        }
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
      if (msg.aux?.ID) outcome.imageId = msg.aux.ID;
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
      // The classic builder reports the image id in its last line rather than in aux.
      if (!outcome.imageId) outcome.imageId = outcome.intermediateIds.at(-1) ?? null;
      resolve(outcome);
    });
  });
}
