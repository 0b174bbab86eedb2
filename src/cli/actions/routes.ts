import { reflow } from '../about.js';
import { withDb, type Globals } from '../context.js';
import { io } from '../io.js';
import { printJson, printTable, writeOut } from '../output.js';

const onOff = (on: boolean) => (on ? 'on' : 'off');

export async function run(globals: Globals, opts: { json?: boolean; markdown?: boolean }): Promise<void> {
  const { readSettings } = await import('../../domain/settings.js');
  const { accessTables, routeRows, RULE_TEXT } = await import('../../domain/access.js');
  const { ROUTES } = await import('../../http/routes/index.js');
  if (opts.markdown) {
    // The tables of docs/http-api.md: what the declarations say, whatever the settings.
    const { RESOURCES } = await import('../../domain/catalog/resources/index.js');
    writeOut(
      accessTables(
        ROUTES,
        RESOURCES.map((r) => r.table),
      ),
    );
    return;
  }
  const settings = await withDb(globals(), (ctx) => readSettings(ctx));
  const rows = routeRows(ROUTES, settings);
  if (opts.json) printJson(rows);
  else {
    // "Open": answered without a token under the settings now, else 401. In a narrow terminal
    // the longest paths (reconciliation's) are cut with "…"; piped, nothing is.
    await printTable(
      ['Method', 'Path', 'Rule', 'Scope', 'Open'],
      rows.map((r) => [r.method, r.path, r.rule, r.scope ?? '-', r.open ? 'open' : '401']),
      { flex: ['Path'] },
    );
    const { stdout } = io();
    const legend = Object.entries(RULE_TEXT).map(([name, text]) => `  ${name.padEnd(20)} ${text}`);
    const text =
      `\nOpen: answered without a token under public_access ${onOff(settings.public_access)}, ` +
      `public_api ${onOff(settings.public_api)}; else 401. Scope: what a token made with --scope needs ` +
      `(-: none; a token without --scope has every right of its account). Rules:\n${legend.join('\n')}\n`;
    writeOut(stdout.isTTY ? `${reflow(text, stdout.columns ?? 80)}` : text);
  }
}
