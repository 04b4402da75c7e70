// A project's quotas and what it uses of them (GET /api/projects/:id/quotas). The project's keys
// read them; a write key over all projects may change them (an empty field: the server's default).
import { useState } from 'react';
import type { ProjectQuotas, ProjectQuotasAnswer } from '../../../../../shared/types.js';
import { useAction, useGet } from '../../api/context';
import { Button, ErrorNote, Field, Modal, bytes } from '../../ui/kit';
import { apiPath } from '../../../../../shared/api-routes.js';

const MiB = 1024 * 1024;

export function QuotasCard({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const q = useGet<ProjectQuotasAnswer>(['project-quotas', projectId], apiPath('quotas.get', { projectId }));
  const [editing, setEditing] = useState(false);
  const a = q.data;
  return (
    <section className="card stack" aria-label="Quotas">
      <div className="row between">
        <h2 className="h3">Quotas</h2>
        {canEdit && a ? <Button onClick={() => setEditing(true)}>Change quotas</Button> : null}
      </div>
      <ErrorNote error={q.error} />
      {a ? (
        <>
          <Usage label="Services" used={a.usage.services} max={a.quotas.maxServices} text={`${a.usage.services} of ${a.quotas.maxServices}`} />
          <Usage label="Backups" used={a.usage.backups} max={a.quotas.maxBackups} text={`${a.usage.backups} of ${a.quotas.maxBackups}`} />
          <Usage label="Backup size" used={a.usage.backupBytes} max={a.quotas.maxBackupBytes} text={`${bytes(a.usage.backupBytes)} of ${bytes(a.quotas.maxBackupBytes)}`} />
          <p className="small muted">Images kept per service for rollbacks: {a.quotas.maxImagesPerService} (older ones are removed after each deploy).</p>
        </>
      ) : null}
      {a && editing ? <EditQuotas projectId={projectId} answer={a} onClose={() => setEditing(false)} /> : null}
    </section>
  );
}

function Usage({ label, used, max, text }: { label: string; used: number; max: number; text: string }) {
  return (
    <div className="meter-row">
      <span className="small">{label}</span>
      <meter min={0} max={max} value={Math.min(used, max)} high={max * 0.9} aria-label={`${label}: ${text}`} />
      <span className={used >= max ? 'small tone-bad-text' : 'small muted'}>{text}</span>
    </div>
  );
}

type Form = Record<'maxServices' | 'maxBackups' | 'maxBackupMb' | 'maxImagesPerService', string>;

function EditQuotas({ projectId, answer, onClose }: { projectId: string; answer: ProjectQuotasAnswer; onClose: () => void }) {
  const own = answer.overrides;
  const [f, setF] = useState<Form>({
    maxServices: own.maxServices?.toString() ?? '',
    maxBackups: own.maxBackups?.toString() ?? '',
    maxBackupMb: own.maxBackupBytes === null ? '' : String(Math.round(own.maxBackupBytes / MiB)),
    maxImagesPerService: own.maxImagesPerService?.toString() ?? '',
  });
  const save = useAction<ProjectQuotas>('PATCH', apiPath('quotas.patch', { projectId }), { invalidate: [['project-quotas', projectId]], success: 'Quotas saved', onSuccess: onClose });
  const num = (v: string, scale = 1) => (v.trim() === '' ? null : Math.round(Number(v) * scale));
  const input = (k: keyof Form, label: string, placeholder: number) => (
    <Field label={label} hint={`Empty: the server's default (${placeholder})`}>
      {(id) => <input id={id} type="number" min={1} step={1} value={f[k]} placeholder={String(placeholder)} onChange={(e) => setF({ ...f, [k]: e.target.value })} />}
    </Field>
  );
  return (
    <Modal open title="Change quotas" onClose={onClose}>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate({ maxServices: num(f.maxServices), maxBackups: num(f.maxBackups), maxBackupBytes: num(f.maxBackupMb, MiB), maxImagesPerService: num(f.maxImagesPerService) });
        }}
      >
        {input('maxServices', 'Services', answer.quotas.maxServices)}
        {input('maxBackups', 'Backups', answer.quotas.maxBackups)}
        {input('maxBackupMb', 'Backup size (MiB)', Math.round(answer.quotas.maxBackupBytes / MiB))}
        {input('maxImagesPerService', 'Images kept per service', answer.quotas.maxImagesPerService)}
        <ErrorNote error={save.error} />
        <div className="row end">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={save.isPending}>
            Save
          </Button>
        </div>
      </form>
    </Modal>
  );
}
