// A command line as a person types it, split into the argv Berth runs (never a shell string):
// spaces separate words; 'single quotes' keep everything literally; "double quotes" keep spaces
// and take \" and \\ as escapes; outside quotes a backslash takes the next character literally.
// No expansion of any kind ($VAR, *, ~, ;, |, && are plain characters). And the way back, for
// showing a stored argv in a field.

/** The argv of `line`, or an error naming what is wrong (an unclosed quote, a trailing backslash). */
export function splitCommandLine(line: string): { argv: string[] } | { error: string } {
  const argv: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) word += line[++i];
      else word += c;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      if (inWord) argv.push(word);
      word = '';
      inWord = false;
      continue;
    }
    inWord = true;
    if (c === "'" || c === '"') quote = c;
    else if (c === '\\') {
      if (i + 1 >= line.length) return { error: 'ends with a backslash that escapes nothing' };
      word += line[++i];
    } else word += c;
  }
  if (quote) return { error: `has an unclosed ${quote === "'" ? 'single' : 'double'} quote` };
  if (inWord) argv.push(word);
  return { argv };
}

/** `argv` as a command line that splits back into the same argv (words with spaces or quotes are quoted). */
export function joinCommandLine(argv: readonly string[]): string {
  return argv.map((a) => (a !== '' && /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}
