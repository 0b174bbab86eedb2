import type { Clock } from '../clock.js';
import type { Db } from '../db/dialect.js';

/** What every domain function needs: the database and the time. */
export interface Ctx {
  db: Db;
  clock: Clock;
}
