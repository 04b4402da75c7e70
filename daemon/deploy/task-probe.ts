// "Answers": the deploy health rule (deploy/health.ts) for a task at <node address>:<published port>
// instead of a container on loopback: any HTTP response for a web service, an accepted connection otherwise.
import http from 'node:http';
import net from 'node:net';

export function probeAddress(host: string, port: number, kind: 'http' | 'tcp', timeoutMs = 1500): Promise<boolean> {
  return new Promise((resolve) => {
    if (kind === 'http') {
      const req = http.get({ host, port, path: '/', timeout: timeoutMs, agent: false }, (res) => {
        res.resume();
        resolve(true);
      });
      req.once('timeout', () => req.destroy());
      req.once('error', () => resolve(false));
      return;
    }
    const socket = net.connect(port, host);
    socket.setTimeout(timeoutMs);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}
