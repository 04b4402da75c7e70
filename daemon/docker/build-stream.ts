// The Engine's image-build response is a stream of JSON objects, one per line, possibly split
// across chunks: {"stream": "..."} output, {"aux": {"ID": "sha256:..."}} the result of a stage,
// {"error": "...", "errorDetail": {...}} a failed step. This turns it into log lines and a result.
// Ids come only from the Engine's structured `aux` messages: a build's own output (a RUN step
// printing " ---> <id>" or "Successfully built <id>") is text for the log and nothing else.
import type { Readable } from 'node:stream';
import { BuildError } from '../build/build-error.js';

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

export function parseBuildStream(body: Readable, onLine: (line: string, stream: 'stdout' | 'stderr') => void): Promise<BuildOutcome> {
  return new Promise((resolve, reject) => {
    const outcome: BuildOutcome = { imageId: null, stageIds: [] };
    let buffer = '';
    let partialLine = '';
    let failed: string | null = null;

    const emitText = (text: string, stream: 'stdout' | 'stderr') => {
      const parts = (partialLine + text).split(/\r?\n|\r/);
      partialLine = parts.pop() ?? '';
      for (const part of parts) {
        const line = part.trimEnd();
        if (line !== '') onLine(line, stream);
      }
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
    body.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        handle(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
      }
    });
    body.on('error', (err) => reject(err));
    body.on('end', () => {
      handle(buffer);
      if (partialLine) emitText('\n', 'stdout');
      if (failed !== null) return reject(new BuildError(`image build failed: ${failed}`));
      resolve(outcome);
    });
  });
}
