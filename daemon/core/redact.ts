// Redaction of log text before it leaves the server (to an AI provider): every known secret value
// of the project, and text that looks like a credential whatever its origin.

const REDACTED = '[redacted]';

/** Shorter values would turn ordinary words of the log into holes; they are too short to be secrets. */
const MIN_SECRET_LENGTH = 4;
/** Values that are settings, not secrets: removing them from a log would only hide the cause (a port). */
const NOT_SECRET = /^(?:\d{1,5}|true|false|yes|no|on|off|null|none)$/i;

/** Credential shapes: each match is replaced, keeping the part that says what it was. */
const TOKEN_SHAPES: [RegExp, string][] = [
  // scheme://user:password@host: the user info goes, the host stays
  [/([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+:[^\s/@]*@/gi, `$1${REDACTED}@`],
  [/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${REDACTED}`],
  [/\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,})/g, REDACTED],
  [/\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}/g, REDACTED],
  [/\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g, REDACTED],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, REDACTED],
  [/\bAKIA[0-9A-Z]{16}\b/g, REDACTED],
  [/\bAIza[0-9A-Za-z_-]{30,}/g, REDACTED],
  [/\bberth_[A-Za-z0-9_-]{20,}/g, REDACTED],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, REDACTED],
  // NAME=value for variable names that say secret, and password=..., "token": "..." and the like
  [/\b([A-Z0-9_]*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY)[A-Z0-9_]*)(\s*[=:]\s*["']?)[^\s"',;]{4,}/g, `$1$2${REDACTED}`],
  [/\b((?:password|passwd|secret|token|api_?key|access_?key|client_?secret)\b["']?)(\s*[=:]\s*["']?)[^\s"',;&]{4,}/gi, `$1$2${REDACTED}`],
];

export type Redactor = (text: string) => string;

/** Replaces each of `secrets` (exact text) and every credential shape with `[redacted]`. */
export function redactor(secrets: Iterable<string>): Redactor {
  // A log line holds at most one line of a multi-line secret (a PEM key): each line counts too.
  const candidates = [...secrets].flatMap((v) =>
    v.includes('\n')
      ? [
          v,
          ...v
            .split(/\r?\n/)
            .map((l) => l.trim())
            .filter((l) => l.length >= 8),
        ]
      : [v],
  );
  const values = [...new Set(candidates.filter((v) => v.length >= MIN_SECRET_LENGTH && !NOT_SECRET.test(v.trim())))];
  // Longest first, so a secret that contains another is removed whole.
  values.sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const value of values) if (out.includes(value)) out = out.split(value).join(REDACTED);
    for (const [shape, replacement] of TOKEN_SHAPES) out = out.replace(shape, replacement);
    return out;
  };
}
