/** The bench's round-trip accounting (bench/round-trips.ts) and its minimum check (bench/postgres-report.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MINIMUM, meetsMinimum } from '../postgres-report.js';
import {
  backgroundRate,
  perRequest,
  roundTripCells,
  type StatsSnapshot,
  shorten,
  withoutBackground,
} from '../round-trips.js';

const snapshot = (
  commits: number,
  rollbacks: number,
  calls: Record<string, [string, number]>,
): StatsSnapshot => ({
  commits,
  rollbacks,
  statements: new Map(Object.entries(calls).map(([id, [query, n]]) => [id, { query, calls: n }])),
});

describe('round trips per request from PostgreSQL statistics', () => {
  it('counts the statements and transactions of the window only, per request', () => {
    const before = snapshot(100, 2, { a: ['select 1', 50], b: ['BEGIN', 10] });
    const after = snapshot(130, 4, {
      a: ['select 1', 70],
      b: ['BEGIN', 20],
      c: ['COMMIT', 10],
      d: ['insert into t values ($1)', 10],
    });
    const rt = perRequest(before, after, 10);
    assert.equal(rt.statements, 5, '20 selects + 10 BEGIN + 10 COMMIT + 10 inserts over 10 requests');
    assert.equal(rt.transactions, 3.2, '30 commits and 2 rollbacks over 10 requests');
    assert.equal(rt.rollbacks, 0.2);
    assert.deepEqual(
      rt.top.map((t) => [t.query, t.perRequest]),
      [
        ['select 1', 2],
        ['BEGIN', 1],
        ['COMMIT', 1],
        ['insert into t values ($1)', 1],
      ],
    );
  });

  it('adds up spellings of one transaction-control statement into one line', () => {
    const rt = perRequest(snapshot(0, 0, {}), snapshot(4, 0, { x: ['begin', 2], y: ['BEGIN', 2] }), 4);
    assert.deepEqual(rt.top, [{ query: 'BEGIN', perRequest: 1 }]);
  });

  it('ignores statements that did not run in the window and never divides by zero', () => {
    const same = snapshot(5, 0, { a: ['select 1', 3] });
    const rt = perRequest(same, same, 0);
    assert.equal(rt.statements, 0);
    assert.equal(rt.transactions, 0);
    assert.deepEqual(rt.top, []);
  });

  it("takes the idle background's share of a window out, per request, and shows it", () => {
    // An idle window of 40 s: 20 transactions and 60 statements of the servers' own timers.
    const idle = perRequest(snapshot(0, 0, {}), snapshot(20, 0, { k: ['select keys', 60] }), 1);
    const background = backgroundRate(idle, 40);
    assert.deepEqual([background.transactionsPerSecond, background.statementsPerSecond], [0.5, 1.5]);
    // A 20 s window of 100 requests, each 1 transaction of 4 statements, plus 10 s of timers.
    const counted = perRequest(snapshot(0, 0, {}), snapshot(110, 0, { q: ['insert', 430] }), 100);
    const net = withoutBackground(counted, background, 20);
    assert.equal(net.transactions, 1);
    assert.equal(net.statements, 4);
    assert.deepEqual(net.background, { transactions: 0.1, statements: 0.3 });
    assert.deepEqual(roundTripCells(net), ['1.00 (+0.10 idle)', '4.00 (+0.30 idle)']);
  });

  it('never takes out more than a quieter window counted, so no figure goes below zero', () => {
    const idle = perRequest(snapshot(0, 0, {}), snapshot(30, 0, { k: ['select keys', 30] }), 1);
    const background = backgroundRate(idle, 10);
    const counted = perRequest(snapshot(0, 0, {}), snapshot(5, 0, { q: ['select', 5] }), 5);
    const net = withoutBackground(counted, background, 10);
    assert.equal(net.transactions, 0);
    assert.equal(net.statements, 0);
    assert.deepEqual(roundTripCells(counted), ['1.00', '1.00']);
  });

  it('shortens SQL to one line', () => {
    assert.equal(shorten('select *\n  from   t'), 'select * from t');
    assert.equal(shorten('x'.repeat(100), 10), `${'x'.repeat(9)}…`);
  });

  it('judges a scenario against its minimum, a little rate-limit flush allowed', () => {
    const at = (scenario: keyof typeof MINIMUM, transactions: number, statements: number) =>
      meetsMinimum({ requests: 1, transactions, rollbacks: 0, statements, top: [] }, MINIMUM[scenario]);
    assert.equal(at('userinfo', 1, 1), true);
    assert.equal(at('userinfo', 1.01, 1.02), true);
    assert.equal(at('userinfo', 1, 2), false, 'two reads');
    assert.equal(at('code', 1, 4), true, 'BEGIN, read, write, COMMIT');
    assert.equal(at('code', 1.01, 4.05), true);
    assert.equal(at('code', 3, 9), false, 'three transactions');
    assert.equal(at('code', 1, 9), false, 'one transaction, nine round trips');
    assert.equal(at('code', 1, 5), false, 'one transaction, five round trips');
  });

  it('allows for the requests in flight when a run stopped, and no more', () => {
    // 591 answers counted, 16 more served when the run stopped: 1.06 transactions, 4.13 statements.
    const rt = { requests: 591, transactions: 1.06, rollbacks: 0, statements: 4.13, top: [] };
    assert.equal(meetsMinimum(rt, MINIMUM['code-oidc']), false, 'without the allowance');
    assert.equal(meetsMinimum(rt, MINIMUM['code-oidc'], 16), true);
    const nine = { ...rt, transactions: 1.03, statements: 9.2 };
    assert.equal(meetsMinimum(nine, MINIMUM['code-oidc'], 16), false, 'nine round trips stay too many');
  });

  it('holds registration to one statement and the token endpoint and revocation to read-then-write', () => {
    assert.deepEqual(MINIMUM.registration, { transactions: 1, statements: 1 });
    for (const scenario of ['code', 'code-oidc', 'code-oidc-es256', 'refresh', 'revocation'] as const) {
      assert.deepEqual(MINIMUM[scenario], { transactions: 1, statements: 4 }, scenario);
    }
  });
});
