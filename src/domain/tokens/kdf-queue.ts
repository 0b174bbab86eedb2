// Where scrypt runs, the one expensive step a client without a valid token can make the daemon
// take, are scheduled (docs/security.md): a few at a time (they share libuv's pool with SQLite,
// and each takes a core); a freed slot goes to the next client in turn (round-robin over client
// keys), so a new valid token waits one round, not behind a flood. Bounded: a client has at most
// `perClient` runs waiting and all together `total`; a full queue makes room by refusing the
// newest run of the client with the most waiting, and what still cannot wait is refused at once
// (`KdfBusy`).

export class KdfBusy extends Error {
  constructor() {
    super('too many token verifications are waiting');
    this.name = 'KdfBusy';
  }
}

export interface KdfQueueOptions {
  concurrency: number;
  /** Runs one client may have waiting. */
  perClient: number;
  /** Runs waiting in total. */
  total: number;
}

interface Job {
  start: () => void;
  refuse: () => void;
}

export class KdfQueue {
  private active = 0;
  private waitingCount = 0;
  /** Clients with waiting runs, in turn order (a Map keeps insertion order). */
  private readonly waiting = new Map<string, Job[]>();

  constructor(private readonly options: KdfQueueOptions) {}

  get queued(): number {
    return this.waitingCount;
  }

  get running(): number {
    return this.active;
  }

  /** Whether a run for `client` would be taken now (started or queued) rather than refused. */
  hasRoomFor(client: string): boolean {
    if (this.active < this.options.concurrency && this.waitingCount === 0) return true;
    const mine = this.waiting.get(client)?.length ?? 0;
    if (mine >= this.options.perClient) return false;
    return this.waitingCount < this.options.total || this.longestBeyond(mine + 1) !== null;
  }

  /** `wait`: never refused, whatever is waiting (the caller bounds how many such runs it makes). */
  run<T>(client: string, work: () => Promise<T>, { wait = false } = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        start: () => {
          work()
            .then(resolve, reject)
            .finally(() => this.release());
        },
        refuse: () => reject(new KdfBusy()),
      };
      if (this.active < this.options.concurrency && this.waitingCount === 0) {
        this.active++;
        job.start();
        return;
      }
      const mine = this.waiting.get(client);
      const tooMany = mine !== undefined && mine.length >= this.options.perClient;
      if (!wait && (tooMany || (this.waitingCount >= this.options.total && !this.makeRoomFor(client)))) {
        job.refuse();
        return;
      }
      if (mine) mine.push(job);
      else this.waiting.set(client, [job]);
      this.waitingCount++;
    });
  }

  /** Refuses the newest run of the client with the most waiting, if it has more than `client`. */
  private makeRoomFor(client: string): boolean {
    const longest = this.longestBeyond((this.waiting.get(client)?.length ?? 0) + 1);
    if (!longest) return false;
    const evicted = longest.pop() as Job;
    this.waitingCount--;
    evicted.refuse();
    return true;
  }

  /** The waiting runs of the client with the most of them, if that is more than `count`. */
  private longestBeyond(count: number): Job[] | null {
    let longest: Job[] | null = null;
    for (const jobs of this.waiting.values()) if (!longest || jobs.length > longest.length) longest = jobs;
    return longest && longest.length > count ? longest : null;
  }

  /** A run ended: its slot goes straight to the next client's first run (no newcomer slips in). */
  private release(): void {
    const next = this.waiting.entries().next();
    if (next.done) {
      this.active--;
      return;
    }
    const [client, jobs] = next.value;
    const job = jobs.shift() as Job;
    this.waitingCount--;
    // The client goes to the back of the turn order, with whatever it still has waiting.
    this.waiting.delete(client);
    if (jobs.length > 0) this.waiting.set(client, jobs);
    job.start();
  }
}
