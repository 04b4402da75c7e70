// A service's Metrics tab: CPU, memory (with its limit), network and disk I/O over 1 hour, 24 hours
// or 30 days from the metrics history (sampled every 10 s; 1 min and 10 min averages for the longer
// ranges), re-read every 10 s while open.
import { useMemo, useState } from 'react';
import { apiPath } from '../../../../../shared/api-routes.js';
import type { Service, ServiceMetricsHistory } from '../../../../../shared/types.js';
import { useGet } from '../../api/context';
import { bytes, ErrorNote, Loading } from '../../ui/kit';
import { HistoryChart, percentText, RangePicker, type RangeId, rangeQuery, rateText, REFRESH_MS } from '../metrics/history-chart';

export default function MetricsTab({ service }: { service: Service }) {
  const [range, setRange] = useState<RangeId>('1h');
  const q = useGet<ServiceMetricsHistory>(['service-metrics', service.id, range], `${apiPath('services.metrics', { serviceId: service.id })}?${rangeQuery(range)}`, {
    refetchInterval: REFRESH_MS,
    staleTime: 0,
  });
  const points = q.data?.points;
  const view = useMemo(() => {
    const p = points ?? [];
    return {
      xs: p.map((x) => Date.parse(x.at) / 1000),
      cpu: p.map((x) => x.cpuPercent),
      mem: p.map((x) => x.memoryBytes),
      limit: p.map((x) => x.memoryLimitBytes),
      rx: p.map((x) => x.networkRxBytesPerSec),
      tx: p.map((x) => x.networkTxBytesPerSec),
      read: p.map((x) => x.blockReadBytesPerSec),
      write: p.map((x) => x.blockWriteBytesPerSec),
      last: p.at(-1),
    };
  }, [points]);
  const last = view.last;
  return (
    <div className="stack">
      <div className="row between">
        <p className="muted small">Sampled every 10 seconds from the Docker Engine (the numbers docker stats shows); CPU is of one core, summed over the service's containers.</p>
        <RangePicker value={range} onChange={setRange} />
      </div>
      <ErrorNote error={q.error} />
      {q.isPending ? <Loading what="metrics" /> : null}
      {q.data ? (
        <div className="grid charts">
          <HistoryChart
            title="CPU"
            range={range}
            xs={view.xs}
            format={percentText}
            series={[{ label: 'CPU', color: '#6366f1', values: view.cpu }]}
            now={last ? percentText(last.cpuPercent) : 'no samples'}
          />
          <HistoryChart
            title="Memory"
            range={range}
            xs={view.xs}
            format={bytes}
            series={[
              { label: 'Used', color: '#0ea5e9', values: view.mem },
              { label: 'Limit', color: '#ef4444', values: view.limit, limit: true },
            ]}
            now={last ? `${bytes(last.memoryBytes)} of ${bytes(last.memoryLimitBytes)}` : 'no samples'}
          />
          <HistoryChart
            title="Network"
            range={range}
            xs={view.xs}
            format={rateText}
            series={[
              { label: 'In', color: '#10b981', values: view.rx },
              { label: 'Out', color: '#f59e0b', values: view.tx },
            ]}
            now={last ? `in ${rateText(last.networkRxBytesPerSec)} · out ${rateText(last.networkTxBytesPerSec)}` : 'no samples'}
          />
          <HistoryChart
            title="Disk I/O"
            range={range}
            xs={view.xs}
            format={rateText}
            series={[
              { label: 'Read', color: '#8b5cf6', values: view.read },
              { label: 'Write', color: '#ec4899', values: view.write },
            ]}
            now={last ? `read ${rateText(last.blockReadBytesPerSec)} · write ${rateText(last.blockWriteBytesPerSec)}` : 'no samples'}
          />
        </div>
      ) : null}
    </div>
  );
}
