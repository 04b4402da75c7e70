// BERTH_IMAGE_DOCKER_CLI: the image the job that prunes images on every Swarm node runs (docker/node-prune.ts).
import { expect } from 'chai';
import { readConfig } from '../../daemon/config.js';

describe('the docker CLI image setting', () => {
  it('defaults to docker:27-cli, takes another reference, and refuses what is not an image reference', () => {
    expect(readConfig({}).dockerCliImage).to.equal('docker:27-cli');
    expect(readConfig({ BERTH_IMAGE_DOCKER_CLI: 'local/docker-cli:1' }).dockerCliImage).to.equal('local/docker-cli:1');
    expect(() => readConfig({ BERTH_IMAGE_DOCKER_CLI: 'docker:27-cli\nRUN evil' })).to.throw(/BERTH_IMAGE_DOCKER_CLI must be an image reference/);
    expect(() => readConfig({ BERTH_IMAGE_DOCKER_CLI: '--privileged' })).to.throw(/BERTH_IMAGE_DOCKER_CLI must be an image reference/);
  });
});
