import { helpText } from '../about.js';
import type { Command } from 'commander';
import type { Globals } from '../context.js';

const actions = () => import('../actions/catalog.js');

export function registerCatalog(program: Command, globals: Globals): void {
  const catalog = program.command('catalog').description('the catalogue: actors, places, keywords, objects');

  catalog
    .command('load <file.json>')
    .description('load actors, places, keywords and objects from a JSON file ("-" for stdin), all or nothing')
    .option('--json', 'print {"actors": n, "places": n, "keywords": n, "objects": n}')
    .addHelpText(
      'after',
      helpText(`
The file is a JSON object with optional arrays:
  actors    [{"name": "…", "type": "person", "gnd": "118540238", …}]
  places    [{"name": "…", "country_code": "CH", "location": "47.37 8.54", …}]
  keywords  ["name", {"name": "…", "label": {"en": "…"}, "gnd": "…"}]
  objects   [{"identifier": "…", "title": "…", "status": "ingested", "keywords": ["name"]}]
Everything is checked first; one bad entry (named like actors[3].name) loads nothing.
Keywords are matched by name, case-insensitively: existing ones are reused, and the count is
of keywords created. An object identifier that already exists is refused.

Example:
  archivectl catalog load demo-catalog.json`),
    )
    .action(async (file: string, opts: { json?: boolean }) => (await actions()).load(globals, file, opts));
}
