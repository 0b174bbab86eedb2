// Who may create and revoke whose tokens (docs/cli.md#tokens, source document "Account and roles"): only
// an admin or a superuser, only a superuser for a superuser's, and never an account its own.
// One rule for every command that makes or removes tokens: create, revoke, rotate, handoff
// (where an account may also hand off for itself) and import-legacy (checked for every line).
import { forbidden } from '../../errors.js';
import type { Account } from '../accounts.js';
import { atLeast } from '../roles.js';

/** Refuses an actor that may not manage tokens at all (not an admin or superuser, or blocked). */
export function assertMayManageTokens(actor: Account, verb: string): void {
  if (!atLeast(actor.role, 'admin'))
    throw forbidden(`${actor.username} (${actor.role}) may not ${verb} tokens: only an admin or superuser may`);
}

/** Why `actor`, an admin or superuser, may not act on `owner`'s tokens, or null when it may. */
export function refusalFor(actor: Account, owner: Account, verb: string): string | null {
  if (actor.username === owner.username) return `${actor.username} may not ${verb} its own tokens: ask another admin`;
  if (owner.role === 'superuser' && actor.role !== 'superuser') {
    return `${actor.username} (${actor.role}) may not ${verb} tokens of the superuser ${owner.username}`;
  }
  return null;
}

export function assertMayManageTokensOf(actor: Account, owner: Account, verb: string): void {
  assertMayManageTokens(actor, verb);
  const refusal = refusalFor(actor, owner, verb);
  if (refusal) throw forbidden(refusal);
}

/** A handoff: the account for itself, or an actor that may manage the account's tokens. */
export function assertMayHandOff(actor: Account, owner: Account): void {
  if (actor.username === owner.username) {
    if (actor.role === 'blocked') throw forbidden(`${actor.username} is blocked`);
    return;
  }
  assertMayManageTokensOf(actor, owner, 'hand off');
}

/** No new token for a blocked account: useless now, it would work unnoticed once unblocked. */
export function assertMayReceiveToken(owner: Account): void {
  if (owner.role === 'blocked')
    throw forbidden(`${owner.username} is blocked: no new token is made for a blocked account`);
}

export function mayListAllTokens(actor: Account): boolean {
  return atLeast(actor.role, 'admin');
}
