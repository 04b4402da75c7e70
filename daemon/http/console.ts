// The web console: the Vite build in dist/console served at `/` (the API stays under /api).
// Hashed files under assets/ are cached for a year; index.html is never cached and answers every
// other GET (the console routes in the browser). Every answer carries a strict Content-Security-
// Policy: scripts and styles only from files of this origin, no framing.
import type { Context, Next } from 'koa';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';

const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'report-sample'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

const NOT_BUILT = `Berth console is not built.

The API answers under /api. To build the web console, run: bash installers/prepare.sh
`;

function secure(ctx: Context): void {
  ctx.set('Content-Security-Policy', CONSOLE_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
}

/** Serves `dir` for non-/api GET and HEAD requests; everything else goes on to the API. */
export function serveConsole(dir: string) {
  const root = normalize(dir) + sep;
  // not async: nothing here waits, and an API request goes on without an extra promise
  return (ctx: Context, next: Next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.path === '/api' || ctx.path.startsWith('/api/')) return next();
    secure(ctx);
    const index = join(root, 'index.html');
    if (!existsSync(index)) {
      ctx.status = 200;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.set('Cache-Control', 'no-cache');
      ctx.body = NOT_BUILT;
      return;
    }
    let rel: string;
    try {
      rel = decodeURIComponent(ctx.path);
    } catch {
      rel = '/';
    }
    const file = normalize(join(root, rel));
    // dot files (the build's input stamp) are not served
    const isFile = file.startsWith(root) && file !== index && !rel.split('/').some((part) => part.startsWith('.')) && existsSync(file) && statSync(file).isFile();
    if (isFile) {
      ctx.type = TYPES[extname(file)] ?? 'application/octet-stream';
      ctx.set('Cache-Control', file.startsWith(join(root, 'assets') + sep) ? 'public, max-age=31536000, immutable' : 'no-cache');
      ctx.length = statSync(file).size;
      ctx.body = createReadStream(file);
      return;
    }
    if (extname(rel) !== '' && !rel.endsWith('.html')) {
      // a missing asset is a 404, not the page (a stale tab asking for an old hash)
      ctx.status = 404;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = 'not found\n';
      return;
    }
    ctx.type = TYPES['.html']!;
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = createReadStream(index);
  };
}
