// How long the audit log keeps its entries (days; an empty field returns to the default, 90). Older
// entries are pruned hourly; the row cap (BERTH_AUDIT_MAX_ROWS) applies whatever this says.
import { useState } from 'react';
import { apiPath } from '../../../../../shared/api-routes.js';
import type { SystemSettings, SystemSettingsPatch } from '../../../../../shared/types.js';
import { useAction } from '../../api/context';
import { Button, ErrorNote, Field } from '../../ui/kit';

export function AuditRetention({ settings }: { settings: SystemSettings }) {
  const [days, setDays] = useState(String(settings.auditRetentionDays));
  const save = useAction<SystemSettingsPatch>('PATCH', apiPath('system.settings.patch'), { invalidate: [['settings']], success: 'Audit log retention saved' });
  return (
    <form
      className="card stack"
      aria-label="Audit log retention"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({ auditRetentionDays: days.trim() === '' ? null : Number(days) });
      }}
    >
      <h2 className="h3">Audit log</h2>
      <p className="muted small">Who changed what, from where, and how it ended (the Audit log page). Entries older than this are removed every hour.</p>
      <Field label="Keep entries for (days)" hint="Default 90; 1 to 3650">
        {(id) => <input id={id} type="number" inputMode="numeric" min={1} max={3650} value={days} onChange={(e) => setDays(e.target.value)} />}
      </Field>
      <ErrorNote error={save.error} />
      <div className="row end">
        <Button type="submit" variant="primary" busy={save.isPending} disabled={days.trim() === String(settings.auditRetentionDays)}>
          Save retention
        </Button>
      </div>
    </form>
  );
}
