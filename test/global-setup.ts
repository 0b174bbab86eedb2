// Builds what users run once before any test file runs: dist/bundle/, what bin/archivectl loads
// (`npm run build`: rolldown.config.js), so that the binary tests spawn always matches the source
// that in-process tests import. Types are judged by `npm run typecheck`, not here.
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'rolldown';
import config from '../rolldown.config.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The outputs in turn, as `rolldown -c` builds them: the first one empties dist/bundle/. */
export default async function buildOnce(): Promise<void> {
  for (const output of config as BuildOptions[]) await build({ ...output, cwd: ROOT, logLevel: 'warn' });
}
