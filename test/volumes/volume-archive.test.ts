// A volume's contents through the Engine's archive API, on the real Docker: the tar streams out of
// a helper container that never starts, emptying removes what a restore must not keep, the tar
// extracts back exactly, and nothing touches a volume Berth did not make for the project.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { connectDocker } from '../../daemon/docker/client.js';
import { LABEL_ROLE } from '../../daemon/docker/one-off.js';
import { Ownership } from '../../daemon/docker/labels.js';
import { emptyingTool, emptyVolume, extractVolumeTar, helperImage, openVolumeTar, requireOwnedVolume, type VolumeHelper } from '../../daemon/docker/volume-archive.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';

const BUSYBOX = 'berth-test/busybox:latest';

describe('volume archives through the Engine API', function () {
  this.timeout(120_000);
  const engine = connectDocker(process.env.BERTH_DOCKER_SOCKET ?? '/var/run/docker.sock');
  const own = new Ownership(uniq('instance'));
  const projectId = uniq('project');
  const volume = uniq('berth-vol-test');
  const foreign = uniq('berth-vol-foreign');
  const noFind = `berth-test/no-find:${uniq('t')}`;
  let dir: string;
  let helper: VolumeHelper;

  const inVolume = (name: string, script: string) => docker('run', '--rm', '-v', `${name}:/v`, BUSYBOX, 'sh', '-c', script);

  before(() => {
    requireDocker();
    dir = mkdtempSync(join(tmpdir(), 'berth-volume-archive-'));
    const labels = own.labels({ projectId, serviceId: 'svc' });
    docker('volume', 'create', ...Object.entries(labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]), volume);
    docker('volume', 'create', foreign);
    inVolume(volume, 'mkdir -p /v/sub/deep && echo hello > /v/sub/f.txt && printf "x%.0s" $(seq 1 5000) > /v/sub/deep/big && echo top > /v/.hidden && chmod 640 /v/sub/f.txt');
    helper = { volume, image: BUSYBOX, labels: own.labels({ projectId, serviceId: 'svc' }) };
  });

  after(() => {
    spawnSync('docker', ['volume', 'rm', '-f', volume, foreign]);
    spawnSync('docker', ['image', 'rm', '-f', noFind]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('streams the volume as a tar from a helper that never starts, and removes the helper', async () => {
    const file = join(dir, 'one.tar');
    const hash = createHash('sha256');
    const { tar, done } = await openVolumeTar(engine, helper);
    try {
      await pipeline(
        tar,
        new Transform({
          transform(chunk: Buffer, _e, cb) {
            hash.update(chunk);
            cb(null, chunk);
          },
        }),
        createWriteStream(file),
      );
    } finally {
      await done();
    }
    const listing = spawnSync('tar', ['-tvf', file], { encoding: 'utf8' }).stdout;
    expect(listing).to.match(/berth-volume\/sub\/f\.txt/);
    expect(listing).to.match(/berth-volume\/sub\/deep\/big/);
    expect(listing).to.match(/berth-volume\/\.hidden/);
    expect(
      createHash('sha256')
        .update(spawnSync('cat', [file]).stdout)
        .digest('hex'),
    ).to.equal(hash.digest('hex'));
    // the helper (role one-off, our labels) is gone
    expect(docker('ps', '-a', '-q', '--filter', `label=${LABEL_ROLE}`, '--filter', `volume=${volume}`).trim()).to.equal('');
  });

  it('empties the volume and extracts the tar back exactly: a deleted file returns, a new one is gone, modes stay', async () => {
    inVolume(volume, 'rm /v/sub/f.txt && echo junk > /v/junk && mkdir /v/newdir');
    expect(await emptyingTool(engine, helper)).to.equal(null);
    await emptyVolume(engine, helper, 60_000);
    expect(inVolume(volume, 'ls -A /v').trim()).to.equal('');
    await extractVolumeTar(engine, helper, createReadStream(join(dir, 'one.tar')));
    expect(inVolume(volume, 'cat /v/sub/f.txt').trim()).to.equal('hello');
    expect(inVolume(volume, 'cat /v/.hidden').trim()).to.equal('top');
    expect(inVolume(volume, 'wc -c < /v/sub/deep/big').trim()).to.equal('5000');
    expect(inVolume(volume, 'stat -c %a /v/sub/f.txt').trim()).to.equal('640');
    expect(inVolume(volume, 'ls -A /v').trim().split('\n').sort()).to.deep.equal(['.hidden', 'sub']);
  });

  it('says when the image cannot empty a volume (no find), changing nothing', async () => {
    spawnSync('sh', ['-c', `tar -c -T /dev/null | docker import - ${noFind}`]);
    const reason = await emptyingTool(engine, { ...helper, image: noFind });
    expect(reason).to.be.a('string');
    expect(inVolume(volume, 'cat /v/sub/f.txt').trim()).to.equal('hello');
  });

  it("refuses a volume without the project's labels, and never creates a missing one", async () => {
    let err = await requireOwnedVolume(engine, own, projectId, foreign).catch((e: Error) => e);
    expect(err).to.be.instanceOf(Error);
    expect((err as Error).message).to.match(/did not create it/);
    err = await requireOwnedVolume(engine, own, 'other-project', volume).catch((e: Error) => e);
    expect((err as Error).message).to.match(/did not create it/);
    const missing = uniq('berth-vol-missing');
    err = await requireOwnedVolume(engine, own, projectId, missing).catch((e: Error) => e);
    expect((err as Error).message).to.match(/does not exist yet/);
    expect(spawnSync('docker', ['volume', 'inspect', missing]).status).to.not.equal(0);
  });

  it("runs helpers from the live container's image, else from an image this Docker has", async () => {
    expect(await helperImage(engine, null)).to.match(/^sha256:/);
    const cid = docker('create', '--label', `${LABEL_ROLE}=test`, BUSYBOX, 'true').trim();
    try {
      const image = docker('image', 'inspect', '-f', '{{.Id}}', BUSYBOX).trim();
      expect(await helperImage(engine, cid)).to.equal(image);
    } finally {
      docker('rm', '-f', cid);
    }
  });
});
