// Where scrypt runs, the one expensive step a client without a valid token can make the daemon
// take, are scheduled (README "Security notes"): a few at a time (they share libuv's pool with
// SQLite, and each takes a core); a freed slot goes to the next client in turn, so a new valid
// token waits one round, not behind a flood; what cannot wait is refused at once (`KdfBusy`).

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
    const own = this.waiting.get(client)?.length ?? 0;
    let longest: [string, Job[]] | null = null;
    for (const entry of this.waiting) if (!longest || entry[1].length > longest[1].length) longest = entry;
    if (!longest || longest[1].length <= own + 1) return false;
    const evicted = longest[1].pop() as Job;
    this.waitingCount--;
    evicted.refuse();
    return true;
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
