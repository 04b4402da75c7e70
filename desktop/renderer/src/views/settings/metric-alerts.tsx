// The metric threshold alerts (keys over all projects): CPU and memory above a percentage for some
// minutes, and the data disk filling within some hours at its trend. An empty field turns that alert
// off. Alerts go to the notification channels that chose "metric_alert", once when they fire and
// once when they clear.
import { useState } from 'react';
import { apiPath } from '../../../../../shared/api-routes.js';
import type { MetricAlertSettings } from '../../../../../shared/types.js';
import { useAction, useGet } from '../../api/context';
import { Button, ErrorNote, Field, Loading } from '../../ui/kit';

const text = (v: number | null) => (v === null ? '' : String(v));
const numberOrNull = (v: string) => (v.trim() === '' ? null : Number(v));

export function MetricAlerts({ canWrite }: { canWrite: boolean }) {
  const q = useGet<MetricAlertSettings>(['metric-alerts'], apiPath('system.metric-alerts'));
  if (!q.data) {
    return (
      <section className="card stack" aria-label="Metric alerts">
        <h2 className="h3">Metric alerts</h2>
        {q.isPending ? <Loading what="metric alerts" /> : null}
        <ErrorNote error={q.error} />
      </section>
    );
  }
  // a new form when the saved settings change (saved here or elsewhere)
  return <AlertsForm key={JSON.stringify(q.data)} saved={q.data} canWrite={canWrite} />;
}

function AlertsForm({ saved, canWrite }: { saved: MetricAlertSettings; canWrite: boolean }) {
  const [form, setForm] = useState({ cpu: text(saved.cpuPercent), memory: text(saved.memoryPercent), minutes: String(saved.forMinutes), disk: text(saved.diskFullHours) });
  const save = useAction<Partial<MetricAlertSettings>>('PATCH', apiPath('system.metric-alerts.patch'), { invalidate: [['metric-alerts']], success: 'Metric alerts saved' });
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));
  return (
    <form
      className="card stack"
      aria-label="Metric alerts"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({ cpuPercent: numberOrNull(form.cpu), memoryPercent: numberOrNull(form.memory), forMinutes: Number(form.minutes), diskFullHours: numberOrNull(form.disk) });
      }}
    >
      <h2 className="h3">Metric alerts</h2>
      <p className="muted small">
        Told to the notification channels that chose metric alerts, once when an alert fires and once when it clears, for every service and for the host. Leave a field empty to turn that alert off.
      </p>
      <div className="cols">
        <Field label="CPU above (%)" hint="Of one core for a service, of all cores for the host. Default 90">
          {(id) => <input id={id} type="number" inputMode="decimal" min={1} max={1000} value={form.cpu} onChange={set('cpu')} disabled={!canWrite} />}
        </Field>
        <Field label="Memory above (% of the limit)" hint="A container's limit, or the host's memory. Default 90">
          {(id) => <input id={id} type="number" inputMode="decimal" min={1} max={100} value={form.memory} onChange={set('memory')} disabled={!canWrite} />}
        </Field>
        <Field label="For at least (minutes)" hint="How long a condition holds before the alert fires. Default 5">
          {(id) => <input id={id} type="number" inputMode="numeric" min={0} max={1440} value={form.minutes} onChange={set('minutes')} disabled={!canWrite} />}
        </Field>
        <Field label="Disk full within (hours)" hint="Warns when the data disk's trend over the last hours fills it this soon. Default 24">
          {(id) => <input id={id} type="number" inputMode="numeric" min={1} max={8760} value={form.disk} onChange={set('disk')} disabled={!canWrite} />}
        </Field>
      </div>
      <ErrorNote error={save.error} />
      {canWrite ? (
        <div className="row end">
          <Button type="submit" variant="primary" busy={save.isPending}>
            Save alerts
          </Button>
        </div>
      ) : null}
    </form>
  );
}
