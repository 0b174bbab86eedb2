// What a daemon must know fresh for every request: the authorisation generation and the
// settings. Settings are re-read only when the generation moved, and the token cache uses the
// generation to know when its entries need re-checking.
import { getSignalFile, readSignal } from '../db/change-signal.js';
import type { Db } from '../db/connect.js';
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

export const SIGNAL_RECHECK_MS = 1_000;

/**
 * SQLite: read the signal file the CLI replaces after each access change (src/db/change-signal.ts)
 * and query the database only when it moved, or once a second as a safety net.
 */
export function signalledGeneration(db: Db, file: string, now: () => number = Date.now): GenerationSource {
  let seen: string | null = null;
  let generation = '';
  let checkedAt = 0;
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

/** The best source for the database at hand. */
export function generationSourceFor(db: Db): GenerationSource {
  const file = getSignalFile(db);
  return file ? signalledGeneration(db, file) : pollingGeneration(db);
}

export class AccessState {
  private snapshot: AccessSnapshot | null = null;
  /** Settings reloads (for tests and the benchmark). */
  reloads = 0;

  constructor(
    private readonly db: Db,
    private readonly source: GenerationSource,
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
