// The pure parts of the build hardening: Berth's build files written beside hostile links, the
// FROM-anchored Dockerfile edits, the build-stream parser that takes ids only from the Engine's
// aux messages, the clone's environment (no host identity), the clone size measure, and the Java
// main class read from the source rather than the file name.
import { expect } from 'chai';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { analyze } from '../../daemon/builder/autobuild/analyze.js';
import { BASE_IMAGE_DEFAULTS } from '../../daemon/builder/autobuild/base-images.js';
import { mainClassOf } from '../../daemon/builder/autobuild/java.js';
import { writeBuildFile } from '../../daemon/builder/build-files.js';
import { gitEnvironment } from '../../daemon/builder/checkout.js';
import { sizeOver } from '../../daemon/builder/git-run.js';
import { afterEachFrom, prepareContext } from '../../daemon/builder/context.js';
import { parseBuildStream } from '../../daemon/docker/build-stream.js';

describe('security (unit): build files, build stream, clone environment, Java main class', () => {
  let scratch: string;
  before(() => (scratch = mkdtempSync(join(tmpdir(), 'berth-sec-unit-'))));
  after(() => rmSync(scratch, { recursive: true, force: true }));
  const fresh = (): string => mkdtempSync(join(scratch, 'd-'));

  describe('writeBuildFile', () => {
    it('replaces a link (dangling or not), a directory or a file the repository put under the name, never writing through it', () => {
      const outside = fresh();
      const target = join(outside, 'victim');
      writeFileSync(target, 'host file\n');
      const cases: [string, (path: string) => void][] = [
        ['a symbolic link', (p) => symlinkSync(target, p)],
        ['a symbolic link', (p) => symlinkSync(join(outside, 'new-file'), p)],
        ['a directory', (p) => (mkdirSync(p), symlinkSync(target, join(p, 'inner')))],
        ['a file', (p) => writeFileSync(p, 'repo text')],
      ];
      for (const [what, plant] of cases) {
        const dir = fresh();
        plant(join(dir, '.berth.Dockerfile'));
        const logs: string[] = [];
        writeBuildFile(dir, '.berth.Dockerfile', 'FROM x\n', (l) => logs.push(l));
        expect(lstatSync(join(dir, '.berth.Dockerfile')).isFile(), what).to.equal(true);
        expect(readFileSync(join(dir, '.berth.Dockerfile'), 'utf8')).to.equal('FROM x\n');
        expect(logs, what).to.deep.equal([`Note: the repository holds ${what} named .berth.Dockerfile, a name Berth reserves for its own build files; it is replaced, and never followed or read`]);
      }
      expect(readFileSync(target, 'utf8')).to.equal('host file\n');
      expect(existsSync(join(outside, 'new-file'))).to.equal(false);
    });

    it('says nothing when the name is free', () => {
      const logs: string[] = [];
      writeBuildFile(fresh(), '.berth-build-ca.pem', 'pem', (l) => logs.push(l));
      expect(logs).to.deep.equal([]);
    });

    it('prepareContext writes the CA bundle and its Dockerfile copy beside links without following them', () => {
      const outside = fresh();
      const dir = fresh();
      writeFileSync(join(dir, 'Dockerfile'), 'FROM busybox\nRUN true\n');
      writeFileSync(join(outside, 'ca.pem'), 'CA');
      symlinkSync(join(outside, 'pwned-ca'), join(dir, '.berth-build-ca.pem'));
      symlinkSync(join(outside, 'pwned-dockerfile'), join(dir, '.berth.Dockerfile'));
      const name = prepareContext(dir, 'Dockerfile', { caFile: join(outside, 'ca.pem'), labels: { 'dev.berth.image-owner': 'i/p/s', 'dev.berth.build': 'i/s' }, log: () => undefined });
      expect(name).to.equal('.berth.Dockerfile');
      expect(existsSync(join(outside, 'pwned-ca'))).to.equal(false);
      expect(existsSync(join(outside, 'pwned-dockerfile'))).to.equal(false);
      const text = readFileSync(join(dir, name), 'utf8');
      expect(text.split('\n').slice(0, 3)).to.deep.equal([
        'FROM busybox',
        'LABEL dev.berth.image-owner="i/p/s" dev.berth.build="i/s"',
        'COPY .berth-build-ca.pem /usr/local/share/ca-certificates/berth-build-ca.crt',
      ]);
    });
  });

  describe('afterEachFrom', () => {
    it('inserts after every FROM, after its continuation lines', () => {
      const out = afterEachFrom('ARG V=1\nFROM a AS x\nRUN 1\nfrom \\\n  b\nRUN 2', ['LABEL l=1']);
      expect(out).to.equal('ARG V=1\nFROM a AS x\nLABEL l=1\nRUN 1\nfrom \\\n  b\nLABEL l=1\nRUN 2');
    });
  });

  describe('parseBuildStream', () => {
    const run = async (messages: unknown[]): Promise<{ imageId: string | null; stageIds: string[]; lines: string[] }> => {
      const body = new PassThrough();
      const lines: string[] = [];
      const done = parseBuildStream(body, (l) => lines.push(l));
      for (const m of messages) body.write(JSON.stringify(m) + '\n');
      body.end();
      return { ...(await done), lines };
    };
    const ID = (c: string): string => `sha256:${c.repeat(64)}`;

    it('takes ids only from aux messages; step lines a RUN prints are log text', async () => {
      const out = await run([
        { stream: 'Step 1/3 : FROM busybox\n' },
        { stream: ' ---> 1111111111aa\n' },
        { stream: ' ---> Running in cafecafecafe\n' },
        { stream: ' ---> deadbeefdead\nSuccessfully built deadbeefdead\n' },
        { aux: { ID: ID('a') } },
        { stream: ' ---> 2222222222bb\n' },
        { aux: { ID: ID('b') } },
        { stream: 'Successfully built bbbbbbbbbbbb\n' },
      ]);
      expect(out.imageId).to.equal(ID('b'));
      expect(out.stageIds).to.deep.equal([ID('a'), ID('b')]);
      expect(out.lines).to.include(' ---> deadbeefdead');
    });

    it('without an aux message there is no image id, whatever the output says', async () => {
      const out = await run([{ stream: ' ---> 1234567890ab\n' }, { stream: 'Successfully built 1234567890ab\n' }, { aux: { ID: 'not-an-id' } }]);
      expect(out.imageId).to.equal(null);
      expect(out.stageIds).to.deep.equal([]);
    });
  });

  describe('the clone environment', () => {
    it("carries no host identity: empty HOME of its own, no system or global gitconfig, no agent, no GIT_* of the daemon's", () => {
      const saved = { ...process.env };
      Object.assign(process.env, { SSH_AUTH_SOCK: '/tmp/agent.sock', GIT_CONFIG_GLOBAL: '/root/.gitconfig', GIT_SSH: '/bin/sh', NETRC: '/root/.netrc', HOME: '/root' });
      try {
        const env = gitEnvironment('https://example.com/a/b.git', null, '/tmp/empty-home');
        expect(env).to.include({
          HOME: '/tmp/empty-home',
          XDG_CONFIG_HOME: '/tmp/empty-home',
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_CONFIG_GLOBAL: '/dev/null',
          GIT_ALLOW_PROTOCOL: 'https:http',
          GIT_TERMINAL_PROMPT: '0',
        });
        expect(env).not.to.have.any.keys('SSH_AUTH_SOCK', 'GIT_SSH', 'NETRC');
        expect(env.PATH).to.equal(process.env.PATH);
      } finally {
        for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
        Object.assign(process.env, saved);
      }
    });

    it('sizeOver counts files without following links and stops at the cap', async () => {
      const dir = fresh();
      writeFileSync(join(dir, 'a'), Buffer.alloc(600));
      mkdirSync(join(dir, 'sub'));
      writeFileSync(join(dir, 'sub', 'b'), Buffer.alloc(600));
      symlinkSync('/usr/bin', join(dir, 'link')); // a link to something huge counts as a link
      expect(await sizeOver(dir, 2000)).to.equal(false);
      expect(await sizeOver(dir, 1000)).to.equal(true);
    });
  });

  describe('Java main class', () => {
    it('is read from the source, not the file name', () => {
      expect(mainClassOf('public class Server {\n  public static void main(String[] args) {}\n}\n')).to.equal('Server');
      expect(mainClassOf('package com.acme.app;\n// class Fake {\n/* class Other { */\nfinal class Main {\n  static public void main(String... a) { String s = "class X {"; }\n}\n')).to.equal(
        'com.acme.app.Main',
      );
      expect(mainClassOf('class Outer {\n  int[] a = {1, 2};\n  static class Inner {\n    public static void main(String[] a) {}\n  }\n}\n')).to.equal('Outer$Inner');
      expect(mainClassOf('class Helper { void main() {} }')).to.equal(null);
    });

    it('a repository with server.java declaring class Server starts Server', () => {
      const dir = fresh();
      writeFileSync(join(dir, 'server.java'), 'import java.net.*;\n\npublic class Server {\n  public static void main(String[] args) throws Exception {}\n}\n');
      writeFileSync(join(dir, 'util.java'), 'class Util {}\n');
      const plan = analyze({
        root: dir,
        runtimeMode: 'web',
        port: 8080,
        images: { ...BASE_IMAGE_DEFAULTS },
        overrides: { installCommand: null, buildCommand: null, startCommand: null, staticOutput: null },
      });
      expect(plan).to.include({ stack: 'java', tool: 'javac', startCommand: 'java -cp /app/.berth/classes Server' });
    });
  });
});
