// The template gallery through the API: every template's dry-run plan maps with no unsupported key
// (each key of its file accounted for), its secrets are generated when not given (and differ each
// time), given variables are used, and its databases become managed ones.
import { expect } from 'chai';
import { composeParser } from '../../daemon/compose-import/parse.js';
import type { ComposeTemplate } from '../../shared/types.js';
import { expectEveryKeyAccounted } from '../helpers/compose-coverage.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';
import { snapshotStore } from '../helpers/snapshot.js';

const EXPECTED = ['uptime-kuma', 'umami', 'n8n', 'gitea', 'plausible', 'ghost', 'vaultwarden', 'metabase'];

/** Values for the variables a template requires. */
function required(t: ComposeTemplate): Record<string, string> {
  return Object.fromEntries(t.variables.filter((v) => v.required).map((v) => [v.name, 'https://app.example.com']));
}

describe('the template gallery', () => {
  let t: TestDaemon;
  let projectId: string;
  let templates: ComposeTemplate[];
  before(async () => {
    t = await startTestDaemon();
    projectId = (await t.admin.createProject({ name: uniq('gallery'), description: '' })).project.id;
    templates = (await t.admin.listTemplates()).templates;
  });
  after(async () => t.stop());

  it('holds the curated apps, each with a description, a website, a resources note and pinned images', () => {
    expect(templates.map((x) => x.id)).to.deep.equal(EXPECTED);
    for (const tpl of templates) {
      expect(tpl.description.length, tpl.id).to.be.above(20);
      expect(tpl.website, tpl.id).to.match(/^https:\/\//);
      expect(tpl.resources.length, tpl.id).to.be.above(10);
      for (const m of tpl.compose.matchAll(/image: (\S+)/g)) expect(m[1], `${tpl.id}: ${m[1]} is pinned`).to.match(/:[^:]*\d[^:]*$/);
      for (const v of tpl.variables) expect(tpl.compose, `${tpl.id} uses ${v.name}`).to.include(`\${${v.name}}`);
    }
  });

  it("any key lists the gallery (it is no project's): a read key and a selected-projects key alike; no key gets 401", async () => {
    const reader = await t.clientWith('read', [projectId]);
    expect((await reader.listTemplates()).templates.map((x) => x.id)).to.deep.equal(EXPECTED);
    const err = await t.anonymous.listTemplates().then(
      () => null,
      (e: { status: number }) => e,
    );
    expect(err?.status).to.equal(401);
  });

  for (const id of EXPECTED) {
    it(`${id}: the dry-run plan maps every key, with no unsupported one, and stores nothing`, async () => {
      const tpl = templates.find((x) => x.id === id)!;
      const before = await snapshotStore(t.dataDir);
      const plan = await t.admin.importCompose(projectId, { template: id, variables: required(tpl), dryRun: true });
      expect(plan.unsupported, JSON.stringify(plan.unsupported)).to.deep.equal([]);
      expect(plan.services.every((s) => s.becomes !== 'skipped')).to.equal(true);
      expectEveryKeyAccounted(composeParser.parse(tpl.compose, new Map(tpl.variables.map((v) => [v.name, 'x']))).document, plan);
      expect(plan.order.length).to.equal(plan.services.length);
      expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    });
  }

  it('generates the secrets left out (different each time) and uses the values given', async () => {
    const envOf = async (variables: Record<string, string>) => {
      const plan = await t.admin.importCompose(projectId, { template: 'umami', variables, dryRun: true });
      return Object.fromEntries(plan.services.find((s) => s.service === 'db')!.berthService!.env.map((e) => [e.key, e.value]));
    };
    const first = await envOf({});
    const second = await envOf({});
    expect(first.POSTGRES_PASSWORD).to.match(/^[A-Za-z0-9_-]{32}$/);
    expect(first.POSTGRES_PASSWORD).to.not.equal(second.POSTGRES_PASSWORD);
    expect((await envOf({ POSTGRES_PASSWORD: 'chosen' })).POSTGRES_PASSWORD).to.equal('chosen');
  });

  it("the databases become managed ones and the apps reference them (umami's URL, plausible's two)", async () => {
    const umami = await t.admin.importCompose(projectId, { template: 'umami', dryRun: true });
    expect(umami.services.find((s) => s.service === 'db')!.becomes).to.equal('database:postgres');
    expect(umami.services.find((s) => s.service === 'umami')!.berthService!.env).to.deep.include({ key: 'DATABASE_URL', value: '${db.DATABASE_URL}' });
    const plausible = await t.admin.importCompose(projectId, { template: 'plausible', variables: { BASE_URL: 'https://p.example.com' }, dryRun: true });
    expect(plausible.services.map((s) => s.becomes)).to.deep.equal(['database:postgres', 'database:clickhouse', 'image']);
    const env = plausible.services[2]!.berthService!.env;
    expect(env).to.deep.include({ key: 'DATABASE_URL', value: '${plausible_db.DATABASE_URL}' });
    expect(env).to.deep.include({ key: 'CLICKHOUSE_DATABASE_URL', value: '${plausible_events_db.CLICKHOUSE_URL}' });
  });

  it("ghost's config file comes with the template and references the managed MySQL database", async () => {
    const plan = await t.admin.importCompose(projectId, { template: 'ghost', variables: { URL: 'https://blog.example.com' }, dryRun: true });
    const files = plan.services.find((s) => s.service === 'ghost')!.berthService!.input.files!;
    expect(files.map((f) => f.path)).to.deep.equal(['/var/lib/ghost/config.production.json']);
    expect(files[0]!.content).to.include('${db.MYSQL_PASSWORD}');
  });
});
