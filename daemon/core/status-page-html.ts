// A public status page as one static HTML document: inline CSS, no script, no external resource
// (Caddy serves it with a CSP that allows nothing else). Every text on it is the owner's (the title
// and the labels) or a date, a time, a percentage: all of it escaped. The time shown is rounded to
// the hour, so rendering again within the hour gives the same bytes (and Caddy is not reloaded).
import type { ServiceUptime } from './ports/status-pages.js';

export const STATUS_PAGE_DAYS = 90;
const MAX_INCIDENTS = 20;

export interface StatusPageContent {
  title: string;
  services: { label: string; uptime: ServiceUptime }[];
  /** ISO time of the render. */
  now: string;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function percent(ratio: number): string {
  const p = ratio * 100;
  return `${p === 100 ? '100' : p >= 99.99 ? '99.99' : p.toFixed(2)}%`;
}

/** `2026-11-29 14:00 UTC` */
function hourOf(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 13)}:00 UTC`;
}

function minuteOf(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

function duration(fromIso: string, toIso: string): string {
  const minutes = Math.max(1, Math.round((Date.parse(toIso) - Date.parse(fromIso)) / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} days ${hours % 24} h`;
}

function overall(ratios: (number | null)[]): number | null {
  const known = ratios.filter((r): r is number => r !== null);
  return known.length === 0 ? null : known.reduce((a, b) => a + b, 0) / known.length;
}

function dayClass(ratio: number | null): string {
  if (ratio === null) return 'none';
  if (ratio >= 0.999) return 'up';
  if (ratio >= 0.95) return 'partial';
  return 'down';
}

function serviceBlock(s: StatusPageContent['services'][number]): string {
  const state = s.uptime.state;
  const stateText = state === 'up' ? 'Operational' : state === 'down' ? 'Down' : 'No data yet';
  const total = overall(s.uptime.days.map((d) => d.ratio));
  const bars = s.uptime.days.map((d) => `<i class="${dayClass(d.ratio)}" title="${esc(d.date)}: ${d.ratio === null ? 'no data' : percent(d.ratio)}"></i>`).join('');
  return `<section class="service">
<div class="row"><h2>${esc(s.label)}</h2><span class="state ${state}">${stateText}</span></div>
<div class="bars" aria-label="uptime per day, the last ${STATUS_PAGE_DAYS} days">${bars}</div>
<div class="legend"><span>${STATUS_PAGE_DAYS} days ago</span><span>${total === null ? 'no data' : `${percent(total)} uptime`}</span><span>Today</span></div>
</section>`;
}

function incidentList(content: StatusPageContent): string {
  const all = content.services
    .flatMap((s) => s.uptime.incidents.map((i) => ({ label: s.label, ...i })))
    .sort((a, b) => (a.startedAt < b.startedAt ? 1 : -1))
    .slice(0, MAX_INCIDENTS);
  if (all.length === 0) return '<p class="quiet">No incidents in the last 90 days.</p>';
  const items = all.map((i) =>
    i.resolvedAt === null
      ? `<li><b>${esc(i.label)}</b> is down since ${minuteOf(i.startedAt)} <span class="ongoing">ongoing</span></li>`
      : `<li><b>${esc(i.label)}</b> was down for ${duration(i.startedAt, i.resolvedAt)}, from ${minuteOf(i.startedAt)}</li>`,
  );
  return `<ul class="incidents">${items.join('')}</ul>`;
}

export function renderStatusPage(content: StatusPageContent): string {
  const states = content.services.map((s) => s.uptime.state);
  const banner = states.includes('down')
    ? ['down', states.every((s) => s === 'down') ? 'All systems are down' : 'Some systems are down']
    : states.includes('up')
      ? ['up', 'All systems operational']
      : ['unknown', 'No checks have run yet'];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(content.title)}</title>
<style>
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f6f7f9;color:#1c2430}
main{max-width:760px;margin:0 auto;padding:40px 20px}
h1{font-size:26px;margin:0 0 20px}
h2{font-size:16px;margin:0}
.banner{padding:14px 18px;border-radius:8px;font-weight:600;margin-bottom:28px;color:#fff}
.banner.up{background:#1f9d55}.banner.down{background:#d64545}.banner.unknown{background:#7b8794}
.service{background:#fff;border:1px solid #e3e6ea;border-radius:8px;padding:16px 18px;margin-bottom:14px}
.row{display:flex;justify-content:space-between;align-items:center;margin-bottom:10px}
.state{font-size:13px;font-weight:600}.state.up{color:#1f9d55}.state.down{color:#d64545}.state.unknown{color:#7b8794}
.bars{display:flex;gap:2px;height:34px}
.bars i{flex:1;border-radius:2px;background:#d5d9de}
.bars i.up{background:#3ccf7a}.bars i.partial{background:#f0b429}.bars i.down{background:#e25c5c}
.legend{display:flex;justify-content:space-between;font-size:12px;color:#7b8794;margin-top:6px}
h3{font-size:16px;margin:30px 0 10px}
.incidents{list-style:none;padding:0;margin:0}
.incidents li{background:#fff;border:1px solid #e3e6ea;border-radius:8px;padding:10px 14px;margin-bottom:8px}
.ongoing{color:#d64545;font-weight:600;margin-left:6px}
.quiet,footer{color:#7b8794}
footer{font-size:12px;margin-top:30px}
</style></head>
<body><main>
<h1>${esc(content.title)}</h1>
<div class="banner ${banner[0]}">${banner[1]}</div>
${content.services.map(serviceBlock).join('\n')}
<h3>Incidents</h3>
${incidentList(content)}
<footer>Updated ${hourOf(content.now)}</footer>
</main></body></html>
`;
}
