// Reading compose files: Compose's variable interpolation, .env texts, the YAML reader's refusals
// (invalid YAML naming the line, the size cap, aliases, a document without services) and the small
// value formats (durations, sizes, ports, mounts, commands, database images).
import { expect } from 'chai';
import { parseDotEnv } from '../../daemon/compose-import/dotenv.js';
import { interpolateString } from '../../daemon/compose-import/interpolate.js';
import { composeParser, MAX_COMPOSE_BYTES } from '../../daemon/compose-import/parse.js';
import { databaseEngineOf, durationSeconds, mountSpec, portSpec, shellJoin, sizeMb } from '../../daemon/core/compose-values.js';
import { InvalidInput } from '../../daemon/core/errors.js';

const vars = new Map([
  ['SET', 'value'],
  ['EMPTY', ''],
]);
const interp = (text: string) => {
  const unset = new Set<string>();
  return { out: interpolateString(text, 'x', { vars, unset }), unset: [...unset] };
};
const thrown = (fn: () => unknown): Error => {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a refusal');
};

describe('compose interpolation', () => {
  it('replaces $VAR and ${VAR}, and an unset one with an empty string it reports', () => {
    expect(interp('a $SET b ${SET}c').out).to.equal('a value b valuec');
    expect(interp('[${NOPE}]')).to.deep.equal({ out: '[]', unset: ['NOPE'] });
  });

  it('takes defaults with :- (unset or empty) and - (unset only)', () => {
    expect(interp('${EMPTY:-d} ${EMPTY-d} ${NOPE-d} ${SET:-d}').out).to.equal('d  d value');
  });

  it('takes alternatives with :+ (set and not empty) and + (set)', () => {
    expect(interp('${SET:+alt}|${EMPTY:+alt}|${EMPTY+alt}|${NOPE+alt}').out).to.equal('alt||alt|');
  });

  it('refuses ${VAR:?err} and ${VAR?err} naming the variable and the message', () => {
    const err = thrown(() => interp('${NOPE:?give a secret}'));
    expect(err).to.be.instanceOf(InvalidInput);
    expect(err.message).to.include('NOPE').and.include('give a secret');
    expect(thrown(() => interp('${EMPTY:?x}')).message).to.include('EMPTY');
    expect(interp('${EMPTY?x}').out).to.equal('');
  });

  it('reads $$ as a literal $ and interpolates defaults nested in defaults', () => {
    expect(interp('$$HOME $${SET} ${NOPE:-${SET}-x}').out).to.equal('$HOME ${SET} value-x');
  });

  it('refuses an unclosed ${ and a name that is no variable name', () => {
    expect(thrown(() => interp('${SET')).message).to.include('closing');
    expect(thrown(() => interp('${1A}')).message).to.include('variable name');
  });
});

describe('.env texts', () => {
  it('reads KEY=VALUE, export, comments, quotes and escapes', () => {
    const env = parseDotEnv(['# comment', 'A=1', 'export B = two ', 'C="x # not a comment\\n"', "D='$literal \\n'", 'E=v # comment', 'F=', 'G', 'H="multi', 'line"'].join('\n'));
    expect([...env]).to.deep.equal([
      ['A', '1'],
      ['B', 'two'],
      ['C', 'x # not a comment\n'],
      ['D', '$literal \\n'],
      ['E', 'v'],
      ['F', ''],
      ['H', 'multi\nline'],
    ]);
  });

  it('refuses a key that is no name and an unclosed quote', () => {
    expect(thrown(() => parseDotEnv('1X=2')).message).to.include('line 1');
    expect(thrown(() => parseDotEnv('A="open')).message).to.include('never closed');
  });
});

