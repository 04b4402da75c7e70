// A few small files as a tar archive (POSIX ustar), for the Engine's archive API (`putArchive`):
// how files reach a container on another node, where a bind mount of this server's disk cannot.
// Regular files and one directory only; names are Berth's own, never a user's.

const BLOCK = 512;

function header(name: string, size: number, mode: number, type: '0' | '5'): Buffer {
  if (Buffer.byteLength(name) > 100) throw new Error(`tar entry name too long: ${name}`);
  const h = Buffer.alloc(BLOCK);
  const field = (value: string, offset: number, length: number) => h.write(value, offset, length, 'ascii');
  const octal = (value: number, offset: number, length: number) => field(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, length);
  h.write(name, 0, 100, 'utf8');
  octal(mode, 100, 8);
  octal(0, 108, 8); // uid: root
  octal(0, 116, 8); // gid
  octal(size, 124, 12);
  octal(Math.floor(Date.now() / 1000), 136, 12);
  field(type, 156, 1);
  field('ustar\0', 257, 6);
  field('00', 263, 2);
  // the checksum is computed with its own field as eight spaces
  field('        ', 148, 8);
  let sum = 0;
  for (const byte of h) sum += byte;
  field(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return h;
}

/** `dir/` and each file in it, then the two empty blocks that end an archive. */
export function tarOfFiles(dir: string, files: readonly { name: string; content: Buffer; mode: number }[]): Buffer {
  const parts: Buffer[] = [header(`${dir}/`, 0, 0o755, '5')];
  for (const f of files) {
    parts.push(header(`${dir}/${f.name}`, f.content.length, f.mode, '0'), f.content);
    const pad = (BLOCK - (f.content.length % BLOCK)) % BLOCK;
    if (pad > 0) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}
