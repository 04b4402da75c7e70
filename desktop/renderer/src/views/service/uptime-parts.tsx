// The pieces of the Uptime tab: uptime bars (one per hour or day, coloured by the share of
// successful checks, the bucket told on hover and to screen readers), the response-time chart of
// the last 24 hours (uPlot) and a check's incidents.
import { useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { CheckIncident, CheckResult, UptimeBucket } from '../../../../../shared/types/checks.js';
import { apiPath } from '../../../../../shared/api-routes.js';
import { useGet } from '../../api/context';
import { Empty, ErrorNote, Loading, Status, timeAgo } from '../../ui/kit';

export const percent = (r: number | null) => (r === null ? '—' : `${(r * 100).toFixed(r === 1 ? 0 : 2)}%`);

function tone(b: UptimeBucket): string {
  if (b.checks === 0) return 'none';
  const r = b.up / b.checks;
  return r === 1 ? 'ok' : r >= 0.95 ? 'warn' : 'bad';
}

export function UptimeBars({ serviceId, checkId, range }: { serviceId: string; checkId: string; range: '24h' | '90d' }) {
  const q = useGet<{ buckets: UptimeBucket[] }>(['check-uptime', checkId, range], apiPath('checks.uptime', { serviceId, checkId }, { range }));
  if (q.isPending) return <Loading what="uptime" />;
  if (!q.data) return <ErrorNote error={q.error} />;
  const buckets = q.data.buckets;
  const total = buckets.reduce((n, b) => n + b.checks, 0);
  const up = buckets.reduce((n, b) => n + b.up, 0);
  const label = range === '24h' ? 'Last 24 hours' : 'Last 90 days';
  const when = (b: UptimeBucket) =>
    range === '24h' ? new Date(b.from).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }) : new Date(b.from).toLocaleDateString(undefined, { dateStyle: 'medium' });
  return (
    <div className="uptime">
      <div className="row between small">
        <span className="strong">{label}</span>
        <span className="muted">{total ? `${percent(up / total)} up` : 'no checks yet'}</span>
      </div>
      <ol className={`uptime-bars uptime-${range}`} aria-label={`${label}: one bar per ${range === '24h' ? 'hour' : 'day'}`}>
        {buckets.map((b) => {
          const text = b.checks ? `${when(b)}: ${b.up} of ${b.checks} up (${percent(b.up / b.checks)})${b.avgResponseMs !== null ? `, ${b.avgResponseMs} ms average` : ''}` : `${when(b)}: no checks`;
          return (
            <li key={b.from} className={`uptime-bar up-${tone(b)}`} title={text}>
              <span className="sr-only">{text}</span>
            </li>
          );
        })}
      </ol>
    </div>
  );
}

export function ResponseChart({ serviceId, checkId }: { serviceId: string; checkId: string }) {
  const q = useGet<{ results: CheckResult[] }>(['check-results', checkId], apiPath('checks.results', { serviceId, checkId }));
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const dark = matchMedia('(prefers-color-scheme: dark)').matches;
    const axis = { stroke: dark ? '#9ca3af' : '#6b7280', grid: { stroke: dark ? '#27272a' : '#eef0f3' }, ticks: { show: false } };
    plot.current = new uPlot(
      {
        width: el.clientWidth || 320,
        height: 160,
        legend: { show: false },
        cursor: { show: true, points: { show: false } },
        scales: { x: { time: true, range: () => [Date.now() / 1000 - 86_400, Date.now() / 1000] }, y: { range: (_u, _min, mx) => [0, Math.max(10, mx * 1.2)] } },
        axes: [axis, { ...axis, size: 48, values: (_u, ticks) => ticks.map((t) => `${t} ms`) }],
        series: [{}, { label: 'Response', stroke: '#2563eb', width: 2, fill: '#2563eb22', spanGaps: false }],
      },
      [[], []],
      el,
    );
    const ro = new ResizeObserver(() => plot.current?.setSize({ width: el.clientWidth, height: 160 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.current?.destroy();
    };
  }, []);
  const results = useMemo(() => q.data?.results ?? [], [q.data]);
  useEffect(() => {
    plot.current?.setData([results.map((r) => Date.parse(r.at) / 1000), results.map((r) => (r.ok ? r.responseMs : null))]);
  }, [results]);
  const answered = results.filter((r) => r.ok && r.responseMs !== null);
  const avg = answered.length ? Math.round(answered.reduce((n, r) => n + r.responseMs!, 0) / answered.length) : null;
  return (
    <section className="card chart" aria-label="Response time chart">
      <div className="row between">
        <h3 className="h3">Response time, last 24 hours</h3>
        <span className="muted small">{avg === null ? 'no answers yet' : `${avg} ms average`}</span>
      </div>
      {q.error ? <ErrorNote error={q.error} /> : null}
      <div ref={host} role="img" aria-label={`Response time over the last 24 hours${avg === null ? '' : `: ${avg} ms on average`}`} />
    </section>
  );
}

function lasted(i: CheckIncident): string {
  const s = Math.round(((i.resolvedAt ? Date.parse(i.resolvedAt) : Date.now()) - Date.parse(i.startedAt)) / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

export function Incidents({ serviceId, checkId }: { serviceId: string; checkId: string }) {
  const q = useGet<{ incidents: CheckIncident[] }>(['check-incidents', checkId], apiPath('checks.incidents', { serviceId, checkId }));
  if (q.isPending) return <Loading what="incidents" />;
  if (!q.data) return <ErrorNote error={q.error} />;
  if (q.data.incidents.length === 0) return <Empty title="No incidents">When the check fails several times in a row an incident opens here, and closes at the next success.</Empty>;
  return (
    <div className="table-scroll">
      <table className="table">
        <caption className="sr-only">Incidents</caption>
        <thead>
          <tr>
            <th scope="col">State</th>
            <th scope="col">Started</th>
            <th scope="col">Lasted</th>
            <th scope="col">Failures</th>
            <th scope="col">Cause</th>
          </tr>
        </thead>
        <tbody>
          {q.data.incidents.map((i) => (
            <tr key={i.id}>
              <td>{i.resolvedAt ? <Status value="resolved" /> : <Status value="down" label="open" />}</td>
              <td title={new Date(i.startedAt).toLocaleString()}>{timeAgo(i.startedAt)}</td>
              <td>{lasted(i)}</td>
              <td>{i.failures}</td>
              <td className="small">{i.cause}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
