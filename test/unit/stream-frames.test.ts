// Docker's multiplexed stream is read in one place (daemon/docker/stream-frames.ts) for log lines
// and for exec streams: payload handed on as it arrives, per frame type; exec streams refuse bytes
// that are not frames and a stream cut inside a frame.
import { expect } from 'chai';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DockerStreamDemux } from '../../daemon/docker/exec.js';
import { DockerFrameReader } from '../../daemon/docker/stream-frames.js';

function frame(type: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header[0] = type;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

async function demux(chunks: Buffer[]): Promise<{ stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const sink = new Writable({ write: (c: Buffer, _e, done) => ((stdout += c.toString()), done()) });
  await pipeline(Readable.from(chunks), new DockerStreamDemux((c) => (stderr += c.toString())), sink);
  return { stdout, stderr };
}

describe("Docker's multiplexed stream (unit)", () => {
  it('hands on payload per frame type as it arrives, with headers and payloads split anywhere', () => {
    const got: string[] = [];
    const r = new DockerFrameReader((type, part) => got.push(`${type}:${part.toString()}`));
    const all = Buffer.concat([frame(1, Buffer.from('hello')), frame(2, Buffer.from('oops')), frame(1, Buffer.from('!'))]);
    for (let i = 0; i < all.length; i += 3) r.push(all.subarray(i, i + 3));
    expect(got.length).to.be.greaterThan(3); // handed on in pieces, not frames held whole
    expect(
      got
        .filter((g) => g.startsWith('1:'))
        .map((g) => g.slice(2))
        .join(''),
    ).to.equal('hello!');
    expect(
      got
        .filter((g) => g.startsWith('2:'))
        .map((g) => g.slice(2))
        .join(''),
    ).to.equal('oops');
    expect(r.midFrame).to.equal(false);
    r.push(frame(1, Buffer.from('abc')).subarray(0, 9));
    expect(r.midFrame).to.equal(true);
  });

  it('an exec stream passes stdout on and stderr aside, and refuses bytes that are not frames', async () => {
    expect(await demux([frame(1, Buffer.from('dump')), frame(2, Buffer.from('warning')), frame(1, Buffer.from('ed'))])).to.deep.equal({ stdout: 'dumped', stderr: 'warning' });
    let err: unknown = null;
    await demux([Buffer.from('PGDMP plain bytes, no frame header')]).catch((e: unknown) => (err = e));
    expect(String(err)).to.match(/not a multiplexed stream/);
  });

  it('an exec stream cut inside a frame is an error, not a short file', async () => {
    let err: unknown = null;
    await demux([frame(1, Buffer.from('complete')), frame(1, Buffer.from('cut short')).subarray(0, 12)]).catch((e: unknown) => (err = e));
    expect(String(err)).to.match(/middle of a frame/);
  });
});
