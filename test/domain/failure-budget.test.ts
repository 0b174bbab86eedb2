// The failure budgets (src/domain/tokens/failure-budget.ts) on a clock the test moves: credits
// spent and regained, refunds, the seconds to wait, the bounded table, and the three budgets a
// verification spends from with the shared probation trickle.
import { describe, expect, it } from 'vitest';
import { FailureBudget, FailureBudgets } from '../../src/domain/tokens/failure-budget.js';

function clock() {
  let at = 1_000_000;
  return { now: () => at, advance: (ms: number) => (at += ms) };
}

describe('a failure budget', () => {
  it('gives `burst` credits a key, then refuses until credits are regained at `perMinute`', () => {
    const c = clock();
    const budget = new FailureBudget({ burst: 3, perMinute: 6, maxKeys: 10 }, c.now);
    expect([budget.take('a'), budget.take('a'), budget.take('a'), budget.take('a')]).toEqual([true, true, true, false]);
    expect(budget.take('b')).toBe(true); // keys are apart
    expect(budget.retryAfter('a')).toBe(10); // one credit every 10 s
    c.advance(9_999);
    expect(budget.take('a')).toBe(false);
    expect(budget.retryAfter('a')).toBe(1);
    c.advance(1);
    expect(budget.take('a')).toBe(true);
    expect(budget.take('a')).toBe(false);
    c.advance(10 * 60_000); // never more than the burst
    expect([budget.take('a'), budget.take('a'), budget.take('a'), budget.take('a')]).toEqual([true, true, true, false]);
  });

  it('answers 1 s for a key with credit or without an entry, and rounds the wait up', () => {
    const c = clock();
    const budget = new FailureBudget({ burst: 2, perMinute: 7, maxKeys: 10 }, c.now);
    expect(budget.retryAfter('unknown')).toBe(1);
    budget.take('a');
    expect(budget.retryAfter('a')).toBe(1);
    budget.take('a');
    expect(budget.retryAfter('a')).toBe(9); // 60/7 = 8.57 s
  });

  it('takes a refunded credit back, never beyond the burst', () => {
    const c = clock();
    const budget = new FailureBudget({ burst: 2, perMinute: 0, maxKeys: 10 }, c.now);
    budget.take('a');
    budget.take('a');
    expect(budget.take('a')).toBe(false);
    budget.refund('a');
    expect(budget.take('a')).toBe(true);
    expect(budget.take('a')).toBe(false);
    budget.refund('a');
    budget.refund('a');
    budget.refund('a'); // a full bucket is no entry: the third refund adds nothing
    expect([budget.take('a'), budget.take('a'), budget.take('a')]).toEqual([true, true, false]);
    budget.refund('never seen'); // nothing to give back
    expect([budget.take('never seen'), budget.take('never seen'), budget.take('never seen')]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('keeps at most maxKeys entries and drops the one idle longest, not a recently used one', () => {
    const c = clock();
    const budget = new FailureBudget({ burst: 1, perMinute: 0, maxKeys: 2 }, c.now);
    budget.take('old');
    budget.take('recent');
    budget.take('old'); // used again: now the most recent (refused, but touched)
    budget.take('new'); // the table is full: 'recent' goes
    expect(budget.take('old')).toBe(false); // still out of credit
    expect(budget.take('new')).toBe(false);
    expect(budget.take('recent')).toBe(true); // forgotten: a fresh entry
  });

  it('does not count a look (retryAfter, refund) as a use when choosing what to drop', () => {
    const c = clock();
    const budget = new FailureBudget({ burst: 1, perMinute: 0, maxKeys: 2 }, c.now);
    budget.take('a');
    budget.take('b');
    budget.retryAfter('a');
    budget.refund('zzz');
    budget.take('c'); // 'a' was idle longest, looks aside
    expect(budget.take('b')).toBe(false);
    expect(budget.take('a')).toBe(true);
  });
});

const OPTIONS = {
  perToken: { burst: 2, perMinute: 2 }, // a credit every 30 s
  perClient: { burst: 3, perMinute: 3 }, // a credit every 20 s
  probationPerSecond: 0, // one probation run, never regained
  budgetKeys: 100,
};

describe('the budgets of a verification', () => {
  it("spend a client's per-id budget, then the one probation run, and name the id's wait", () => {
    const budgets = new FailureBudgets({ ...OPTIONS, perClient: { burst: 10, perMinute: 10 } }, clock().now);
    expect(budgets.spend('x', 'id1').ok).toBe(true);
    expect(budgets.spend('x', 'id1').ok).toBe(true);
    expect(budgets.spend('x', 'id1').ok).toBe(true); // probation
    expect(budgets.spend('x', 'id1')).toEqual({ ok: false, retryAfterSeconds: 30 });
    expect(budgets.spend('y', 'id1').ok).toBe(true); // another client: budgets of its own
    expect(budgets.spend('x', 'id2').ok).toBe(true); // another id of x
  });

  it("spend a client's own budget over all ids, and name its wait", () => {
    const budgets = new FailureBudgets(OPTIONS, clock().now);
    for (const id of ['a', 'b', 'c', 'd']) expect(budgets.spend('x', id).ok).toBe(true); // 3 credits, probation
    expect(budgets.spend('x', 'e')).toEqual({ ok: false, retryAfterSeconds: 20 });
    expect(budgets.spend('y', 'e').ok).toBe(true);
  });

  it('give every credit back on refund: a right value costs nothing', () => {
    const budgets = new FailureBudgets(OPTIONS, clock().now);
    for (let i = 0; i < 10; i++) {
      const spent = budgets.spend('x', 'id1');
      expect(spent.ok).toBe(true);
      if (spent.ok) spent.refund();
    }
    expect(budgets.spend('x', 'id1').ok).toBe(true);
    expect(budgets.spend('x', 'id2').ok).toBe(true);
    expect(budgets.spend('x', 'id1').ok).toBe(true); // the id's second credit, the client's third
    expect(budgets.spend('x', 'id3').ok).toBe(true); // probation
    expect(budgets.spend('x', 'id3').ok).toBe(false);
  });

  it("refused attempts give back the id credit they took when the client's own ran out", () => {
    const budgets = new FailureBudgets({ ...OPTIONS, perToken: { burst: 1, perMinute: 0 } }, clock().now);
    expect(budgets.spend('x', 'a').ok).toBe(true);
    expect(budgets.spend('x', 'a').ok).toBe(true); // probation
    expect(budgets.spend('x', 'a').ok).toBe(false); // refused: the client's credit is given back
    expect(budgets.spend('x', 'b').ok).toBe(true); // the client's last credit, given back above
    expect(budgets.spend('x', 'c').ok).toBe(false);
  });

  it('a client out of its own budget adds no entries to the per-id table (nobody else is pushed out)', () => {
    const options = { ...OPTIONS, perToken: { burst: 1, perMinute: 0 }, perClient: { burst: 2, perMinute: 0 } };
    const budgets = new FailureBudgets({ ...options, budgetKeys: 2 }, clock().now);
    expect(budgets.spend('y', 'q').ok).toBe(true);
    expect(budgets.spend('x', 'a').ok).toBe(true);
    expect(budgets.spend('x', 'a').ok).toBe(true); // probation; x is out of its own budget
    for (const id of ['c', 'd', 'e']) expect(budgets.spend('x', id).ok).toBe(false);
    // y's entry for q is still there, spent: y is refused at q.
    expect(budgets.spend('y', 'q').ok).toBe(false);
  });

  it('let a client out of budget through on the shared probation trickle, then refuse it', () => {
    const c = clock();
    const budgets = new FailureBudgets({ ...OPTIONS, probationPerSecond: 2 }, c.now);
    budgets.spend('x', 'id');
    budgets.spend('x', 'id');
    // Out of budget for this id: two probation runs a second, shared by every client.
    expect(budgets.spend('x', 'id').ok).toBe(true);
    expect(budgets.spend('y', 'other').ok).toBe(true); // y has budget: no probation spent
    expect(budgets.spend('x', 'id').ok).toBe(true);
    expect(budgets.spend('x', 'id').ok).toBe(false);
    c.advance(500);
    expect(budgets.spend('x', 'id').ok).toBe(true);
    expect(budgets.spend('x', 'id').ok).toBe(false);
  });

  it('refund what a probation attempt spent (nothing) without touching the budgets', () => {
    const budgets = new FailureBudgets({ ...OPTIONS, probationPerSecond: 1 }, clock().now);
    budgets.spend('x', 'id');
    budgets.spend('x', 'id');
    const probation = budgets.spend('x', 'id');
    expect(probation.ok).toBe(true);
    if (probation.ok) probation.refund();
    expect(budgets.spend('x', 'id').ok).toBe(false); // the id's budget is still spent, probation too
  });
});
