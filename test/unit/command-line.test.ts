import { expect } from 'chai';
import { joinCommandLine, splitCommandLine } from '../../shared/command-line.js';

const argv = (line: string) => {
  const r = splitCommandLine(line);
  if ('error' in r) throw new Error(r.error);
  return r.argv;
};

describe('a command line typed in the console splits into argv', () => {
  it('splits on runs of spaces and tabs and ignores them at the ends', () => {
    expect(argv('  npm  run\tmigrate  ')).to.deep.equal(['npm', 'run', 'migrate']);
    expect(argv('')).to.deep.equal([]);
    expect(argv('   ')).to.deep.equal([]);
  });

  it('keeps quoted words whole: single quotes literally, double quotes with \\" and \\\\ escapes', () => {
    expect(argv(`sh -c 'echo "hi there" && exit 0'`)).to.deep.equal(['sh', '-c', 'echo "hi there" && exit 0']);
    expect(argv(`echo "a \\"quoted\\" word" "back\\\\slash" "keep\\n"`)).to.deep.equal(['echo', 'a "quoted" word', 'back\\slash', 'keep\\n']);
    expect(argv(`say '' ""`)).to.deep.equal(['say', '', '']);
    // quotes join with what touches them, as in a shell
    expect(argv(`pre'fix 'and"suf"fix next`)).to.deep.equal(['prefix andsuffix', 'next']);
  });

  it('takes a backslash outside quotes as escaping the next character', () => {
    expect(argv('touch my\\ file \\$HOME')).to.deep.equal(['touch', 'my file', '$HOME']);
  });

  it('expands nothing: variables, globs, separators and pipes stay plain words', () => {
    expect(argv('echo $PATH * ~ ; rm -rf / | cat && true')).to.deep.equal(['echo', '$PATH', '*', '~', ';', 'rm', '-rf', '/', '|', 'cat', '&&', 'true']);
  });

  it('refuses an unclosed quote and a trailing backslash, saying which', () => {
    expect(splitCommandLine(`echo 'oops`)).to.deep.equal({ error: 'has an unclosed single quote' });
    expect(splitCommandLine('echo "oops')).to.deep.equal({ error: 'has an unclosed double quote' });
    expect(splitCommandLine('echo oops\\')).to.deep.equal({ error: 'ends with a backslash that escapes nothing' });
  });

  it('joins an argv into a line that splits back into the same argv', () => {
    for (const a of [
      ['bin/rails', 'db:migrate'],
      ['sh', '-c', `echo "it's" $X && exit 1`],
      ['a b', '', "'", '\\', 'tab\there'],
    ]) {
      expect(argv(joinCommandLine(a))).to.deep.equal(a);
    }
    expect(joinCommandLine(['npm', 'run', 'migrate'])).to.equal('npm run migrate');
  });
});
