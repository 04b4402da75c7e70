// The lines of a Swarm service's log (`details`: the task's attributes before each line) as the
// runtime log shows them: the node's name and the task, then the line as the app wrote it.
import { expect } from 'chai';
import { withTaskPrefix } from '../../daemon/docker/swarm-logs.js';

const names = (id: string) => ({ n1: 'node-a', n2: 'node-b' })[id] ?? id.slice(0, 12);

describe('Swarm service log lines', () => {
  it('replaces the task attributes with the node name and the task id', () => {
    const line = 'com.docker.swarm.node.id=n2,com.docker.swarm.service.id=s1,com.docker.swarm.task.id=t0123456789abcdef listening on :8080';
    expect(withTaskPrefix(line, names)).to.equal('[node-b t0123456789a] listening on :8080');
  });

  it('keeps what the app wrote exactly, spaces and commas included, and decodes the attributes', () => {
    const line = 'com.docker.swarm.node.id=n1,com.docker.swarm.task.id=abc  a, b=c  ';
    expect(withTaskPrefix(line, names)).to.equal('[node-a abc]  a, b=c  ');
    expect(withTaskPrefix('com.docker.swarm.node.id=zz%2Fzz,com.docker.swarm.task.id=t1 x', names)).to.equal('[zz/zz t1] x');
  });

  it('leaves a line without task attributes as it is (an app that prints key=value first is not mistaken for them)', () => {
    expect(withTaskPrefix('level=info msg=started', names)).to.equal('level=info msg=started');
    expect(withTaskPrefix('', names)).to.equal('');
  });
});