describe('the compose reader', () => {
  it('answers plain objects with anchors and << merge keys applied, values interpolated', () => {
    const { document } = composeParser.parse('x-base: &b\n  image: app:${TAG:-1}\nservices:\n  web:\n    <<: *b\n    ports: ["80"]\n', new Map());
    expect(document.services).to.deep.equal({ web: { image: 'app:1', ports: ['80'] } });
  });

  it('refuses invalid YAML naming the line', () => {
    const err = thrown(() => composeParser.parse('services:\n  web:\n    image: [a\n', new Map()));
    expect(err.message).to.match(/not valid YAML \(line \d\)/);
  });

  it(`refuses a file over ${MAX_COMPOSE_BYTES / 1024} KiB naming the cap`, () => {
    const err = thrown(() => composeParser.parse(`services: {}\n#${'x'.repeat(MAX_COMPOSE_BYTES)}`, new Map()));
    expect(err.message).to.include('256 KiB');
  });

  it('refuses a document that is not a mapping with services', () => {
    expect(thrown(() => composeParser.parse('- a\n- b\n', new Map())).message).to.include('mapping');
    expect(thrown(() => composeParser.parse('volumes: {}\n', new Map())).message).to.include('no services');
  });

  it('refuses a billion-laughs document (too many aliases)', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++)
      lines.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    lines.push('services: {}');
    expect(() => composeParser.parse(lines.join('\n'), new Map())).to.throw(InvalidInput);
  });

  it('refuses a document nested thousands deep (YAML or interpolation) with a 400, not a crash', () => {
    expect(() => composeParser.parse(`services: ${'['.repeat(20000)}${']'.repeat(20000)}`, new Map())).to.throw(InvalidInput);
    expect(() => composeParser.parse(`services:\n  a:\n    image: "${'${A:-'.repeat(20000)}x${'}'.repeat(20000)}"\n`, new Map())).to.throw(InvalidInput, 'nested too deeply');
  });

  it('keeps a __proto__ key a plain key: no prototype is changed', () => {
    const { document } = composeParser.parse('services:\n  web:\n    image: a\n    environment:\n      __proto__: { polluted: 1 }\n', new Map());
    const env = (document.services as Record<string, Record<string, unknown>>).web!.environment as object;
    expect(Object.keys(env)).to.deep.equal(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });
});

describe('compose value formats', () => {
  it('reads durations', () => {
    expect([durationSeconds('10s'), durationSeconds('1m30s'), durationSeconds('1h'), durationSeconds('500ms'), durationSeconds('ten')]).to.deep.equal([10, 90, 3600, 0.5, null]);
  });

  it('reads sizes as MiB, rounded up', () => {
    expect([sizeMb('512M'), sizeMb('1g'), sizeMb('1.5G'), sizeMb(268435456), sizeMb('100k'), sizeMb('lots')]).to.deep.equal([512, 1024, 1536, 256, 1, null]);
  });

  it('reads ports short and long, with host addresses, protocols and ranges', () => {
    expect(portSpec('127.0.0.1:8080:80/tcp')).to.deep.equal({ container: 80, published: true, protocol: 'tcp', range: false });
    expect(portSpec(3000)).to.deep.equal({ container: 3000, published: false, protocol: 'tcp', range: false });
    expect(portSpec('53:53/udp')).to.include({ protocol: 'udp' });
    expect(portSpec('3000-3005:3000-3005')).to.include({ range: true });
    expect(portSpec({ target: 80, published: 8080 })).to.include({ container: 80, published: true });
  });

  it('reads mounts: named, anonymous, bind, read-only, long form', () => {
    expect(mountSpec('data:/var/data:ro')).to.deep.equal({ type: 'volume', source: 'data', target: '/var/data', readOnly: true });
    expect(mountSpec('/cache')).to.deep.equal({ type: 'volume', source: null, target: '/cache', readOnly: false });
    expect(mountSpec('./conf:/etc/conf')).to.include({ type: 'bind', source: './conf' });
    expect(mountSpec({ type: 'tmpfs', target: '/tmp' })).to.include({ type: 'tmpfs' });
  });

  it('joins argv into text sh -c runs to the same argv', () => {
    expect(shellJoin(['redis-server', '--save', '', "it's"])).to.equal(`redis-server --save '' 'it'\\''s'`);
  });

  it('knows the database images Berth manages, from any registry and tag', () => {
    expect(
      [
        'postgres:16',
        'docker.io/library/postgres',
        'postgis/postgis:16-3.4',
        'mariadb:11',
        'bitnami/redis:7',
        'mongo',
        'clickhouse/clickhouse-server:24',
        'timescale/timescaledb-ha:pg16',
        'nginx',
      ].map(databaseEngineOf),
    ).to.deep.equal(['postgres', 'postgres', 'postgres', 'mysql', 'redis', 'mongodb', 'clickhouse', 'timescale', null]);
  });
});
