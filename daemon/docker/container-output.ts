// What a container has written so far (not following): for a container that is about to be
// removed, such as the one of a failed deployment, whose output says why it failed.
import type Docker from 'dockerode';
import { DockerLogLines } from './output-lines.js';

export interface OutputLine {
  line: string;
  stream: 'stdout' | 'stderr';
}

/** The last `tail` lines of stdout and stderr, in the order written; [] when the container is gone. */
export async function containerOutput(docker: Docker, id: string, tail: number): Promise<OutputLine[]> {
  let raw: Buffer;
  try {
    raw = (await docker.getContainer(id).logs({ follow: false, stdout: true, stderr: true, tail, timestamps: false })) as unknown as Buffer;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return [];
    throw err;
  }
  return demux(Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw)));
}

/** Docker's multiplexed log format, split into lines of at most MAX_LINE_CHARS. */
function demux(buf: Buffer): OutputLine[] {
  const out: OutputLine[] = [];
  const lines = new DockerLogLines((line, stream) => out.push({ line, stream }));
  lines.push(buf);
  lines.end();
  return out;
}
