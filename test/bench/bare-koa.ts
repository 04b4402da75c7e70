// The baseline for api-bench: a bare Koa app (no auth, no router, no DB) that answers fixed paths
// with fixed bytes. Usage: node bare-koa.js <port> <spec.json>, where the spec is
// [{ path, contentType, bodyBase64 }].
import { readFileSync } from 'node:fs';
import Koa from 'koa';

interface Route {
  contentType: string;
  body: Buffer;
}

function readRoutes(file: string): Map<string, Route> {
  const spec: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (!Array.isArray(spec)) throw new Error(`${file}: expected an array`);
  const routes = new Map<string, Route>();
  for (const entry of spec as unknown[]) {
    const { path, contentType, bodyBase64 } = (entry ?? {}) as Record<string, unknown>;
    if (typeof path !== 'string' || typeof contentType !== 'string' || typeof bodyBase64 !== 'string') {
      throw new Error(`${file}: each entry needs path, contentType and bodyBase64 strings`);
    }
    routes.set(path, { contentType, body: Buffer.from(bodyBase64, 'base64') });
  }
  return routes;
}

const [portArg, specFile] = process.argv.slice(2);
if (portArg === undefined || specFile === undefined) throw new Error('usage: bare-koa.js <port> <spec.json>');
const routes = readRoutes(specFile);

const app = new Koa();
app.use((ctx) => {
  const route = ctx.method === 'GET' ? routes.get(ctx.path) : undefined;
  if (route === undefined) return; // Koa answers 404
  ctx.body = route.body;
  ctx.set('content-type', route.contentType);
});
app.listen(Number(portArg), '127.0.0.1');
