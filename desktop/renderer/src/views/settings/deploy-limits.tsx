// Deployment limits: how long a build, an image pull and a git clone may take before the
// deployment fails (and frees its build slot), and how many deployments one project may have
// queued. An empty field returns the limit to its default. The server checks the bounds.
import { useState } from 'react';
import type { SystemSettings, SystemSettingsPatch } from '../../../../../shared/types.js';
import { useAction } from '../../api/context';
import { Button, ErrorNote, Field } from '../../ui/kit';
import { apiPath } from '../../../../../shared/api-routes.js';

type LimitKey = 'buildTimeoutSeconds' | 'pullTimeoutSeconds' | 'cloneTimeoutSeconds' | 'maxQueuedPerProject';

const FIELDS: { key: LimitKey; label: string; hint: string }[] = [
  { key: 'buildTimeoutSeconds', label: 'Build time limit (seconds)', hint: 'Default 1800 (30 min); 5 to 86400' },
  { key: 'pullTimeoutSeconds', label: 'Image pull time limit (seconds)', hint: 'Default 600 (10 min); 5 to 86400' },
  { key: 'cloneTimeoutSeconds', label: 'Git clone time limit (seconds)', hint: 'Default BERTH_CLONE_TIMEOUT (600); 5 to 86400' },
  { key: 'maxQueuedPerProject', label: 'Queued deployments per project', hint: 'Default 20; one more is refused' },
];

export function DeployLimits({ settings }: { settings: SystemSettings }) {
  const [f, setF] = useState<Record<LimitKey, string>>(() => Object.fromEntries(FIELDS.map(({ key }) => [key, String(settings[key])])) as Record<LimitKey, string>);
  const save = useAction<SystemSettingsPatch>('PATCH', apiPath('system.settings.patch'), { invalidate: [['settings']], success: 'Deployment limits saved' });
  return (
    <form
      className="card stack"
      aria-label="Deployment limits"
      onSubmit={(e) => {
        e.preventDefault();
        // only what changed: an empty field returns to the default
        const changed = FIELDS.filter(({ key }) => f[key].trim() !== String(settings[key]));
        if (changed.length > 0) save.mutate(Object.fromEntries(changed.map(({ key }) => [key, f[key].trim() === '' ? null : Number(f[key])])) as SystemSettingsPatch);
      }}
    >
      <h2 className="h3">Deployment limits</h2>
      <p className="muted small">A build, pull or clone over its limit is stopped and its deployment fails. Build slots are shared fairly: one project never holds all of them while another waits.</p>
      {[FIELDS.slice(0, 2), FIELDS.slice(2)].map((pair) => (
        <div className="cols" key={pair[0]!.key}>
          {pair.map(({ key, label, hint }) => (
            <Field key={key} label={label} hint={hint}>
              {(id) => <input id={id} type="number" inputMode="numeric" min={key === 'maxQueuedPerProject' ? 1 : 5} value={f[key]} onChange={(e) => setF({ ...f, [key]: e.target.value })} />}
            </Field>
          ))}
        </div>
      ))}
      <ErrorNote error={save.error} />
      <div className="row end">
        <Button type="submit" variant="primary" busy={save.isPending}>
          Save limits
        </Button>
      </div>
    </form>
  );
}
