// Node's compile cache runs what it finds in place of a matching source, so it is kept only in a directory
// file-trust.ts trusts, never in os.tmpdir(); else it stays off. bin/archivectl calls this first.
import { existsSync, lstatSync, mkdirSync, realpathSync } from 'node:fs';
import nodeModule from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { untrustedDirectory, untrustedOwnerAndMode } from './file-trust.js';

const WHAT = 'compile cache directory';

/**
 * Why another user may have written into `dir` (absolute, links resolved), or null. The cache
 * directory is judged as a file whose content decides what runs (`own`); an existing directory it
 * is to be created in, and every directory above, as a file's directory.
 */
export function untrustedCacheDirectory(dir: string, own = true): string | null {
  const st = lstatSync(dir);
  if (!st.isDirectory()) return `${dir} is not a directory`;
  const problem = own ? untrustedOwnerAndMode(st, dir, WHAT) : untrustedDirectory(dir, dir, WHAT);
  if (problem) return problem;
  for (let above = path.dirname(dir); ; above = path.dirname(above)) {
    const aboveProblem = untrustedDirectory(above, dir, WHAT);
    if (aboveProblem || above === path.dirname(above)) return aboveProblem;
  }
}

/** The directory meant for the cache, by systemd's CacheDirectory= and the XDG rules; else null. */
function wantedDirectory(env: NodeJS.ProcessEnv): string | null {
  const systemd = env.CACHE_DIRECTORY?.split(':')[0];
  if (systemd && path.isAbsolute(systemd)) return path.join(systemd, 'compile-cache');
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'archivectl', 'compile-cache');
  const home = os.homedir();
  return path.isAbsolute(home) ? path.join(home, '.cache', 'archivectl', 'compile-cache') : null;
}

/** The cache directory, created (mode 0700) if need be, once trusted; else null. */
function ownCacheDirectory(env: NodeJS.ProcessEnv): string | null {
  const wanted = wantedDirectory(env);
  if (!wanted) return null;
  try {
    // What exists is judged before anything is created in it.
    let existing = wanted;
    while (!existsSync(existing)) existing = path.dirname(existing);
    const base = realpathSync(existing);
    if (untrustedCacheDirectory(base, existing === wanted)) return null;
    mkdirSync(path.join(base, path.relative(existing, wanted)), { recursive: true, mode: 0o700 });
    // Judged again as created: another user may have made a directory on the way first.
    const dir = realpathSync(wanted);
    return untrustedCacheDirectory(dir) ? null : dir;
  } catch {
    return null; // no home, a read-only file system: no cache
  }
}

/** Node 22.1's compile cache functions; @types/node of node 20 has none. */
const cacheApi = nodeModule as {
  enableCompileCache?: (dir: string) => unknown;
  getCompileCacheDir?: () => string | undefined;
};

/**
 * Turns node's compile cache on where it is trusted. NODE_COMPILE_CACHE is read by node before
 * any of archivectl runs: when it names an untrusted directory, returns why, for the caller to stop.
 */
export function enableOwnCompileCache(env: NodeJS.ProcessEnv = process.env): string | null {
  const { enableCompileCache, getCompileCacheDir } = cacheApi;
  if (!enableCompileCache || process.getuid === undefined || env.NODE_DISABLE_COMPILE_CACHE) return null;
  if (env.NODE_COMPILE_CACHE) {
    let problem: string | null;
    try {
      const dir = getCompileCacheDir?.() ?? path.resolve(env.NODE_COMPILE_CACHE);
      problem = untrustedCacheDirectory(realpathSync(dir));
    } catch {
      return null; // node could not create it: no cache in use
    }
    return problem
      ? `NODE_COMPILE_CACHE names a directory whose code node would run, and ${problem}. ` +
          'Unset NODE_COMPILE_CACHE (archivectl keeps its own cache under ~/.cache/archivectl), ' +
          'or name a directory only you can write'
      : null;
  }
  const dir = ownCacheDirectory(env);
  if (dir) enableCompileCache(dir);
  return null;
}
