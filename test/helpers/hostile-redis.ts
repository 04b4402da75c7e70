// A tiny TCP server speaking just enough RESP to be a redis import source: INFO (keyspace),
// SELECT, SCAN (every key in one answer), DUMP (the payload given for the key), PTTL (-1), and
// +OK to anything else. It plays a hostile source that answers DUMP with huge values. It writes
// with backpressure and stops when the daemon cuts the connection, so the big answers cost this
// process (which also runs the test daemon) no more than one reused Buffer.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface HostileRedis {
  port: number;
  /** How many connections the daemon opened so far. */
  connections(): number;
  close(): Promise<void>;
}

export async function startHostileRedis(keys: Map<string, Buffer>): Promise<HostileRedis> {
  const sockets = new Set<Socket>();
  let opened = 0;
  const server: Server = createServer((socket) => {
    opened++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    let pending = Buffer.alloc(0);
    let queue = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const parsed = parseCommand(pending);
        if (!parsed) break;
        pending = pending.subarray(parsed.used);
        const argv = parsed.argv;
        queue = queue.then(() => answer(socket, argv, keys)).catch(() => undefined);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => opened,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function answer(socket: Socket, argv: string[], keys: Map<string, Buffer>): Promise<void> {
  const name = (argv[0] ?? '').toUpperCase();
  if (name === 'INFO') return send(socket, bulk(Buffer.from(`# Keyspace\r\ndb0:keys=${keys.size},expires=0,avg_ttl=0\r\n`)));
  if (name === 'SCAN') {
    const names = [...keys.keys()].map((k) => bulk(Buffer.from(k)));
    return send(socket, Buffer.from('*2\r\n'), bulk(Buffer.from('0')), Buffer.from(`*${names.length}\r\n`), ...names);
  }
  if (name === 'DUMP') {
    const payload = keys.get(argv[1] ?? '');
    if (!payload) return send(socket, Buffer.from('$-1\r\n'));
    return send(socket, Buffer.from(`$${payload.length}\r\n`), payload, Buffer.from('\r\n'));
  }
  if (name === 'PTTL') return send(socket, Buffer.from(':-1\r\n'));
  return send(socket, Buffer.from('+OK\r\n'));
}

function bulk(data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`$${data.length}\r\n`), data, Buffer.from('\r\n')]);
}

async function send(socket: Socket, ...parts: Buffer[]): Promise<void> {
  for (const part of parts) {
    if (socket.destroyed) throw new Error('closed');
    if (!socket.write(part)) {
      await new Promise<void>((resolve, reject) => {
        const drained = () => {
          socket.off('close', closed);
          resolve();
        };
        const closed = () => {
          socket.off('drain', drained);
          reject(new Error('closed'));
        };
        socket.once('drain', drained).once('close', closed);
      });
    }
  }
}

/** One RESP array of bulk strings from the front of `data`, or null when incomplete. */
function parseCommand(data: Buffer): { argv: string[]; used: number } | null {
  const line = (from: number): [string, number] | null => {
    const end = data.indexOf('\r\n', from);
    return end < 0 ? null : [data.subarray(from, end).toString('latin1'), end + 2];
  };
  const head = line(0);
  if (!head) return null;
  if (!head[0].startsWith('*')) return { argv: head[0].trim().split(/\s+/), used: head[1] }; // inline command
  const count = Number(head[0].slice(1));
  const argv: string[] = [];
  let at = head[1];
  for (let i = 0; i < count; i++) {
    const size = line(at);
    if (!size) return null;
    const length = Number(size[0].slice(1));
    if (data.length < size[1] + length + 2) return null;
    argv.push(data.subarray(size[1], size[1] + length).toString('latin1'));
    at = size[1] + length + 2;
  }
  return { argv, used: at };
}
