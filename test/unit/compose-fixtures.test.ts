// Real-world compose files nobody here wrote (test/fixtures/compose/, sources in its README): each
// imports with a plan that names every key, mapped or unsupported, and what they are known to hold
// maps as expected.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { composeParser } from '../../daemon/compose-import/parse.js';
import { planCompose } from '../../daemon/core/compose-plan.js';
import type { ComposePlan } from '../../shared/types.js';
import { expectEveryKeyAccounted } from '../helpers/compose-coverage.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'compose');

function planOf(file: string, env = ''): { plan: ComposePlan; document: Record<string, unknown> } {
  const parsed = composeParser.parse(readFileSync(join(FIXTURES, file), 'utf8'), composeParser.parseEnv(env, '.env'));
  const plan = planCompose(parsed.document, {
    files: new Map(),
    plainImages: new Set(),
    repository: null,
    vars: composeParser.parseEnv(env, '.env'),
    parseEnv: composeParser.parseEnv,
    existingNames: new Set(),
    unsetVariables: parsed.unsetVariables,
  });
  return { plan, document: parsed.document };
}

const byService = (plan: ComposePlan, name: string) => plan.services.find((s) => s.service === name)!;
const unsupportedKeys = (plan: ComposePlan, service: string | null) => plan.unsupported.filter((u) => u.service === service).map((u) => u.key);

describe('real-world compose files', () => {
  for (const file of ['umami.yml', 'plausible-ce.yml', 'n8n-postgres-worker.yml', 'outline.yml']) {
    it(`${file}: every key of the file is mapped or listed unsupported, exactly once`, () => {
      const { plan, document } = planOf(file, 'N8N_VERSION=1.64.3\nPOSTGRES_USER=root\nPOSTGRES_PASSWORD=pw\nPOSTGRES_DB=n8n\nBASE_URL=https://p.example.com\n');
      expectEveryKeyAccounted(document, plan);
    });
  }

  it("umami: the app reaches the managed database through the database's own URL, after it", () => {
    const { plan } = planOf('umami.yml');
    expect(byService(plan, 'db').becomes).to.equal('database:postgres');
    expect(byService(plan, 'umami').berthService!.env).to.deep.include({ key: 'DATABASE_URL', value: '${db.DATABASE_URL}' });
    expect(plan.order).to.deep.equal(['db', 'umami']);
    expect(plan.unsupported).to.deep.equal([]);
    expect(plan.warnings.join('\n')).to.include('version is obsolete');
  });

  it('plausible CE: ClickHouse becomes a managed database, ulimits and its config bind mounts are listed with why', () => {
    const { plan } = planOf('plausible-ce.yml', 'BASE_URL=https://p.example.com\nSECRET_KEY_BASE=abc\n');
    expect(byService(plan, 'plausible_events_db').becomes).to.equal('database:clickhouse');
    expect(unsupportedKeys(plan, 'plausible_events_db')).to.have.members(['volumes[2]', 'volumes[3]', 'ulimits']);
    expect(unsupportedKeys(plan, 'plausible')).to.deep.equal(['ulimits']);
    const app = byService(plan, 'plausible').berthService!;
    expect(app.input.startCommand).to.equal('sh -c "/entrypoint.sh db createdb && /entrypoint.sh db migrate && /entrypoint.sh run"');
    // a bare variable name takes its value from the shell in Compose: not set here, so left out with a warning
    expect(app.env.map((e) => e.key)).to.deep.equal(['BASE_URL', 'SECRET_KEY_BASE']);
    expect(plan.warnings.some((w) => w.includes('TOTP_VAULT_KEY'))).to.equal(true);
  });

  it('n8n with workers: x- extensions are listed as ignored, the merged services keep their keys, the init script is listed', () => {
    const { plan } = planOf('n8n-postgres-worker.yml', 'N8N_VERSION=1.64.3\nPOSTGRES_USER=root\nPOSTGRES_PASSWORD=pw\nPOSTGRES_DB=n8n\n');
    expect(unsupportedKeys(plan, null)).to.deep.equal(['x-shared', 'x-runner']);
    expect(unsupportedKeys(plan, 'postgres')).to.deep.equal(['volumes[1]']);
    expect(byService(plan, 'n8n-worker').berthService!.input.startCommand).to.equal('worker');
    expect(byService(plan, 'n8n').berthService!.env).to.deep.include({ key: 'DB_POSTGRESDB_HOST', value: '${postgres.PRIVATE_HOST}' });
    expect(byService(plan, 'n8n-runner').berthService!.env).to.deep.include({ key: 'N8N_RUNNERS_TASK_BROKER_URI', value: 'http://${n8n.PRIVATE_HOST}:5679' });
    expect(plan.order.slice(0, 2)).to.have.members(['postgres', 'redis']);
    expect(plan.order.indexOf('n8n')).to.be.below(plan.order.indexOf('n8n-worker'));
    expect(plan.order.indexOf('n8n-worker')).to.be.below(plan.order.indexOf('n8n-worker-runner'));
  });

  it("outline: profiles, pull_policy, user and the databases' published ports are listed; the URLs become references", () => {
    const { plan } = planOf('outline.yml');
    expect(unsupportedKeys(plan, 'outline')).to.have.members(['profiles', 'pull_policy']);
    expect(unsupportedKeys(plan, 'redis')).to.have.members(['ports', 'user']);
    const env = byService(plan, 'outline').berthService!.env;
    expect(env).to.deep.include({ key: 'DATABASE_URL', value: '${postgres.DATABASE_URL}' });
    expect(env).to.deep.include({ key: 'REDIS_URL', value: '${redis.REDIS_URL}' });
    expect(byService(plan, 'outline').berthService!.input.dockerImage).to.equal('ecr-registry-not-configured/outline:latest');
  });
});
