// docs/deployment.md, "Moving from SQLite to PostgreSQL", run as written by bash against the
// PostgreSQL server of ARCHIVE_TEST_PG_URL, from a SQLite installation with a token in use: the
// token must work on the daemon started on the new configuration. Substituted, and nothing else:
// the superuser's connection (PGADMIN) by ARCHIVE_TEST_PG_URL, the role and database names by
// this run's own, the server db.internal by the test server's host and port, the configuration
// /etc/archivectl/config.json and dataDir /var/lib/archivectl/data by the sandbox's. Outside a
// booted systemd, `systemctl` is a shell function noting what it was asked (checked: the units
// are stopped before the copy and started after it), and `runuser -u archive --` runs the
// command as the test's user, who owns the sandbox; `archivectl` is the built binary, finding
// the configuration through ARCHIVE_CONFIG as the unit's environment gives it.
import { randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, createAccounts, createSandbox, createToken, PG_URL, type Sandbox } from '../helpers/cli.js';
import { spawnDaemon } from '../helpers/daemon.js';
import { pathOf, systemTool } from '../helpers/system-tools.js';
import { procedureBlock, runScript, substitute, type ScriptRun } from '../readme/readme-replay.js';

const PSQL = systemTool('psql', 'postgresql-client');
const skip = PG_URL ? PSQL.skip : 'needs a PostgreSQL server: set ARCHIVE_TEST_PG_URL (the PostgreSQL pass)';

describe.skipIf(skip !== null)(
  `moving from SQLite to PostgreSQL, as documented (${skip ?? 'PostgreSQL given'})`,
  () => {
    let box: Sandbox;
    let token: string;
    let run: ScriptRun;
    const name = `archive_move_${randomBytes(4).toString('hex')}`;
    const admin = PG_URL ?? '';
    const psql = (sql: string) =>
      runScript(`${JSON.stringify(pathOf(PSQL, 'psql'))} "$PGADMIN" -v ON_ERROR_STOP=1 -c ${JSON.stringify(sql)}`, {
        cwd: box.dir,
        env: { PGADMIN: admin },
      });

    beforeAll(async () => {
      box = await createSandbox({ backend: 'sqlite' });
      await createAccounts(box, { root: 'superuser', alice: 'user' });
      token = (await createToken(box, 'alice', 'reader', 'root')).token;
      await writeFile(path.join(box.dir, 'archivectl'), `#!/bin/sh\nexec ${process.execPath} ${BIN} "$@"\n`);
      await chmod(path.join(box.dir, 'archivectl'), 0o755);
      const server = new URL(admin).host;
      const block = substitute(procedureBlock('sqlite-to-postgresql'), [
        ['PGADMIN=postgres://postgres@db.internal/postgres', `PGADMIN=${admin}`],
        ['ROLE=archive DB=archive', `ROLE=${name} DB=${name}`],
        ['@db.internal/', `@${server}/`],
        ['/etc/archivectl/config.json', box.configFile],
        ['/var/lib/archivectl/data', path.join(box.dir, 'data')],
      ]);
      const prelude = [
        `systemctl() { echo "$*" >> ${JSON.stringify(path.join(box.dir, 'systemctl.log'))}; }`,
        'runuser() { [ "$1 $2 $3" = "-u archive --" ] || return 3; shift 3; "$@"; }',
      ].join('\n');
      run = await runScript(`${prelude}\n${block}`, {
        cwd: box.dir,
        env: { PATH: `${box.dir}:${process.env.PATH ?? ''}`, ARCHIVE_CONFIG: box.configFile },
        timeoutMs: 120_000,
      });
    }, 180_000);

    afterAll(async () => {
      if (box) {
        await psql(`DROP DATABASE IF EXISTS ${name}`);
        await psql(`DROP ROLE IF EXISTS ${name}`);
        await box.cleanup();
      }
    });

    it('runs as written: the role, its database, the copy, the configuration, doctor', async () => {
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toMatch(/^ok +migrations +all applied/m);
      expect(run.stdout).not.toMatch(/^FAIL/m);
      const asked = await readFile(path.join(box.dir, 'systemctl.log'), 'utf8');
      expect(asked.trim().split('\n')).toEqual([
        'stop archivectl.socket archivectl.service',
        'start archivectl.socket archivectl.service',
      ]);
      const config = JSON.parse(await readFile(box.configFile, 'utf8')) as { database: { client: string } };
      expect(config.database.client).toBe('pg');
    });

    it('the daemon on the new configuration takes the token made on SQLite', async () => {
      const daemon = await spawnDaemon(box);
      try {
        expect(daemon.logs.join('\n')).toContain('"database":"pg"');
        const r = await daemon.fetch('/api/actors', { headers: { Authorization: `Bearer ${token}` } });
        expect(r.status).toBe(200);
        const anonymous = await daemon.fetch('/api/actors');
        expect(anonymous.status).toBe(401);
      } finally {
        await daemon.stop();
      }
    });
  },
);
