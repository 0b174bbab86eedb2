// Whole-register documents (TEI exports, BEACON dumps) built into files under `<dataDir>/exports` a
// slice at a time (docs/ARCHITECTURE.md) and renamed into place under a name holding their hash: a
// reader never sees a half written file, and two daemons sharing dataDir write the same one.
import { createHash, randomUUID, type Hash } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { once } from 'node:events';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import type { Knex } from 'knex';
import { errorCode } from '../../errors.js';
import { SingleFlight } from '../../single-flight.js';

export const exportsDir = (dataDir: string): string => path.join(dataDir, 'exports');

/** Files being built start with this (and are never served). */
export const BUILD_PREFIX = '.build-';

/** Rows per slice: a slice costs a few milliseconds of rendering. */
export const SLICE_ROWS = 500;

/** Lets other requests and /healthz run between slices (a 100,000-row build delays them by one). */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const STALE_BUILD_MS = 60 * 60 * 1000;
const swept = new Set<string>();

/** Removes builds a stopped process left behind, once this old (once per directory and process). */
async function sweepStaleBuilds(dir: string): Promise<void> {
  if (swept.has(dir)) return;
  swept.add(dir);
  const names = await readdir(dir).catch(() => [] as string[]);
  const now = Date.now();
  for (const name of names.filter((n) => n.startsWith(BUILD_PREFIX))) {
    const file = path.join(dir, name);
    const info = await stat(file).catch(() => null);
    if (info && now - info.mtimeMs > STALE_BUILD_MS) await rm(file, { force: true });
  }
}

/** A file being written, in order, with backpressure; its SHA-256 and size counted on the way. */
export class FileBuild {
  private readonly out: WriteStream;
  private readonly hash: Hash = createHash('sha256');
  size = 0;

  private constructor(readonly path: string) {
    // `flush`: fsync before the file is closed, so a renamed file is a whole one after a crash too.
    this.out = createWriteStream(path, { flags: 'wx', mode: 0o600, flush: true });
    this.out.on('error', () => undefined); // reported by write() and finish()
  }

  static async start(dir: string): Promise<FileBuild> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await sweepStaleBuilds(dir);
    return new FileBuild(path.join(dir, `${BUILD_PREFIX}${randomUUID()}`));
  }

  /** Appends text; resolves once the file can take more (backpressure). */
  async write(chunk: string | Buffer): Promise<void> {
    if (this.out.errored) throw this.out.errored;
    if (chunk.length === 0) return;
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    this.hash.update(buf);
    this.size += buf.length;
    if (!this.out.write(buf)) await once(this.out, 'drain');
  }

  /** Appends the bytes of another file (a part built on its own). */
  async append(file: string): Promise<void> {
    const handle = await open(file, 'r');
    try {
      for await (const chunk of handle.createReadStream({ autoClose: false })) await this.write(chunk as Buffer);
    } finally {
      await handle.close();
    }
  }

  /** Ends the file, flushed and closed (a part that another build appends). */
  async close(): Promise<void> {
    this.out.end();
    await finished(this.out);
  }

  /** Ends the file, flushed, and renames it to `name(sha256)` in `dir`: the final path. */
  async finish(dir: string, name: (sha256: Buffer) => string): Promise<{ file: string; size: number; sha256: Buffer }> {
    await this.close();
    const sha256 = this.hash.digest();
    const file = path.join(dir, name(sha256));
    await rename(this.path, file);
    return { file, size: this.size, sha256 };
  }

  /** Stops writing and removes the file (after a failure). */
  async abort(): Promise<void> {
    this.out.destroy();
    await finished(this.out).catch(() => undefined);
    await rm(this.path, { force: true });
  }
}

/** Runs `work` with a new build; removes the build's file when it fails. */
export async function withBuild<T>(dir: string, work: (build: FileBuild) => Promise<T>): Promise<T> {
  const build = await FileBuild.start(dir);
  try {
    return await work(build);
  } catch (err) {
    await build.abort();
    throw err;
  }
}

/** `table`'s rows by id, a slice at a time; `narrow` must group its conditions (`where((b) => …)`). */
export async function* slicesOf<T extends { id: number | string }>(
  db: Knex,
  table: string,
  columns: readonly string[],
  narrow: (q: Knex.QueryBuilder) => Knex.QueryBuilder = (q) => q,
): AsyncGenerator<T[]> {
  let after = 0;
  for (;;) {
    const rows = (await narrow(db(table))
      .where('id', '>', after)
      .orderBy('id')
      .limit(SLICE_ROWS)
      .select(...columns)) as T[];
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < SLICE_ROWS) return;
    after = Number((rows[rows.length - 1] as T).id);
    await nextTurn();
  }
}

/** A catalogue table's version: the tei_sources triggers change it in every write's transaction. */
export async function tableVersion(db: Knex, table: string): Promise<string | null> {
  const row = await db('tei_sources').where('kind', table).first<{ version: string } | undefined>('version');
  return row?.version ?? null;
}

/** Tries before giving up on a file that keeps vanishing as soon as it is built. */
const OPEN_ATTEMPTS = 5;

/**
 * `built`'s file opened for reading; one that is gone (replaced by a newer build, removed by
 * another daemon or by hand) is built again by `rebuild`. `what` names it in the error.
 */
export async function openOrRebuild<T extends { file: string }>(
  built: T,
  rebuild: () => Promise<T>,
  what: string,
): Promise<{ built: T; handle: FileHandle }> {
  let current = built;
  for (let attempt = 0; attempt < OPEN_ATTEMPTS; attempt++) {
    try {
      return { built: current, handle: await open(current.file, 'r') };
    } catch (err) {
      if (errorCode(err) !== 'ENOENT') throw err;
    }
    current = await rebuild();
  }
  throw new Error(`${what} was removed as soon as it was built`);
}

/** Builds in flight, per database and key: callers asking while one runs share its promise. */
export class SharedBuilds<T> {
  private readonly flights = new WeakMap<Knex, SingleFlight<string, T>>();

  run(db: Knex, key: string, make: () => Promise<T>): Promise<T> {
    const flights = this.flights.get(db) ?? new SingleFlight<string, T>();
    this.flights.set(db, flights);
    return flights.run(key, make);
  }
}

/** Removes the files in `dir` named by `prefix` except `keep` (older builds of the same document). */
export async function removeOthers(dir: string, prefix: string, keep: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const base = path.basename(keep);
  await Promise.all(
    names.filter((n) => n.startsWith(prefix) && n !== base).map((n) => rm(path.join(dir, n), { force: true })),
  );
}
