// The deployment queue's sharing rules, with runs that end only when the test says so: a project
// never holds every slot, freed slots go round-robin over projects, one run per service, and a
// newer queued deployment of a service replaces the older one.
import { expect } from 'chai';
import { DeployQueue } from '../../daemon/deploy/queue.js';

interface Harness {
  queue: DeployQueue;
  /** Ids whose run has started, in order. */
  started: string[];
  superseded: [string, string][];
  /** Ends a started run. */
  finish(id: string): Promise<void>;
  running(): string[];
}

function harness(concurrency: number): Harness {
  const ends = new Map<string, () => void>();
  const started: string[] = [];
  const superseded: [string, string][] = [];
  const queue = new DeployQueue(concurrency, {
    run: (id, signal) =>
      new Promise<void>((resolve) => {
        started.push(id);
        ends.set(id, resolve);
        signal.addEventListener('abort', () => resolve(), { once: true });
      }),
    superseded: async (id, byId) => {
      superseded.push([id, byId]);
    },
    onError: (err) => {
      throw err;
    },
  });
  return {
    queue,
    started,
    superseded,
    running: () => [...ends.keys()].filter((id) => queue.isActive(id)),
    async finish(id) {
      const end = ends.get(id);
      if (!end) throw new Error(`${id} has not started`);
      ends.delete(id);
      end();
      // the queue's own .finally() hands out the freed slot
      await new Promise((r) => setImmediate(r));
    },
  };
}

describe('deploy queue: slots shared fairly between projects', () => {
  it('a project holds at most concurrency-1 slots, so another project starts at once while its runs never end', () => {
    const h = harness(2);
    h.queue.enqueue('a1', 'svc-a1', 'A');
    h.queue.enqueue('a2', 'svc-a2', 'A');
    expect(h.started).to.deep.equal(['a1']);
    h.queue.enqueue('b1', 'svc-b1', 'B');
    expect(h.started).to.deep.equal(['a1', 'b1']);
  });

  it('with three slots a lone project uses two, and the third is there for the next project', () => {
    const h = harness(3);
    for (const n of [1, 2, 3, 4]) h.queue.enqueue(`a${n}`, `svc-a${n}`, 'A');
    expect(h.started).to.deep.equal(['a1', 'a2']);
    h.queue.enqueue('b1', 'svc-b1', 'B');
    expect(h.started).to.deep.equal(['a1', 'a2', 'b1']);
  });

  it('a freed slot goes round-robin: a project with many queued deployments gets one turn like a project with one', async () => {
    const h = harness(2);
    for (const n of [1, 2, 3, 4]) h.queue.enqueue(`a${n}`, `svc-a${n}`, 'A');
    for (const n of [1, 2]) h.queue.enqueue(`b${n}`, `svc-b${n}`, 'B');
    h.queue.enqueue('c1', 'svc-c1', 'C');
    expect(h.started).to.deep.equal(['a1', 'b1']);
    await h.finish('a1');
    expect(h.started.at(-1)).to.equal('c1');
    await h.finish('b1');
    expect(h.started.at(-1)).to.equal('a2');
    await h.finish('c1');
    expect(h.started.at(-1)).to.equal('b2');
    await h.finish('a2');
    expect(h.started.at(-1)).to.equal('a3');
  });

  it('with one slot, the slot alternates between projects', async () => {
    const h = harness(1);
    for (const n of [1, 2, 3]) h.queue.enqueue(`a${n}`, `svc-a${n}`, 'A');
    h.queue.enqueue('b1', 'svc-b1', 'B');
    await h.finish('a1');
    await h.finish('b1');
    await h.finish('a2');
    expect(h.started).to.deep.equal(['a1', 'b1', 'a2', 'a3']);
  });

  it('keeps one run per service and lets a newer queued deployment replace the older one', async () => {
    const h = harness(4);
    h.queue.enqueue('s1', 'svc', 'A');
    h.queue.enqueue('s2', 'svc', 'A');
    h.queue.enqueue('s3', 'svc', 'A');
    expect(h.started).to.deep.equal(['s1']);
    expect(h.superseded).to.deep.equal([['s2', 's3']]);
    await h.finish('s1');
    expect(h.started).to.deep.equal(['s1', 's3']);
  });

  it('an aborted run frees its slot for the next project in turn, and an aborted queued one never starts', async () => {
    const h = harness(2);
    h.queue.enqueue('a1', 'svc-a1', 'A');
    h.queue.enqueue('a2', 'svc-a2', 'A');
    h.queue.enqueue('b1', 'svc-b1', 'B');
    h.queue.enqueue('b2', 'svc-b2', 'B');
    expect(h.queue.abort('a2')).to.equal('queued');
    expect(h.queue.abort('a1')).to.equal('building');
    await new Promise((r) => setImmediate(r));
    expect(h.started).to.deep.equal(['a1', 'b1']);
    await h.finish('b1');
    expect(h.started).to.deep.equal(['a1', 'b1', 'b2']);
    await h.finish('b2');
    await h.queue.idle();
  });
});
