// The server page's history (keys over all projects): the host's CPU, memory, data disk and network
// over 1 hour, 24 hours or 30 days, and Berth's own footprint: the daemon's and Caddy's memory and
// CPU and the store's size. Re-read every 10 s while open.
import { useMemo, useState } from 'react';
import { apiPath } from '../../../../../shared/api-routes.js';
import type { BerthFootprint, HostMetricsHistory, ProcessFootprint } from '../../../../../shared/types.js';
import { useGet } from '../../api/context';
import { bytes, ErrorNote } from '../../ui/kit';
import { HistoryChart, percentText, RangePicker, type RangeId, rangeQuery, rateText, REFRESH_MS } from '../metrics/history-chart';

export function HostHistory() {
  const [range, setRange] = useState<RangeId>('1h');
  const q = useGet<HostMetricsHistory>(['host-metrics', range], `${apiPath('system.metrics.history')}?${rangeQuery(range)}`, { refetchInterval: REFRESH_MS, staleTime: 0 });
  const points = q.data?.points;
  const v = useMemo(() => {
    const p = points ?? [];
    return {
      xs: p.map((x) => Date.parse(x.at) / 1000),
      cpu: p.map((x) => x.cpuPercent),
      mem: p.map((x) => x.memoryUsedBytes),
      memTotal: p.map((x) => x.memoryTotalBytes),
      disk: p.map((x) => x.diskUsedBytes),
      diskTotal: p.map((x) => x.diskTotalBytes),
      rx: p.map((x) => x.networkRxBytesPerSec),
      tx: p.map((x) => x.networkTxBytesPerSec),
      last: p.at(-1),
    };
  }, [points]);
  const last = v.last;
  return (
    <section className="stack" aria-label="History">
      <div className="row between">
        <h2 className="h3">History</h2>
        <RangePicker value={range} onChange={setRange} />
      </div>
      <ErrorNote error={q.error} />
      <div className="grid charts">
        <HistoryChart
          title="CPU history"
          range={range}
          xs={v.xs}
          max={100}
          format={percentText}
          series={[{ label: 'CPU', color: '#6366f1', values: v.cpu }]}
          now={last ? `${percentText(last.cpuPercent)} of all cores` : 'no samples'}
        />
        <HistoryChart
          title="Memory history"
          range={range}
          xs={v.xs}
          format={bytes}
          series={[
            { label: 'Used', color: '#0ea5e9', values: v.mem },
            { label: 'Total', color: '#ef4444', values: v.memTotal, limit: true },
          ]}
          now={last ? `${bytes(last.memoryUsedBytes)} of ${bytes(last.memoryTotalBytes)}` : 'no samples'}
        />
        <HistoryChart
          title="Data disk history"
          range={range}
          xs={v.xs}
          format={bytes}
          series={[
            { label: 'Used', color: '#14b8a6', values: v.disk },
            { label: 'Size', color: '#ef4444', values: v.diskTotal, limit: true },
          ]}
          now={last ? `${bytes(last.diskUsedBytes)} of ${bytes(last.diskTotalBytes)}` : 'no samples'}
        />
        <HistoryChart
          title="Network history"
          range={range}
          xs={v.xs}
          format={rateText}
          series={[
            { label: 'In', color: '#10b981', values: v.rx },
            { label: 'Out', color: '#f59e0b', values: v.tx },
          ]}
          now={last ? `in ${rateText(last.networkRxBytesPerSec)} · out ${rateText(last.networkTxBytesPerSec)}` : 'no samples'}
        />
      </div>
    </section>
  );
}

function processText(p: ProcessFootprint): string {
  return `${bytes(p.rssBytes)} · ${p.cpuPercent === null ? 'CPU not known yet' : `${percentText(p.cpuPercent)} CPU`}`;
}

export function FootprintCard() {
  const q = useGet<BerthFootprint>(['footprint'], apiPath('system.footprint'), { refetchInterval: REFRESH_MS, staleTime: 0 });
  const f = q.data;
  return (
    <section className="card stack" aria-label="Berth's footprint">
      <h2 className="h3">Berth's footprint</h2>
      <ErrorNote error={q.error} />
      {f ? (
        <dl className="facts-grid">
          <div>
            <dt>Daemon</dt>
            <dd>{processText(f.daemon)}</dd>
          </div>
          <div>
            <dt>Caddy</dt>
            <dd>{f.caddy ? processText(f.caddy) : 'not visible from the daemon'}</dd>
          </div>
          <div>
            <dt>Store</dt>
            <dd>
              {bytes(f.storeBytes)} · {f.metricsRows.toLocaleString()} rows of metrics history
            </dd>
          </div>
        </dl>
      ) : null}
    </section>
  );
}
