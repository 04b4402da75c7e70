// What a container has written so far (not following): for a container that is about to be
// removed, such as the one of a failed deployment, whose output says why it failed.
import type Docker from 'dockerode';

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

/** Docker's multiplexed log format (no TTY): frames of [stream, 0, 0, 0, size (uint32 BE)] + payload. */
function demux(buf: Buffer): OutputLine[] {
  const partial: Record<OutputLine['stream'], string> = { stdout: '', stderr: '' };
  const out: OutputLine[] = [];
  let at = 0;
  while (at + 8 <= buf.length) {
    const stream = buf[at] === 2 ? 'stderr' : 'stdout';
    const size = buf.readUInt32BE(at + 4);
    const parts = (partial[stream] + buf.subarray(at + 8, at + 8 + size).toString('utf8')).split(/\r?\n/);
    partial[stream] = parts.pop() ?? '';
    for (const line of parts) out.push({ line, stream });
    at += 8 + size;
  }
  for (const stream of ['stdout', 'stderr'] as const) if (partial[stream] !== '') out.push({ line: partial[stream], stream });
  return out;
}
