// Who may create and revoke whose tokens (SPEC §3.4, source document "Account and roles"):
// - only an admin or a superuser creates and revokes tokens;
// - only a superuser acts on the tokens of a superuser account;
// - an account sees its own tokens but cannot create or revoke any.
import { forbidden } from '../../errors.js';
import type { Account } from '../accounts.js';
import { atLeast } from '../roles.js';

export function assertMayManageTokensOf(actor: Account, owner: Account, verb: string): void {
  if (!atLeast(actor.role, 'admin')) {
    throw forbidden(`${actor.username} (${actor.role}) may not ${verb} tokens: only an admin or superuser may`);
  }
  if (actor.username === owner.username) {
    throw forbidden(`${actor.username} may not ${verb} its own tokens: ask another admin`);
  }
  if (owner.role === 'superuser' && actor.role !== 'superuser') {
    throw forbidden(`${actor.username} (${actor.role}) may not ${verb} tokens of the superuser ${owner.username}`);
  }
}

/** Listing: admins and superusers see every token; any other account only its own. */
export function mayListAllTokens(actor: Account): boolean {
  return atLeast(actor.role, 'admin');
}
