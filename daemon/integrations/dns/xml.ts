// Just enough XML for Namecheap's answers: find elements by name and read their attributes and
// text. The answers are flat and machine-written; no namespaces, CDATA or nesting of the same name.

export interface XmlElement {
  attrs: Record<string, string>;
  /** Inner text (entities decoded; child elements left as markup). Empty for self-closing elements. */
  text: string;
  /** Inner markup, undecoded, for looking further inside. */
  inner: string;
}

const ATTR = /([A-Za-z_][\w:.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_m, e: string) => {
    const lower = e.toLowerCase();
    if (lower === 'amp') return '&';
    if (lower === 'lt') return '<';
    if (lower === 'gt') return '>';
    if (lower === 'quot') return '"';
    if (lower === 'apos') return "'";
    const code = lower.startsWith('#x') ? parseInt(lower.slice(2), 16) : parseInt(lower.slice(1), 10);
    return Number.isFinite(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
  });
}

/** Every element named `tag` (case-sensitive, exact name), in document order. */
export function elements(xml: string, tag: string): XmlElement[] {
  const name = tag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`<${name}((?:\\s[^>]*?)?)(?:/>|>([\\s\\S]*?)</${name}\\s*>)`, 'g');
  const out: XmlElement[] = [];
  for (const m of xml.matchAll(re)) {
    const attrs: Record<string, string> = {};
    for (const a of (m[1] ?? '').matchAll(ATTR)) attrs[a[1]!] = decodeEntities(a[2] ?? a[3] ?? '');
    const inner = m[2] ?? '';
    out.push({ attrs, inner, text: decodeEntities(inner.replace(/<[^>]*>/g, '')).trim() });
  }
  return out;
}

export function first(xml: string, tag: string): XmlElement | null {
  return elements(xml, tag)[0] ?? null;
}
