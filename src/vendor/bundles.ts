// commander (every run) and knex (every command that opens the database) as the build bundles
// them: each package in one file, dist/vendor/<name>.cjs, with a V8 code cache beside it
// (scripts/build-vendor.js). Loaded through node's own resolution they cost a CLI run about
// 60 ms: knex alone is 80 files and 255 lodash files, each found, read and compiled. One file
// compiled from its cache costs a fifth of that.
//
// The cache is written by the build and only read here: it sits beside the code it caches,
// with the same owner and mode, so whoever could change it could change the code itself. A
// process never writes one, so no cache directory can be planted. V8 checks that a cache fits
// its own version, flags and the source; one that does not (node upgraded since the build, a
// daemon started with other V8 flags) is ignored and the file compiles as usual.
//
// Source code imports these packages' types only; their values come from vendored() (the
// lint's dependency rules hold every other module to that).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import type * as Commander from 'commander';
import type * as Knex from 'knex';

interface Bundles {
  commander: typeof Commander;
  knex: typeof Knex;
}
export type BundleName = keyof Bundles;

/** dist/vendor/ of this package, wherever this module runs from (src/ or dist/). */
export const VENDOR_DIR = fileURLToPath(new URL('../../dist/vendor/', import.meta.url));

export interface LoadedBundle {
  exports: unknown;
  /** Whether V8 took the code cache (false also when there was none). */
  cacheAccepted: boolean;
  /** The code cache as it stands now: every function compiled so far (the build takes it). */
  codeCache(): Buffer;
}

/**
 * Runs a bundled CommonJS file as node's module loader would, compiled with the code cache
 * beside it (`<file>.cache`) when there is one.
 */
export function loadBundle(file: string): LoadedBundle {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    throw new Error(`${file} is missing: run "npm run build" (npm install runs it too)`, { cause: err });
  }
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(`${file}.cache`);
  } catch {
    cachedData = undefined; // none: compiled from source, as node would
  }
  // node's own module wrapper, on the first line so that line numbers stay those of the file.
  // No import() inside: node 20 gives code compiled from a cache no loader for it, so the
  // bundled packages are used only where they require() (migrations are imported by
  // src/db/migrate.ts, not by knex).
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
  const module = { exports: {} as unknown };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  return {
    exports: module.exports,
    cacheAccepted: cachedData !== undefined && !script.cachedDataRejected,
    codeCache: () => script.createCachedData(),
  };
}

const loaded = new Map<BundleName, LoadedBundle>();

function load(name: BundleName): LoadedBundle {
  let bundle = loaded.get(name);
  if (!bundle) {
    bundle = loadBundle(path.join(VENDOR_DIR, `${name}.cjs`));
    loaded.set(name, bundle);
  }
  return bundle;
}

/** The bundled package, loaded once per process. */
export function vendored<N extends BundleName>(name: N): Bundles[N] {
  return load(name).exports as Bundles[N];
}

/** The bundle as loaded in this process (the build takes its code cache; tests ask whether V8 took it). */
export function loadedBundle(name: BundleName): LoadedBundle {
  return load(name);
}
