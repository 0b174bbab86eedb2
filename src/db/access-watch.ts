// How a running daemon learns the current access generation for each request under /api, without
// a database round trip where the dialect allows: the signal file on SQLite (./change-signal.ts),
// the generation notified while its lease holds on PostgreSQL (./pg-lease.ts), else one read.
import { readAccessGeneration } from './access-generation.js';
import { getSignalFile, SIGNAL_RECHECK_MS, SignalWatch } from './change-signal.js';
import { isPg, type Db } from './dialect.js';
import { startLease, type Lease, type NotificationState } from './pg-lease.js';

/** `read` answers from memory when the dialect allows (no database round trip). */
export interface GenerationSource {
  read(): Promise<string>;
  close(): Promise<void>;
  /** PostgreSQL: whether change notifications are up, unverified or down (for /readyz). */
  notifications?(): NotificationState;
}

/** The best source for the database at hand; `onError` hears of interrupted notifications. */
export async function watchAccessGeneration(db: Db, onError: (err: Error) => void): Promise<GenerationSource> {
  const file = getSignalFile(db);
  if (file) return signalledGeneration(db, file);
  if (isPg(db)) return leasedGeneration(db, onError);
  return { read: () => readAccessGeneration(db), close: async () => undefined };
}

/** SQLite: query the database only when the signal file moved, or once a second as a safety net. */
function signalledGeneration(db: Db, file: string): GenerationSource {
  let seen: string | null = null;
  let generation = '';
  let checkedAt = Number.NEGATIVE_INFINITY;
  const signal = new SignalWatch(file);
  const reread = async (content: string, at: number) => {
    // Read the database after the file, so a change signalled before this request is seen.
    generation = await readAccessGeneration(db);
    seen = content;
    checkedAt = at;
    return generation;
  };
  return {
    async read() {
      const content = signal.read();
      const at = performance.now();
      if (content === seen && at - checkedAt < SIGNAL_RECHECK_MS) return generation;
      return reread(content, at);
    },
    close: async () => signal.release(),
  };
}

/** PostgreSQL: the notified generation while the lease holds, else a read; `lease`: diagnostics. */
async function leasedGeneration(db: Db, onError: (err: Error) => void): Promise<GenerationSource & { lease: Lease }> {
  const lease = await startLease(db, () => readAccessGeneration(db), onError);
  return {
    lease,
    notifications: () => lease.notifications(),
    read: async () => lease.current() ?? readAccessGeneration(db),
    close: () => lease.close(),
  };
}
