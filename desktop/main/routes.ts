// The allow-list of API routes the desktop window may reach through the main process: the routes
// of the shared table (shared/api-routes.ts) marked for the desktop (all but signing in and out of
// a console session and git hosts' deliveries), each by its kind: JSON requests, event streams,
// file downloads, a POST answered with events (exec) and a WebSocket (the terminal). A path
// outside it (an unknown route, `..`, an encoded slash, an odd segment, another origin, too long)
// is refused before any key is attached.
import { desktopReaches, matchRoute, type ApiRoute } from '../../shared/api-routes.js';

const SEGMENT = /^[A-Za-z0-9._~@-]+$/;

function splitPath(path: string): { segments: string[]; query: string } | null {
  if (typeof path !== 'string' || path.length > 2048 || !path.startsWith('/api/')) return null;
  const q = path.indexOf('?');
  const pathname = q < 0 ? path : path.slice(0, q);
  const query = q < 0 ? '' : path.slice(q);
  if (/[#\\\s]/.test(path)) return null;
  const segments = pathname.split('/').slice(1);
  for (const seg of segments) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(seg);
    } catch {
      return null;
    }
    if (seg === '' || decoded === '.' || decoded === '..' || decoded.includes('/') || !SEGMENT.test(decoded)) return null;
  }
  return { segments, query };
}

/** The desktop route a method and path are (path hardening first), or null. */
function desktopRoute(method: string, path: string): ApiRoute | null {
  const split = splitPath(path);
  if (!split) return null;
  const route = matchRoute(method, `/${split.segments.join('/')}`);
  return route && desktopReaches(route) ? route : null;
}

const isStream = (r: ApiRoute) => 'sse' in r && r.sse;
const isDownload = (r: ApiRoute) => 'download' in r && r.download;
const isWebSocket = (r: ApiRoute) => 'websocket' in r && r.websocket;

/** A JSON request the window may make. */
export function isAllowedRequest(method: string, path: string): boolean {
  const route = desktopRoute(method, path);
  return route !== null && !isStream(route) && !isDownload(route) && !isWebSocket(route);
}

/** A Server-Sent Events stream the window may subscribe to. */
export function isAllowedStream(path: string): boolean {
  const route = desktopRoute('GET', path);
  return route !== null && isStream(route);
}

/** A POST answered with Server-Sent Events (a one-off command's output) the window may start. */
export function isAllowedPostStream(path: string): boolean {
  const route = desktopRoute('POST', path);
  return route !== null && isStream(route);
}

/** A WebSocket (a service's terminal) the main process may open for the window; it takes no query. */
export function isAllowedWebSocket(path: string): boolean {
  if (typeof path !== 'string' || path.includes('?')) return false;
  const route = desktopRoute('GET', path);
  return route !== null && isWebSocket(route);
}

/** A file the window may save (a backup, the CA certificate): a GET of a download route. */
export function isAllowedDownload(path: string): boolean {
  // a download takes no query: a path that carries one is not the file the button offers
  if (typeof path !== 'string' || path.includes('?')) return false;
  const route = desktopRoute('GET', path);
  return route !== null && isDownload(route);
}
