// Files whose content decides what archivectl does (configuration, SQLite database) are refused when another
// user could have written them, as ssh does: the file, its directory and any link are judged, and
// readTrustedFile judges the descriptor it reads, not the name.
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, realpathSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** `file` as one shell word, for a fix the operator can paste. */
export function shellWord(file: string): string {
  return /^[A-Za-z0-9_./@:+-]+$/.test(file) ? file : `'${file.replace(/'/g, `'\\''`)}'`;
}

/** The user's name, or null when the user database has none (a container under an arbitrary uid). */
function userName(uid: number): string | null {
  try {
    if (uid === process.getuid?.()) return os.userInfo().username;
    const entry = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((line) => line.split(':')[2] === String(uid));
    return entry?.split(':')[0] ?? null;
  } catch {
    return null;
  }
}

/** Why `file` (a "config file", a "database file") cannot be trusted, with the fix; else null. */
export function untrustedFile(file: string, what: string): string | null {
  let st: { uid: number; mode: number };
  try {
    st = statSync(file);
  } catch {
    return null; // not there (or not readable): whoever reads it reports that
  }
  return untrustedOwnerAndMode(st, file, what);
}

/** As untrustedFile, on the owner and mode of what is open (an fstat) or a stat already made. */
export function untrustedOwnerAndMode(st: { uid: number; mode: number }, file: string, what: string): string | null {
  const me = process.getuid?.();
  if (me === undefined) return null; // a system without file owners to compare
  const { uid: owner, mode } = st;
  if (owner !== me && owner !== 0) {
    const name = userName(me);
    const trusted = me === 0 ? 'root' : `${name ?? `uid ${me}`} (who runs archivectl) or root`;
    return (
      `the ${what} ${file} belongs to ${userName(owner) ?? `uid ${owner}`}: only a file of ${trusted} is ` +
      `used, as another user may have put it there. Run archivectl as its owner, or, if it is yours, fix it ` +
      `with: chown ${shellWord(name ?? String(me))} ${shellWord(file)}`
    );
  }
  if ((mode & 0o022) !== 0) {
    const octal = (mode & 0o777).toString(8).padStart(4, '0');
    return (
      `the ${what} ${file} has mode ${octal}: its group or other users may change it, and with it what ` +
      `archivectl does. Fix it with: chmod go-w ${shellWord(file)}`
    );
  }
  return null;
}

/** Why the directory `dir` holding `file` cannot be trusted (another owner, or writable by others unless sticky). */
export function untrustedDirectory(dir: string, file: string, what: string): string | null {
  const me = process.getuid?.();
  if (me === undefined) return null;
  let st: { uid: number; mode: number };
  try {
    st = statSync(dir);
  } catch {
    return null; // not there: whoever opens the file reports that
  }
  if (st.uid !== me && st.uid !== 0) {
    return (
      `the ${what} ${file} is in ${dir}, which belongs to ${userName(st.uid) ?? `uid ${st.uid}`}: ` +
      `its owner may replace the file at any time. Move the file to a directory of yours or root's`
    );
  }
  if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0) {
    const octal = (st.mode & 0o7777).toString(8).padStart(4, '0');
    return (
      `the ${what} ${file} is in ${dir}, of mode ${octal}: its group or other users may replace the ` +
      `file with one of theirs. Fix it with: chmod go-w ${shellWord(dir)} (or move the file)`
    );
  }
  return null;
}

/**
 * The file to open for the name `file`: itself, or a trusted link's trusted target; `problem` says why not (both
 * null when nothing is there). What is opened still needs judging (readTrustedFile).
 */
export function trustedPath(file: string, what: string): { path: string | null; problem: string | null } {
  const absolute = path.resolve(file);
  const dirProblem = untrustedDirectory(path.dirname(absolute), absolute, what);
  if (dirProblem) return { path: null, problem: dirProblem };
  let link: { uid: number; mode: number; isSymbolicLink(): boolean };
  try {
    link = lstatSync(absolute);
  } catch {
    return { path: null, problem: null };
  }
  if (!link.isSymbolicLink()) return { path: absolute, problem: untrustedOwnerAndMode(link, absolute, what) };
  const me = process.getuid?.();
  if (me !== undefined && link.uid !== me && link.uid !== 0) {
    return {
      path: null,
      problem:
        `the ${what} ${absolute} is a symbolic link of ${userName(link.uid) ?? `uid ${link.uid}`}: it may point ` +
        `anywhere at any time. Replace it with the file itself, or a link of your own`,
    };
  }
  let target: string;
  try {
    target = realpathSync(absolute);
  } catch {
    return { path: null, problem: null }; // a dangling link: nothing to read
  }
  const targetProblem =
    untrustedDirectory(path.dirname(target), target, what) ??
    untrustedFile(target, `${what} (the target of ${absolute})`);
  return targetProblem ? { path: null, problem: targetProblem } : { path: target, problem: null };
}

/**
 * The content of `file`, read from a descriptor whose file is judged (fstat) after its name: what is judged is
 * what is read. `problem` when it cannot be trusted or read; null when it is not there.
 */
export function readTrustedFile(file: string, what: string): { data: Buffer } | { problem: string } | null {
  const named = trustedPath(file, what);
  if (named.problem) return { problem: named.problem };
  if (!named.path) return null;
  let fd: number;
  try {
    fd = openSync(named.path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') return { problem: `the ${what} ${file} was replaced by a symbolic link while it was opened` };
    return { problem: `cannot read ${file} (${code})` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { problem: `the ${what} ${file} is not a regular file` };
    const problem = untrustedOwnerAndMode(st, file, what);
    return problem ? { problem } : { data: readFileSync(fd) };
  } catch (err) {
    return { problem: `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})` };
  } finally {
    closeSync(fd);
  }
}
