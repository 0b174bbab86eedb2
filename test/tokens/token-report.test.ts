// A leaked token reported (src/domain/tokens/report.ts, behind POST /api/tokens/revoke) through
// wellFormed and revokeReported, on a sandbox database administered with the CLI, each value
// checked by a real authenticator: which values are worth a check, what is revoked and audited
// (the reporter's address, never the value), and what a report of nothing live writes (nothing).
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator } from '../../src/domain/tokens/authenticate.js';
import { revokeReported, wellFormed, type LiveCheck } from '../../src/domain/tokens/report.js';
import {
  createToken,
  legacyValue,
  type CreatedTokenJson,
  type Sandbox,
  type TokenJson,
  sandboxWithDb,
  closeSandboxWithDb,
} from '../helpers/cli.js';
import { arcValue } from '../helpers/token-values.js';

const NOW = '2026-11-20T12:00:00.000Z';
const clock = { now: () => new Date(NOW) };
const REPORTER = '203.0.113.9';
let box: Sandbox;
let db: Knex;
let isLive: LiveCheck;

beforeAll(async () => {
  ({ box, db } = await sandboxWithDb({ root: 'superuser', amy: 'user', bob: 'editor' }));
  const auth = new Authenticator(db, clock, null);
  isLive = (values) => auth.liveRows(values, REPORTER);
});

afterAll(() => closeSandboxWithDb(box, db));

const token = (user: string, name: string) => createToken(box, user, name, 'root', [], { now: NOW });
const ctx = () => ({ db, clock });

interface AuditJson {
  at: string;
  actor: string;
  action: string;
  target: string;
}
const reported = async () =>
  (await box.json<AuditJson[]>(['audit'])).filter((e) => e.action === 'token.reported').map(({ action, ...e }) => e);

const statusOf = async (t: CreatedTokenJson) =>
  (await box.json<TokenJson>(['token', 'show', t.id, '--as', 'root'])).status;

describe('wellFormed', () => {
  it('keeps each value that could be a token once, in the order given, and drops the rest', () => {
    const regular = arcValue();
    const legacy = legacyValue();
    expect(
      wellFormed([regular, 'hunter2', regular, `${regular.slice(0, -1)}!`, legacy, `x${legacy}`, '', legacy]),
    ).toEqual([regular, legacy]);
    expect(wellFormed([])).toEqual([]);
    expect(wellFormed(['not a token', 'arc_'])).toEqual([]);
  });
});

describe('revokeReported', () => {
  it('revokes each live token reported once, audits it with the reporter and answers it', async () => {
    const amys = await token('amy', 'leaked in a gist');
    const bobs = await token('bob', 'leaked in a paste');
    const values = [amys.token, 'garbage', arcValue(), bobs.token, amys.token];
    expect(await revokeReported(ctx(), isLive, values, REPORTER)).toEqual([
      { selector: amys.id, username: 'amy' },
      { selector: bobs.id, username: 'bob' },
    ]);
    expect(await statusOf(amys)).toBe('revoked');
    expect(await statusOf(bobs)).toBe('revoked');
    const entries = await reported();
    expect(entries).toEqual([
      { at: NOW, actor: `report from ${REPORTER}`, target: `${amys.id} of amy` },
      { at: NOW, actor: `report from ${REPORTER}`, target: `${bobs.id} of bob` },
    ]);
    expect(JSON.stringify(entries)).not.toContain(amys.token.slice(12, 52));

    // Reported again: no longer live, nothing revoked or audited twice.
    expect(await revokeReported(ctx(), isLive, values, REPORTER)).toEqual([]);
    expect(await reported()).toHaveLength(2);
  });

  it('of no live token writes nothing: not even a transaction is opened', async () => {
    const revoked = await token('amy', 'revoked before');
    expect((await box.run(['token', 'revoke', revoked.id, '--as', 'root'])).code).toBe(0);
    const statements: string[] = [];
    const seen = (q: { sql: string }) => statements.push(q.sql);
    db.on('query', seen);
    try {
      expect(await revokeReported(ctx(), isLive, [revoked.token, arcValue(), legacyValue(), 'x'], REPORTER)).toEqual(
        [],
      );
    } finally {
      db.off('query', seen);
    }
    // The checks read rows; nothing else reaches the database.
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.filter((sql) => !/^select /i.test(sql))).toEqual([]);
  });

  it('leaves out a token revoked between its check and the revocation, and audits nothing for it', async () => {
    const revokedMeanwhile = await token('amy', 'revoked meanwhile');
    const live = await token('bob', 'still live');
    const before = (await reported()).length;
    // An admin revokes the first token right after the report found it live.
    const racing: LiveCheck = async (values) => {
      const rows = await isLive(values);
      expect((await box.run(['token', 'revoke', revokedMeanwhile.id, '--as', 'root'])).code).toBe(0);
      return rows;
    };
    expect(await revokeReported(ctx(), racing, [revokedMeanwhile.token, live.token], REPORTER)).toEqual([
      { selector: live.id, username: 'bob' },
    ]);
    expect((await reported()).slice(before)).toEqual([
      { at: NOW, actor: `report from ${REPORTER}`, target: `${live.id} of bob` },
    ]);
    expect(await statusOf(revokedMeanwhile)).toBe('revoked');
    expect(await statusOf(live)).toBe('revoked');
  });
});
