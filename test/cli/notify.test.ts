// `berth notify` against a real daemon (no Docker needed), with an HTTP receiver and an SMTP server
// (smtp-server) that asks for a login: a webhook added with its URL on stdin prints its signing
// secret once, and its test notice arrives signed with it; an e-mail channel's password comes from
// stdin and is what the SMTP server sees; a receiver that refuses makes `test` exit 1; usage
// errors exit 2 and add nothing; `rm` removes by name.
import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NotificationChannel } from '../../shared/types.js';
import { allowLoopbackNotifyTargets } from '../helpers/notify-targets.js';
import { cliHome, type CliHome } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startLoginSmtp, type LoginSmtp } from '../helpers/smtp.js';

describe('berth notify: channels from the terminal', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let cli: CliHome;
  let env: Record<string, string>;
  let http: Server;
  let smtp: LoginSmtp;
  const posts: { path: string; body: string; signature: string }[] = [];
  const channels = async () => (await t.admin.listNotificationChannels()).channels;

  before(async () => {
    http = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        posts.push({ path: req.url ?? '', body, signature: String(req.headers['x-berth-signature-256']) });
        res.writeHead(req.url === '/refuse' ? 503 : 204).end();
      });
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    smtp = await startLoginSmtp();
    t = await startTestDaemon();
    await allowLoopbackNotifyTargets(t.admin);
    const { token } = await t.admin.createKey({ name: 'cli', access: 'write', projects: 'all' });
    env = { BERTH_SERVER: t.url, BERTH_TOKEN: token };
    cli = cliHome();
  });
  after(async () => {
    await t?.stop();
    cli?.remove();
    await new Promise((r) => http?.close(r));
    await smtp?.close();
  });

  const url = (path: string) => `http://127.0.0.1:${(http.address() as AddressInfo).port}${path}`;

  it('adds a webhook with its URL from stdin, prints the signing secret once, and its test notice arrives signed with it', async () => {
    const added = await cli.run(['notify', 'add', 'webhook', 'ops', '--events', 'deployment_failed,deployment_succeeded'], { env, input: `${url('/hook/secret-path')}\n` });
    expect(added.code, added.stderr).to.equal(0);
    const secret = added.stdout.trim();
    expect(secret).to.match(/^[0-9a-f]{64}$/);
    expect(added.stderr).to.include('shown only this once');
    const [ops] = await channels();
    expect(ops).to.deep.include({ name: 'ops', type: 'webhook', events: ['deployment_failed', 'deployment_succeeded'] });

    const listed = await cli.run(['notify', 'list'], { env });
    expect(listed.stdout).to.match(new RegExp(`^${ops!.id}\\s+ops\\s+webhook\\s+http://127\\.0\\.0\\.1:\\d+\\s+deployment_failed,deployment_succeeded$`, 'm'));
    expect(listed.stdout, 'the list never shows the path').not.to.include('secret-path');

    const tested = await cli.run(['notify', 'test', 'ops'], { env });
    expect(tested.code, tested.stderr).to.equal(0);
    const post = posts.find((p) => p.path === '/hook/secret-path')!;
    expect(post.signature).to.equal(`sha256=${createHmac('sha256', secret).update(post.body).digest('hex')}`);
  });

  it('adds an e-mail channel whose password comes from stdin only, and the SMTP server sees that login', async () => {
    const port = smtp.port;
    const added = await cli.run(
      [
        'notify',
        'add',
        'email',
        'mail',
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        '--username',
        'mailer',
        '--password-stdin',
        '--from',
        'berth@example.test',
        '--to',
        'a@example.test, b@example.test',
        '--json',
      ],
      { env, input: 'pa ss\n' },
    );
    expect(added.code, added.stderr).to.equal(0);
    const [answer] = added.json<{ channel: NotificationChannel; secret?: string }>();
    expect(answer!.channel).to.deep.include({
      type: 'email',
      target: `smtp://127.0.0.1:${port} to a@example.test, b@example.test`,
      events: ['deployment_failed', 'backup_failed', 'backup_verification_failed', 'job_failed', 'daemon_restarted', 'check_down', 'check_up'],
    });
    expect(answer!.secret).to.equal(undefined);
    const tested = await cli.run(['notify', 'test', answer!.channel.id], { env });
    expect(tested.code, tested.stderr).to.equal(0);
    expect(smtp.logins.at(-1)).to.deep.equal({ username: 'mailer', password: 'pa ss' });
  });

  it('test exits 1 with the reason when the receiver refuses; rm removes by name', async () => {
    expect((await cli.run(['notify', 'add', 'slack', 'flaky', url('/refuse')], { env })).code).to.equal(0);
    const tested = await cli.run(['notify', 'test', 'flaky'], { env });
    expect(tested.code).to.equal(1);
    expect(tested.stderr).to.include('flaky: the receiver answered HTTP 503');
    const removed = await cli.run(['notify', 'rm', 'flaky'], { env });
    expect(removed.code, removed.stderr).to.equal(0);
    expect((await channels()).map((c) => c.name)).to.deep.equal(['ops', 'mail']);
    expect((await cli.run(['notify', 'rm', 'flaky'], { env })).code, 'an unknown channel').to.equal(1);
  });

  it('usage errors exit 2 and add nothing', async () => {
    const before = (await channels()).length;
    for (const args of [
      ['notify', 'add', 'pager', 'x', url('/x')],
      ['notify', 'add', 'slack', 'x', url('/x'), '--events', 'everything'],
      ['notify', 'add', 'email', 'x', '--host', 'h', '--from', 'f@example.test'],
      ['notify', 'add', 'email', 'x', url('/x')],
      ['notify', 'add', 'email', 'x', '--host', 'h', '--port', '70000', '--from', 'f@example.test', '--to', 't@example.test'],
      ['notify', 'add', 'discord', 'x'],
    ]) {
      const run = await cli.run(args, { env, input: '' });
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).to.equal(2);
    }
    expect(await channels()).to.have.length(before);
    const { project } = await t.admin.createProject({ name: 'elsewhere' });
    const scoped = (await t.admin.createKey({ name: 'scoped', access: 'write', projects: [project.id] })).token;
    expect((await cli.run(['notify', 'list'], { env: { ...env, BERTH_TOKEN: scoped } })).code, 'a key over selected projects').to.equal(3);
  });
});
