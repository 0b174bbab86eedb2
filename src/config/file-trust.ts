// Files whose content decides what archivectl does (the configuration, the SQLite database) are
// refused when another user could have written them, as ssh refuses such a key: writable by the
// group or others, or owned by someone other than the user running archivectl and root. A planted
// ./config.json in a shared directory, or a database others may rewrite, would be used silently.
import { readFileSync, statSync } from 'node:fs';
import os from 'node:os';

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
  const me = process.getuid?.();
  if (me === undefined) return null; // a system without file owners to compare
  let owner: number;
  let mode: number;
  try {
    ({ uid: owner, mode } = statSync(file));
  } catch {
    return null; // not there (or not readable): whoever reads it reports that
  }
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
