// The daemon's import graph runs one way: routes -> core -> adapters. Core (daemon/core/) defines
// the ports it depends on and imports no adapter folder, not even for a type; route modules
// (daemon/http/routes/) and the rest of the HTTP layer reach use cases through core and import no
// adapter either. Read from the sources with TypeScript's own pre-processor (static, type-only,
// re-exports and dynamic imports).
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../helpers/repo-root.js';

const DAEMON = join(REPO_ROOT, 'daemon');

/** The adapter folders (and the HTTP layer) under daemon/. */
const ADAPTERS = ['http', 'store', 'docker', 'proxy', 'databases', 'backups', 'builder', 'deploy', 'integrations', 'metrics', 'events', 'notify'];


function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every relative module a file names, as a repository path of its .ts source. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => relative(REPO_ROOT, resolve(dirname(file), name)).replace(/\.js$/, '.ts'));
}

function offenders(folder: string, forbidden: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of sources(join(DAEMON, folder))) {
    const from = relative(REPO_ROOT, file);
    for (const target of importsOf(file)) {
      const top = /^daemon\/([^/]+)\//.exec(target)?.[1];
      const edge = `${from} -> ${target}`;
      if (top !== undefined && forbidden.includes(top)) found.push(edge);
    }
  }
  return found;
}

/** Import cycles among the files of a folder, each as `a -> b -> a`. */
function cyclesIn(folder: string): string[] {
  const files = sources(join(DAEMON, folder)).map((f) => relative(REPO_ROOT, f));
  const inside = new Set(files);
  const edges = new Map(files.map((f) => [f, importsOf(join(REPO_ROOT, f)).filter((t) => inside.has(t))]));
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next].join(' -> '));
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return cycles;
}

describe('import graph: routes -> core -> adapters', () => {
  it('reads the imports of the sources, type-only and dynamic ones included', () => {
    // a guard for the walk itself: it must see what the rules below are about
    expect(importsOf(join(DAEMON, 'core', 'ports', 'store.ts'))).to.include('daemon/core/records.ts');
    expect(sources(join(DAEMON, 'core')).length).to.be.greaterThan(20);
  });

  it('core imports no adapter folder (it owns the ports adapters implement)', () => {
    expect(offenders('core', ADAPTERS), 'core imports these adapters').to.deep.equal([]);
  });

  it('the HTTP layer (route modules, app, middleware) imports no adapter: it calls core use cases', () => {
    const adaptersBesideHttp = ADAPTERS.filter((f) => f !== 'http');
    expect(offenders('http', adaptersBesideHttp), 'the HTTP layer imports these adapters').to.deep.equal([]);
  });

  it('core imports no package (no Koa, knex, dockerode or driver types): only Node built-ins', () => {
    const packages = sources(join(DAEMON, 'core')).flatMap((file) =>
      ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles
        .map((f) => f.fileName)
        .filter((name) => !name.startsWith('.') && !name.startsWith('node:'))
        .map((name) => `${relative(REPO_ROOT, file)} -> ${name}`),
    );
    expect(packages, 'core imports these packages').to.deep.equal([]);
  });

  it('core has no import cycles (a port is imported by its use case, never the other way)', () => {
    expect(cyclesIn('core'), 'import cycles in core').to.deep.equal([]);
  });
});
