// A virtualised log: only the visible lines are in the DOM (50,000 lines scroll smoothly), ANSI
// colours as classes, follows the tail until the reader scrolls up.
import { useVirtualizer } from '@tanstack/react-virtual';
import Anser from 'anser';
import { memo, useEffect, useRef, useState } from 'react';
import type { LogLine } from './use-log-stream';

const LINE_HEIGHT = 19;

const AnsiLine = memo(function AnsiLine({ text }: { text: string }) {
  if (!text.includes('\u001b[')) return <>{text}</>;
  const parts = Anser.ansiToJson(text, { use_classes: true, remove_empty: true });
  return (
    <>
      {parts.map((p, i) => {
        const cls = [p.fg ? `${p.fg}-fg` : '', p.bg ? `${p.bg}-bg` : '', ...(p.decorations ?? []).map((d) => `ansi-${d}`)].filter(Boolean).join(' ');
        return cls ? (
          <span key={i} className={cls}>
            {p.content}
          </span>
        ) : (
          <span key={i}>{p.content}</span>
        );
      })}
    </>
  );
});

export function LogView({ lines, label, emptyText, height = 420 }: { lines: LogLine[]; label: string; emptyText: string; height?: number }) {
  const scroller = useRef<HTMLDivElement>(null);
  const [follow, setFollow] = useState(true);
  const v = useVirtualizer({ count: lines.length, getScrollElement: () => scroller.current, estimateSize: () => LINE_HEIGHT, overscan: 30 });
  useEffect(() => {
    if (follow && lines.length > 0) v.scrollToIndex(lines.length - 1, { align: 'end' });
  }, [lines.length, follow, v]);
  return (
    <div className="logwrap">
      <div
        ref={scroller}
        className="log"
        style={{ height: Math.min(height, Math.max(120, lines.length * LINE_HEIGHT + 20)) }}
        role="log"
        aria-label={label}
        tabIndex={0}
        onScroll={(e) => {
          const el = e.currentTarget;
          const atEnd = el.scrollHeight - el.scrollTop - el.clientHeight < LINE_HEIGHT * 2;
          if (atEnd !== follow) setFollow(atEnd);
        }}
      >
        {lines.length === 0 ? <div className="log-empty">{emptyText}</div> : null}
        <div style={{ height: v.getTotalSize(), position: 'relative' }}>
          {v.getVirtualItems().map((item) => {
            const l = lines[item.index]!;
            return (
              <div key={l.id} className={l.stream === 'stderr' ? 'log-line err' : 'log-line'} style={{ transform: `translateY(${item.start}px)` }}>
                <AnsiLine text={l.line} />
              </div>
            );
          })}
        </div>
      </div>
      {!follow && lines.length > 0 ? (
        <button type="button" className="btn btn-small follow" onClick={() => setFollow(true)}>
          ↓ Follow the end
        </button>
      ) : null}
    </div>
  );
}
