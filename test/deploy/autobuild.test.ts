// Autobuild end to end: repositories without a Dockerfile (Node with npm dependencies, Python, Go,
// Java, Rust, a static site, a Vite SPA) deployed through the real API onto the real Docker Engine,
// each answering HTTP on its hostPort. The daemon's base images point at local stand-ins
// (test/setup/lang-images.sh); npm reaches the registry through the host's CA bundle.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../../shared/client.js';
import type { Deployment, Service } from '../../shared/types.js';
import { webApp } from '../helpers/apps.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { danglingImages, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { httpText, waitForDeployment } from '../helpers/wait.js';

const HOST_CA = '/etc/ssl/certs/ca-certificates.crt';

/** Builds (or finds) the language stand-ins once per process. */
function requireLangImages(): void {
  const res = spawnSync('bash', [join(REPO_ROOT, 'test/setup/lang-images.sh')], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`language stand-in images failed to build:\n${res.stderr}\n${res.stdout}`);
}

const STAND_INS: Record<string, string> = {
  BERTH_AUTOBUILD_IMAGE_NODE: 'berth-test/node-autobuild:latest',
  BERTH_AUTOBUILD_IMAGE_PYTHON: 'berth-test/python:latest',
  BERTH_AUTOBUILD_IMAGE_GO: 'berth-test/go:latest',
  BERTH_AUTOBUILD_IMAGE_JAVA: 'berth-test/java:latest',
  BERTH_AUTOBUILD_IMAGE_JAVA_RUNTIME: 'berth-test/java:latest',
  BERTH_AUTOBUILD_IMAGE_RUST: 'berth-test/rust:latest',
  BERTH_AUTOBUILD_IMAGE_STATIC: 'berth-test/caddy:latest',
  BERTH_AUTOBUILD_IMAGE_RUNTIME: 'berth-test/debian:bookworm-v2',
};

const FIXTURES = {
  node: {
    'package.json': JSON.stringify({ name: 'node-app', version: '1.0.0', private: true, scripts: { start: 'node server.js' }, dependencies: { express: '^4.21.0' } }),
    'server.js':
      "const express = require('express');\nconst app = express();\napp.get('/', (_req, res) => res.type('text').send('hello from express\\n'));\napp.listen(Number(process.env.PORT), () => console.log('listening on ' + process.env.PORT));\n",
  },
  python: {
    'requirements.txt': '# no third-party dependencies\n',
    'main.py': [
      'import os',
      'from http.server import BaseHTTPRequestHandler, HTTPServer',
      'class Hello(BaseHTTPRequestHandler):',
      '    def do_GET(self):',
      "        body = b'hello from python\\n'",
      '        self.send_response(200)',
      "        self.send_header('Content-Length', str(len(body)))",
      '        self.end_headers()',
      '        self.wfile.write(body)',
      "HTTPServer(('0.0.0.0', int(os.environ['PORT'])), Hello).serve_forever()",
      '',
    ].join('\n'),
  },
  go: {
    'go.mod': 'module example.com/hello\n\ngo 1.19\n',
    'main.go': [
      'package main',
      '',
      'import (',
      '\t"fmt"',
      '\t"net/http"',
      '\t"os"',
      ')',
      '',
      'func main() {',
      '\thttp.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello from go\\n") })',
      '\tpanic(http.ListenAndServe(":"+os.Getenv("PORT"), nil))',
      '}',
      '',
    ].join('\n'),
  },
  java: {
    'src/hello/Main.java': [
      'package hello;',
      'import com.sun.net.httpserver.HttpServer;',
      'import java.net.InetSocketAddress;',
      'public class Main {',
      '  public static void main(String[] args) throws Exception {',
      '    HttpServer server = HttpServer.create(new InetSocketAddress(Integer.parseInt(System.getenv("PORT"))), 0);',
      '    server.createContext("/", ex -> { byte[] b = "hello from java\\n".getBytes(); ex.sendResponseHeaders(200, b.length); ex.getResponseBody().write(b); ex.close(); });',
      '    server.start();',
      '  }',
      '}',
      '',
    ].join('\n'),
  },
  rust: {
    'Cargo.toml': '[package]\nname = "hello-rust"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
    'src/main.rs': [
      'use std::io::{Read, Write};',
      'use std::net::TcpListener;',
      'fn main() {',
      '    let port = std::env::var("PORT").unwrap_or_else(|_| "8080".to_string());',
      '    let listener = TcpListener::bind(format!("0.0.0.0:{}", port)).unwrap();',
      '    for stream in listener.incoming() {',
      '        let mut s = match stream { Ok(s) => s, Err(_) => continue };',
      '        let mut buf = [0u8; 1024];',
      '        let _ = s.read(&mut buf);',
      '        let body = "hello from rust\\n";',
      '        let _ = write!(s, "HTTP/1.1 200 OK\\r\\nContent-Length: {}\\r\\nConnection: close\\r\\n\\r\\n{}", body.len(), body);',
      '    }',
      '}',
      '',
    ].join('\n'),
  },
  static: {
    'index.html': 'hello from static\n',
    'about/index.html': 'about page\n',
    '.env': 'SECRET=do-not-serve\n',
  },
  vite: {
    'package.json': JSON.stringify({ name: 'spa', version: '1.0.0', private: true, type: 'module', scripts: { build: 'vite build' }, devDependencies: { vite: '^5.4.0' } }),
    'index.html': '<!doctype html>\n<html><body><div id="app">loading</div><script type="module" src="/main.js"></script></body></html>\n',
    'main.js': "document.getElementById('app').textContent = 'hello from vite';\n",
  },
};

