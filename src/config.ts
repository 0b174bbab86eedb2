// Configuration (docs/configuration.md), from the file configPath finds, else the defaults (config/sections.ts).
// A bad key stops the program with one line naming the key and the file; so does a file that
// another user could have written, or that sits where another user could swap it
// (config/file-trust.ts: judged on the descriptor it is read from, and its directory).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { configError } from './errors.js';
import { v } from './validation.js';
import { configSchema, type Config } from './config/schema.js';
import { readTrustedFile } from './config/file-trust.js';

export type { Config } from './config/schema.js';
export type { TrustProxy } from './config/checks.js';
export { DEFAULTS, LOG_LEVELS, type ConfigFile, type LogLevel } from './config/sections.js';

/**
 * Which file to read: the flag, ARCHIVE_CONFIG, else ./config.json and the system-wide file when
 * present (so that `sudo -u archive archivectl …`, which drops ARCHIVE_CONFIG, still finds it).
 * `systemFile`: tests.
 */
export function configPath(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
  systemFile = '/etc/archivectl/config.json',
): string | null {
  if (flag) return path.resolve(cwd, flag);
  if (env.ARCHIVE_CONFIG) return path.resolve(cwd, env.ARCHIVE_CONFIG);
  const local = path.join(cwd, 'config.json');
  if (existsSync(local)) return local;
  return existsSync(systemFile) ? systemFile : null;
}

/** The file's JSON, read from the descriptor whose owner and mode were judged (config/file-trust.ts). */
function readJson(file: string): unknown {
  const read = readTrustedFile(file, 'config file');
  if (read === null) throw configError(`config error: cannot read ${file} (ENOENT)`);
  if ('problem' in read) throw configError(`config error: ${read.problem}`);
  const text = read.data.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw configError(`config error: ${file} is not valid JSON (${(err as Error).message})`);
  }
}

/** The one line for a bad key: `unknown key "colour"`, `"listen.port" must be …`. */
function problem(issue: v.BaseIssue<unknown>): string {
  const key = v.getDotPath(issue);
  if (issue.type === 'strict_object' && issue.expected === 'never') return `unknown key "${key}"`;
  return key ? `"${key}" ${issue.message}` : `the top level ${issue.message}`;
}

export function loadConfig(flag?: string, env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): Config {
  const file = configPath(flag, env, cwd);
  const raw = file ? readJson(file) : {};
  const databaseUrl = env.DATABASE_URL || undefined;
  const parsed = v.safeParse(configSchema(file ? path.dirname(file) : cwd, databaseUrl), raw);
  if (!parsed.success)
    throw configError(`config error: ${problem(parsed.issues[0])} in ${file ?? 'the built-in defaults'}`);
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl))
    throw configError('config error: DATABASE_URL must be a postgres:// URL');
  return { file, ...parsed.output };
}
