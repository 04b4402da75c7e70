// The engine capability table (shared/engines.ts), read by core, the console and the CLI, agrees
// with what the daemon's engine modules and checks do, wherever that can be seen without a running
// database: TLS, logical replication in the container command, the connection variables core
// computes, the URL schemes an import source accepts; and the console offers the import panel to
// every engine the daemon imports into (timescale included).
import { expect } from 'chai';
import { parseSourceUrl } from '../../daemon/databases/source-url.js';
import { connectionVariableNames, ENGINES } from '../../daemon/core/engines.js';
import { databaseContainer, ENGINE_MODULES } from '../../daemon/databases/engines.js';
import { DATABASE_ENGINES } from '../../shared/constants.js';
import { ENGINE_CAPABILITIES, enginesImportingFrom, IMPORT_SOURCE_NAMES, IMPORT_SOURCES, importSourceOfUrl, offeredImport } from '../../shared/engines.js';

describe('engine capability table agrees with the daemon', () => {
  it('has a row for every engine and a module for every row', () => {
    expect(Object.keys(ENGINE_CAPABILITIES).sort()).to.deep.equal([...DATABASE_ENGINES].sort());
    expect(Object.keys(ENGINE_MODULES).sort()).to.deep.equal([...DATABASE_ENGINES].sort());
  });

  it('says TLS exactly for the engines whose module serves TLS with a Berth certificate', () => {
    for (const e of DATABASE_ENGINES) expect(ENGINE_CAPABILITIES[e].tls, e).to.equal(ENGINE_MODULES[e].servesTls);
  });

  it('says logical replication exactly for the engines whose container command changes with it', () => {
    for (const e of DATABASE_ENGINES) {
      const on = databaseContainer(e, { logicalReplication: true, tlsDir: null });
      const off = databaseContainer(e, { logicalReplication: false, tlsDir: null });
      expect(JSON.stringify(on) !== JSON.stringify(off), e).to.equal(ENGINE_CAPABILITIES[e].logicalReplication);
    }
  });

  it('names the connection variables core computes for each engine', () => {
    for (const e of DATABASE_ENGINES) {
      const computed = Object.keys(ENGINES[e].urls(new Map(), 'host', 1));
      expect(computed, e).to.deep.equal([...ENGINE_CAPABILITIES[e].connectionVariables]);
      expect(connectionVariableNames(e), e).to.deep.equal(computed);
    }
  });

  it('every import source is taken by some engine, and its schemes are the ones the daemon accepts for it and no other source', () => {
    for (const source of IMPORT_SOURCE_NAMES) {
      expect(enginesImportingFrom(source).length, source).to.be.greaterThan(0);
      for (const scheme of IMPORT_SOURCES[source].schemes) {
        expect(() => parseSourceUrl(source, `${scheme}://user:pw@db.example.com:1234/0`), `${source} ${scheme}`).to.not.throw();
        expect(importSourceOfUrl(`${scheme}://user:pw@db.example.com/0`)).to.equal(source);
        for (const other of IMPORT_SOURCE_NAMES.filter((s) => s !== source)) {
          expect(() => parseSourceUrl(other, `${scheme}://user:pw@db.example.com:1234/0`), `${other} refuses ${scheme}`).to.throw(/must start with/);
        }
      }
    }
    expect(importSourceOfUrl('mysql://user:pw@db.example.com/app')).to.equal(null);
  });
});

describe('console: which import a database page offers', () => {
  it('offers the PostgreSQL import for timescale as for postgres, the Redis one for redis, none for the others', () => {
    expect(offeredImport('timescale')).to.equal('postgres-url');
    expect(offeredImport('postgres')).to.equal('postgres-url');
    expect(offeredImport('redis')).to.equal('redis-url');
    for (const e of ['mysql', 'mongodb', 'clickhouse'] as const) expect(offeredImport(e), e).to.equal(null);
    expect(offeredImport(null)).to.equal(null);
  });

  it('offers an import on the page of every engine the daemon imports into', () => {
    for (const source of IMPORT_SOURCE_NAMES) for (const e of enginesImportingFrom(source)) expect(offeredImport(e), e).to.not.equal(null);
  });
});
