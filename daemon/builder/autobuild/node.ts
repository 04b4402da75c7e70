// Node.js: package.json. The package manager comes from the lockfile (npm, yarn, pnpm; in a
// monorepo possibly one above the service's directory), the framework from the dependencies.
import type { DetectContext } from './context.js';
import type { Detection } from './plan.js';

type PackageManager = 'npm' | 'yarn' | 'pnpm';

const HOST_ENV = { HOST: '0.0.0.0', HOSTNAME: '0.0.0.0' };

function packageManager(ctx: DetectContext): { pm: PackageManager; lockHere: boolean; berry: boolean } {
  const f = ctx.files;
  const berry = f.isFile('.yarnrc.yml');
  if (f.isFile('pnpm-lock.yaml')) return { pm: 'pnpm', lockHere: true, berry };
  if (f.isFile('yarn.lock')) return { pm: 'yarn', lockHere: true, berry };
  if (f.isFile('package-lock.json') || f.isFile('npm-shrinkwrap.json')) return { pm: 'npm', lockHere: true, berry };
  if (ctx.aboveHas('pnpm-lock.yaml')) return { pm: 'pnpm', lockHere: false, berry };
  if (ctx.aboveHas('yarn.lock')) return { pm: 'yarn', lockHere: false, berry: berry || ctx.aboveHas('.yarnrc.yml') };
  return { pm: 'npm', lockHere: false, berry };
}

function installCommand(pm: PackageManager, lockHere: boolean, berry: boolean): string {
  // Without its lockfile in the build context (a monorepo's lockfile is above it) a frozen
  // install would fail, so the install resolves afresh.
  switch (pm) {
    case 'pnpm':
      return `corepack enable && pnpm install${lockHere ? ' --frozen-lockfile' : ''}`;
    case 'yarn':
      return `corepack enable && yarn install${lockHere ? (berry ? ' --immutable' : ' --frozen-lockfile') : ''}`;
    case 'npm':
      return lockHere ? 'npm ci' : 'npm install';
  }
}

function run(pm: PackageManager, script: string): string {
  if (pm === 'npm') return script === 'start' ? 'npm start' : `npm run ${script}`;
  return `${pm} ${script === 'start' ? 'start' : `run ${script}`}`;
}

export function detectNode(ctx: DetectContext): Detection | null {
  const f = ctx.files;
  const pkg = f.json('package.json');
  if (!pkg) return null;
  const scripts = stringRecord(pkg.scripts);
  const deps = { ...stringRecord(pkg.devDependencies), ...stringRecord(pkg.dependencies) };
  const has = (name: string) => name in deps;
  const hasPrefix = (prefix: string) => Object.keys(deps).some((d) => d.startsWith(prefix));
  const { pm, lockHere, berry } = packageManager(ctx);
  const notes: string[] = [];
  if (!lockHere && (pm !== 'npm' || ctx.aboveHas('package-lock.json'))) {
    notes.push(`the ${pm} lockfile is above the service's directory (a monorepo): dependencies are resolved afresh inside the build`);
  }
  const base: Detection = {
    stack: 'node',
    framework: null,
    tool: pm,
    installCommand: installCommand(pm, lockHere, berry),
    buildCommand: scripts.build ? run(pm, 'build') : null,
    startCommand: scripts.start ? run(pm, 'start') : null,
    staticOutput: null,
    defaultPort: 3000,
    buildImage: 'node',
    env: { ...HOST_ENV },
    runtime: { kind: 'same' },
    notes,
  };
  const start = (fallback: string) => base.startCommand ?? fallback;
  const asStatic = (framework: string, output: string, spa: boolean): Detection => ({
    ...base,
    framework,
    startCommand: null,
    staticOutput: output,
    spa,
    defaultPort: 80,
    env: {},
    runtime: { kind: 'static' },
  });

  if (has('next')) {
    const config = ['next.config.js', 'next.config.mjs', 'next.config.ts', 'next.config.cjs'].map((n) => f.read(n)).find((t) => t !== null) ?? '';
    if (/output\s*:\s*['"]export['"]/.test(config)) return asStatic('nextjs', 'out', false);
    return { ...base, framework: 'nextjs', buildCommand: base.buildCommand ?? 'npx next build', startCommand: start('npx next start -H 0.0.0.0 -p $PORT') };
  }
  if (has('nuxt') || has('nuxt3')) {
    if (/nuxt\s+generate/.test(scripts.build ?? '') || (!scripts.build && /nuxt\s+generate/.test(scripts.generate ?? ''))) {
      return { ...asStatic('nuxt', '.output/public', true), buildCommand: scripts.build ? run(pm, 'build') : run(pm, 'generate') };
    }
    return { ...base, framework: 'nuxt', buildCommand: base.buildCommand ?? 'npx nuxi build', startCommand: 'node .output/server/index.mjs' };
  }
  if (hasPrefix('@remix-run/')) {
    return { ...base, framework: 'remix', startCommand: start('npx remix-serve ./build/server/index.js') };
  }
  if (has('astro')) {
    if (has('@astrojs/node')) return { ...base, framework: 'astro', buildCommand: base.buildCommand ?? 'npx astro build', startCommand: 'node ./dist/server/entry.mjs' };
    return { ...asStatic('astro', 'dist', false), buildCommand: base.buildCommand ?? 'npx astro build' };
  }
  if (has('@sveltejs/kit')) {
    if (has('@sveltejs/adapter-static')) return asStatic('sveltekit', 'build', true);
    if (!has('@sveltejs/adapter-node')) notes.push('SvelteKit without @sveltejs/adapter-node: the plan assumes its Node output in build/');
    return { ...base, framework: 'sveltekit', startCommand: 'node build' };
  }
  if (has('@nestjs/core')) {
    return { ...base, framework: 'nestjs', startCommand: scripts['start:prod'] ? run(pm, 'start:prod') : 'node dist/main' };
  }
  const server = ['express', 'koa', 'fastify', 'hono'].find(has);
  if (server) return { ...base, framework: server, startCommand: base.startCommand ?? mainFile(f, pkg) };
  if (has('vite') && !base.startCommand) return asStatic('vite', viteOutDir(ctx), true);
  if (has('react-scripts') && !base.startCommand) return asStatic('create-react-app', 'build', true);
  return { ...base, startCommand: base.startCommand ?? mainFile(f, pkg) };
}

/** `node <main>` for a package.json `main` or a conventional entry file; null when there is none. */
function mainFile(f: DetectContext['files'], pkg: Record<string, unknown>): string | null {
  const candidates = [typeof pkg.main === 'string' ? pkg.main : '', 'server.js', 'index.js', 'app.js', 'main.js', 'server.mjs', 'index.mjs'];
  const found = candidates.find((c) => c !== '' && f.isFile(c));
  return found ? `node ${found}` : null;
}

/** build.outDir from a vite config when it is a plain string literal; dist otherwise. */
function viteOutDir(ctx: DetectContext): string {
  const config = ['vite.config.ts', 'vite.config.js', 'vite.config.mjs', 'vite.config.mts'].map((n) => ctx.files.read(n)).find((t) => t !== null) ?? '';
  const m = /outDir\s*:\s*['"]([^'"]+)['"]/.exec(config);
  return m && !m[1]!.startsWith('/') && !m[1]!.includes('..') ? m[1]!.replace(/^\.\//, '') : 'dist';
}

function stringRecord(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  }
  return out;
}
