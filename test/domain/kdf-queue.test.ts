// The KDF queue (src/domain/tokens/kdf-queue.ts): never more runs at once than its limit, turns
// by client, bounded waiting, and room made for a newcomer at the expense of the longest queue.
import { describe, expect, it } from 'vitest';
import { KdfBusy, KdfQueue, type KdfQueueOptions } from '../../src/domain/tokens/kdf-queue.js';

/** A job that ends when told to, recording how many ran at once. */
function harness(queue: KdfQueue) {
  let running = 0;
  let peak = 0;
  const order: string[] = [];
  const gates: (() => void)[] = [];
  const job = (client: string, label = client) =>
    queue.run(client, async () => {
      running++;
      peak = Math.max(peak, running);
      order.push(label);
      await new Promise<void>((done) => gates.push(done));
      running--;
      return label;
    });
  const finishOne = async () => {
    gates.shift()?.();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { job, finishOne, order, peak: () => peak };
}

describe('the KDF queue', () => {
  it('never runs more than its limit at once, also when newcomers arrive as a run ends', async () => {
    const queue = new KdfQueue({ concurrency: 2, perClient: 100, total: 100 });
    const h = harness(queue);
    const all = Array.from({ length: 10 }, (_, i) => h.job(`c${i % 3}`, String(i)));
    for (let i = 0; i < 10; i++) {
      h.job('late', `late${i}`).catch(() => undefined); // arrives while a slot is being handed over
      await h.finishOne();
    }
    for (let i = 0; i < 20; i++) await h.finishOne();
    await Promise.all(all);
    expect(h.peak()).toBe(2);
    expect(queue.running).toBe(0);
  });

  it("gives each client a turn: a quiet client waits one round, not behind a flooding client's backlog", async () => {
    const queue = new KdfQueue({ concurrency: 1, perClient: 50, total: 100 });
    const h = harness(queue);
    const flood = Array.from({ length: 20 }, (_, i) => h.job('flood', `f${i}`));
    const quiet = h.job('quiet', 'q');
    await h.finishOne(); // f0 was running; f1 had queued before q: one turn each
    await h.finishOne();
    expect(h.order.slice(0, 3)).toEqual(['f0', 'f1', 'q']);
    for (let i = 0; i < 25; i++) await h.finishOne();
    await Promise.all([...flood, quiet]);
  });

  it("refuses at once beyond a client's share and makes room for a newcomer when full", async () => {
    const queue = new KdfQueue({ concurrency: 1, perClient: 3, total: 4 });
    const h = harness(queue);
    const settled: string[] = [];
    const track = (p: Promise<string>, label: string) =>
      p.then(
        () => settled.push(`${label} ok`),
        (err: unknown) => settled.push(`${label} ${err instanceof KdfBusy ? 'busy' : 'error'}`),
      );
    const runs = [track(h.job('a', 'a0'), 'a0')]; // running
    for (let i = 1; i <= 3; i++) runs.push(track(h.job('a', `a${i}`), `a${i}`)); // a1-a3 wait
    runs.push(track(h.job('a', 'a4'), 'a4')); // a's share is full: refused
    runs.push(track(h.job('b', 'b0'), 'b0')); // waits (4 in total now)
    runs.push(track(h.job('c', 'c0'), 'c0')); // full: a's newest (a3) makes room
    await Promise.resolve();
    await Promise.resolve();
    expect(settled).toEqual(['a4 busy', 'a3 busy']);
    for (let i = 0; i < 10; i++) await h.finishOne();
    await Promise.all(runs);
    expect(h.order).toEqual(['a0', 'a1', 'b0', 'c0', 'a2']);
  });
});

/** Records how each run ended: `label ok` or `label busy`. */
function tracker(h: ReturnType<typeof harness>) {
  const settled: string[] = [];
  const runs: Promise<unknown>[] = [];
  const start = (client: string, label: string) =>
    runs.push(
      h.job(client, label).then(
        () => settled.push(`${label} ok`),
        (err: unknown) => settled.push(`${label} ${err instanceof KdfBusy ? 'busy' : 'error'}`),
      ),
    );
  const drain = async () => {
    for (let i = 0; i < 20; i++) await h.finishOne();
    await Promise.all(runs);
  };
  return { start, settled, drain };
}

/** A queue with its harness and tracker. */
function trackedQueue(options: KdfQueueOptions) {
  const queue = new KdfQueue(options);
  const h = harness(queue);
  return { queue, h, t: tracker(h) };
}

const settle = async () => {
  for (let i = 0; i < 3; i++) await Promise.resolve();
};

describe('the KDF queue, bounds', () => {
  it('refuses with a KdfBusy that says why', async () => {
    const queue = new KdfQueue({ concurrency: 0, perClient: 0, total: 0 });
    const refused = await queue.run('a', () => Promise.resolve('ran')).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(KdfBusy);
    expect(refused).toMatchObject({ name: 'KdfBusy', message: 'too many token verifications are waiting' });
  });

  it("refuses a client's run beyond its share while the queue as a whole has room", async () => {
    const { queue, h, t } = trackedQueue({ concurrency: 1, perClient: 1, total: 10 });
    t.start('x', 'x0'); // runs
    t.start('a', 'a0'); // waits: a's share
    t.start('a', 'a1'); // over it
    t.start('b', 'b0'); // another client still waits
    await settle();
    expect(t.settled).toEqual(['a1 busy']);
    expect(queue.queued).toBe(2);
    await t.drain();
    expect(h.order).toEqual(['x0', 'a0', 'b0']);
    expect(queue.queued).toBe(0);
  });

  it('makes room only at the expense of a client holding more than one run beyond the newcomer', async () => {
    const { queue, h, t } = trackedQueue({ concurrency: 1, perClient: 10, total: 3 });
    t.start('x', 'x0'); // runs
    t.start('a', 'a0');
    t.start('a', 'a1');
    t.start('b', 'b0'); // full: a 2, b 1
    // hasRoomFor answers as run does: a newcomer would take a's newest run, b and a would not
    expect([queue.hasRoomFor('c'), queue.hasRoomFor('b'), queue.hasRoomFor('a')]).toEqual([true, false, false]);
    t.start('b', 'b1'); // b would hold 2, as many as a: refused, a keeps its runs
    await settle();
    expect(t.settled).toEqual(['b1 busy']);
    expect(queue.queued).toBe(3);
    t.start('c', 'c0'); // c holds none: a's newest makes room
    await settle();
    expect(t.settled).toEqual(['b1 busy', 'a1 busy']);
    expect(queue.queued).toBe(3);
    await t.drain();
    expect(h.order).toEqual(['x0', 'a0', 'b0', 'c0']);
    expect(queue.queued).toBe(0);
  });

  it('takes the room from the client with the most waiting, the first in turn among equals', async () => {
    const { queue, h, t } = trackedQueue({ concurrency: 1, perClient: 10, total: 6 });
    t.start('x', 'x0'); // runs
    t.start('a', 'a0'); // a: 1 waiting, first in turn
    for (let i = 0; i < 3; i++) t.start('b', `b${i}`); // b: 3
    t.start('c', 'c0');
    t.start('c', 'c1'); // c: 2 — full
    t.start('d', 'd0'); // b holds the most: b2 goes
    t.start('e', 'e0'); // b and c hold 2 each: b, first in turn, gives b1
    await settle();
    expect(t.settled).toEqual(['b2 busy', 'b1 busy']);
    expect(queue.queued).toBe(6);
    await t.drain();
    expect(h.order).toEqual(['x0', 'a0', 'b0', 'c0', 'd0', 'e0', 'c1']);
  });

  it('counts what waits: a finished run hands its slot on and the count goes down', async () => {
    const { queue, h, t } = trackedQueue({ concurrency: 1, perClient: 10, total: 2 });
    t.start('a', 'a0');
    t.start('b', 'b0');
    t.start('c', 'c0');
    expect(queue.queued).toBe(2);
    expect(queue.running).toBe(1);
    await h.finishOne();
    expect(queue.queued).toBe(1);
    t.start('d', 'd0'); // room again: waits, nothing refused
    await settle();
    expect(t.settled).toEqual(['a0 ok']);
    expect(queue.queued).toBe(2);
    await t.drain();
    expect(t.settled).toEqual(['a0 ok', 'b0 ok', 'c0 ok', 'd0 ok']);
  });
});

describe('the KDF queue, asked before a run (hasRoomFor)', () => {
  it('has room while a slot is free and nothing waits, whatever the waiting bounds', () => {
    const queue = new KdfQueue({ concurrency: 1, perClient: 0, total: 0 });
    expect(queue.hasRoomFor('a')).toBe(true);
  });

  it('has no room once every slot is taken and nothing may wait', async () => {
    const { queue, t } = trackedQueue({ concurrency: 1, perClient: 0, total: 0 });
    t.start('x', 'x0'); // runs
    expect(queue.hasRoomFor('a')).toBe(false);
    expect(queue.hasRoomFor('x')).toBe(false);
    await t.drain();
    expect(queue.hasRoomFor('a')).toBe(true);
  });

  it('answers as run would for a client at, below and above its share', async () => {
    const { queue, t } = trackedQueue({ concurrency: 1, perClient: 2, total: 10 });
    t.start('x', 'x0'); // runs
    expect(queue.hasRoomFor('a')).toBe(true); // holds none
    t.start('a', 'a0');
    expect(queue.hasRoomFor('a')).toBe(true); // holds 1 of 2
    t.start('a', 'a1');
    expect(queue.hasRoomFor('a')).toBe(false); // holds its 2
    expect(queue.hasRoomFor('b')).toBe(true); // the queue as a whole has room
    t.start('a', 'a2');
    await settle();
    expect(t.settled).toEqual(['a2 busy']);
    await t.drain();
  });

  it('when full of single runs, has room for no one', async () => {
    const { queue, t } = trackedQueue({ concurrency: 1, perClient: 10, total: 2 });
    t.start('x', 'x0'); // runs
    t.start('a', 'a0');
    t.start('b', 'b0'); // full: a 1, b 1
    expect(queue.hasRoomFor('c')).toBe(false);
    expect(queue.hasRoomFor('a')).toBe(false);
    await t.drain();
  });
});

describe('the KDF queue, runs that wait whatever the bounds', () => {
  it("queues a run told to wait beyond the client's share and beyond the total, in turn", async () => {
    const { queue, t } = trackedQueue({ concurrency: 1, perClient: 1, total: 1 });
    t.start('x', 'x0'); // runs
    t.start('a', 'a0'); // waits: the queue is full now
    const waited: string[] = [];
    const forced = [1, 2].map((i) =>
      queue.run('a', () => Promise.resolve(`a${i}`), { wait: true }).then((v) => waited.push(v)),
    );
    t.start('a', 'a3'); // not told to wait: refused
    await settle();
    expect(t.settled).toEqual(['a3 busy']);
    expect(queue.queued).toBe(3);
    await t.drain();
    await Promise.all(forced);
    expect(waited).toEqual(['a1', 'a2']);
    expect(queue.queued).toBe(0);
    expect(queue.running).toBe(0);
  });
});
