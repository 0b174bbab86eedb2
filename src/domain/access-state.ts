// What a daemon must know fresh for every request: the authorisation generation and the
// settings. Settings are re-read only when the generation moved, and the token cache uses the
// generation to know when its entries need re-checking.
import { getSignalFile, readSignal, SIGNAL_RECHECK_MS } from '../db/change-signal.js';
import type { Db } from '../db/connect.js';
import { isPg, startLease, type Lease } from '../db/pg-lease.js';
import { readGeneration } from './auth-state.js';
import { readSettings, type Settings } from './settings.js';

export interface AccessSnapshot {
  generation: string;
  settings: Settings;
}

/** Where the current generation comes from; `read` runs once per request under /api. */
export interface GenerationSource {
  read(): Promise<string>;
  close(): Promise<void>;
}

/** The fallback source: one small indexed read per request. */
export function pollingGeneration(db: Db): GenerationSource {
  return { read: () => readGeneration(db), close: async () => undefined };
}


/**
 * SQLite: read the signal file the CLI replaces after each access change (src/db/change-signal.ts)
 * and query the database only when it moved, or once a second as a safety net.
 */
export function signalledGeneration(db: Db, file: string, now: () => number = () => performance.now()): GenerationSource {
  let seen: string | null = null;
  let generation = '';
  let checkedAt = Number.NEGATIVE_INFINITY;
  return {
    async read() {
      const content = readSignal(file);
      const at = now();
      if (content === seen && at - checkedAt < SIGNAL_RECHECK_MS) return generation;
      // Read the database after the file, so a change signalled before this request is seen.
      const fresh = await readGeneration(db);
      seen = content;
      generation = fresh;
      checkedAt = at;
      return fresh;
    },
    close: async () => undefined,
  };
}

/**
 * PostgreSQL: while this daemon holds its lease (src/db/pg-lease.ts), the generation it was
 * notified of is current, because the CLI waits for every leased daemon to acknowledge a
 * change before it returns; without a valid lease, one read per request.
 */
export async function leasedGeneration(db: Db, onError: (err: Error) => void): Promise<GenerationSource & { lease: Lease }> {
  const lease = await startLease(db, () => readGeneration(db), onError);
  return {
    lease,
    read: async () => lease.current() ?? readGeneration(db),
    close: () => lease.close(),
  };
}

/** The best source for the database at hand. */
export async function generationSourceFor(db: Db, onError: (err: Error) => void): Promise<GenerationSource> {
  const file = getSignalFile(db);
  if (file) return signalledGeneration(db, file);
  if (isPg(db)) return leasedGeneration(db, onError);
  return pollingGeneration(db);
}

export class AccessState {
  private snapshot: AccessSnapshot | null = null;
  /** Settings reloads (for tests and the benchmark). */
  reloads = 0;

  constructor(
    private readonly db: Db,
    readonly source: GenerationSource,
  ) {}

  async current(): Promise<AccessSnapshot> {
    const generation = await this.source.read();
    const known = this.snapshot;
    if (known && known.generation === generation) return known;
    const settings = await readSettings({ db: this.db });
    this.reloads++;
    const fresh = { generation, settings };
    this.snapshot = fresh;
    return fresh;
  }

  async close(): Promise<void> {
    await this.source.close();
  }
}
