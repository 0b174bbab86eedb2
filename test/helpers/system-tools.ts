// What some tests need from the machine: Debian programs they drive (jing, chromium, groff,
// pgbouncer, systemd-analyze, python3, zsh, openssl, …; .ci/run installs them) and abilities such
// as mounting a tmpfs. Outside CI a test whose need is not met is skipped, and the reason is
// printed (a `SKIPPED:` line on stderr, and in the test's title where it has one). Under CI
// (CI=true, as .ci/run runs) nothing may be skipped for want of a program or an ability: the test
// fails, saying what is missing.
import { existsSync } from 'node:fs';
import path from 'node:path';

/** Whether this run is CI's: every test must run. */
export const UNDER_CI = !['', '0', 'false'].includes((process.env.CI ?? '').toLowerCase());

export interface SystemTool {
  /** Absolute path of the program, or null. */
  path: string | null;
  /** Why tests that need it are skipped here, or null (found, or under CI, where they fail instead). */
  skip: string | null;
}

export function systemTool(name: string, debianPackage: string): SystemTool {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    if (dir && existsSync(candidate)) return { path: candidate, skip: null };
  }
  // Under CI the tests run and fail in pathOf, naming the program.
  if (UNDER_CI) return { path: null, skip: null };
  const skip = `${name} is not installed (Debian package "${debianPackage}"; .ci/run installs it)`;
  console.warn(`SKIPPED: ${skip}`);
  return { path: null, skip };
}

/** The program's path; throws (failing the test) when it is missing. */
export function pathOf(tool: SystemTool, name: string): string {
  if (!tool.path) {
    throw new Error(
      `${name} is missing: .ci/run installs it (under CI a test that needs it fails rather than being skipped)`,
    );
  }
  return tool.path;
}

/**
 * For tests that need more than a program (`reason`: why they cannot run here, or null when they
 * can). Outside CI the reason is printed and returned, for `skipIf`. Under CI it is thrown: the
 * test file fails with it.
 */
export function unlessCI(reason: string | null): string | null {
  if (reason === null) return null;
  if (UNDER_CI) throw new Error(`cannot run under CI: ${reason} (under CI no test may be skipped)`);
  console.warn(`SKIPPED: ${reason}`);
  return reason;
}

/**
 * Install, packaging and systemd tests (the README's installs, npm pack, the shipped unit) say
 * the same on every Node.js line and database: they run where ARCHIVE_TEST_INSTALL=1, which CI
 * sets in one leg only. Null where they run, else the reason for `skipIf` (printed once a file).
 */
export function installLegOnly(): string | null {
  if (process.env.ARCHIVE_TEST_INSTALL === '1') return null;
  const reason = "runs in CI's Node 20 SQLite leg only (ARCHIVE_TEST_INSTALL=1)";
  console.warn(`SKIPPED: ${reason}`);
  return reason;
}
