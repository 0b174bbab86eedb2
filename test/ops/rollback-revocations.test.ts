// Rolling back (docs/upgrading.md, "Rolling back"): a down migration that revokes tokens tells
// running daemons as `token revoke` does, so a token it revoked is refused from the daemons' next
// request, not at their next periodic check; and `migrate` says what restoring its backup undoes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../helpers/api.js';
import { createAccounts, createSandbox, createToken, IS_PG, type Sandbox } from '../helpers/cli.js';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';

/** The schema before tokens could be narrowed: its down migration revokes narrowed tokens. */
const BEFORE_SCOPES = '20261202000000_search_statistics';

let box: Sandbox;
let d: RunningDaemon;
const api = client(() => d);

beforeAll(async () => {
  box = await createSandbox();
  await createAccounts(box, { root: 'superuser', bot: 'user' });
  d = await startDaemon(box);
});
afterAll(async () => {
  await d?.stop();
  await box?.cleanup();
});

describe('migrate --to an older schema under a running daemon', () => {
  it('refuses a token the down migration revoked from the next request', async () => {
    const scoped = await createToken(box, 'bot', 'narrowed', 'root', ['--scope', 'read']);
    const plain = await createToken(box, 'bot', 'plain', 'root');
    // Both verified and cached by the daemon.
    expect((await api.get('/api/objects', scoped.token)).status).toBe(200);
    expect((await api.get('/api/objects', plain.token)).status).toBe(200);

    const down = await box.run(['migrate', '--to', BEFORE_SCOPES, '--no-backup']);
    expect(down.code, down.stderr).toBe(0);
    const refused = await api.get('/api/objects', scoped.token);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: 'the token has been revoked' });
    expect((await api.get('/api/objects', plain.token)).status).toBe(200);

    // Back up again: says what a restore of its backup would undo, and what to prefer.
    const up = await box.run(['migrate']);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stderr).toContain(
      `to roll back: stop every daemon, then run this release's archivectl migrate --to ${BEFORE_SCOPES}`,
    );
    expect(up.stderr).toContain(
      'a restore also undoes everything written since: tokens revoked or reported as leaked since work again; prefer migrate --to',
    );
    expect(up.stderr).toContain(IS_PG ? 'pg_restore' : 'or restore the backup: rm -f');
  });
});
