import { conflict } from '../../errors.js';
import { readConfig, type Globals } from '../context.js';
import { printJson, printTable } from '../output.js';

export async function run(globals: Globals, opts: { json?: boolean }): Promise<void> {
  const { runChecks } = await import('../doctor-checks.js');
  const findings = await runChecks(() => readConfig(globals()));
  if (opts.json) printJson(findings);
  else
    await printTable(
      ['Status', 'Check', 'Detail'],
      // Details are never cut: they say how to fix what is wrong.
      findings.map((f) => [f.status === 'fail' ? 'FAIL' : f.status, f.check, f.detail]),
    );
  const failed = findings.filter((f) => f.status === 'fail').length;
  if (failed > 0) throw conflict(`${failed} check(s) failed`);
}
