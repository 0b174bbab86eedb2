import { withDb, type Globals } from '../context.js';
import { printJson, printTable, writeOut } from '../output.js';

const onOff = (on: boolean) => (on ? 'on' : 'off');

export async function run(globals: Globals, opts: { json?: boolean }): Promise<void> {
  const { readSettings } = await import('../../domain/settings.js');
  const { routeRows, RULE_TEXT } = await import('../../domain/access.js');
  const settings = await withDb(globals(), (ctx) => readSettings(ctx));
  const rows = routeRows(settings);
  if (opts.json) printJson(rows);
  else {
    await printTable(
      ['Method', 'Path', 'Rule', 'Without a token'],
      rows.map((r) => [r.method, r.path, r.rule, r.open ? 'open' : '401']),
    );
    writeOut(
      `\nUnder public_access ${onOff(settings.public_access)}, public_api ${onOff(settings.public_api)}. Rules:\n`,
    );
    for (const [name, text] of Object.entries(RULE_TEXT)) writeOut(`  ${name.padEnd(20)} ${text}\n`);
  }
}
