// What archivectl catalog load does (its options and help are in ../commands/catalog.ts).
// Loaded only when it runs.
import { invalid } from '../../errors.js';
import { withDb, type GlobalOptions } from '../context.js';
import { printJson, printTable } from '../output.js';
import { readInput } from '../read-input.js';
import type { LoadCounts } from '../../domain/catalog/load.js';

type Globals = () => GlobalOptions;

export async function load(globals: Globals, file: string, opts: { json?: boolean }): Promise<void> {
  const { loadCatalog } = await import('../../domain/catalog/load.js');
  const text = await readInput(file);
  let data: unknown;
  try {
    data = JSON.parse(text) as unknown;
  } catch (err) {
    throw invalid(`${file} is not valid JSON (${(err as Error).message}); nothing was loaded`);
  }
  const counts: LoadCounts = await withDb(globals(), (ctx) => loadCatalog(ctx, data));
  if (opts.json) printJson(counts);
  else
    await printTable(
      ['Loaded', 'Count'],
      Object.entries<number>({ ...counts }).map(([kind, n]) => [kind, n]),
    );
}
