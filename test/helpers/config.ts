// Custom configurations for a sandbox: merges keys into the sandbox's own config.json (which
// already names its database and data directory), so a test can start a daemon with, e.g., a
// small SIP upload limit.
import { readFile, writeFile } from 'node:fs/promises';
import type { Sandbox } from './cli.js';

export type Json = { [key: string]: unknown };

/** `over` laid on `base`, objects merged key by key (arrays and other values replaced). */
function merge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const b = base[key];
    out[key] =
      b && typeof b === 'object' && !Array.isArray(b) && value && typeof value === 'object' && !Array.isArray(value)
        ? merge(b as Json, value as Json)
        : value;
  }
  return out;
}

/** Merges `patch` into the sandbox's configuration file; takes effect for processes started afterwards. */
export async function patchConfig(box: Pick<Sandbox, 'configFile'>, patch: Json): Promise<Json> {
  const current = JSON.parse(await readFile(box.configFile, 'utf8')) as Json;
  const next = merge(current, patch);
  await writeFile(box.configFile, `${JSON.stringify(next, null, 2)}\n`);
  return next;
}
