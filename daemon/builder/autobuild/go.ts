// Go: go.mod. The main package is the service's directory or, failing that, one under cmd/; the
// binary is built statically (CGO off) and run from a small runtime image.
import type { DetectContext } from './context.js';
import type { Detection } from './plan.js';

const FRAMEWORKS: [string, string][] = [
  ['github.com/gin-gonic/gin', 'gin'],
  ['github.com/labstack/echo', 'echo'],
  ['github.com/gofiber/fiber', 'fiber'],
  ['github.com/go-chi/chi', 'chi'],
  ['github.com/gorilla/mux', 'gorilla'],
];

export function detectGo(ctx: DetectContext): Detection | null {
  const f = ctx.files;
  const mod = f.read('go.mod');
  if (mod === null) return null;
  const isMain = (path: string) => /^package\s+main\b/m.test(f.read(path) ?? '');
  let pkg: string | null = f.list().some((n) => n.endsWith('.go') && !n.endsWith('_test.go') && isMain(n)) ? '.' : null;
  if (pkg === null) {
    const mains = f.list('cmd').filter((d) => f.list(`cmd/${d}`).some((n) => n.endsWith('.go') && isMain(`cmd/${d}/${n}`)));
    const modName = /^module\s+(\S+)/m.exec(mod)?.[1]?.split('/').pop();
    const chosen = mains.find((d) => d === modName) ?? mains[0];
    if (chosen) pkg = `./cmd/${chosen}`;
  }
  return {
    stack: 'go',
    framework: FRAMEWORKS.find(([path]) => mod.includes(path))?.[1] ?? null,
    tool: 'go',
    installCommand: f.isFile('go.sum') ? 'go mod download' : null,
    buildCommand: pkg ? `go build -ldflags="-s -w" -o /app/server ${pkg}` : null,
    startCommand: pkg ? '/app/server' : null,
    staticOutput: null,
    defaultPort: 8080,
    buildImage: 'go',
    env: { CGO_ENABLED: '0' },
    // the whole directory, so templates and assets read relative to the working directory are there
    runtime: { kind: 'artifact', image: 'runtime', copy: [{ from: '/app', to: '/app' }] },
  };
}
