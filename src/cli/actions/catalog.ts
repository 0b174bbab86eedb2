import { invalid } from '../../errors.js';
import { withDb, type Globals } from '../context.js';
import { printJson, printTable } from '../output.js';
import { readInput } from '../read-input.js';

export async function load(globals: Globals, file: string, opts: { json?: boolean }): Promise<void> {
  const { loadCatalog } = await import('../../domain/catalog/load.js');
  const text = await readInput(file);
  let data: unknown;
  try {
    data = JSON.parse(text) as unknown;
  } catch (err) {
    throw invalid(`${file} is not valid JSON (${(err as Error).message}); nothing was loaded`);
  }
  const counts = await withDb(globals(), (ctx) => loadCatalog(ctx, data));
  if (opts.json) printJson(counts);
  else await printTable(['Loaded', 'Count'], Object.entries<number>({ ...counts }));
}
