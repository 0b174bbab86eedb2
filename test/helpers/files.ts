// Reading an installation's directory the way a test searching it for secrets does.
import { readdir } from 'node:fs/promises';
import path from 'node:path';

/** Every regular file under `dir`, recursively. */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(full)));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}
