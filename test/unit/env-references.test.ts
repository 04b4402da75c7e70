import { expect } from 'chai';
import { EnvResolver, MAX_EXPANDED_CHARS, MAX_REFERENCES, ReferenceError, referencesIn, type ReferenceTarget } from '../../daemon/core/env-references.js';
import type { EnvRecord } from '../../daemon/core/records.js';

const svc = (id: string, name: string, extra: Partial<ReferenceTarget> = {}): ReferenceTarget => ({
  id,
  name,
  slug: name.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
  databaseEngine: null,
  internalPort: 3000,
  ...extra,
});
const env = (serviceId: string, key: string, value: string): EnvRecord => ({ id: `${serviceId}-${key}`, serviceId, key, value, createdAt: '', updatedAt: '' });

describe('env references (unit)', () => {
  it('finds references of the ${service.VARIABLE} form only', () => {
    expect(referencesIn('a ${db.URL} b ${api.PORT_2} ${lower.x} ${NOSERVICE} $plain')).to.deep.equal([
      { service: 'db', variable: 'URL' },
      { service: 'api', variable: 'PORT_2' },
    ]);
  });

  it('resolves connection URLs of every engine from the resolved credentials', () => {
    const services = [
      svc('m', 'mysql', { databaseEngine: 'mysql', internalPort: 3306 }),
      svc('r', 'cache', { databaseEngine: 'redis', internalPort: 6379 }),
      svc('c', 'ch', { databaseEngine: 'clickhouse', internalPort: 8123 }),
      svc('g', 'mongo', { databaseEngine: 'mongodb', internalPort: 27017 }),
    ];
    const r = new EnvResolver(services, [
      env('m', 'MYSQL_USER', 'u'),
      env('m', 'MYSQL_PASSWORD', 'p@ss/word'),
      env('m', 'MYSQL_DATABASE', 'd'),
      env('r', 'REDIS_PASSWORD', 'rp'),
      env('c', 'CLICKHOUSE_USER', 'cu'),
      env('c', 'CLICKHOUSE_PASSWORD', 'cp'),
      env('c', 'CLICKHOUSE_DB', 'cd'),
      env('g', 'MONGO_INITDB_ROOT_USERNAME', 'mu'),
      env('g', 'MONGO_INITDB_ROOT_PASSWORD', 'mp'),
    ]);
    expect(r.resolve('${mysql.DATABASE_URL}')).to.equal('mysql://u:p%40ss%2Fword@mysql:3306/d');
    expect(r.resolve('${cache.REDIS_URL}')).to.equal('redis://default:rp@cache:6379');
    expect(r.resolve('${ch.CLICKHOUSE_URL}')).to.equal('http://cu:cp@ch:8123/cd');
    expect(r.resolve('${mongo.MONGODB_URL}')).to.equal('mongodb://mu:mp@mongo:27017/?authSource=admin');
    expect(r.resolve('${mysql.PRIVATE_HOST}:${mysql.PRIVATE_PORT}')).to.equal('mysql:3306');
  });

  it("a service's own variable wins over a computed one of the same name", () => {
    const r = new EnvResolver([svc('a', 'api')], [env('a', 'PRIVATE_HOST', 'custom')]);
    expect(r.resolve('${api.PRIVATE_HOST}')).to.equal('custom');
  });

  it('detects cycles of any length, including through computed URLs', () => {
    const services = [svc('a', 'a'), svc('b', 'b'), svc('d', 'db', { databaseEngine: 'postgres', internalPort: 5432 })];
    const r = new EnvResolver(services, [env('a', 'X', '${b.Y}'), env('b', 'Y', '${a.X}'), env('d', 'POSTGRES_PASSWORD', '${a.Z}'), env('a', 'Z', '${db.DATABASE_URL}')]);
    expect(() => r.resolve('${a.X}')).to.throw(ReferenceError, /cycle/);
    expect(() => r.resolve('${a.Z}')).to.throw(ReferenceError, /cycle/);
  });

  it('resolves the same variable twice in one value without calling it a cycle', () => {
    const r = new EnvResolver([svc('a', 'a')], [env('a', 'H', 'h')]);
    expect(r.resolve('${a.H}-${a.H}')).to.equal('h-h');
  });

  it('lenient resolution leaves what it cannot resolve as written', () => {
    const r = new EnvResolver([svc('a', 'a')], [env('a', 'OK', 'yes')]);
    expect(r.resolveLenient('${a.OK} ${ghost.X} ${a.MISSING}')).to.equal('yes ${ghost.X} ${a.MISSING}');
  });

  it('withVariable checks a change without touching the original', () => {
    const r = new EnvResolver([svc('a', 'a')], [env('a', 'V', '1')]);
    const next = r.withVariable('a', 'V', '2');
    expect(next.resolve('${a.V}')).to.equal('2');
    expect(r.resolve('${a.V}')).to.equal('1');
  });

  describe('fan-out (a hostile tenant)', () => {
    // V1 = ${a.V0} x 9000, V2 = ${a.V1} x 9000: 81 million expansions without memoisation
    const fanOut = () => new EnvResolver([svc('a', 'a')], [env('a', 'V0', 'x'), env('a', 'V1', '${a.V0}'.repeat(9000)), env('a', 'V2', '${a.V1}'.repeat(9000))]);

    it('refuses a value expanding past the size cap, at once, naming the cap', () => {
      const started = Date.now();
      expect(() => fanOut().resolve('${a.V2}')).to.throw(ReferenceError, new RegExp(`more than (${MAX_EXPANDED_CHARS} characters|${MAX_REFERENCES} references)`));
      expect(Date.now() - started).to.be.below(2000);
    });

    it('expands a variable referenced many times once (linear, not exponential)', () => {
      // each level doubles the length: 2^20 references written out, 40 variables stored
      const vars = [env('a', 'L0', 'x')];
      for (let i = 1; i <= 14; i++) vars.push(env('a', `L${i}`, `\${a.L${i - 1}}\${a.L${i - 1}}`));
      const r = new EnvResolver([svc('a', 'a')], vars);
      expect(r.resolve('${a.L14}')).to.equal('x'.repeat(2 ** 14));
    });

    it('refuses more references per value than the cap even when each is short', () => {
      const r = new EnvResolver([svc('a', 'a')], [env('a', 'S', '')]);
      expect(() => r.resolve('${a.S}'.repeat(MAX_REFERENCES + 1))).to.throw(ReferenceError, /references/);
      expect(r.resolve('${a.S}'.repeat(MAX_REFERENCES))).to.equal('');
    });

    it('lenient display and suggestions stay bounded and leave an over-cap value as written', () => {
      const r = fanOut();
      const started = Date.now();
      expect(r.resolveLenient('${a.V2}')).to.equal('${a.V2}');
      const vars = r.variablesOf(svc('a', 'a'));
      expect(vars.get('V1')).to.equal('x'.repeat(9000));
      expect(vars.get('V2')).to.equal('${a.V1}'.repeat(9000));
      expect(Date.now() - started).to.be.below(2000);
    });
  });
});
