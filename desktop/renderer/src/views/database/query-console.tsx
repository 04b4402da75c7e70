// A SQL console: CodeMirror 6 with SQL highlighting for the engine's dialect, Ctrl/Cmd+Enter runs.
import { sql, MySQL, PostgreSQL, StandardSQL } from '@codemirror/lang-sql';
import { autocompletion, closeBrackets, closeCompletion } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching, defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { EditorView, drawSelection, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import { useEffect, useRef, useState } from 'react';
import { ENGINE_CAPABILITIES, type QueryDialect } from '../../../../../shared/engines.js';
import type { DatabaseEngine, DatabaseQueryResult } from '../../../../../shared/types.js';
import { useAction } from '../../api/context';
import { Button, ErrorNote } from '../../ui/kit';
import { cellText } from './data-tab';
import { apiPath } from '../../../../../shared/api-routes.js';

/** The highlighting for each query dialect: SQL ones by their dialect, the others plain. */
const HIGHLIGHT: Record<QueryDialect, typeof StandardSQL> = { postgresql: PostgreSQL, mysql: MySQL, clickhouse: StandardSQL, redis: StandardSQL, mongodb: StandardSQL };

export function QueryConsole({ serviceId, engine }: { serviceId: string; engine: DatabaseEngine }) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const [result, setResult] = useState<DatabaseQueryResult | null>(null);
  const run = useAction<{ sql: string }, DatabaseQueryResult>('POST', apiPath('database.query', { serviceId }), {
    invalidate: [
      ['tables', serviceId],
      ['rows', serviceId],
    ],
    onSuccess: setResult,
  });
  const runRef = useRef(() => undefined as void);
  runRef.current = () => {
    const text = view.current?.state.doc.toString().trim();
    if (text) run.mutate({ sql: text });
  };
  useEffect(() => {
    const capabilities = ENGINE_CAPABILITIES[engine];
    const dialect = HIGHLIGHT[capabilities.queryDialect];
    // In a shadow root CodeMirror styles itself through constructed style sheets (adoptedStyleSheets)
    // instead of <style> elements, which the console's CSP (style-src 'self') refuses.
    const shadow = host.current!.shadowRoot ?? host.current!.attachShadow({ mode: 'open' });
    const v = new EditorView({
      doc: capabilities.queryExample,
      root: shadow,
      parent: shadow,
      extensions: [
        keymap.of([{ key: 'Mod-Enter', run: () => (runRef.current(), true) }]),
        lineNumbers(),
        history(),
        drawSelection(),
        highlightActiveLine(),
        bracketMatching(),
        closeBrackets(),
        autocompletion(),
        // the suggestion list goes with the focus: left open it is a scrollable list nobody can reach
        EditorView.domEventHandlers({ blur: (_e, v) => (closeCompletion(v), false) }),
        syntaxHighlighting(defaultHighlightStyle),
        keymap.of([...defaultKeymap, ...historyKeymap]),
        sql({ dialect }),
        EditorView.contentAttributes.of({ 'aria-label': 'SQL query', 'aria-multiline': 'true' }),
        EditorView.theme({
          '&': { fontSize: '13px', minHeight: '120px', background: 'var(--panel)', color: 'var(--text)' },
          '&.cm-focused': { outline: '2px solid var(--focus)' },
          '.cm-content': { fontFamily: 'var(--mono)', caretColor: 'var(--text)' },
          '.cm-gutters': { background: 'var(--panel-2)', borderRight: '1px solid var(--border)', color: 'var(--muted)' },
          '.cm-activeLine, .cm-activeLineGutter': { background: 'color-mix(in srgb, var(--accent) 7%, transparent)' },
          '.cm-cursor': { borderLeftColor: 'var(--text)' },
        }),
      ],
    });
    view.current = v;
    return () => v.destroy();
  }, [engine]);
  return (
    <section className="card stack" aria-label="Query console">
      <div className="row between">
        <h2 className="h3">Query</h2>
        <span className="muted small">Ctrl+Enter runs</span>
      </div>
      <div ref={host} className="editor" />
      <div className="row end">
        <Button variant="primary" busy={run.isPending} onClick={() => runRef.current()}>
          Run query
        </Button>
      </div>
      <ErrorNote error={run.error} />
      {result ? (
        <div className="stack" aria-live="polite">
          <div className="muted small">
            {result.rowCount} row{result.rowCount === 1 ? '' : 's'}
            {result.truncated ? ' (truncated)' : ''}
          </div>
          {result.columns.length > 0 ? (
            <div className="table-scroll">
              <table className="table grid-table">
                <caption className="sr-only">Query result</caption>
                <thead>
                  <tr>
                    {result.columns.map((c) => (
                      <th key={c.name} scope="col">
                        {c.name}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {result.rows.slice(0, 500).map((r, i) => (
                    <tr key={i}>
                      {result.columns.map((c) => (
                        <td key={c.name} className="mono small truncate">
                          {cellText(r[c.name] ?? null)}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
