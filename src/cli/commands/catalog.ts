import type { Command } from 'commander';
import { withDb, type GlobalOptions } from '../context.js';
import { printJson, printTable } from '../output.js';
import type { LoadCounts } from '../../domain/catalog/load.js';

export function registerCatalog(program: Command, globals: () => GlobalOptions): void {
  const catalog = program.command('catalog').description('the catalogue: actors, places, keywords, objects');

  catalog
    .command('load <file.json>')
    .description('load actors, places, keywords and objects from a JSON file ("-" for stdin), all or nothing')
    .option('--json', 'print {"actors": n, "places": n, "keywords": n, "objects": n}')
    .addHelpText(
      'after',
      `
The file is a JSON object with optional arrays:
  actors    [{"name": "…", "type": "person", "gnd": "118540238", …}]
  places    [{"name": "…", "country_code": "CH", "location": "47.37 8.54", …}]
  keywords  ["name", {"name": "…", "label": {"en": "…"}, "gnd": "…"}]
  objects   [{"identifier": "…", "title": "…", "status": "ingested", "keywords": ["name"]}]
Everything is checked first; one bad entry (named like actors[3].name) loads nothing.
Keywords are matched by name, case-insensitively: existing ones are reused, and the count is
of keywords created. An object identifier that already exists is refused.

Example:
  archivectl catalog load demo-catalog.json`,
    )
    .action(async (file: string, opts: { json?: boolean }) => {
      const { readInput } = await import('../read-input.js');
      const { invalid } = await import('../../errors.js');
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
        printTable(
          ['Loaded', 'Count'],
          Object.entries<number>({ ...counts }).map(([kind, n]) => [kind, n]),
        );
    });
}
