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

  /** The snapshot of the current generation: the settings are read again only when it moved. */
  async current(): Promise<AccessSnapshot> {
    const generation = await this.source.read();
    if (this.snapshot?.generation === generation) return this.snapshot;
    const settings = await readSettings({ db: this.db });
    this.snapshot = { generation, settings };
    return this.snapshot;
  }

  async close(): Promise<void> {
    await this.source.close();
  }
}
