import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { errorCode, invalid } from '../../errors.js';
import { withDb, type Globals } from '../context.js';
import { io } from '../io.js';
import { printJson, printTable } from '../output.js';
import { progressLine, type Progress } from '../progress.js';

/** The longest entry a catalogue file may hold, in characters (an actor's comment alone may take 65,535). */
const MAX_ENTRY = 16 * 1024 * 1024;

/** The file's bytes a megabyte at a time ("-": stdin); the bytes read so far are the load's progress. */
async function* chunksOf(
  file: string,
  handle: FileHandle | null,
  progress?: Progress,
): AsyncGenerator<string | Buffer> {
  const source = handle ? handle.createReadStream({ highWaterMark: 1024 * 1024 }) : io().stdin;
  const total = handle ? (await handle.stat()).size : undefined;
  let read = 0;
  try {
    for await (const chunk of source) {
      read += (chunk as string | Buffer).length;
      progress?.update(`loading ${file === '-' ? 'standard input' : path.basename(file)}`, read, total, 'bytes');
      yield chunk as string | Buffer;
    }
  } catch (err) {
    throw invalid(`cannot read ${file} (${errorCode(err)}); nothing was loaded`);
  }
}

export async function load(globals: Globals, file: string, opts: { json?: boolean }): Promise<void> {
  const [{ loadCatalog, notAnObject }, { jsonSections, JsonNotObjectError, JsonSyntaxError }] = await Promise.all([
    import('../../domain/catalog/load.js'),
    import('../../json-sections.js'),
  ]);
  let handle: FileHandle | null = null;
  if (file !== '-') {
    try {
      handle = await open(path.resolve(io().cwd, file), 'r');
    } catch (err) {
      throw invalid(`cannot read ${file} (${errorCode(err)})`);
    }
  }
  const progress = progressLine();
  try {
    const events = jsonSections(chunksOf(file, handle, progress), MAX_ENTRY);
    const counts = await withDb(globals(), (ctx) => loadCatalog(ctx, events))
      .catch((err: unknown) => {
        if (err instanceof JsonSyntaxError) {
          throw invalid(`${file} is not valid JSON (${err.message}); nothing was loaded`);
        }
        if (err instanceof JsonNotObjectError) notAnObject();
        throw err;
      })
      .finally(() => progress?.done());
    if (opts.json) printJson(counts);
    else {
      const sections = ['actors', 'places', 'keywords', 'objects'] as const;
      await printTable(
        ['', 'Loaded', 'Already there (skipped)'],
        sections.map((s) => [s, counts[s], counts.skipped[s]]),
      );
    }
  } finally {
    await handle?.close();
  }
}
