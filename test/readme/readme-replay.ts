// What the README replay tests share: the README's code blocks, a copy of the checkout to run npm
// in (npm install -g . and npm pack run "prepare", which rebuilds dist/: never in the checkout the
// other test files are using), sqlite3's build offered to npm as a local prebuilt binary, and
// bash scripts run in a process group of their own.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { childEnv, REPO_ROOT } from '../helpers/cli.js';

/** The pages a reader is sent to: the README, then each audience's page under docs/. */
const PAGES = ['README.md', ...readdirSync(path.join(REPO_ROOT, 'docs')).map((f) => path.join('docs', f))];

/**
 * The text under the heading `title` (any level) of the README or of the page under docs/ that
 * holds it, up to the next heading of that level or higher.
 */
export function readmeSection(title: string): string {
  for (const page of PAGES) {
    const text = sectionOf(readFileSync(path.join(REPO_ROOT, page), 'utf8'), title);
    if (text !== null) return text;
  }
  throw new Error(`neither README.md nor docs/ has a heading "${title}"`);
}

function sectionOf(markdown: string, title: string): string | null {
  const lines = markdown.split('\n');
  let fenced = false;
  let level = 0;
  const out: string[] = [];
  for (const line of lines) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^(#+) (.*)$/.exec(line);
    if (level === 0) {
      if (heading?.[2] === title) level = heading[1]?.length ?? 0;
      continue;
    }
    if (heading && (heading[1]?.length ?? 0) <= level) break;
    out.push(line);
  }
  return level === 0 ? null : out.join('\n');
}

/** The code blocks of one language in a piece of Markdown, in order. */
export function codeBlocks(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1] ?? '');
}

/**
 * The sh block of docs/ marked `<!-- procedure: NAME -->` on the line before its fence: the
 * procedures the docs give to run as written. Fails unless exactly one page has exactly one.
 */
export function procedureBlock(name: string): string {
  const marker = new RegExp(`^<!-- procedure: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)^\`\`\`$`, 'gm');
  const found = PAGES.flatMap((page) => [...readFileSync(path.join(REPO_ROOT, page), 'utf8').matchAll(marker)]);
  if (found.length !== 1) throw new Error(`docs/ should hold one procedure "${name}", not ${found.length}`);
  return found[0]?.[1] ?? '';
}

/** `text` with each `from` replaced by its `to` (every occurrence), failing when one is not there. */
export function substitute(text: string, table: [from: string, to: string][]): string {
  let out = text;
  for (const [from, to] of table) {
    if (!out.includes(from)) throw new Error(`the procedure no longer holds ${JSON.stringify(from)}`);
    out = out.replaceAll(from, to);
  }
  return out;
}

/** The package's name and version, as `npm pack` names its tarball. */
export function tarballName(): string {
  const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  return `archivectl-${pkg.version}.tgz`;
}

/**
 * A copy of the checkout's files (as git sees them: tracked and not ignored) in `dir`, with the
 * checkout's installed packages linked one by one, as after `npm install` in a clean clone. The
 * build's own cache (node_modules/.cache) is not shared: a build in the copy must not touch the
 * checkout's.
 */
export function copyCheckout(dir: string): void {
  const listed = existsSync(path.join(REPO_ROOT, '.git'))
    ? execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO_ROOT })
        .toString('utf8')
        .split('\0')
        .filter((f) => f !== '' && existsSync(path.join(REPO_ROOT, f)))
    : readdirSync(REPO_ROOT).filter((f) => !['node_modules', 'dist', 'man', 'data', '.git'].includes(f));
  for (const file of listed) {
    const target = path.join(dir, file);
    mkdirSync(path.dirname(target), { recursive: true });
    cpSync(path.join(REPO_ROOT, file), target, { recursive: true, verbatimSymlinks: true });
  }
  const modules = path.join(dir, 'node_modules');
  mkdirSync(modules, { recursive: true });
  for (const entry of readdirSync(path.join(REPO_ROOT, 'node_modules'))) {
    if (entry === '.cache') continue;
    symlinkSync(path.join(REPO_ROOT, 'node_modules', entry), path.join(modules, entry));
  }
}

/**
 * Makes npm install sqlite3 from the checkout's own build, instead of compiling it again
 * (minutes), for every installation under `dir`: prebuild-install, sqlite3's installer, takes a
 * local prebuilt binary from the folder its settings name, and reads its settings from a
 * `.prebuild-installrc` in the directory it runs in or any above it (an environment variable
 * would not survive npm's /bin/sh, nor pass without a warning from npm). sqlite3 is a
 * Node-API module, so the one build fits every Node.js line; the name is the one
 * prebuild-install looks for.
 */
export function offerSqliteBuild(dir: string): void {
  const sqlite = path.join(REPO_ROOT, 'node_modules', 'sqlite3');
  const pkg = JSON.parse(readFileSync(path.join(sqlite, 'package.json'), 'utf8')) as {
    version: string;
    binary: { napi_versions: number[] };
  };
  const napi = Math.max(...pkg.binary.napi_versions.filter((v) => v <= Number(process.versions.napi)));
  const name = `sqlite3-v${pkg.version}-napi-v${napi}-${process.platform}-${process.arch}.tar.gz`;
  const prebuilds = path.join(dir, 'prebuilds');
  mkdirSync(prebuilds, { recursive: true });
  execFileSync('tar', ['-czf', path.join(prebuilds, name), '-C', sqlite, 'build/Release/node_sqlite3.node']);
  writeFileSync(path.join(dir, '.prebuild-installrc'), JSON.stringify({ 'local-prebuilds': prebuilds }));
}

export interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a bash script (with -e: the first failing command ends it) in a process group of its own,
 * with the test environment's CLI variables cleared. Whatever it leaves running in the
 * background (`npm start &`) is sent SIGTERM when the script ends, and waited for.
 */
export function runScript(
  script: string,
  opts: { cwd: string; env?: Record<string, string | undefined>; timeoutMs?: number; command?: string[] },
): Promise<ScriptRun> {
  return new Promise((resolve, reject) => {
    const [file = 'bash', ...args] = [...(opts.command ?? []), 'bash', '-e', '-c', script];
    const child = spawn(file, args, {
      cwd: opts.cwd,
      env: childEnv(opts.env),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    // The group's members hold the pipes open: the run is over when bash has exited and the last
    // of them has gone.
    let open = 3;
    let code: number | null = null;
    let straggler: NodeJS.Timeout | undefined;
    const done = () => {
      if (--open > 0) return;
      clearTimeout(straggler);
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    };
    child.stdout.on('data', (c: Buffer) => out.push(c)).on('close', done);
    child.stderr.on('data', (c: Buffer) => err.push(c)).on('close', done);
    const timer = setTimeout(() => kill('SIGKILL'), opts.timeoutMs ?? 240_000);
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-(child.pid as number), signal);
      } catch {
        // the group has gone
      }
    };
    child.on('error', reject);
    child.on('exit', (status) => {
      code = status;
      clearTimeout(timer);
      kill('SIGTERM');
      // A daemon stops within timeouts.shutdownMs of SIGTERM; one that does not is ended.
      straggler = setTimeout(() => kill('SIGKILL'), 30_000);
      done();
    });
  });
}
