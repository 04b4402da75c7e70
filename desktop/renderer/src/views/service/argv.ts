// A command line typed in the console, split into the argv the API takes (Berth never hands a
// shell a string): spaces separate words; 'single quotes' keep everything literally; "double
// quotes" keep spaces and take \" and \\ ; a backslash outside quotes keeps the next character.
// Nothing is expanded ($VAR, globs, pipes stay literal words: to use a shell, say `sh -c '...'`).

export type SplitResult = { ok: true; argv: string[] } | { ok: false; error: string };

export function splitArgv(line: string): SplitResult {
  const argv: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\') {
      if (i + 1 >= line.length) return { ok: false, error: 'the line ends with a lone backslash' };
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) argv.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) return { ok: false, error: `a ${quote === "'" ? 'single' : 'double'} quote is not closed` };
  if (inWord) argv.push(word);
  if (argv.length === 0) return { ok: false, error: 'type a command' };
  return { ok: true, argv };
}

/** An argv as a line splitArgv reads back the same (for editing a saved command, and for showing one). */
export function joinArgv(argv: readonly string[]): string {
  return argv.map((a) => (a !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'"'"'`)}'`)).join(' ');
}
