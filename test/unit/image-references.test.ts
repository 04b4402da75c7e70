// The pure parts of the image-reference rule: which names a tenant may give (core/image-refs.ts),
// and which images a Dockerfile makes the builder resolve, read the way the builder reads them
// (builder/dockerfile-refs.ts).
import { expect } from 'chai';
import { BuildError } from '../../daemon/core/build-error.js';
import { imageRefsOf } from '../../daemon/builder/dockerfile-refs.js';
import { imageRefProblem } from '../../daemon/core/image-refs.js';

const ID = 'ea93c1d0b2f34e5a6978123456789abcdef0123456789abcdef0123456789abc';

describe('image references (unit)', () => {
  it('repository names, registries, tags and repository digests are allowed', () => {
    for (const ref of ['nginx', 'nginx:1.27', 'ghcr.io/acme/app:2', 'localhost:5000/x', `node@sha256:${ID}`, 'docker.io/library/cafe', 'berth-test/busybox:latest', 'acme/berth']) {
      expect(imageRefProblem(ref), ref).to.equal(null);
    }
  });

  it('IDs, ID prefixes, bare digests and berth/ are refused, each with its reason', () => {
    for (const ref of ['ea9', 'ea93c1', ID, 'cafe:latest', 'docker.io/ea9', `ea9@sha256:${ID}`]) expect(imageRefProblem(ref), ref).to.match(/ID or an ID prefix/);
    for (const ref of [`sha256:${ID}`, 'sha256:ea93', 'sha512:ea93']) expect(imageRefProblem(ref), ref).to.match(/digest without a repository/);
    for (const ref of ['berth/web:abc', 'docker.io/berth/web:abc', 'index.docker.io/berth/web']) expect(imageRefProblem(ref), ref).to.match(/is in berth\//);
    for (const ref of ['', 'UPPER', 'a b', 'nginx;rm']) expect(imageRefProblem(ref), ref).not.to.equal(null);
  });

  it('finds FROM, COPY --from and RUN --mount from= after ARG expansion, and skips stages and scratch', () => {
    const refs = imageRefsOf(
      [
        '# escape=`',
        'ARG BASE=ea9',
        'ARG TAG',
        'FROM ${BASE} AS build',
        '# a comment',
        'FROM "node:${TAG:-20}" `',
        '  AS app',
        'COPY --from=build /a /b',
        'COPY --from=0 /a /b',
        'COPY --from=5 /a /b',
        'COPY --chown=1 --from=sha256:ea93 /a /b',
        'ARG SRC=cafe',
        'COPY --from=$SRC /a /b',
        'RUN --mount=type=bind,from=berth/x:1,target=/m true',
        'FROM scratch',
        'FROM app',
      ].join('\n'),
      { TAG: '22' },
    );
    expect(refs.map((r) => [r.instruction, r.line, r.ref])).to.deep.equal([
      ['FROM', 4, 'ea9'],
      ['FROM', 6, 'node:22'],
      ['COPY --from', 10, '5'],
      ['COPY --from', 11, 'sha256:ea93'],
      ['COPY --from', 13, 'cafe'],
      ['RUN --mount from', 14, 'berth/x:1'],
    ]);
  });

  it('a ${...} form it cannot follow fails the build instead of being guessed', () => {
    expect(() => imageRefsOf('ARG X=a\nFROM ${X#a}ea9\n')).to.throw(BuildError, /cannot be read safely/);
  });
});
