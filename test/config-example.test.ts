// config.example.json shows every key with its default: reading it gives exactly the defaults.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULTS, loadConfig } from '../src/config.js';
import { REPO_ROOT } from './helpers/cli.js';

describe('config.example.json', () => {
  it('holds every key with its default value', () => {
    const file = path.join(REPO_ROOT, 'config.example.json');
    const fromExample = loadConfig(file, {});
    const fromDefaults = loadConfig(undefined, {}, REPO_ROOT);
    expect({ ...fromExample, file: null }).toEqual(fromDefaults);
    expect(Object.keys(DEFAULTS.limits).sort()).toEqual(Object.keys(fromExample.limits).sort());
  });
});
