// login (verifies the key before saving it), context list|use|remove, link.
import type { Command } from 'commander';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { ApiError } from '../../shared/client.js';
import { formatFingerprint } from '../../shared/pinned-tls.js';
import { configPath, readCliConfig, writeCliConfig } from './config-store.js';
import { CliError, EXIT, pinMismatchOf, usageError } from './exit-codes.js';
import { writeLinkedProject } from './linked-project.js';
import { table } from './output.js';
import { globalsOf, makeClient, normalizeFingerprintOrUsage, normalizeServer, openSession, outputOf } from './session.js';

/** The key from stdin: typed without echo on a terminal, or the first line of a pipe. */
async function readKey(): Promise<string> {
  const tty = Boolean(process.stdin.isTTY);
  let muted = false;
  const sink = new Writable({
    write(chunk, _enc, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: process.stdin, output: tty ? sink : undefined, terminal: tty });
  try {
    if (tty) {
      process.stderr.write('API key (input hidden): ');
      muted = true;
    }
    const line = await new Promise<string>((resolve) => {
      let got = false;
      rl.once('line', (l) => {
        got = true;
        resolve(l);
      });
      rl.once('close', () => got || resolve(''));
    });
    if (tty) process.stderr.write('\n');
    return line.trim();
  } finally {
    rl.close();
  }
}

export function registerAuthCommands(program: Command): void {
  program
    .command('login')
    .description('save a server and its API key, after checking the key works (the key comes from --token, BERTH_TOKEN or stdin)')
    .argument('[url]', 'the server, e.g. https://berth.example.com (default: BERTH_SERVER)')
    .option('--fingerprint <sha256>', "pin the server's self-signed certificate (the installer's BERTH_CERT_SHA256; hex, colons allowed)")
    .option('--name <name>', 'the context name (default: the host name)')
    .action(async (url: string | undefined, o: { fingerprint?: string; name?: string }, cmd: Command) => {
      const g = globalsOf(cmd);
      const out = outputOf(cmd);
      const raw = url ?? g.server;
      if (!raw) throw usageError('login needs the server URL (or BERTH_SERVER)');
      const server = normalizeServer(raw);
      const fingerprint = o.fingerprint ? normalizeFingerprintOrUsage(o.fingerprint) : undefined;
      const token = g.token ?? (await readKey());
      if (!token) throw new CliError('no API key given (pass it on stdin, or set BERTH_TOKEN)', EXIT.auth);
      const client = makeClient(server, token, fingerprint);
      let projectCount: number;
      try {
        projectCount = (await client.listProjects()).projects.length;
      } catch (err) {
        if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
          throw new CliError(`${server} refused the key (${err.message}); nothing was saved`, EXIT.auth);
        }
        // the fingerprint given just now is not the served one: say so as it is (not "the certificate changed")
        const mismatch = pinMismatchOf(err);
        if (mismatch) throw new CliError(`${mismatch.message}; nothing was saved`, EXIT.auth);
        throw err;
      }
      const name = o.name ?? new URL(server).host;
      const config = readCliConfig();
      config.contexts[name] = { server, token, ...(fingerprint ? { fingerprint } : {}) };
      config.current = name;
      writeCliConfig(config);
      out.result({ context: name, server, pinned: fingerprint ?? null, projects: projectCount }, () => '');
      out.success(
        `logged in to ${server} as context ${name} (${projectCount} project${projectCount === 1 ? '' : 's'} visible)${fingerprint ? `, certificate pinned to ${formatFingerprint(fingerprint)}` : ''}`,
      );
    });

  const context = program.command('context').description('the saved servers');
  context
    .command('list')
    .description('list saved contexts (* marks the current one)')
    .action((_o, cmd: Command) => {
      const out = outputOf(cmd);
      const config = readCliConfig();
      const rows = Object.entries(config.contexts).map(([name, c]) => ({ name, server: c.server, current: name === config.current, pinned: Boolean(c.fingerprint) }));
      if (out.json) return rows.forEach((r) => out.event(r));
      if (rows.length === 0) return out.info(`no contexts in ${configPath()}: run berth login URL`);
      out.line(
        table(
          ['', 'NAME', 'SERVER', 'PINNED'],
          rows.map((r) => [r.current ? '*' : '', r.name, r.server, r.pinned ? 'yes' : 'no']),
        ),
      );
    });
  context
    .command('use')
    .description('make a saved context the current one')
    .argument('<name>')
    .action((name: string, _o, cmd: Command) => {
      const config = readCliConfig();
      if (!config.contexts[name]) throw usageError(`no context ${name} (see berth context list)`);
      config.current = name;
      writeCliConfig(config);
      outputOf(cmd).result({ current: name }, () => '');
      outputOf(cmd).success(`now using ${name} (${config.contexts[name]!.server})`);
    });
  context
    .command('remove')
    .description('forget a saved context and its key')
    .argument('<name>')
    .action((name: string, _o, cmd: Command) => {
      const config = readCliConfig();
      if (!config.contexts[name]) throw usageError(`no context ${name} (see berth context list)`);
      delete config.contexts[name];
      if (config.current === name) config.current = Object.keys(config.contexts)[0] ?? null;
      writeCliConfig(config);
      outputOf(cmd).result({ removed: name, current: config.current }, () => '');
      outputOf(cmd).success(`removed ${name}${config.current ? `; current is ${config.current}` : ''}`);
    });

  program
    .command('link')
    .description('link this directory to a project (.berth/project.json), so services are named by name or slug')
    .argument('<project>', 'project id, slug or name')
    .action(async (ref: string, _o, cmd: Command) => {
      const s = openSession(cmd);
      const projects = await s.projects();
      const project = projects.find((p) => p.id === ref) ?? projects.find((p) => p.slug === ref) ?? projects.find((p) => p.name === ref);
      if (!project) throw new CliError(`no project ${ref} on ${s.server}`);
      const path = writeLinkedProject({ projectId: project.id, projectSlug: project.slug, server: s.server });
      s.out.result({ projectId: project.id, projectSlug: project.slug, server: s.server, path }, () => '');
      s.out.success(`linked ${process.cwd()} to project ${project.slug} on ${s.server}`);
    });
}