describe('autobuild: deploying repositories without a Dockerfile', function () {
  this.timeout(300_000);
  let t: TestDaemon;
  let git: GitServer;
  let projectId: string;

  before(async function () {
    this.timeout(900_000);
    requireDocker();
    requireLangImages();
    if (!existsSync(HOST_CA)) throw new Error(`${HOST_CA} is missing: npm inside builds needs the host's CA bundle`);
    git = await startGitServer();
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '30', BERTH_BUILD_CA_FILE: HOST_CA, ...STAND_INS });
    projectId = (await t.admin.createProject({ name: uniq('autobuild') })).project.id;
  });
  after(async () => {
    // deleting the project removes its containers and images through the engine
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
  });

  async function service(files: Record<string, string>, extra: Record<string, unknown> = {}): Promise<Service> {
    const repo = `acme/${uniq('ab')}` as const;
    await git.commit(repo, files);
    return (await t.admin.createService(projectId, { name: uniq('svc'), repoFullName: repo, internalPort: 8080, ...extra })).service;
  }

  async function deploy(svc: Service, statuses = ['running', 'failed']): Promise<{ dep: Deployment; log: string }> {
    const { deployment } = await t.admin.deploy(svc.id);
    const dep = await waitForDeployment(t.admin, svc.id, deployment.id, statuses, 280_000);
    const log = (await t.admin.deploymentLogs(deployment.id)).logs.map((l) => l.line).join('\n');
    return { dep, log };
  }

  async function expectServing(svc: Service, text: string, path = '/'): Promise<void> {
    const res = await httpText(`http://127.0.0.1:${svc.hostPort}${path}`);
    expect(res.status, res.text).to.equal(200);
    expect(res.text).to.include(text);
  }

  const cases: { stack: keyof typeof FIXTURES; text: string; framework: string; buildMethod?: string }[] = [
    { stack: 'node', text: 'hello from express', framework: 'express' },
    { stack: 'python', text: 'hello from python', framework: 'python', buildMethod: 'auto' },
    { stack: 'go', text: 'hello from go', framework: 'go' },
    { stack: 'java', text: 'hello from java', framework: 'java' },
    { stack: 'rust', text: 'hello from rust', framework: 'rust' },
    { stack: 'static', text: 'hello from static', framework: 'static' },
  ];
  for (const c of cases) {
    it(`builds and serves a ${c.stack} repository (buildMethod ${c.buildMethod ?? 'autobuild'})`, async () => {
      const svc = await service(FIXTURES[c.stack], { buildMethod: c.buildMethod ?? 'autobuild' });
      const { dep, log } = await deploy(svc);
      expect(dep.status, log).to.equal('running');
      await expectServing(svc, c.text);
      expect(log).to.include('Generated Dockerfile (.berth-autobuild.Dockerfile):');
      expect(log).to.match(/^# Generated by Berth autobuild for a /m);
      const { service: after } = await t.admin.overview(svc.id);
      expect(after).to.include({ detectedBuildMethod: 'autobuild', framework: c.framework, status: 'active' });
      // the build stages of the multi-stage Dockerfile leave no dangling layer behind
      const steps = [...log.matchAll(/^ ---> ([0-9a-f]{12})$/gm)].map((m) => m[1]!);
      expect(danglingImages().filter((id) => steps.some((s) => id.includes(s)))).to.deep.equal([]);
    });
  }

  it('hides dotfiles such as .env on a static site', async () => {
    const svc = await service(FIXTURES.static, { buildMethod: 'autobuild' });
    await deploy(svc);
    await expectServing(svc, 'about page', '/about/');
    const res = await httpText(`http://127.0.0.1:${svc.hostPort}/.env`);
    expect(res.status).to.equal(404);
    expect(res.text).not.to.include('do-not-serve');
  });

  it('builds a Vite single-page app with vite from npm and serves it with index.html for client routes', async () => {
    const svc = await service(FIXTURES.vite);
    const { dep, log } = await deploy(svc);
    expect(dep.status, log).to.equal('running');
    expect(log).to.include('FROM berth-test/node-autobuild:latest AS build');
    expect(log).to.include('FROM berth-test/caddy:latest');
    const page = await httpText(`http://127.0.0.1:${svc.hostPort}/`);
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(page.text)?.[1];
    expect(script, page.text).to.be.a('string');
    await expectServing(svc, 'hello from vite', script!);
    await expectServing(svc, '<div id="app">', '/some/client/route');
    expect((await t.admin.overview(svc.id)).service.framework).to.equal('vite');
  });

  it('auto builds the Dockerfile when the repository has one', async () => {
    const svc = await service({ ...webApp('from the dockerfile'), ...FIXTURES.python });
    const { dep, log } = await deploy(svc);
    expect(dep.status, log).to.equal('running');
    await expectServing(svc, 'from the dockerfile');
    expect(log).not.to.include('Generated Dockerfile');
    expect((await t.admin.overview(svc.id)).service).to.include({ detectedBuildMethod: 'dockerfile' });
  });

  it('autobuild ignores a Dockerfile in the repository', async () => {
    const svc = await service({ Dockerfile: 'FROM berth-test/no-such-image:never\n', 'index.html': 'autobuild won\n' }, { buildMethod: 'autobuild' });
    const { dep, log } = await deploy(svc);
    expect(dep.status, log).to.equal('running');
    await expectServing(svc, 'autobuild won');
    expect((await t.admin.overview(svc.id)).service).to.include({ detectedBuildMethod: 'autobuild', framework: 'static' });
  });

  it('fails a repository it cannot place, saying what it looked for', async () => {
    const svc = await service({ 'README.md': '# just docs\n' });
    const { dep, log } = await deploy(svc, ['failed', 'running']);
    expect(dep.status).to.equal('failed');
    expect(log).to.match(/Deployment failed: autobuild could not tell what kind of project this is: it looked for .*package\.json \(Node\.js\)/);
  });

  describe('GET /api/services/:serviceId/build-plan', () => {
    it('returns the plan and the generated Dockerfile without building', async () => {
      const svc = await service(FIXTURES.go);
      const { plan } = await t.admin.buildPlan(svc.id);
      expect(plan).to.include({ buildMethod: 'autobuild', dockerfileExists: false, stack: 'go', framework: 'go', tool: 'go', port: 8080, error: null, branch: 'main' });
      expect(plan.commitSha).to.match(/^[0-9a-f]{40}$/);
      expect(plan.baseImages).to.deep.equal(['berth-test/go:latest', 'berth-test/debian:bookworm-v2']);
      expect(plan.dockerfile).to.include('FROM berth-test/go:latest AS build');
      expect((await t.admin.listDeployments(svc.id)).deployments).to.deep.equal([]);
    });

    it('says when the Dockerfile would be used, and still shows what autobuild would do', async () => {
      const svc = await service({ ...webApp('x'), ...FIXTURES.python });
      const { plan } = await t.admin.buildPlan(svc.id);
      expect(plan).to.include({ buildMethod: 'dockerfile', dockerfileExists: true, stack: 'python', error: null });
      const forced = await service({ ...webApp('x'), ...FIXTURES.python }, { buildMethod: 'autobuild' });
      expect((await t.admin.buildPlan(forced.id)).plan).to.include({ buildMethod: 'autobuild', dockerfileExists: true });
    });

    it('reports the analyzer error for a repository it cannot place', async () => {
      const svc = await service({ 'README.md': '# just docs\n' });
      const { plan } = await t.admin.buildPlan(svc.id);
      expect(plan).to.include({ buildMethod: 'autobuild', stack: null, dockerfile: null });
      expect(plan.error).to.match(/looked for .*go\.mod \(Go\)/);
    });

    it("answers 400 for an image service and 502 with git's reason when the clone fails", async () => {
      const { service: image } = await t.admin.createService(projectId, { name: uniq('img'), repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080 });
      const err400 = await t.admin.buildPlan(image.id).catch((e: unknown) => e);
      expect(err400).to.be.instanceOf(ApiError).and.include({ status: 400, code: 'not_a_git_service' });
      const { service: missing } = await t.admin.createService(projectId, { name: uniq('missing'), repoFullName: 'acme/does-not-exist', internalPort: 8080 });
      const err502 = await t.admin.buildPlan(missing.id).catch((e: unknown) => e);
      expect(err502).to.be.instanceOf(ApiError).and.include({ status: 502, code: 'source_unavailable' });
      expect((err502 as ApiError).message).to.match(/repository not found|git clone failed/);
    });
  });
});
