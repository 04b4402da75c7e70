// Output split into log lines never holds more than one capped line: output without line breaks
// (a container printing 200 MB of `x`) comes out as lines of MAX_LINE_CHARS as it arrives.
import { expect } from 'chai';
import { Readable } from 'node:stream';
import { parseBuildStream, MAX_MESSAGE_CHARS } from '../../daemon/docker/build-stream.js';
import { CappedLineSplitter, DockerLogLines, MAX_LINE_CHARS } from '../../daemon/docker/output-lines.js';

function frame(stream: 1 | 2, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

describe('output split into capped lines (unit)', () => {
  it('cuts a line without breaks into lines of the cap as it arrives, keeping every character', () => {
    const lines: string[] = [];
    const s = new CappedLineSplitter((l) => lines.push(l));
    const chunk = 'x'.repeat(65_536);
    for (let i = 0; i < 64; i++) {
      s.push(chunk);
      // at most one cap's worth is ever pending
      expect(lines.length * MAX_LINE_CHARS).to.be.greaterThan((i + 1) * chunk.length - MAX_LINE_CHARS);
    }
    s.push('tail\nnext');
    s.end();
    expect(lines.every((l) => l.length <= MAX_LINE_CHARS)).to.equal(true);
    expect(lines.join('')).to.equal('x'.repeat(64 * 65_536) + 'tail' + 'next');
    expect(lines.at(-1)).to.equal('next');
  });

  it('splits on \\n and \\r\\n (a \\r\\n cut between chunks too) and on a bare \\r only when asked', () => {
    const plain: string[] = [];
    const a = new CappedLineSplitter((l) => plain.push(l));
    a.push('one\r');
    a.push('\ntwo\rstill two\n');
    expect(plain).to.deep.equal(['one', 'two\rstill two']);
    const progress: string[] = [];
    const b = new CappedLineSplitter((l) => progress.push(l), { bareCr: true });
    b.push('10%\r20%\rdone\n');
    expect(progress).to.deep.equal(['10%', '20%', 'done']);
  });

  it('never cuts a surrogate pair in half', () => {
    const lines: string[] = [];
    const s = new CappedLineSplitter((l) => lines.push(l), { max: 4 });
    s.push('abc😀def\n');
    expect(lines).to.deep.equal(['abc', '😀de', 'f']);
  });

  it("reads Docker's frames split anywhere, UTF-8 cut between frames included, per stream", () => {
    const out: string[] = [];
    const r = new DockerLogLines((line, stream) => out.push(`${stream}:${line}`));
    const euro = Buffer.from('€');
    const all = Buffer.concat([
      frame(1, Buffer.concat([Buffer.from('price '), euro.subarray(0, 1)])),
      frame(2, Buffer.from('oops\n')),
      frame(1, Buffer.concat([euro.subarray(1), Buffer.from('5\nlast')])),
    ]);
    for (let i = 0; i < all.length; i += 3) r.push(all.subarray(i, i + 3));
    r.end();
    expect(out).to.deep.equal(['stderr:oops', 'stdout:price €5', 'stdout:last']);
  });

  it('a build step printing without line breaks gives capped lines; a giant Engine message is skipped, the result still read', async () => {
    const messages = [
      ...Array.from({ length: 40 }, () => JSON.stringify({ stream: 'y'.repeat(10_000) }) + '\n'),
      JSON.stringify({ stream: 'z'.repeat(MAX_MESSAGE_CHARS + 10) }) + '\n',
      JSON.stringify({ stream: '\n' }) + '\n',
      JSON.stringify({ aux: { ID: `sha256:${'ab'.repeat(32)}` } }) + '\n',
    ];
    const lines: string[] = [];
    const outcome = await parseBuildStream(Readable.from(messages.join('').match(/[\s\S]{1,7000}/g)!), (l) => lines.push(l));
    expect(outcome.imageId).to.equal(`sha256:${'ab'.repeat(32)}`);
    expect(lines.every((l) => l.length <= MAX_LINE_CHARS)).to.equal(true);
    expect(lines.filter((l) => l.startsWith('y')).join('')).to.equal('y'.repeat(400_000));
    expect(lines.some((l) => l.includes('z'))).to.equal(false);
    expect(lines).to.include(`(a build message over ${MAX_MESSAGE_CHARS} characters was skipped)`);
  });
});
