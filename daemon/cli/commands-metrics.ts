// `berth metrics <service> [--range 1h|24h|30d]`: a service's metrics history as a small table (min,
// average, max and the latest of CPU, memory, network and disk I/O, with a sparkline); `--host` the
// server's; `berth metrics alerts [--cpu N|off ...]` the threshold alerts; `berth server footprint`
// Berth's own memory, CPU and store size. `--json` prints the API's answer.
import type { Command } from 'commander';
import type { BerthFootprint, MetricAlertSettings, MetricsStep } from '../../shared/types.js';
import { sizeText } from './commands-volumes.js';
import { usageError } from './exit-codes.js';
import { table } from './output.js';
import { openSession } from './session.js';

const RANGES: Record<string, { ms: number; step: MetricsStep }> = {
  '1h': { ms: 3_600_000, step: '10s' },
  '24h': { ms: 86_400_000, step: '1m' },
  '30d': { ms: 30 * 86_400_000, step: '10m' },
};
const SPARKS = '▁▂▃▄▅▆▇█';
const SPARK_WIDTH = 24;

/** Up to SPARK_WIDTH bars, each the average of its share of the values, scaled to the series' max. */
function sparkline(values: readonly number[]): string {
  if (values.length === 0) return '';
  const buckets = Math.min(SPARK_WIDTH, values.length);
  const avgs = Array.from({ length: buckets }, (_, b) => {
    const part = values.slice(Math.floor((b * values.length) / buckets), Math.floor(((b + 1) * values.length) / buckets));
    return part.reduce((a, v) => a + v, 0) / part.length;
  });
  const max = Math.max(...avgs);
  return avgs.map((v) => SPARKS[max <= 0 ? 0 : Math.min(SPARKS.length - 1, Math.floor((v / max) * (SPARKS.length - 1)))]).join('');
}

type Row = [name: string, values: number[], show: (v: number) => string];

function summary(rows: Row[]): string {
  return table(
    ['METRIC', 'MIN', 'AVG', 'MAX', 'LATEST', ''],
    rows.map(([name, values, show]) => {
      if (values.length === 0) return [name, '-', '-', '-', '-', ''];
      const avg = values.reduce((a, v) => a + v, 0) / values.length;
      return [name, show(Math.min(...values)), show(avg), show(Math.max(...values)), show(values.at(-1)!), sparkline(values)];
    }),
  );
}

const percent = (v: number) => `${v.toFixed(1)}%`;
const bytes = (v: number) => sizeText(Math.round(v));
const rate = (v: number) => `${sizeText(Math.round(v))}/s`;

function rangeOf(value: string): { ms: number; step: MetricsStep } {
  const r = RANGES[value];
  if (!r) throw usageError(`--range must be one of ${Object.keys(RANGES).join(', ')}`);
  return r;
}

/** `off` or `none` turns an alert off (commander turns a parsed null into '', hence the word); else a positive number. */
function thresholdOf(name: string): (value: string) => number | 'off' {
  return (value) => {
    if (value === 'off' || value === 'none') return 'off';
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw usageError(`${name} must be a positive number, or off`);
    return n;
  };
}

function alertLines(a: MetricAlertSettings): string {
  const off = (v: number | null, unit: string) => (v === null ? 'off' : `${v}${unit}`);
  return [
    `cpu          ${off(a.cpuPercent, '%')}`,
    `memory       ${off(a.memoryPercent, '% of the limit')}`,
    `for          ${a.forMinutes} min`,
    `disk full    ${a.diskFullHours === null ? 'off' : `within ${a.diskFullHours} h at the current rate`}`,
  ].join('\n');
}

export function footprintLines(f: BerthFootprint): string {
  const cpu = (v: number | null) => (v === null ? '-' : percent(v));
  return table(
    ['PART', 'MEMORY', 'CPU'],
    [
      ['daemon', bytes(f.daemon.rssBytes), cpu(f.daemon.cpuPercent)],
      ['caddy', f.caddy ? bytes(f.caddy.rssBytes) : 'not found', f.caddy ? cpu(f.caddy.cpuPercent) : '-'],
      ['store', bytes(f.storeBytes), `${f.metricsRows} metrics rows`],
    ],
  );
}

