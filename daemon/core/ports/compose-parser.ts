// Reading a compose file and .env texts (daemon/compose-import/ implements it with the `yaml`
// package): core maps the plain document it answers (core/compose-plan.ts).

export interface ParsedCompose {
  /** The document as plain objects, arrays and scalars, every string value interpolated. */
  document: Record<string, unknown>;
  /** Variables used but not set (they became empty strings, as in Compose). */
  unsetVariables: string[];
}

export interface ComposeParser {
  /** Parses YAML (anchors and `<<` merge keys) and interpolates `${VAR}` from `vars`; InvalidInput naming the line or the variable. */
  parse(text: string, vars: ReadonlyMap<string, string>): ParsedCompose;
  /** A .env text's variables; `what` names it in errors. */
  parseEnv(text: string, what: string): Map<string, string>;
}
