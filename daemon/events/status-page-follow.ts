// Status pages follow what they show: a check's state or an incident of a service on a page, a
// service that was deleted or moved to another project, re-render it (a short delay gathers a burst into one render), and every hour
// all pages render again (a new day's bar; the time shown is the hour). A page's HTML that did not
// change does not reload Caddy (core/status-pages.ts).
import type { StatusPages } from '../core/status-pages.js';
import type { EventHub } from './hub.js';

const GATHER_MS = 1_000;
const HOURLY_MS = 60 * 60_000;

/** Starts following; the function it answers stops, and resolves once a render under way has ended (before the store closes). */
export function followStatusPages(hub: EventHub, pages: Pick<StatusPages, 'renderAll'>, log: (message: string, err?: unknown) => void): () => Promise<void> {
  const due = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let rendering: Promise<unknown> = Promise.resolve();
  const renderAll = (serviceId?: string) => {
    rendering = rendering.then(() => pages.renderAll(serviceId)).catch((err: unknown) => log('rendering status pages', err));
    return rendering;
  };
  const flush = async () => {
    timer = null;
    const ids = [...due];
    due.clear();
    for (const id of ids) await renderAll(id);
  };
  const unsubscribe = hub.subscribe((e) => {
    const gone = e.type === 'service-change' && (e.data.action === 'deleted' || e.data.action === 'transferred');
    const serviceId = e.type === 'check' || e.type === 'incident' || gone ? e.data.serviceId : null;
    if (serviceId === null) return;
    due.add(serviceId);
    timer ??= setTimeout(() => void flush(), GATHER_MS);
  });
  const hourly = setInterval(() => void renderAll(), HOURLY_MS);
  hourly.unref();
  return async () => {
    unsubscribe();
    clearInterval(hourly);
    if (timer) clearTimeout(timer);
    await rendering;
  };
}
