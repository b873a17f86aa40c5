/**
 * The accounts section (../contract/accounts.ts) on SQLite. The GET /account answer as sent (its
 * serialised bytes), per account, is kept while no row of its three tables has changed or been
 * added since it was read, so every answer is what a fresh read would give (the change stamps of
 * change-stamps.ts). Agents ask who they act for at every start-up: the read with its two joins
 * and the serialisation were most of this request's own work (docs/performance.md 26).
 */
import type { Kysely } from 'kysely';
import { type AccountRow, accountWithMemberships } from '../account-memberships.repository.js';
import { findAccountById } from '../accounts.repository.js';
import type { Accounts } from '../contract/accounts.js';
import type { Database } from '../schema.js';
import { changedSince, snapshotStamp } from './driver.js';
import { NOT_NOW, type ReadNow, readNow } from './read-now.js';

// The answer is built from several rows (an account and its memberships' schools): a plain INSERT
// of a membership (or any row) into one of these tables changes it too.
const TABLES = ['accounts', 'memberships', 'schools'];
/** Answers kept per database; when full it is emptied (a full cache refills in one round). */
const CAPACITY = 10_000;

interface Kept {
  readonly now: true;
  /** The serialised answer. */
  readonly value: string;
  readonly stamp: number;
}

const byDatabase = new WeakMap<object, Map<string, Kept>>();

/**
 * The answer for `accountId`: kept while current, else from `answerNow` (a synchronous read and
 * serialisation, which is kept). NOT_NOW when no read can run now: the caller reads as a promise.
 */
export function accountAnswerNow(
  db: object,
  accountId: string,
  answerNow: () => ReadNow<string>,
): ReadNow<string> {
  const stamp = snapshotStamp(db);
  if (stamp === undefined) return NOT_NOW;
  let answers = byDatabase.get(db);
  const hit = answers?.get(accountId);
  if (hit && !changedSince(db, hit.stamp, TABLES, true)) return hit;
  const answer = answerNow();
  if (!answer.now) {
    if (hit) answers!.delete(accountId);
    return answer;
  }
  if (!answers) {
    answers = new Map();
    byDatabase.set(db, answers);
  }
  if (answers.size >= CAPACITY) answers.clear();
  const kept: Kept = { now: true, value: answer.value, stamp };
  answers.set(accountId, kept);
  return kept;
}

export function sqliteAccounts(db: Kysely<Database>): Accounts {
  return {
    findById: (accountId) => findAccountById(db, accountId),
    withMemberships: (accountId) => accountWithMemberships.all(db, accountId),
    answerFor(accountId, build: (rows: AccountRow[]) => string) {
      const body = accountAnswerNow(db, accountId, () => {
        const rows = accountWithMemberships.allNow(db, accountId);
        return rows.now ? readNow(build(rows.value)) : NOT_NOW;
      });
      // Not now (a transaction holds the connection): the same read as a promise.
      return body.now ? body.value : accountWithMemberships.all(db, accountId).then(build);
    },
  };
}
