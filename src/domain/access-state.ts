// What a daemon must know fresh for every request: the authorisation generation (watched by
// src/db/access-watch.ts; the token cache re-checks its entries when it moved) and the settings,
// re-read only when it moved.
import type { GenerationSource } from '../db/access-watch.js';
import type { Db } from '../db/dialect.js';
import { readSettings, type Settings } from './settings.js';

export interface AccessSnapshot {
  generation: string;
  settings: Settings;
}

export class AccessState {
  private snapshot: AccessSnapshot | null = null;

  constructor(
    private readonly db: Db,
    readonly source: GenerationSource,
  ) {}

  /** The snapshot itself when the generation is known at once and has not moved, else a promise of it. */
  current(): AccessSnapshot | Promise<AccessSnapshot> {
    const generation = this.source.read();
    if (typeof generation === 'string' && this.snapshot?.generation === generation) return this.snapshot;
    return this.refresh(generation);
  }

  private async refresh(reading: string | Promise<string>): Promise<AccessSnapshot> {
    const generation = await reading;
    if (this.snapshot?.generation === generation) return this.snapshot;
    const settings = await readSettings({ db: this.db });
    this.snapshot = { generation, settings };
    return this.snapshot;
  }

  async close(): Promise<void> {
    await this.source.close();
  }
}
