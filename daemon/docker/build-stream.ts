// The Engine's image-build response is a stream of JSON objects, one per line, possibly split
// across chunks: {"stream": "..."} output, {"aux": {"ID": "sha256:..."}} the result,
// {"error": "...", "errorDetail": {...}} a failed step. This turns it into log lines and a result.
import type { Readable } from 'node:stream';
import { BuildError } from '../build/build-error.js';

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

export function parseBuildStream(
  body: Readable,
  onLine: (line: string, stream: 'stdout' | 'stderr') => void,
  onStep: (imageId: string) => void = () => undefined,
): Promise<BuildOutcome> {
  return new Promise((resolve, reject) => {
    const outcome: BuildOutcome = { imageId: null, intermediateIds: [] };
    let buffer = '';
    let partialLine = '';
    let failed: string | null = null;

    const emitText = (text: string, stream: 'stdout' | 'stderr') => {
      const parts = (partialLine + text).split(/\r?\n|\r/);
      partialLine = parts.pop() ?? '';
      for (const part of parts) {
        const line = part.trimEnd();
        if (line === '') continue;
        const step = /^ ---> ([0-9a-f]{12,64})$/.exec(line);
        if (step) {
          outcome.intermediateIds.push(step[1]!);
          onStep(step[1]!);
        }
        onLine(line, stream);
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
      if (msg.aux?.ID) outcome.imageId = msg.aux.ID;
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
      // The classic builder reports the image id in its last line rather than in aux.
      if (!outcome.imageId) outcome.imageId = outcome.intermediateIds.at(-1) ?? null;
      resolve(outcome);
    });
  });
}
