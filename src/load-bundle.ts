// The program as bin/archivectl runs it: dist/ bundled by scripts/build-bundle.js into a few
// CommonJS files under dist/bundle/, each compiled from the V8 code cache beside it. Loaded
// module by module from dist/ and node_modules, a command spends most of its time finding,
// reading and compiling some 500 files (knex and lodash alone are 340); from the bundle,
// `--help` reads three files and `token list` five, and V8 compiles none of them.
//
// The bundle is split where runs differ (scripts/build-bundle.js): the command tree, which
// every run reads and --help needs alone; what the commands and the daemon share (domain,
// database, knex, configuration); what only the daemon loads; what only the other commands
// load. token list never reads the HTTP server, and the daemon holds no other command's code.
//
// A code cache is code: a process that took a planted one would run it. So caches are written
// only by the build, beside their bundle, with the same owner and mode (whoever could change
// one could change the bundle itself), and never while the program runs: there is no cache
// directory to plant one in. V8 takes a cache only when it fits its own version, its flags and
// the source; one that does not (node upgraded since the build, the daemon's memory flags) is
// ignored, and the file is compiled from source as node would: slower, never wrong.
//
// A vm.Script has no loader for import() unless given one, and node 20's only ready one is
// experimental: it prints a warning on every run, and failed here on code compiled from a
// cache. So the bundle requires instead, and the one file the program imports at run time (a
// migration) goes through db/import-file.cts, which node loads itself.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

/** dist/bundle/ of this package, wherever this module runs from (src/ or dist/). */
export const BUNDLE_DIR = fileURLToPath(new URL('../dist/bundle/', import.meta.url));
export const ENTRY = 'archivectl.cjs';

export interface LoadedFile {
  /** Whether V8 took the file's code cache (false also when there was none). */
  cacheAccepted: boolean;
  /** The code cache as it stands now: every function compiled so far (the build writes it). */
  codeCache(): Buffer;
}

export interface LoadedBundle {
  exports: unknown;
  /** Every file of the bundle loaded so far, by path. */
  files: Map<string, LoadedFile>;
}

/** Loads the bundle's entry from `dir`; its other files load when it first requires them. */
export function loadBundle(dir: string = BUNDLE_DIR): LoadedBundle {
  const files = new Map<string, LoadedFile & { module: { exports: unknown } }>();

  function load(file: string): unknown {
    const known = files.get(file);
    if (known) return known.module.exports; // a cycle between files, or a file required twice
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
    const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
      filename: file,
      ...(cachedData ? { cachedData } : {}),
    });
    const module = { exports: {} as unknown };
    files.set(file, {
      module,
      cacheAccepted: cachedData !== undefined && !script.cachedDataRejected,
      codeCache: () => script.createCachedData(),
    });
    const nodeRequire = createRequire(file);
    // The bundle's own files load the same way; anything else (node's modules, the database
    // drivers, import-file.cjs) as node loads it.
    const require = Object.assign(
      (id: string): unknown =>
        id.startsWith('./') && id.endsWith('.cjs') ? load(path.join(path.dirname(file), id)) : nodeRequire(id),
      { resolve: nodeRequire.resolve, cache: nodeRequire.cache },
    );
    const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
    wrapper.call(module.exports, module.exports, require, module, file, path.dirname(file));
    return module.exports;
  }

  const exports = load(path.join(dir, ENTRY));
  return { exports, files };
}
