// The token service (src/domain/tokens/service.ts) through the CLI: what an id that is no id is
// answered (a value, a typo, a text that may hold a value, never quoted), a value looked up, the
// conflicts of rotate, and what prune and handoff write to the audit log. (A file of its own beside
// token-lifecycle.test.ts.)
import { beforeAll, describe, expect, it } from 'vitest';
import { checksum, randomBase62 } from '../../src/domain/tokens/format.js';
import { createAccounts, createToken, lines, useSandbox } from '../helpers/cli.js';

const NOW = '2026-11-20T12:00:00Z';
const cli = useSandbox();

beforeAll(async () => {
  await createAccounts(cli, { alice: 'admin', bob: 'user' });
});

const forge = (selector: string) => {
  const secret = randomBase62(40);
  return `arc_${selector}${secret}${checksum(selector + secret)}`;
};

interface AuditJson {
  actor: string;
  action: string;
  target: string;
}
const audit = async (action: string) =>
  (await cli.json<AuditJson[]>(['audit'])).filter((e) => e.action === action).map((e) => e.target);

describe('an id that is no id', () => {
  it('a token value: refused, never quoted, pointing to the stdin form', async () => {
    const t = await createToken(cli, 'bob', 'shown by value', 'alice');
    const r = await cli.run(['token', 'show', t.token, '--as', 'alice']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/that is a token value, not its id: .*shell history.*token revoke - \(or lookup -\)/);
    expect(r.stderr).not.toContain(t.token.slice(12, 52));
  });

  it('a short word of id characters: no such token, the word named as a typo of an id', async () => {
    for (const word of ['ab', 'a_b-c', 'x'.repeat(16)]) {
      const r = await cli.run(['token', 'show', word, '--as', 'alice']);
      expect(r.code, word).toBe(1);
      expect(lines(r.stderr), word).toEqual([
        expect.stringContaining(`no token with id ${word} (an id is 8 letters and digits)`),
      ]);
    }
  });

  it('any other text: not an id, and not quoted (it may be part of a value)', async () => {
    for (const text of ['x.yz', 'yz.x', 'x'.repeat(17), 'with space']) {
      const r = await cli.run(['token', 'show', text, '--as', 'alice']);
      expect(r.code, text).toBe(1);
      expect(r.stderr, text).toContain('that is not a token id: give the 8-character id shown by token list');
      expect(r.stderr, text).not.toContain(text);
    }
  });
});

describe('token lookup -', () => {
  it('finds the token of a value, refuses a text that is no value and a value this installation did not issue', async () => {
    const t = await createToken(cli, 'bob', 'looked up', 'alice');
    expect(await cli.json(['token', 'lookup', '-', '--as', 'alice'], { input: `${t.token}\n` })).toMatchObject({
      id: t.id,
      account: 'bob',
    });
    const notValue = await cli.run(['token', 'lookup', '-', '--as', 'alice'], { input: 'no value at all\n' });
    expect(notValue.code).not.toBe(0);
    expect(notValue.stderr).toContain('that is not a token value (arc_ and 54 letters and digits');
    for (const value of [forge(t.id), forge(randomBase62(8))]) {
      const r = await cli.run(['token', 'lookup', '-', '--as', 'alice'], { input: `${value}\n` });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('no token of this installation has that value (pruned, or never issued here)');
      expect(r.stderr).not.toContain(value.slice(12, 52));
    }
  });
});

describe('token rotate', () => {
  it('refuses a revoked token and a handoff token, each saying what to do instead', async () => {
    const t = await createToken(cli, 'bob', 'rotated after revoke', 'alice');
    await cli.json(['token', 'revoke', t.id, '--as', 'alice']);
    const revoked = await cli.run(['token', 'rotate', t.id, '--as', 'alice']);
    expect(revoked.code).toBe(1);
    expect(revoked.stderr).toContain(`token ${t.id} is revoked; create a new token instead`);
    const h = await cli.json<{ id: string }>(['token', 'handoff', 'bob', '--as', 'alice'], { now: NOW });
    const handoff = await cli.run(['token', 'rotate', h.id, '--as', 'alice'], { now: NOW });
    expect(handoff.code).toBe(1);
    expect(handoff.stderr).toContain(`token ${h.id} is a 12-hour handoff token; run token handoff for a new one`);
  });
});

describe('the audit log', () => {
  it('records a handoff, naming the expired handoff tokens it removed, and only then', async () => {
    const first = await cli.json<{ id: string }>(['token', 'handoff', 'bob', '--as', 'alice'], { now: NOW });
    const later = '2026-11-21T12:00:00Z'; // every handoff token made at NOW has expired
    const second = await cli.json<{ id: string }>(['token', 'handoff', 'bob', '--as', 'alice'], { now: later });
    const third = await cli.json<{ id: string }>(['token', 'handoff', 'bob', '--as', 'alice'], { now: later });
    const targets = await audit('token.handoff');
    expect(targets).toContain(`${first.id} of bob`);
    expect(targets.find((t) => t.startsWith(second.id))).toMatch(
      new RegExp(`^${second.id} of bob \\(removed [1-9][0-9]* expired handoff tokens\\)$`),
    );
    expect(targets).toContain(`${third.id} of bob`);
  });

  it('records a prune that deleted tokens with their number, and none for a prune that deleted none', async () => {
    const t = await createToken(cli, 'bob', 'pruned', 'alice');
    await cli.json(['token', 'revoke', t.id, '--as', 'alice']);
    // A dry run needs no acting account.
    const counted = await cli.json<{ pruned: number }>(['token', 'prune', '--dry-run'], {
      env: { ARCHIVECTL_AS: undefined },
    });
    expect(counted.pruned).toBeGreaterThan(0);
    expect(await cli.json(['token', 'prune', '--as', 'alice', '--yes'])).toEqual({ pruned: counted.pruned });
    expect(await cli.json(['token', 'prune', '--as', 'alice', '--yes'])).toEqual({ pruned: 0 });
    expect(await audit('token.prune')).toEqual([`${counted.pruned} expired or revoked tokens`]);
  });
});
