// Text from the server (log lines, database cells, names, env values, error messages) reaches a
// terminal only through these two functions, so a hostile value cannot write the clipboard
// (OSC 52), retitle the window, erase the screen or move the cursor: every C0 control, ESC, DEL
// and C1 control is shown as a visible escape instead. The CLI's own colours are added after this.

/** C0 controls except newline and tab, DEL, C1 controls. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_KEEPING_LINES = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
/** Every C0 control (newline and tab too), DEL, C1 controls: for one table cell or one progress line. */
// eslint-disable-next-line no-control-regex -- as above
const CONTROL_ALL = /[\x00-\x1f\x7f-\x9f]/g;
/** What JSON.stringify leaves raw but a terminal may still act on: DEL and the C1 controls (U+009B is CSI). */
const CONTROL_JSON_LEAVES = /[\x7f-\x9f]/g;

const SHORT: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };

function visible(c: string): string {
  return SHORT[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
}

/** `text` with its control characters shown as `\x1b`, `\r`...; newlines and tabs kept unless `oneLine`. */
export function terminalSafe(text: string, oneLine = false): string {
  return text.replace(oneLine ? CONTROL_ALL : CONTROL_KEEPING_LINES, visible);
}

/** One JSON line: JSON.stringify escapes C0 controls itself; DEL and C1 become `\u00XX` (still the same JSON value). */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(CONTROL_JSON_LEAVES, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}
