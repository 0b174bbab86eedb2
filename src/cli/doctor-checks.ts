// `archivectl doctor`: the installation checked end to end, a line per check saying what is wrong
// and how to fix it. Nothing is created or changed: a missing database is reported, not made.
import { access, constants, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import {
  daemonHeartbeats,
  databaseFileExists,
  databaseFileWarning,
  databaseLocation,
  hasSchema,
  openDatabase,
} from '../db/connect.js';
import type { Db } from '../db/dialect.js';
import { newerSchemaMessage, schemaState } from '../db/schema-state.js';
import { errorCode, redactSecrets } from '../errors.js';
import { configSource, untrustedDatabase } from './context.js';
import { io } from './io.js';

export interface Finding {
  check: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
}

const ok = (check: string, detail: string): Finding => ({ check, status: 'ok', detail });
const warn = (check: string, detail: string): Finding => ({ check, status: 'warn', detail });
const fail = (check: string, detail: string): Finding => ({ check, status: 'fail', detail });

const message = (err: unknown) => redactSecrets(err instanceof Error ? err.message : String(err));

/** The nearest directory that exists at or above `dir`. */
async function nearestExisting(dir: string): Promise<string> {
  for (let at = dir; ; at = path.dirname(at)) {
    try {
      await stat(at);
      return at;
    } catch {
      if (path.dirname(at) === at) return at;
    }
  }
}

async function dataDirWritable(dataDir: string): Promise<Finding> {
  try {
    await access(dataDir, constants.W_OK | constants.X_OK);
    return ok('dataDir', `${dataDir} is writable`);
  } catch (err) {
    const code = errorCode(err);
    if (code !== 'ENOENT') return fail('dataDir', `${dataDir} is not writable by this user (${code})`);
  }
  const parent = await nearestExisting(dataDir);
  try {
    await access(parent, constants.W_OK | constants.X_OK);
    return warn('dataDir', `${dataDir} does not exist yet; serve creates it`);
  } catch {
    return fail('dataDir', `${dataDir} does not exist and ${parent} is not writable: create it for the daemon's user`);
  }
}

async function databaseChecks(config: Config, findings: Finding[]): Promise<void> {
  const where = databaseLocation(config.database);
  if (!databaseFileExists(config.database)) {
    findings.push(fail('database', `no database at ${where}: create it with archivectl migrate`));
    return;
  }
  // Not opened: every other command refuses it too.
  const untrusted = untrustedDatabase(config);
  if (untrusted) {
    findings.push(fail('database', untrusted));
    return;
  }
  let db: Db | undefined;
  try {
    db = await openDatabase(config.database);
    await db.raw('select 1');
    findings.push(ok('database', `${where} is reachable`));
  } catch (err) {
    findings.push(fail('database', `${where} is not reachable: ${message(err)}`));
    await db?.destroy();
    return;
  }
  try {
    const modeWarning = databaseFileWarning(config);
    if (config.database.client === 'sqlite3') {
      findings.push(modeWarning ? fail('database mode', modeWarning) : ok('database mode', '0600'));
    }
    if (!(await hasSchema(db))) {
      findings.push(fail('migrations', `${where} holds no archive (no migrations table): run archivectl migrate`));
      return;
    }
    const schema = await schemaState(db);
    if (schema.unknown.length > 0) {
      // A later release's schema: nothing more is read, as every other command refuses it.
      findings.push(fail('migrations', newerSchemaMessage(schema, where)));
      return;
    }
    findings.push(
      schema.pending.length === 0
        ? ok('migrations', `all applied: schema ${schema.database}`)
        : fail(
            'migrations',
            `schema ${schema.database ?? 'none'}; this release expects ${schema.expected}: ` +
              `${schema.pending.length} pending (${schema.pending.join(', ')}): run archivectl migrate`,
          ),
    );
    const daemons = await daemonHeartbeats(db);
    if (daemons) {
      const stale = daemons.stale > 0 ? `; ${daemons.stale} stopped or lost daemon row(s)` : '';
      findings.push(
        daemons.live > 0
          ? ok('daemons', `${daemons.live} daemon(s) alive (heartbeat under 3 s old)${stale}`)
          : warn('daemons', `no daemon has sent a heartbeat in the last 3 s${stale}`),
      );
    }
    const lifetime = await tokenLifetime(db);
    if (lifetime) findings.push(lifetime);
    const broad = await broadTokens(db);
    if (broad) findings.push(broad);
  } catch (err) {
    findings.push(fail('database', `${where}: ${message(err)}`));
  } finally {
    await db.destroy();
  }
}

/** Tokens listed by name in a finding; the rest are counted. */
const LISTED_TOKENS = 20;

/** Active regular tokens that end later than token_max_days allows a new token (null while off). */
async function tokenLifetime(db: Db): Promise<Finding | null> {
  const { tokensBeyondPolicy } = await import('../domain/tokens/lifetime.js');
  const beyond = await tokensBeyondPolicy({ db, clock: io().clock });
  if (!beyond) return null;
  const policy = `token_max_days is ${beyond.maxDays} (a new token ends ${beyond.limit} at the latest)`;
  if (beyond.tokens.length === 0) return ok('token lifetime', `${policy}; every active token ends within it`);
  const shown = beyond.tokens
    .slice(0, LISTED_TOKENS)
    .map((t) => `${t.id} "${t.name}" of ${t.account} (${t.expires ? `expires ${t.expires}` : 'never expires'})`);
  const more = beyond.tokens.length - shown.length;
  return warn(
    'token lifetime',
    `${policy}; ${beyond.tokens.length} active token(s), made before it was set or tightened, end later: ` +
      `${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}. Rotate them to give them the policy's end.`,
  );
}

/** Active tokens with every right of an admin or superuser account and no end (null: none). */
async function broadTokens(db: Db): Promise<Finding | null> {
  const { unboundedAdminTokens } = await import('../domain/tokens/queries.js');
  const tokens = await unboundedAdminTokens({ db, clock: io().clock });
  if (tokens.length === 0) return null;
  const shown = tokens.slice(0, LISTED_TOKENS).map((t) => `${t.id} "${t.name}" of ${t.account}`);
  const more = tokens.length - shown.length;
  return warn(
    'token rights',
    `${tokens.length} active token(s) carry every right of an admin or superuser account and never expire: ` +
      `${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}. Give scripts a token narrowed to what they do ` +
      '(token create --scope, --expires; token update --scope), and revoke these where they are not needed.',
  );
}

/** Every check, in order; `readConfig` throws a configuration error when the file is bad. */
export async function runChecks(readConfig: () => Config): Promise<Finding[]> {
  let config: Config;
  try {
    config = readConfig();
  } catch (err) {
    return [fail('config', message(err))];
  }
  // A config file another user could have written fails here (config/file-trust.ts).
  const findings: Finding[] = [ok('config', configSource(config))];
  await databaseChecks(config, findings);
  findings.push(await dataDirWritable(config.dataDir));
  return findings;
}
