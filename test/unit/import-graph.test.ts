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
const ADAPTERS = ['http', 'store', 'docker', 'proxy', 'databases', 'backups', 'builder', 'deploy', 'integrations', 'metrics', 'events', 'notify', 'server-tools'];

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

/** The top-level part of daemon/ a repository path is in (a folder, or a file directly under daemon/); null outside daemon/. */
function topOf(path: string): string | null {
  return /^daemon\/([^/]+)/.exec(path)?.[1] ?? null;
}

/** Cycles between daemon's top-level folders and files, each as `a -> b -> a` with one file edge per step. */
function folderCycles(): string[] {
  const edges = new Map<string, Map<string, string>>();
  for (const file of sources(DAEMON)) {
    const from = relative(REPO_ROOT, file);
    const a = topOf(from)!;
    for (const target of importsOf(file)) {
      const b = topOf(target);
      if (b === null || b === a) continue;
      if (!edges.has(a)) edges.set(a, new Map());
      if (!edges.get(a)!.has(b)) edges.get(a)!.set(b, `${from} -> ${target}`);
    }
  }
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    path.push(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (state.get(next) === 'open') {
        const loop = [...path.slice(path.indexOf(next)), next];
        cycles.push(
          loop
            .slice(1)
            .map((b, i) => edges.get(loop[i]!)!.get(b)!)
            .join(' ; '),
        );
      } else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, 'done');
  };
  for (const node of edges.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

/**
 * The Node built-ins core may import: they compute and do no I/O (hashes and random bytes, path
 * arithmetic, stream types for the ports). From node:net only its address parsers.
 */
const CORE_BUILTINS = ['node:crypto', 'node:path', 'node:stream'];
const CORE_NET_NAMES = ['isIP', 'isIPv4', 'isIPv6', 'BlockList'];

function coreIoImports(): string[] {
  const found: string[] = [];
  for (const file of sources(join(DAEMON, 'core'))) {
    const text = readFileSync(file, 'utf8');
    const from = relative(REPO_ROOT, file);
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith('node:') || CORE_BUILTINS.includes(fileName)) continue;
      if (fileName === 'node:net') {
        const names = [...text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'node:net'/g)].flatMap((m) =>
          m[1]!
            .split(',')
            .map((n) => n.trim())
            .filter(Boolean),
        );
        const io = names.filter((n) => !CORE_NET_NAMES.includes(n));
        if (names.length > 0 && io.length === 0 && !/import\s+\*|import\s+\w+\s+from\s+'node:net'/.test(text)) continue;
      }
      found.push(`${from} -> ${fileName}`);
    }
  }
  return found;
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
      ts
        .preProcessFile(readFileSync(file, 'utf8'), true, true)
        .importedFiles.map((f) => f.fileName)
        .filter((name) => !name.startsWith('.') && !name.startsWith('node:'))
        .map((name) => `${relative(REPO_ROOT, file)} -> ${name}`),
    );
    expect(packages, 'core imports these packages').to.deep.equal([]);
  });

  it('core has no import cycles (a port is imported by its use case, never the other way)', () => {
    expect(cyclesIn('core'), 'import cycles in core').to.deep.equal([]);
  });

  it("no cycle between daemon's top-level folders (core <- deploy <- core and the like)", () => {
    expect(folderCycles(), 'folder cycles (one file edge per step)').to.deep.equal([]);
  });

  it('no I/O in core: no node:fs, net sockets, http(s), child_process, dgram, dns, undici...; only computing built-ins', () => {
    expect(coreIoImports(), 'core imports these I/O modules').to.deep.equal([]);
  });

  it('the CLI client (daemon/cli/) imports only shared/ and itself; the server-side `berth keys` lives apart', () => {
    const outside = sources(join(DAEMON, 'cli')).flatMap((file) => {
      const from = relative(REPO_ROOT, file);
      return importsOf(file)
        .filter((target) => !target.startsWith('daemon/cli/') && !target.startsWith('shared/'))
        .map((target) => `${from} -> ${target}`);
    });
    expect(outside, 'the CLI client imports these').to.deep.equal([]);
  });
});
