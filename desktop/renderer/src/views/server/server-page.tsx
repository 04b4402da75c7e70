// The server: host CPU, memory and network as live charts, disks, and per-service CPU and memory.
// The metrics API is poll-only: it is re-read every 5 s while this page is open. Keys over all
// projects also see the host's history (1 h, 24 h, 30 d) and Berth's own footprint (host-history.tsx).
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Project, SystemMetrics } from '../../../../../shared/types.js';
import { useGet } from '../../api/context';
import { ErrorNote, Loading, bytes } from '../../ui/kit';
import { DiskCard } from './disk-state';
import { FootprintCard, HostHistory } from './host-history';
import { apiPath } from '../../../../../shared/api-routes.js';

const EVERY_MS = 5000;
const KEEP = 120;

interface Sample {
  t: number;
  cpu: number | null;
  mem: number | null;
  rx: number | null;
  tx: number | null;
}

/** `allProjects`: the key sees the whole server (the host's history and Berth's footprint). */
export default function ServerPage({ allProjects }: { allProjects: boolean }) {
  const q = useGet<SystemMetrics>(['metrics'], apiPath('system.metrics'), { refetchInterval: EVERY_MS, staleTime: 0 });
  const projects = useGet<{ projects: Project[] }>(['projects'], apiPath('projects.list'));
  const [samples, setSamples] = useState<Sample[]>([]);
  useEffect(() => {
    const m = q.data;
    if (!m) return;
    const t = Date.parse(m.collectedAt) / 1000;
    const net = m.host.network;
    const sample: Sample = {
      t,
      cpu: m.host.cpu?.loadPercent ?? null,
      mem: m.host.memory ? (m.host.memory.usedBytes / m.host.memory.totalBytes) * 100 : null,
      rx: net ? net.reduce((a, n) => a + n.rxBytesPerSecond, 0) / 1024 : null,
      tx: net ? net.reduce((a, n) => a + n.txBytesPerSecond, 0) / 1024 : null,
    };
    setSamples((s) => (s.at(-1)?.t === t ? s : [...s.slice(-KEEP + 1), sample]));
  }, [q.data]);
  const names = new Map((projects.data?.projects ?? []).flatMap((p) => p.services.map((s) => [s.id, `${p.name} / ${s.name}`] as const)));
  const m = q.data;
  return (
    <div className="page">
      <div className="page-head">
        <div>
          <h1>Server</h1>
          <p className="muted">Live host and container metrics, refreshed every 5 seconds while this page is open.</p>
        </div>
      </div>
      <ErrorNote error={q.error} />
      {!m ? <Loading what="metrics" /> : null}
      {m && m.errors.length > 0 ? <div className="note note-warn">Some metrics could not be read: {m.errors.join('; ')}</div> : null}
      {m ? (
        <>
          <div className="grid charts">
            <Chart
              title="CPU"
              unit="%"
              samples={samples}
              series={[{ key: 'cpu', label: 'CPU %', color: '#6366f1' }]}
              max={100}
              now={m.host.cpu ? `${m.host.cpu.loadPercent.toFixed(0)}% of ${m.host.cpu.cores} cores` : 'unavailable'}
            />
            <Chart
              title="Memory"
              unit="%"
              samples={samples}
              series={[{ key: 'mem', label: 'Memory %', color: '#0ea5e9' }]}
              max={100}
              now={m.host.memory ? `${bytes(m.host.memory.usedBytes)} of ${bytes(m.host.memory.totalBytes)}` : 'unavailable'}
            />
            <Chart
              title="Network"
              unit="KB/s"
              samples={samples}
              series={[
                { key: 'rx', label: 'In KB/s', color: '#10b981' },
                { key: 'tx', label: 'Out KB/s', color: '#f59e0b' },
              ]}
              now={samples.at(-1)?.rx != null ? `in ${samples.at(-1)!.rx!.toFixed(1)} KB/s · out ${samples.at(-1)!.tx!.toFixed(1)} KB/s` : 'unavailable'}
            />
          </div>
          {allProjects ? (
            <>
              <HostHistory />
              <FootprintCard />
            </>
          ) : null}
          <DiskCard />
          <section className="card stack" aria-label="Disks">
            <h2 className="h3">Disks</h2>
            {(m.host.disks ?? []).map((d) => (
              <div key={d.mount} className="meter-row">
                <span className="mono small">{d.mount}</span>
                <meter min={0} max={d.totalBytes} value={d.usedBytes} aria-label={`${d.mount} used`} />
                <span className="small muted">
                  {bytes(d.usedBytes)} / {bytes(d.totalBytes)}
                </span>
              </div>
            ))}
          </section>
          <section className="card stack" aria-label="Services">
            <h2 className="h3">Services</h2>
            {(m.services ?? []).length === 0 ? <p className="muted">No running containers.</p> : null}
            {(m.services ?? []).length > 0 ? (
              <table className="table">
                <caption className="sr-only">Per-service CPU and memory</caption>
                <thead>
                  <tr>
                    <th scope="col">Service</th>
                    <th scope="col">CPU</th>
                    <th scope="col">Memory</th>
                  </tr>
                </thead>
                <tbody>
                  {m.services!.map((s) => (
                    <tr key={s.deploymentId}>
                      <td>{names.get(s.serviceId) ?? s.containerName}</td>
                      <td>
                        <div className="meter-row">
                          <meter min={0} max={100} value={Math.min(100, s.cpuPercent ?? 0)} aria-label="CPU" />
                          <span className="small">{s.cpuPercent === null ? '…' : `${s.cpuPercent.toFixed(1)}%`}</span>
                        </div>
                      </td>
                      <td>
                        <div className="meter-row">
                          <meter min={0} max={s.memoryLimitBytes || 1} value={s.memoryBytes} aria-label="Memory" />
                          <span className="small">{bytes(s.memoryBytes)}</span>
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : null}
          </section>
        </>
      ) : null}
    </div>
  );
}

/** The live charts' x range: KEEP samples' worth of seconds up to the newest sample (now, before the first). */
function windowEndingAt(xs: ArrayLike<number> | undefined): uPlot.Range.MinMax {
  const end = xs && xs.length > 0 ? xs[xs.length - 1]! : Date.now() / 1000;
  return [end - KEEP * (EVERY_MS / 1000), end];
}

function Chart({
  title,
  unit,
  samples,
  series,
  max,
  now,
}: {
  title: string;
  unit: string;
  samples: Sample[];
  series: { key: keyof Sample; label: string; color: string }[];
  max?: number;
  now: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  useEffect(() => {
    const el = host.current!;
    const dark = matchMedia('(prefers-color-scheme: dark)').matches;
    const axis = { stroke: dark ? '#9ca3af' : '#6b7280', grid: { stroke: dark ? '#27272a' : '#eef0f3' }, ticks: { show: false } };
    plot.current = new uPlot(
      {
        width: el.clientWidth || 320,
        height: 160,
        legend: { show: false },
        cursor: { show: true, points: { show: false } },
        // the window ends at the newest sample: uPlot widens a one-point scale by years before it asks
        // for the range, so the range is read from the data, not from the min/max it passes
        scales: { x: { time: true, range: (u) => windowEndingAt(u.data[0]) }, y: max ? { range: [0, max] } : { range: (_u, _min, mx) => [0, Math.max(1, mx * 1.2)] } },
        axes: [axis, { ...axis, size: 44 }],
        // a lone sample is a dot (a line needs two)
        series: [
          {},
          ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, fill: s.color + '22', points: { size: 6, show: (_u: uPlot, _i: number, i0: number, i1: number) => i0 === i1 } })),
        ],
      },
      [[], ...series.map(() => [])],
      el,
    );
    const ro = new ResizeObserver(() => plot.current?.setSize({ width: el.clientWidth, height: 160 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.current?.destroy();
    };
  }, [max, series.length]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    plot.current?.setData([samples.map((s) => s.t), ...series.map((s) => samples.map((x) => x[s.key] as number | null))]);
  }, [samples, series]);
  return (
    <section className="card chart" aria-label={`${title} chart`}>
      <div className="row between">
        <h2 className="h3">{title}</h2>
        <span className="muted small">{now}</span>
      </div>
      <div ref={host} role="img" aria-label={`${title} over the last minutes, in ${unit}: ${now}`} />
    </section>
  );
}
