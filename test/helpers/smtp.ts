// An SMTP server (smtp-server, no TLS) that asks for a login and records each one: what an e-mail
// channel's stored username and password really send.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface LoginSmtp {
  port: number;
  logins: { username: string; password: string }[];
  close(): Promise<void>;
}

export async function startLoginSmtp(): Promise<LoginSmtp> {
  const logins: LoginSmtp['logins'] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      logins.push({ username: auth.username ?? '', password: auth.password ?? '' });
      callback(null, { user: auth.username });
    },
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () => callback());
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.server.address() as AddressInfo).port,
    logins,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
