// Debian programs some tests drive (jing, chromium). .ci/run installs them; outside CI a test
// that needs a missing one reports itself skipped, saying why. Under CI a missing program is a
// failure, never a silent skip: the install step must have worked.
import { existsSync } from 'node:fs';
import path from 'node:path';

export interface SystemTool {
  /** Absolute path of the program, or null. */
  path: string | null;
  /** Why tests that need it are skipped here, or null (found, or under CI). */
  skip: string | null;
}

export function systemTool(name: string, debianPackage: string): SystemTool {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    if (dir && existsSync(candidate)) return { path: candidate, skip: null };
  }
  if (process.env.CI) return { path: null, skip: null };
  const skip = `${name} is not installed (Debian package "${debianPackage}"; .ci/run installs it)`;
  console.warn(`SKIPPED: ${skip}`);
  return { path: null, skip };
}

/** The program's path; throws (failing the test) when it is missing. */
export function pathOf(tool: SystemTool, name: string): string {
  if (!tool.path) throw new Error(`${name} is missing: .ci/run should have installed it`);
  return tool.path;
}
