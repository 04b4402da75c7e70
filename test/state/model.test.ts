// A service's volumes, config files, deploy strategy and release command through the API: stored,
// shown, changed, refused with the rule named (nothing changed), and a volume owned by one service
// and one project at a time. No deployment here (test/state/deploy.test.ts runs them).
import { expect } from 'chai';
import type { BerthClient } from '../../shared/client.js';
import type { Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

const IMAGE = 'berth-test/busybox:latest';

describe('service state: volumes, config files, strategy and release command (model)', () => {
  let t: TestDaemon;
  let projectId: string;
  let otherProjectId: string;
  let svc: Service;

  before(async () => {
    t = await startTestDaemon({ BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
    projectId = (await t.admin.createProject({ name: 'state-model' })).project.id;
    otherProjectId = (await t.admin.createProject({ name: 'state-model-other' })).project.id;
    svc = (
      await t.admin.createService(projectId, {
        name: 'app',
        dockerImage: IMAGE,
        startCommand: 'sleep 3600',
        volumes: [{ name: 'data', mountPath: '/data/' }],
        files: [{ path: '/etc/app/config.json', content: '{"a": "${FOO}"}', mode: '600' }],
        deployStrategy: 'recreate',
        releaseCommand: ['sh', '-c', 'echo migrate'],
      })
    ).service;
  });
  after(() => t.stop());

  async function status(res: Promise<unknown>): Promise<{ status: number; message: string }> {
    try {
      await res;
      return { status: 200, message: '' };
    } catch (err) {
      return { status: (err as { status: number }).status, message: (err as Error).message };
    }
  }

  it('a new service carries its volumes, files, strategy and release command, normalised, with defaults filled in', async () => {
    expect(svc.volumes).to.deep.equal([{ name: 'data', mountPath: '/data', readOnly: false, sizeBytes: null }]);
    expect(svc.files).to.deep.equal([{ path: '/etc/app/config.json', content: '{"a": "${FOO}"}', mode: '0600' }]);
    expect(svc.deployStrategy).to.equal('recreate');
    expect(svc.releaseCommand).to.deep.equal(['sh', '-c', 'echo migrate']);
    expect(svc.releaseTimeoutSeconds).to.equal(600);
    const { service } = await t.admin.overview(svc.id);
    expect(service.volumes.map((v) => v.name)).to.deep.equal(['data']);
    expect(service.files[0]!.mode).to.equal('0600');
  });

  it('a service created without them shows rolling, no volumes, no files, no release command', async () => {
    const { service } = await t.admin.createService(projectId, { name: 'plain', dockerImage: IMAGE });
    expect(service).to.include({ deployStrategy: 'rolling', releaseCommand: null, releaseTimeoutSeconds: 600 });
    expect(service.volumes).to.deep.equal([]);
    expect(service.files).to.deep.equal([]);
  });

  it('config file contents are sealed at rest, never stored in plain text', async () => {
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    await t.admin.patchService(svc.id, { files: [{ path: '/etc/secret.txt', content: 'plain-secret-marker-1234' }] });
    for (const file of ['berth.sqlite', 'berth.sqlite-wal']) {
      const bytes = (() => {
        try {
          return readFileSync(join(t.dataDir, file));
        } catch {
          return Buffer.alloc(0);
        }
      })();
      expect(bytes.includes('plain-secret-marker-1234'), file).to.equal(false);
    }
    await t.admin.patchService(svc.id, { files: [{ path: '/etc/app/config.json', content: '{"a": "${FOO}"}', mode: '600' }] });
  });

  it('PATCH changes each field, and null or [] puts the release command and the timeout back to their defaults', async () => {
    let { service } = await t.admin.patchService(svc.id, { deployStrategy: 'rolling', releaseCommand: ['true'], releaseTimeoutSeconds: 30 });
    expect(service).to.include({ deployStrategy: 'rolling', releaseTimeoutSeconds: 30 });
    expect(service.releaseCommand).to.deep.equal(['true']);
    ({ service } = await t.admin.patchService(svc.id, { releaseCommand: [], releaseTimeoutSeconds: null }));
    expect(service).to.include({ releaseCommand: null, releaseTimeoutSeconds: 600 });
    expect(service.volumes.map((v) => v.name)).to.deep.equal(['data']);
  });

  /** The third field: whether a new service with the body alone breaks the rule too (not when it needs the service's other fields). */
  const refusals: [string, Record<string, unknown>, RegExp, boolean?][] = [
    ['a relative mount path', { volumes: [{ name: 'v', mountPath: 'data' }] }, /absolute/],
    ['a mount path of /', { volumes: [{ name: 'v', mountPath: '/' }] }, /must not be \//],
    ['a mount path under /proc', { volumes: [{ name: 'v', mountPath: '/proc/x' }] }, /under \/proc/],
    ['a mount path of /sys', { volumes: [{ name: 'v', mountPath: '/sys' }] }, /under \/sys/],
    ['a mount path under /dev', { volumes: [{ name: 'v', mountPath: '/dev/shm' }] }, /under \/dev/],
    ['a mount path with ..', { volumes: [{ name: 'v', mountPath: '/data/../etc' }] }, /\.\./],
    [
      'two mounts that overlap',
      {
        volumes: [
          { name: 'a', mountPath: '/data' },
          { name: 'b', mountPath: '/data/sub' },
        ],
      },
      /overlap/,
    ],
    ['a mount over a config file', { volumes: [{ name: 'a', mountPath: '/etc/app' }] }, /overlap/, false],
    ['a volume name with capitals', { volumes: [{ name: 'Data', mountPath: '/x' }] }, /volume name/],
    ['a volume name with a slash', { volumes: [{ name: 'a/b', mountPath: '/x' }] }, /volume name/],
    [
      'a volume given twice',
      {
        volumes: [
          { name: 'a', mountPath: '/x' },
          { name: 'a', mountPath: '/y' },
        ],
      },
      /twice/,
    ],
    ['more than 10 volumes', { volumes: Array.from({ length: 11 }, (_, i) => ({ name: `v${i}`, mountPath: `/v${i}` })) }, /at most 10 volumes/],
    ['a relative file path', { files: [{ path: 'etc/x', content: '' }] }, /absolute/],
    ['a file path under /proc', { files: [{ path: '/proc/self/x', content: '' }] }, /under \/proc/],
    ['a bad mode', { files: [{ path: '/x', content: '', mode: '999' }] }, /mode/],
    ['a mode with setuid bits', { files: [{ path: '/x', content: '', mode: '4755' }] }, /mode/],
    ['a file over 64 KiB', { files: [{ path: '/x', content: 'a'.repeat(64 * 1024 + 1) }] }, /64 KiB/],
    ['files over 256 KiB together', { files: Array.from({ length: 5 }, (_, i) => ({ path: `/f${i}`, content: 'a'.repeat(60 * 1024) })) }, /256 KiB/],
    ['more than 20 files', { files: Array.from({ length: 21 }, (_, i) => ({ path: `/f${i}`, content: '' })) }, /at most 20 config files/],
    [
      'two files at one path',
      {
        files: [
          { path: '/x', content: '' },
          { path: '/x/', content: '' },
        ],
      },
      /overlap/,
    ],
    ['a release command with an empty argument', { releaseCommand: ['sh', ''] }, /non-empty/],
    ['a release command as a string', { releaseCommand: 'sh -c true' }, /releaseCommand/],
    ['a release command of 65 arguments', { releaseCommand: Array.from({ length: 65 }, () => 'x') }, /at most 64/],
    ['a timeout of 0', { releaseTimeoutSeconds: 0 }, /1 to 3600/],
    ['a timeout over an hour', { releaseTimeoutSeconds: 3601 }, /1 to 3600/],
    ['a fractional timeout', { releaseTimeoutSeconds: 1.5 }, /whole number/],
    ['an unknown strategy', { deployStrategy: 'blue-green' }, /deployStrategy/],
  ];
  for (const [what, body, rule, onCreateToo = true] of refusals) {
    it(`refuses ${what} with a 400 naming the rule, and changes nothing`, async () => {
      const before = (await t.admin.overview(svc.id)).service;
      const res = await status(t.admin.patchService(svc.id, body as never));
      expect(res.status, res.message).to.equal(400);
      expect(res.message).to.match(rule);
      const after = (await t.admin.overview(svc.id)).service;
      expect(after).to.deep.equal(before);
      if (!onCreateToo) return;
      const created = await status(t.admin.createService(projectId, { name: 'refused', dockerImage: IMAGE, ...(body as object) }));
      expect(created.status, created.message).to.equal(400);
    });
  }

  it('refuses volumes, files and a release command on a database service', async () => {
    const res = await status(t.admin.createService(projectId, { name: 'pg', repoFullName: 'database:postgres', volumes: [{ name: 'x', mountPath: '/x' }] }));
    expect(res.status).to.equal(400);
    expect(res.message).to.match(/git and image services only/);
  });

  it('a volume another service of the project mounts is refused with 409, and nothing changes', async () => {
    const { service: other } = await t.admin.createService(projectId, { name: 'other', dockerImage: IMAGE });
    const res = await status(t.admin.patchService(other.id, { volumes: [{ name: 'data', mountPath: '/data' }], files: [{ path: '/f', content: 'x' }] }));
    expect(res.status, res.message).to.equal(409);
    expect(res.message).to.match(/another service/);
    const after = (await t.admin.overview(other.id)).service;
    expect(after.volumes).to.deep.equal([]);
    expect(after.files).to.deep.equal([]);
    const created = await status(t.admin.createService(projectId, { name: 'thief', dockerImage: IMAGE, volumes: [{ name: 'data', mountPath: '/d' }] }));
    expect(created.status).to.equal(409);
    expect((await t.admin.getProject(projectId)).project.services.map((s) => s.name)).to.not.include('thief');
  });

  it('a volume left out of a PATCH is detached and kept; the project lists it with no service, and another service attaches it', async () => {
    const { service: holder } = await t.admin.createService(projectId, { name: 'holder', dockerImage: IMAGE, volumes: [{ name: 'moving', mountPath: '/m' }] });
    await t.admin.patchService(holder.id, { volumes: [] });
    let { volumes } = await t.admin.listVolumes(projectId);
    expect(volumes.find((v) => v.name === 'moving')).to.include({ serviceId: null, mountPath: null, sizeBytes: null });
    const { service: taker } = await t.admin.createService(projectId, { name: 'taker', dockerImage: IMAGE, volumes: [{ name: 'moving', mountPath: '/n', readOnly: true }] });
    ({ volumes } = await t.admin.listVolumes(projectId));
    expect(volumes.find((v) => v.name === 'moving')).to.include({ serviceId: taker.id, mountPath: '/n' });
    expect(volumes.find((v) => v.name === 'data')).to.include({ serviceId: svc.id, mountPath: '/data' });
  });

  it('a service with volumes is not moved to another project (409, saying why)', async () => {
    const res = await status(t.admin.transferService(svc.id, otherProjectId));
    expect(res.status).to.equal(409);
    expect(res.message).to.match(/never leaves its project/);
  });

  it('another project has its own volume of the same name, and a key of one project cannot list the other project volumes (404)', async () => {
    const { service: foreign } = await t.admin.createService(otherProjectId, { name: 'foreign', dockerImage: IMAGE, volumes: [{ name: 'data', mountPath: '/data' }] });
    expect(foreign.volumes.map((v) => v.name)).to.deep.equal(['data']);
    expect((await t.admin.listVolumes(otherProjectId)).volumes.map((v) => v.serviceId)).to.deep.equal([foreign.id]);
    const scoped: BerthClient = await t.clientWith('write', [otherProjectId]);
    const res = await status(scoped.listVolumes(projectId));
    expect(res.status).to.equal(404);
    expect((await scoped.listVolumes(otherProjectId)).volumes).to.have.length(1);
  });
});
