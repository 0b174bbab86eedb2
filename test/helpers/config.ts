// Custom configurations for a sandbox: merges keys into the sandbox's own config.json (which
// already names its database and data directory), so a test can start a daemon with, e.g., a
// small SIP upload limit.
import { readFile, writeFile } from 'node:fs/promises';
import { merge, type Json } from '../../src/config.js';
import type { Sandbox } from './cli.js';

/** Merges `patch` into the sandbox's configuration file; takes effect for processes started afterwards. */
export async function patchConfig(box: Pick<Sandbox, 'configFile'>, patch: Json): Promise<Json> {
  const current = JSON.parse(await readFile(box.configFile, 'utf8')) as Json;
  const next = merge(current, patch);
  await writeFile(box.configFile, `${JSON.stringify(next, null, 2)}\n`);
  return next;
}
