// Node's compile cache (node 22.1 and later), in a directory no other user can write.
//
// Node trusts what it finds there: an entry whose checksums match and whose source has the same
// length is run in place of the source. Left to itself, `module.enableCompileCache()` uses
// os.tmpdir()/node-compile-cache/, which node creates without looking at who owns it, so another
// user of the machine could plant code that root (or the service's user) then runs. So the cache
// lives in the user's own cache directory ($CACHE_DIRECTORY from systemd's CacheDirectory=, else
// $XDG_CACHE_HOME/archivectl, else ~/.cache/archivectl), created mode 0700, and is used only when
// that directory and every directory above it is safe (safeDirectory); otherwise it stays off and
// commands compile from source, as on node 20.
//
// NODE_COMPILE_CACHE is read by node itself before this file runs (archivectl's own first lines
// may already come from it): archivectl cannot turn it off, but it stops, before loading the
// bundle, when that directory fails the same checks.
'use strict';
const { existsSync, lstatSync, mkdirSync, realpathSync } = require('node:fs');
const nodeModule = require('node:module');
const os = require('node:os');
const path = require('node:path');

/**
 * Why the directory `dir` (absolute, symbolic links resolved) is not safe for `uid`, or null. From
 * / down, each directory must be owned by `uid` or root and writable by no one else; a sticky one
 * (such as /tmp) may be writable by all, as no one else can rename or remove what `uid` or root
 * keeps there. `dir` itself, when `own`, must be `uid`'s and writable by `uid` alone.
 */
function unsafeDirectory(dir, uid, own = true) {
  const parts = dir.split(path.sep).filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const at = path.join(path.sep, ...parts.slice(0, i));
    const last = own && i === parts.length;
    const st = lstatSync(at);
    if (!st.isDirectory()) return `${at} is not a directory`;
    if (st.uid !== uid && (last || st.uid !== 0)) return `${at} belongs to uid ${st.uid}`;
    const othersWrite = (st.mode & 0o022) !== 0;
    const sticky = (st.mode & 0o1000) !== 0;
    if (othersWrite && (last || !sticky)) {
      return `${at} may be written by its group or others (mode ${(st.mode & 0o7777).toString(8)})`;
    }
  }
  return null;
}

/** The directory meant for the cache, by the XDG base directory rules; null when there is none. */
function wantedDirectory(env) {
  const systemd = env.CACHE_DIRECTORY?.split(':')[0];
  if (systemd && path.isAbsolute(systemd)) return path.join(systemd, 'compile-cache');
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'archivectl', 'compile-cache');
  const home = os.homedir();
  return path.isAbsolute(home) ? path.join(home, '.cache', 'archivectl', 'compile-cache') : null;
}

/** The cache directory, created if need be, once found safe; else null (the cache stays off). */
function safeCacheDirectory(env, uid) {
  const wanted = wantedDirectory(env);
  if (!wanted) return null;
  try {
    // What exists must be safe before anything is created in it: root never leaves directories
    // of its own in another user's home (sudo keeping HOME, say).
    let existing = wanted;
    while (!existsSync(existing)) existing = path.dirname(existing);
    const base = realpathSync(existing);
    if (unsafeDirectory(base, uid, existing === wanted)) return null;
    mkdirSync(path.join(base, path.relative(existing, wanted)), { recursive: true, mode: 0o700 });
    // Judged again as created: another user may have been first to make a directory on the way.
    const dir = realpathSync(wanted);
    return unsafeDirectory(dir, uid) ? null : dir;
  } catch {
    return null; // no home, a read-only file system: no cache
  }
}

/**
 * Turns node's compile cache on where it is safe. Returns why NODE_COMPILE_CACHE must not be
 * used, for the caller to stop on, or null.
 */
function enableOwnCompileCache(env = process.env) {
  const { enableCompileCache, getCompileCacheDir } = nodeModule;
  const uid = process.getuid?.();
  // Node 20 has no cache; without user ids there is no owner to judge.
  if (!enableCompileCache || uid === undefined || env.NODE_DISABLE_COMPILE_CACHE) return null;
  if (env.NODE_COMPILE_CACHE) {
    let problem;
    try {
      const dir = getCompileCacheDir?.() ?? path.resolve(env.NODE_COMPILE_CACHE);
      problem = unsafeDirectory(realpathSync(dir), uid);
    } catch {
      return null; // node could not create it: no cache in use
    }
    return problem
      ? `NODE_COMPILE_CACHE names a directory whose code node would run, and ${problem}. ` +
          'Unset NODE_COMPILE_CACHE (archivectl keeps its own cache under ~/.cache/archivectl), ' +
          'or name a directory only you can write'
      : null;
  }
  const dir = safeCacheDirectory(env, uid);
  if (dir) enableCompileCache(dir);
  return null;
}

module.exports = { enableOwnCompileCache, unsafeDirectory };
