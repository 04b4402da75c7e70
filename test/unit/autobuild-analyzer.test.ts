// The autobuild analyzer on fixture trees: every stack and framework it knows, monorepo rootDirs,
// the service's overrides, the "cannot detect" message, and the Dockerfiles generated from plans.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { analyze } from '../../daemon/builder/autobuild/analyze.js';
import { BASE_IMAGE_DEFAULTS, baseImageVariable, type BaseImages } from '../../daemon/builder/autobuild/base-images.js';
import { renderDockerfile } from '../../daemon/builder/autobuild/dockerfile.js';
import { AnalysisError, type AnalyzeInput, type BuildPlan, type Overrides } from '../../daemon/builder/autobuild/plan.js';
import { readConfig } from '../../daemon/config.js';

const NO_OVERRIDES: Overrides = { installCommand: null, buildCommand: null, startCommand: null, staticOutput: null };
const IMAGES: BaseImages = { ...BASE_IMAGE_DEFAULTS };

describe('autobuild analyzer', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  /** Writes a fixture tree; returns its directory. */
  function tree(files: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), 'berth-autobuild-'));
    dirs.push(dir);
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    return dir;
  }

  function plan(files: Record<string, string>, extra: Omit<Partial<AnalyzeInput>, 'overrides'> & { overrides?: Partial<Overrides> } = {}): BuildPlan {
    const root = tree(files);
    return analyze({ root, runtimeMode: 'web', port: 8080, images: IMAGES, ...extra, overrides: { ...NO_OVERRIDES, ...extra.overrides } });
  }

  const pkg = (deps: Record<string, string>, scripts: Record<string, string> = {}, more: Record<string, unknown> = {}) =>
    JSON.stringify({ name: 'app', version: '1.0.0', scripts, dependencies: deps, ...more });

  describe('Node.js', () => {
    it('picks npm from package-lock.json and runs the start and build scripts (Express)', () => {
      const p = plan({ 'package.json': pkg({ express: '^4' }, { start: 'node server.js', build: 'tsc' }), 'package-lock.json': '{}' });
      expect(p).to.include({ stack: 'node', framework: 'express', tool: 'npm', installCommand: 'npm ci', buildCommand: 'npm run build', startCommand: 'npm start', port: 8080 });
      expect(p.runtime.kind).to.equal('same');
      expect(p.baseImages).to.deep.equal(['node:22-bookworm-slim']);
    });

    it('picks yarn (classic and berry) and pnpm from their lockfiles', () => {
      expect(plan({ 'package.json': pkg({ koa: '2' }, { start: 'node .' }), 'yarn.lock': '' })).to.include({
        tool: 'yarn',
        installCommand: 'corepack enable && yarn install --frozen-lockfile',
        startCommand: 'yarn start',
      });
      expect(plan({ 'package.json': pkg({}, { start: 'node .' }), 'yarn.lock': '', '.yarnrc.yml': '' }).installCommand).to.equal('corepack enable && yarn install --immutable');
      expect(plan({ 'package.json': pkg({ fastify: '4' }, { start: 'node .', build: 'tsc' }), 'pnpm-lock.yaml': '' })).to.include({
        tool: 'pnpm',
        framework: 'fastify',
        installCommand: 'corepack enable && pnpm install --frozen-lockfile',
        buildCommand: 'pnpm run build',
        startCommand: 'pnpm start',
      });
    });

    it('uses npm install without a lockfile, and the main file when there is no start script (Koa)', () => {
      const p = plan({ 'package.json': pkg({ koa: '2' }, {}, { main: 'src/app.js' }), 'src/app.js': '' });
      expect(p).to.include({ framework: 'koa', installCommand: 'npm install', startCommand: 'node src/app.js' });
      expect(plan({ 'package.json': pkg({}), 'index.js': '' })).to.include({ framework: null, startCommand: 'node index.js' });
    });

    it('recognises NestJS, Next.js, Nuxt, Remix, Astro and SvelteKit servers', () => {
      expect(plan({ 'package.json': pkg({ '@nestjs/core': '10' }, { build: 'nest build', 'start:prod': 'node dist/main' }) })).to.include({ framework: 'nestjs', startCommand: 'npm run start:prod' });
      expect(plan({ 'package.json': pkg({ '@nestjs/core': '10' }, { build: 'nest build' }) })).to.include({ startCommand: 'node dist/main' });
      expect(plan({ 'package.json': pkg({ next: '14', react: '18' }, { build: 'next build', start: 'next start' }) })).to.include({
        framework: 'nextjs',
        buildCommand: 'npm run build',
        startCommand: 'npm start',
      });
      expect(plan({ 'package.json': pkg({ next: '14' }) })).to.include({ buildCommand: 'npx next build', startCommand: 'npx next start -H 0.0.0.0 -p $PORT' });
      expect(plan({ 'package.json': pkg({ nuxt: '3' }, { build: 'nuxt build' }) })).to.include({ framework: 'nuxt', startCommand: 'node .output/server/index.mjs' });
      expect(plan({ 'package.json': pkg({ '@remix-run/node': '2', '@remix-run/serve': '2' }, { build: 'remix vite:build', start: 'remix-serve ./builder/server/index.js' }) })).to.include({
        framework: 'remix',
        startCommand: 'npm start',
      });
      expect(plan({ 'package.json': pkg({ astro: '4', '@astrojs/node': '8' }, { build: 'astro build' }) })).to.include({ framework: 'astro', startCommand: 'node ./dist/server/entry.mjs' });
      expect(plan({ 'package.json': pkg({ '@sveltejs/kit': '2', '@sveltejs/adapter-node': '5' }, { build: 'vite build' }) })).to.include({ framework: 'sveltekit', startCommand: 'node build' });
      const p = plan({ 'package.json': pkg({ next: '14' }) });
      expect(p.env).to.include({ HOST: '0.0.0.0' });
    });

    it('serves static builds: Vite SPAs (with their outDir), Astro, SvelteKit adapter-static, Next export, Nuxt generate, CRA', () => {
      const vite = plan({ 'package.json': pkg({ vite: '5' }, { build: 'vite build', dev: 'vite' }), 'package-lock.json': '{}' });
      expect(vite).to.include({ framework: 'vite', staticOutput: 'dist', startCommand: null, spa: true, buildCommand: 'npm run build' });
      expect(vite.runtime).to.deep.equal({ kind: 'static', image: 'caddy:2-alpine' });
      expect(plan({ 'package.json': pkg({ vite: '5' }, { build: 'vite build' }), 'vite.config.ts': "export default { build: { outDir: 'public-build' } }" }).staticOutput).to.equal('public-build');
      expect(plan({ 'package.json': pkg({ astro: '4' }, { build: 'astro build' }) })).to.include({ framework: 'astro', staticOutput: 'dist', spa: false });
      expect(plan({ 'package.json': pkg({ '@sveltejs/kit': '2', '@sveltejs/adapter-static': '3' }, { build: 'vite build' }) })).to.include({ framework: 'sveltekit', staticOutput: 'build' });
      expect(plan({ 'package.json': pkg({ next: '14' }, { build: 'next build' }), 'next.config.mjs': "export default { output: 'export' }" })).to.include({ framework: 'nextjs', staticOutput: 'out' });
      expect(plan({ 'package.json': pkg({ nuxt: '3' }, { build: 'nuxt generate' }) })).to.include({ framework: 'nuxt', staticOutput: '.output/public' });
      expect(plan({ 'package.json': pkg({ 'react-scripts': '5' }, { build: 'react-scripts build' }) })).to.include({ framework: 'create-react-app', staticOutput: 'build' });
    });

    it('treats a Vite project with a start script as a server', () => {
      expect(plan({ 'package.json': pkg({ vite: '5', express: '4' }, { build: 'vite build', start: 'node server.js' }) })).to.include({ framework: 'express', startCommand: 'npm start' });
    });
  });

  describe('Python', () => {
    it('installs requirements.txt and starts Flask with gunicorn when it is listed, else flask run', () => {
      const files = { 'requirements.txt': 'Flask==3.0\ngunicorn\n', 'app.py': 'from flask import Flask\napp = Flask(__name__)\n' };
      expect(plan(files)).to.include({
        stack: 'python',
        framework: 'flask',
        tool: 'pip',
        installCommand: 'pip install --no-cache-dir -r requirements.txt',
        startCommand: 'gunicorn app:app --bind 0.0.0.0:$PORT',
      });
      expect(plan({ ...files, 'requirements.txt': 'flask\n' }).startCommand).to.equal('flask --app app:app run --host 0.0.0.0 --port $PORT');
    });

    it('starts FastAPI with uvicorn on the app object it finds', () => {
      const p = plan({ 'requirements.txt': 'fastapi\nuvicorn[standard]\n', 'app/main.py': 'from fastapi import FastAPI\napi = FastAPI()\n' });
      expect(p).to.include({ framework: 'fastapi', startCommand: 'uvicorn app.main:api --host 0.0.0.0 --port $PORT' });
    });

    it('starts Django with gunicorn on the project wsgi module, or runserver without gunicorn', () => {
      const manage = "import os\nos.environ.setdefault('DJANGO_SETTINGS_MODULE', 'mysite.settings')\n";
      expect(plan({ 'requirements.txt': 'Django>=5\ngunicorn\n', 'manage.py': manage, 'mysite/wsgi.py': '' })).to.include({
        framework: 'django',
        startCommand: 'gunicorn mysite.wsgi:application --bind 0.0.0.0:$PORT',
      });
      expect(plan({ 'requirements.txt': 'django\n', 'manage.py': manage }).startCommand).to.equal('python manage.py runserver 0.0.0.0:$PORT --noreload');
    });

    it('installs Poetry projects with poetry and runs a plain main.py', () => {
      const p = plan({ 'pyproject.toml': '[tool.poetry]\nname = "x"\n[tool.poetry.dependencies]\npython = "^3.11"\n', 'main.py': 'print(1)\n' });
      expect(p).to.include({ tool: 'poetry', framework: null, startCommand: 'python main.py' });
      expect(p.installCommand).to.match(/poetry install/);
      expect(plan({ 'main.py': 'print(1)\n' })).to.include({ stack: 'python', installCommand: null, startCommand: 'python main.py' });
    });
  });

  describe('Go, Rust, Java, .NET', () => {
    it('builds a Go main package at the top or under cmd/, and runs the binary from the runtime image', () => {
      const p = plan({ 'go.mod': 'module example.com/hello\n\ngo 1.19\n\nrequire github.com/gin-gonic/gin v1.9.0\n', 'go.sum': '', 'main.go': 'package main\nfunc main() {}\n' });
      expect(p).to.include({ stack: 'go', framework: 'gin', installCommand: 'go mod download', startCommand: '/app/server' });
      expect(p.buildCommand).to.equal('go build -ldflags="-s -w" -o /app/server .');
      expect(p.runtime).to.deep.include({ kind: 'artifact', image: 'debian:bookworm-slim' });
      const cmd = plan({ 'go.mod': 'module example.com/api\n', 'cmd/tool/main.go': 'package main\n', 'cmd/api/main.go': 'package main\n', 'internal/x.go': 'package internal\n' });
      expect(cmd.buildCommand).to.match(/\.\/cmd\/api$/);
    });

    it('builds Rust with cargo and runs the [[bin]] or package binary (actix-web, rocket)', () => {
      const p = plan({ 'Cargo.toml': '[package]\nname = "hello-web"\nversion = "0.1.0"\n\n[dependencies]\nactix-web = "4"\n' });
      expect(p).to.include({ stack: 'rust', framework: 'actix-web', buildCommand: 'cargo build --release', startCommand: '/app/server' });
      expect(p.collect).to.deep.equal(['cp target/release/hello-web /app/server']);
      const rocket = plan({ 'Cargo.toml': '[package]\nname = "r"\n\n[[bin]]\nname = "srv"\n\n[dependencies]\nrocket = "0.5"\n' });
      expect(rocket).to.include({ framework: 'rocket', startCommand: 'ROCKET_PORT=$PORT /app/server' });
      expect(rocket.collect).to.deep.equal(['cp target/release/srv /app/server']);
    });

    it('builds Java with Maven (Spring Boot gets server.port), Gradle, or plain javac', () => {
      const maven = plan({ 'pom.xml': '<project><parent><artifactId>spring-boot-starter-parent</artifactId></parent></project>' });
      expect(maven).to.include({
        stack: 'java',
        framework: 'spring-boot',
        tool: 'maven',
        buildCommand: 'mvn -B -DskipTests package',
        startCommand: 'java -Dserver.port=$PORT -jar /app/.berth/app.jar',
      });
      expect(maven.baseImages).to.deep.equal(['maven:3.9-eclipse-temurin-21', 'eclipse-temurin:21-jre']);
      const gradle = plan({ 'build.gradle.kts': 'plugins { java }\n', gradlew: '' });
      expect(gradle).to.include({ tool: 'gradle', buildCommand: 'chmod +x gradlew && ./gradlew --no-daemon build -x test', startCommand: 'java -jar /app/.berth/app.jar' });
      const javac = plan({
        'src/com/example/Hello.java': 'package com.example;\npublic class Hello { public static void main(String[] a) {} }\n',
        'src/com/example/Util.java': 'package com.example;\nclass Util {}\n',
      });
      expect(javac).to.include({ tool: 'javac', startCommand: 'java -cp /app/.berth/classes com.example.Hello' });
    });

    it('publishes .NET projects and runs them on ASPNETCORE_URLS with $PORT', () => {
      const p = plan({
        'Api/Api.csproj': '<Project Sdk="Microsoft.NET.Sdk.Web"><PropertyGroup><AssemblyName>MyApi</AssemblyName></PropertyGroup></Project>',
        'Api.Tests/Api.Tests.csproj': '<Project Sdk="Microsoft.NET.Sdk"></Project>',
      });
      expect(p).to.include({
        stack: 'dotnet',
        framework: 'aspnet-core',
        installCommand: 'dotnet restore "Api/Api.csproj"',
        startCommand: 'ASPNETCORE_URLS=http://0.0.0.0:$PORT dotnet /app/.berth/publish/MyApi.dll',
      });
      expect(p.baseImages).to.deep.equal(['mcr.microsoft.com/dotnet/sdk:8.0', 'mcr.microsoft.com/dotnet/aspnet:8.0']);
    });
  });

  describe('Ruby, PHP, static sites', () => {
    it('runs Rails, Rack and Sinatra apps on $PORT', () => {
      const rails = plan({ Gemfile: "source 'https://rubygems.org'\ngem 'rails', '~> 7.1'\n", 'config/application.rb': '', 'app/assets/x.css': '' });
      expect(rails).to.include({ stack: 'ruby', framework: 'rails', installCommand: 'bundle install', startCommand: 'bundle exec rails server -b 0.0.0.0 -p $PORT' });
      expect(rails.buildCommand).to.match(/assets:precompile/);
      expect(plan({ Gemfile: "gem 'rack'\n", 'config.ru': 'run App' })).to.include({ framework: 'rack', startCommand: 'bundle exec rackup config.ru -o 0.0.0.0 -p $PORT' });
      expect(plan({ Gemfile: 'gem "sinatra"\n', 'app.rb': '' })).to.include({ framework: 'sinatra', startCommand: 'bundle exec ruby app.rb -o 0.0.0.0 -p $PORT' });
    });

    it('serves PHP with composer dependencies, Laravel through artisan, and a plain index.php', () => {
      const laravel = plan({ 'composer.json': JSON.stringify({ require: { 'laravel/framework': '^11' } }), artisan: '', 'public/index.php': '', 'package.json': pkg({ vite: '5' }) });
      expect(laravel).to.include({ stack: 'php', framework: 'laravel', tool: 'composer', startCommand: 'php artisan serve --host=0.0.0.0 --port=$PORT' });
      expect(laravel.baseImages).to.deep.equal(['composer:2', 'php:8.3-cli-bookworm']);
      expect(plan({ 'index.php': '<?php echo 1;' })).to.include({ stack: 'php', tool: 'none', installCommand: null, startCommand: 'php -S 0.0.0.0:$PORT -t .' });
      expect(plan({ 'composer.json': '{}', 'public/index.php': '' }).startCommand).to.equal('php -S 0.0.0.0:$PORT -t public');
    });

    it('serves a plain index.html as a static site', () => {
      const p = plan({ 'index.html': '<h1>hi</h1>' });
      expect(p).to.include({ stack: 'static', staticOutput: '.', startCommand: null, installCommand: null, buildCommand: null, port: 8080 });
      expect(p.baseImages).to.deep.equal(['caddy:2-alpine']);
    });

    it('prefers the app stack over a package.json kept for its assets (Django, Laravel)', () => {
      expect(plan({ 'requirements.txt': 'django\n', 'manage.py': '', 'package.json': pkg({ vite: '5' }, { build: 'vite build' }) }).stack).to.equal('python');
    });
  });

  describe('monorepos (rootDir)', () => {
    it('analyzes only the service directory and finds the lockfile above it', () => {
      const repo = tree({
        'pnpm-lock.yaml': '',
        'package.json': pkg({}, {}, { workspaces: ['apps/*'] }),
        'apps/web/package.json': pkg({ vite: '5' }, { build: 'vite build' }),
        'apps/api/requirements.txt': 'fastapi\n',
        'apps/api/main.py': 'from fastapi import FastAPI\napp = FastAPI()\n',
      });
      const at = (dir: string) => analyze({ root: join(repo, dir), repoRoot: repo, overrides: NO_OVERRIDES, runtimeMode: 'web', port: 3000, images: IMAGES });
      const web = at('apps/web');
      expect(web).to.include({ stack: 'node', tool: 'pnpm', installCommand: 'corepack enable && pnpm install', framework: 'vite' });
      expect(web.notes.join(' ')).to.match(/lockfile is above/);
      expect(at('apps/api')).to.include({ stack: 'python', framework: 'fastapi', startCommand: 'uvicorn main:app --host 0.0.0.0 --port $PORT' });
    });

    it('never reads through a symbolic link that leaves the service directory', () => {
      const repo = tree({ 'secret/index.html': 'server file', 'app/README.md': '' });
      symlinkSync(join(repo, 'secret/index.html'), join(repo, 'app/index.html'));
      expect(() => analyze({ root: join(repo, 'app'), repoRoot: repo, overrides: NO_OVERRIDES, runtimeMode: 'web', port: 80, images: IMAGES })).to.throw(AnalysisError);
    });
  });

  describe('overrides and runtime modes', () => {
    it('lays installCommand, buildCommand and startCommand over what was detected', () => {
      const p = plan(
        { 'package.json': pkg({ express: '4' }, { start: 'node a.js' }) },
        { overrides: { installCommand: 'npm i --omit=dev', buildCommand: 'npm run compile', startCommand: 'node dist/b.js' } },
      );
      expect(p).to.include({ installCommand: 'npm i --omit=dev', buildCommand: 'npm run compile', startCommand: 'node dist/b.js', framework: 'express' });
    });

    it('serves staticOutput with the static server, and runtimeMode static too', () => {
      const p = plan({ 'package.json': pkg({ express: '4' }, { build: 'node build.js', start: 'node a.js' }) }, { overrides: { staticOutput: './site/' } });
      expect(p).to.include({ staticOutput: 'site', startCommand: null, buildCommand: 'npm run build' });
      expect(p.runtime.kind).to.equal('static');
      expect(plan({ 'docs/a.html': '' }, { runtimeMode: 'static', overrides: { staticOutput: 'docs' } })).to.include({ stack: 'static', staticOutput: 'docs' });
      expect(() => plan({ 'index.html': '' }, { overrides: { staticOutput: '../etc' } })).to.throw(AnalysisError, /inside the service's directory/);
    });

    it('gives a startCommand to a project it could not start, and workers get no port', () => {
      expect(() => plan({ 'package.json': pkg({}) })).to.throw(AnalysisError, /found a Node\.js project but not how to start it: it looked for a "start" script/);
      const worker = plan({ 'package.json': pkg({}) }, { runtimeMode: 'worker', port: null, overrides: { startCommand: 'node worker.js' } });
      expect(worker).to.include({ startCommand: 'node worker.js', port: null });
      expect(renderDockerfile(worker)).not.to.match(/EXPOSE|PORT=/);
    });

    it('says what it looked for when it cannot place the repository', () => {
      expect(() => plan({ 'README.md': '# nothing here', 'notes.txt': '' })).to.throw(
        AnalysisError,
        /could not tell what kind of project this is: it looked for composer\.json or index\.php \(PHP\), go\.mod \(Go\), .*package\.json \(Node\.js\).*index\.html \(static site\).* and found none/,
      );
    });
  });

  describe('generated Dockerfiles', () => {
    it('a Node app: one stage that installs, builds and starts on $PORT', () => {
      const text = renderDockerfile(plan({ 'package.json': pkg({ express: '4' }, { build: 'tsc', start: 'node dist/server.js' }), 'package-lock.json': '{}' }, { port: 5000 }));
      expect(text).to.match(/^# Generated by Berth autobuild for a Node\.js \(express\) project, built with npm\./);
      expect(text).to.include('FROM node:22-bookworm-slim AS app\n');
      expect(text).to.include('ENV PORT=5000\n');
      expect(text).to.include('COPY . .\nRUN npm ci\nRUN npm run build\nEXPOSE 5000\nCMD ["sh", "-c", "npm start"]\n');
    });

    it('a Go app: a build stage and a runtime stage with the binary', () => {
      const text = renderDockerfile(plan({ 'go.mod': 'module x\n', 'main.go': 'package main\n' }, { images: { ...IMAGES, go: 'local/go:1', runtime: 'local/base:1' } }));
      expect(text.match(/^FROM /gm)).to.have.length(2);
      expect(text).to.include('FROM local/go:1 AS build\n');
      expect(text).to.include('FROM local/base:1\nWORKDIR /app\nCOPY --from=build /app /app\n');
      expect(text).to.include('ENV CGO_ENABLED="0"');
      expect(text).to.include('CMD ["sh", "-c", "/app/server"]');
    });

    it('a Vite SPA: built with Node, served by Caddy with index.html for unknown paths', () => {
      const text = renderDockerfile(plan({ 'package.json': pkg({ vite: '5' }, { build: 'vite build' }) }, { port: 80 }));
      expect(text).to.include('FROM node:22-bookworm-slim AS build\n');
      expect(text).to.include('FROM caddy:2-alpine\nCOPY --from=build /app/dist/ /srv/\n');
      expect(text).to.include("'\ttry_files {path} /index.html'");
      expect(text).to.include("':{$PORT} {'");
      expect(text).to.include('CMD ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]');
    });

    it('a plain static site: copied straight into the server image, no build stage', () => {
      const text = renderDockerfile(plan({ 'index.html': '' }));
      expect(text.match(/^FROM /gm)).to.have.length(1);
      expect(text).to.include('FROM caddy:2-alpine\nCOPY . /srv/\n');
      expect(text).not.to.include('try_files');
    });

    it('a multi-line command runs its lines one after another on one RUN line', () => {
      const text = renderDockerfile(plan({ 'package.json': pkg({}, { start: 'node .' }) }, { overrides: { buildCommand: 'npm run a\nnpm run b\n' } }));
      expect(text).to.include('RUN npm run a && npm run b\n');
    });

    it('PHP copies composer from its image into the build stage', () => {
      const text = renderDockerfile(plan({ 'composer.json': '{}', 'index.php': '' }));
      expect(text).to.include('FROM php:8.3-cli-bookworm AS app\nCOPY --from=composer:2 /usr/bin/composer /usr/bin/composer\n');
    });
  });

  describe('base image settings', () => {
    it('reads BERTH_AUTOBUILD_IMAGE_<KEY> and refuses what is not an image reference', () => {
      expect(baseImageVariable('javaRuntime')).to.equal('BERTH_AUTOBUILD_IMAGE_JAVA_RUNTIME');
      const config = readConfig({ BERTH_AUTOBUILD_IMAGE_NODE: 'local/node:20', BERTH_AUTOBUILD_IMAGE_JAVA_RUNTIME: 'local/jre:17' });
      expect(config.autobuildImages).to.include({ node: 'local/node:20', javaRuntime: 'local/jre:17', python: 'python:3.12-slim-bookworm' });
      expect(() => readConfig({ BERTH_AUTOBUILD_IMAGE_GO: 'golang:1.23\nRUN evil' })).to.throw(/BERTH_AUTOBUILD_IMAGE_GO must be an image reference/);
    });
  });
});
