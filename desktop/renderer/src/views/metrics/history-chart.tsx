// Metrics history charts (uPlot), shared by a service's Metrics tab and the server page: one chart per
// measure over the chosen range (1 h, 24 h, 30 d: the store's tiers), a dashed line for a limit,
// axis labels in the measure's own unit. The data is re-read every 10 s (a new point per sample).
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { MetricsStep } from '../../../../../shared/types.js';
import { Button, bytes } from '../../ui/kit';

export type RangeId = '1h' | '24h' | '30d';
const RANGES: { id: RangeId; label: string; seconds: number; step: MetricsStep }[] = [
  { id: '1h', label: '1 hour', seconds: 3600, step: '10s' },
  { id: '24h', label: '24 hours', seconds: 86_400, step: '1m' },
  { id: '30d', label: '30 days', seconds: 30 * 86_400, step: '10m' },
];
export const REFRESH_MS = 10_000;

/** The query string for a range ending now. */
export function rangeQuery(range: RangeId): string {
  const r = RANGES.find((x) => x.id === range)!;
  return `from=${encodeURIComponent(new Date(Date.now() - r.seconds * 1000).toISOString())}&step=${r.step}`;
}

export function RangePicker({ value, onChange }: { value: RangeId; onChange: (r: RangeId) => void }) {
  return (
    <div className="row" role="group" aria-label="Range">
      {RANGES.map((r) => (
        <Button key={r.id} variant={r.id === value ? 'primary' : 'ghost'} aria-pressed={r.id === value} onClick={() => onChange(r.id)}>
          {r.label}
        </Button>
      ))}
    </div>
  );
}

export interface ChartSeries {
  label: string;
  color: string;
  values: (number | null)[];
  /** A limit: drawn dashed, without fill. */
  limit?: boolean;
}

export const percentText = (n: number) => `${n.toFixed(n >= 10 ? 0 : 1)}%`;
export const rateText = (n: number) => `${bytes(n)}/s`;

export function HistoryChart({
  title,
  xs,
  series,
  range,
  format,
  max,
  now,
}: {
  title: string;
  /** Seconds since the epoch. */
  xs: number[];
  series: ChartSeries[];
  range: RangeId;
  format: (n: number) => string;
  max?: number;
  now: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const span = RANGES.find((r) => r.id === range)!.seconds;
  const labels = series.map((s) => s.label).join('|');
  useEffect(() => {
    const el = host.current!;
    const dark = matchMedia('(prefers-color-scheme: dark)').matches;
    const axis = { stroke: dark ? '#9ca3af' : '#6b7280', grid: { stroke: dark ? '#27272a' : '#eef0f3' }, ticks: { show: false } };
    plot.current = new uPlot(
      {
        width: el.clientWidth || 320,
        height: 170,
        legend: { show: series.length > 1, live: false },
        cursor: { show: true, points: { show: false } },
        scales: {
          x: { time: true, range: () => [Date.now() / 1000 - span, Date.now() / 1000] },
          y: { range: (_u, _min, mx) => [0, max ?? Math.max(1, mx * 1.15)] },
        },
        axes: [axis, { ...axis, size: 64, values: (_u, splits) => splits.map(format) }],
        series: [{}, ...series.map((s) => (s.limit ? { label: s.label, stroke: s.color, width: 1.5, dash: [6, 4] } : { label: s.label, stroke: s.color, width: 2, fill: `${s.color}22` }))],
      },
      [[], ...series.map(() => [])],
      el,
    );
    const ro = new ResizeObserver(() => plot.current?.setSize({ width: el.clientWidth, height: 170 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.current?.destroy();
    };
  }, [labels, span, max]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    plot.current?.setData([xs, ...series.map((s) => s.values)]);
  }, [xs, series]);
  return (
    <section className="card chart" aria-label={`${title} chart`}>
      <div className="row between">
        <h3 className="h3">{title}</h3>
        <span className="muted small">{now}</span>
      </div>
      <div ref={host} role="img" aria-label={`${title} over the last ${RANGES.find((r) => r.id === range)!.label}: ${now}`} />
      {xs.length === 0 ? <p className="muted small">No samples in this range yet: Berth samples every 10 seconds while the service runs.</p> : null}
    </section>
  );
}
