// Small building blocks shared by the views.
import { useEffect, useId, useRef, useState, type ButtonHTMLAttributes, type ReactNode } from 'react';
import { statusTone } from '../../../../shared/statuses.js';
import { errorMessage } from '../transport/transport';

export function Button({ variant = 'default', busy, children, ...rest }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: 'default' | 'primary' | 'danger' | 'ghost'; busy?: boolean }) {
  return (
    <button type="button" {...rest} className={`btn btn-${variant} ${rest.className ?? ''}`} disabled={rest.disabled || busy} aria-busy={busy || undefined}>
      {busy ? <span className="spinner" aria-hidden="true" /> : null}
      {children}
    </button>
  );
}

export function Field({ label, hint, children }: { label: string; hint?: ReactNode; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id)}
      {hint ? <div className="hint">{hint}</div> : null}
    </div>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <div className="note note-error" role="alert">
      {errorMessage(error)}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children ? <div className="empty-body">{children}</div> : null}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <div className="loading" role="status">
      <span className="spinner" aria-hidden="true" /> Loading {what}…
    </div>
  );
}

export function Status({ value, label }: { value: string; label?: string }) {
  return (
    <span className={`badge tone-${statusTone(value)}`}>
      <span className="dot" aria-hidden="true" />
      {label ?? value}
    </span>
  );
}

/** A native modal dialog: focus moves in, Escape closes, the page behind is inert. */
export function Modal({ open, title, onClose, children }: { open: boolean; title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={ref} className="modal" aria-labelledby={titleId} onClose={onClose} onCancel={onClose}>
      {open ? (
        <>
          <div className="modal-head">
            <h2 id={titleId}>{title}</h2>
            <button type="button" className="btn btn-ghost" aria-label="Close" onClick={onClose}>
              ✕
            </button>
          </div>
          <div className="modal-body">{children}</div>
        </>
      ) : null}
    </dialog>
  );
}

/** A secret the server answers once (an API key, a webhook's signing secret): read-only, selected on focus, with Copy and Done. */
export function ShownOnce({ label, value, children, onDone }: { label: string; value: string; children: ReactNode; onDone: () => void }) {
  return (
    <div className="stack">
      <p>{children}</p>
      <Field label={label}>{(id) => <input id={id} readOnly value={value} className="mono" onFocus={(e) => e.currentTarget.select()} />}</Field>
      <div className="row end">
        <Button onClick={() => void navigator.clipboard?.writeText(value)}>Copy</Button>
        <Button variant="primary" onClick={onDone}>
          Done
        </Button>
      </div>
    </div>
  );
}

/** A button that asks first. `typed` makes the user type a word (a name) to confirm. */
export function ConfirmButton({
  label,
  title,
  message,
  confirmLabel,
  onConfirm,
  busy,
  variant = 'danger',
  typed,
}: {
  label: string;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  busy?: boolean;
  variant?: 'danger' | 'primary' | 'default';
  typed?: string;
}) {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  return (
    <>
      <Button variant={variant === 'danger' ? 'default' : variant} className={variant === 'danger' ? 'btn-danger-outline' : ''} busy={busy} onClick={() => setOpen(true)}>
        {label}
      </Button>
      <Modal open={open} title={title} onClose={() => setOpen(false)}>
        <div className="stack">
          <div>{message}</div>
          {typed ? <Field label={`Type ${typed} to confirm`}>{(id) => <input id={id} value={text} onChange={(e) => setText(e.target.value)} autoComplete="off" />}</Field> : null}
          <div className="row end">
            <Button onClick={() => setOpen(false)}>Cancel</Button>
            <Button
              variant={variant === 'default' ? 'primary' : variant}
              disabled={typed !== undefined && text !== typed}
              onClick={() => {
                setOpen(false);
                setText('');
                onConfirm();
              }}
            >
              {confirmLabel}
            </Button>
          </div>
        </div>
      </Modal>
    </>
  );
}

export function Tabs<T extends string>({ tabs, value, onChange, label }: { tabs: { id: T; label: string }[]; value: T; onChange: (t: T) => void; label: string }) {
  return (
    <div className="tabs" role="tablist" aria-label={label}>
      {tabs.map((t) => (
        <button
          key={t.id}
          type="button"
          role="tab"
          id={`tab-${t.id}`}
          aria-selected={t.id === value}
          tabIndex={t.id === value ? 0 : -1}
          className={t.id === value ? 'tab active' : 'tab'}
          onClick={() => onChange(t.id)}
          onKeyDown={(e) => {
            const i = tabs.findIndex((x) => x.id === value);
            if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
              const next = tabs[(i + (e.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length]!;
              onChange(next.id);
              document.getElementById(`tab-${next.id}`)?.focus();
            }
          }}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}

export function timeAgo(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const s = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return new Date(iso).toLocaleDateString();
}

export function bytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 && i > 0 ? 1 : 0)} ${units[i]}`;
}