export function registerMetricsCommands(program: Command): void {
  const metrics = program
    .command('metrics')
    .description("a service's metrics history (CPU, memory, network, disk I/O): min, average, max, latest; --host for the server's")
    .argument('[service]', 'service id, or name/slug in --project or the linked project')
    .option('--range <range>', '1h, 24h or 30d', '1h')
    .option('--host', "the server's history instead (a key over all projects)")
    .action(async (ref: string | undefined, o: { range: string; host?: boolean }, cmd: Command) => {
      const range = rangeOf(o.range);
      const s = openSession(cmd);
      const query = { from: new Date(Date.now() - range.ms).toISOString(), step: range.step };
      if (o.host) {
        const h = await s.client.hostMetricsHistory(query);
        const p = h.points;
        return s.out.result(
          h,
          () =>
            summary([
              ['cpu', p.map((x) => x.cpuPercent), percent],
              ['memory', p.map((x) => x.memoryUsedBytes), bytes],
              ['disk used', p.map((x) => x.diskUsedBytes), bytes],
              ['net in', p.map((x) => x.networkRxBytesPerSec), rate],
              ['net out', p.map((x) => x.networkTxBytesPerSec), rate],
            ]) + (p.length > 0 ? `\nof ${bytes(p.at(-1)!.memoryTotalBytes)} memory, ${bytes(p.at(-1)!.diskTotalBytes)} disk; ${p.length} points of ${h.step}` : ''),
        );
      }
      if (ref === undefined) throw usageError('name a service, or pass --host');
      const service = await s.service(ref);
      const h = await s.client.serviceMetrics(service.id, query);
      const p = h.points;
      if (p.length === 0 && !s.out.json) return s.out.info(`no metrics for ${service.slug} in the last ${o.range} yet (sampled every 10 s while it runs)`);
      s.out.result(
        h,
        () =>
          summary([
            ['cpu', p.map((x) => x.cpuPercent), percent],
            ['memory', p.map((x) => x.memoryBytes), bytes],
            ['net in', p.map((x) => x.networkRxBytesPerSec), rate],
            ['net out', p.map((x) => x.networkTxBytesPerSec), rate],
            ['disk read', p.map((x) => x.blockReadBytesPerSec), rate],
            ['disk write', p.map((x) => x.blockWriteBytesPerSec), rate],
          ]) + `\nmemory limit ${bytes(p.at(-1)!.memoryLimitBytes)}; ${p.length} points of ${h.step}`,
      );
    });

  metrics
    .command('alerts')
    .description('the threshold alerts (a key over all projects); options change them')
    .option('--cpu <percent>', 'CPU above this (of one core for a service, of all cores for the host), or off', thresholdOf('--cpu'))
    .option('--memory <percent>', 'memory above this share of the limit, or off', thresholdOf('--memory'))
    .option('--for <minutes>', 'how long a condition must hold before the alert fires', (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) throw usageError('--for must be a whole number of minutes');
      return n;
    })
    .option('--disk-hours <hours>', "warn when the data disk's trend fills it within this many hours, or off", thresholdOf('--disk-hours'))
    .action(async (o: { cpu?: number | 'off'; memory?: number | 'off'; for?: number; diskHours?: number | 'off' }, cmd: Command) => {
      const value = (v: number | 'off') => (v === 'off' ? null : v);
      const s = openSession(cmd);
      const patch: Partial<MetricAlertSettings> = {
        ...(o.cpu !== undefined ? { cpuPercent: value(o.cpu) } : {}),
        ...(o.memory !== undefined ? { memoryPercent: value(o.memory) } : {}),
        ...(o.for !== undefined ? { forMinutes: o.for } : {}),
        ...(o.diskHours !== undefined ? { diskFullHours: value(o.diskHours) } : {}),
      };
      const alerts = Object.keys(patch).length === 0 ? await s.client.metricAlerts() : await s.client.patchMetricAlerts(patch);
      s.out.result(alerts, () => alertLines(alerts));
    });
}
