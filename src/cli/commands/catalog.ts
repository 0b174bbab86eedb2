import { helpText } from '../about.js';
import type { Command } from 'commander';
import type { Globals } from '../context.js';

const actions = () => import('../actions/catalog.js');

export function registerCatalog(program: Command, globals: Globals): void {
  const catalog = program.command('catalog').description('the catalogue: actors, places, keywords, objects');

  catalog
    .command('load <file.json>')
    .description(
      'load actors, places, keywords and objects from a JSON file ("-" for stdin), all or nothing; what is there already is skipped',
    )
    .option('--json', 'print {"actors": n, "places": n, "keywords": n, "objects": n, "skipped": {…}}')
    .addHelpText(
      'after',
      helpText(`
The file is a JSON object with optional arrays:
  actors    [{"name": "…", "type": "person", "gnd": "118540238", …}]
  places    [{"name": "…", "country_code": "CH", "location": "47.37 8.54", …}]
  keywords  ["name", {"name": "…", "label": {"en": "…"}, "gnd": "…"}]
  objects   [{"identifier": "…", "title": "…", "status": "ingested", "keywords": ["name"]}]
Every entry is checked; one bad entry (named like actors[3].name) loads nothing of the file.
The file is read as it is written, one entry at a time, so its size is not limited by memory.

What is there already is skipped and counted as such, so loading a file twice adds nothing:
  actors    the same name (letter case aside), type, date_start, date_end, gnd and sikart
  places    the same name (letter case aside), city, country_code, gnd and geonames
  keywords  the same name, letter case aside (objects' keywords are created when new)
  objects   the same identifier (an identifier twice in one file is refused)
Entries that differ in any of these are new records; existing records are never changed.

Example:
  archivectl catalog load demo-catalog.json`),
    )
    .action(async (file: string, opts: { json?: boolean }) => (await actions()).load(globals, file, opts));
}
