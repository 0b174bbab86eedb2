// config.example.json shows every key with its default: reading it gives exactly the defaults.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULTS, loadConfig } from '../src/config.js';
import { CONFIG_FILE } from '../src/config/sections.js';
import { REPO_ROOT } from './helpers/cli.js';

describe('config.example.json', () => {
  it('holds every key with its default value', () => {
    const file = path.join(REPO_ROOT, 'config.example.json');
    const fromExample = loadConfig(file, {});
    const fromDefaults = loadConfig(undefined, {}, REPO_ROOT);
    expect({ ...fromExample, file: null }).toEqual(fromDefaults);
    expect(Object.keys(DEFAULTS.limits).sort()).toEqual(Object.keys(fromExample.limits).sort());
  });

  it('writes out every key the configuration knows: a key left out would pass as its default', async () => {
    const written = JSON.parse(await readFile(path.join(REPO_ROOT, 'config.example.json'), 'utf8')) as object;
    expect(keyPaths(written)).toEqual(schemaKeys(CONFIG_FILE));
    expect(schemaKeys(CONFIG_FILE)).toContain('limits.reportRate');
  });
});

/** `a.b.c` for every leaf of a JSON object, sorted. */
function keyPaths(value: object, prefix = ''): string[] {
  return Object.entries(value)
    .flatMap(([key, v]) =>
      v !== null && typeof v === 'object' && !Array.isArray(v)
        ? keyPaths(v as object, `${prefix}${key}.`)
        : [`${prefix}${key}`],
    )
    .sort();
}

/** The same for a valibot schema: the keys of its objects, through optional and pipes. */
function schemaKeys(schema: unknown, prefix = ''): string[] {
  let s = schema as { wrapped?: unknown; entries?: Record<string, unknown>; pipe?: unknown[] };
  while (s.wrapped) s = s.wrapped;
  if (!s.entries && s.pipe?.[0] && (s.pipe[0] as typeof s).entries) s = s.pipe[0];
  if (!s.entries) return [prefix.slice(0, -1)];
  return Object.entries(s.entries)
    .flatMap(([key, entry]) => schemaKeys(entry, `${prefix}${key}.`))
    .sort();
}
