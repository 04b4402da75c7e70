import { expect } from 'chai';
import { InvalidInput } from '../../daemon/core/errors.js';
import { normalizeHostname } from '../../daemon/core/hostname.js';
import { classify, serviceSpec } from '../../daemon/core/service-spec.js';
import { slugify, uniqueSlug } from '../../daemon/core/slug.js';
import { checkBranch, checkGitUrl, checkImageRef, checkRelativePath } from '../../daemon/core/source.js';
import { pickHostPort } from '../../daemon/core/host-ports.js';

describe('input checks (unit)', () => {
  it('hostnames: lower-cased, trailing dot dropped; IPs, wildcards, ports and bad labels refused', () => {
    expect(normalizeHostname(' App.Example.COM. ')).to.equal('app.example.com');
    for (const bad of ['10.0.0.1', '::1', '*.example.com', 'example.com:80', 'a..b.com', '-a.example.com', 'example', 'a.123', `${'a'.repeat(64)}.com`]) {
      expect(() => normalizeHostname(bad), bad).to.throw(InvalidInput);
    }
  });

  it('git URLs and branches that could act as options are refused', () => {
    expect(checkGitUrl('https://github.com/a/b.git')).to.equal('https://github.com/a/b.git');
    expect(checkGitUrl('http://127.0.0.1:8080/a/b.git')).to.equal('http://127.0.0.1:8080/a/b.git');
    // only http(s): local paths and every other transport are refused
    const local = [
      'file:///srv/git/app.git',
      'FILE:///etc',
      '/srv/git/app.git',
      './app',
      '../app',
      'app.git',
      'git@github.com:a/b.git',
      'ssh://git@localhost/srv/app.git',
      'git://localhost/app.git',
      'ext::sh -c id',
    ];
    for (const bad of [...local, '--upload-pack=touch /tmp/x', '-u', 'ext::sh -c touch% /tmp/pwned', 'ftp://host/x', 'https://', 'http:///srv/app.git']) {
      expect(() => checkGitUrl(bad), bad).to.throw(InvalidInput);
    }
    expect(checkBranch('feature/new-ui')).to.equal('feature/new-ui');
    for (const bad of ['-x', '--upload-pack=x', 'a..b', 'a b', 'x.lock', 'a/.hidden', 'a@{1}', '/a', 'a/', '']) {
      expect(() => checkBranch(bad), JSON.stringify(bad)).to.throw(InvalidInput);
    }
  });

  it('paths stay inside the checkout', () => {
    expect(checkRelativePath('rootDir', './apps//web/')).to.equal('apps/web');
    expect(checkRelativePath('rootDir', '.')).to.equal(null);
    expect(checkRelativePath('rootDir', 'a/../b')).to.equal('b');
    for (const bad of ['../x', 'a/../../x', '/etc', '\\\\server\\share']) {
      expect(() => checkRelativePath('rootDir', bad), bad).to.throw(InvalidInput);
    }
  });

  it('image references follow the Docker grammar', () => {
    for (const ok of ['nginx', 'nginx:1.27', 'ghcr.io/acme/app:v1', 'localhost:5000/x/y', `busybox@sha256:${'a'.repeat(64)}`]) {
      expect(checkImageRef(ok)).to.equal(ok);
    }
    for (const bad of ['UPPER', 'a b', '-x', 'x:', 'x::y']) expect(() => checkImageRef(bad), bad).to.throw(InvalidInput);
  });

  it('slugs are ASCII words, unique by suffix', () => {
    expect(slugify('Crème  Brûlée!', 'p')).to.equal('creme-brulee');
    expect(slugify('🚀', 'project')).to.equal('project');
    expect(uniqueSlug('web', new Set(['web', 'web-2']))).to.equal('web-3');
  });

  it('service kinds are told apart by the spec markers', () => {
    expect(classify({ name: 'x', repoFullName: 'database:redis', repoUrl: 'database' })).to.deep.equal({ kind: 'database', engine: 'redis' });
    expect(classify({ name: 'x', repoUrl: 'docker-image', dockerImage: 'nginx' }).kind).to.equal('image');
    expect(classify({ name: 'x', repoFullName: 'a/b' }).kind).to.equal('git');
    expect(() => classify({ name: 'x' })).to.throw(InvalidInput, /needs a source/);
    expect(() => classify({ name: 'x', repoFullName: 'database:oracle', repoUrl: 'database' })).to.throw(InvalidInput, /engine/);
  });

  it('defaults: web 3000, static 80, worker no port, image 80, branch main, method auto', () => {
    expect(serviceSpec({ name: 'a', repoFullName: 'a/b' })).to.include({ internalPort: 3000, branch: 'main', buildMethod: 'auto', runtimeMode: 'web' });
    expect(serviceSpec({ name: 'a', repoFullName: 'a/b', runtimeMode: 'static' }).internalPort).to.equal(80);
    expect(serviceSpec({ name: 'a', repoFullName: 'a/b', runtimeMode: 'worker', internalPort: 9000 }).internalPort).to.equal(null);
    expect(serviceSpec({ name: 'a', repoUrl: 'docker-image', dockerImage: 'nginx' }).internalPort).to.equal(80);
  });

  it('host ports: the lowest free one in range that is neither used nor busy', async () => {
    const busy = new Set([20001]);
    const port = await pickHostPort({ from: 20000, to: 20005 }, new Set([20000]), async (p) => !busy.has(p));
    expect(port).to.equal(20002);
    expect(await pickHostPort({ from: 1, to: 2 }, new Set([1, 2]), async () => true)).to.equal(null);
  });
});
