/**
 * One transaction per request where the store makes that cheaper (store.ts `oneTransaction`;
 * PostgreSQL, docs/performance.md "PostgreSQL"): the reads a request decides on (client
 * authentication, the code or token lookup) and its writes run inside one BEGIN … COMMIT, so the
 * database counts one transaction instead of one per read.
 *
 * The order of every check and its action is the work's own and unchanged; under READ COMMITTED
 * (PostgreSQL's default, not changed here) each statement still sees every transaction committed
 * before it started, as an autocommit statement does, so a row lock waited for (a code consumed,
 * a refresh token rotated by another instance) is followed by reads that see the winner's commit.
 *
 * An answer (an OAuthError or ApiError thrown by the work) commits what the work wrote before it,
 * as the separate statements and transactions it replaces had committed: a replayed code revokes
 * its grant and answers invalid_grant. A transaction the work opens inside (inTransaction) still
 * rolls back as a whole: its failure, answer or fault, rolls back the request's transaction.
 * Any other fault rolls back everything; a deadlock or serialization failure reruns the whole
 * request's work in a new transaction (at most 3 attempts, then 503), reads and all, and nothing
 * answers before what it answers for has committed (docs/security.md "Lock order").
 */
import { ApiError, OAuthError } from '../errors.js';
import type { Scope, Store } from '../storage/store.js';
import { NestedWorkFailed } from '../storage/transaction.js';

const isAnswer = (error: unknown): boolean => error instanceof OAuthError || error instanceof ApiError;

export async function inRequestTransaction<T>(store: Store, work: (scope: Scope) => Promise<T>): Promise<T> {
  let outcome: { value: T } | { answer: unknown };
  try {
    outcome = await store.oneTransaction(async (scope) => {
      try {
        return { value: await work(scope) };
      } catch (error) {
        if (isAnswer(error)) return { answer: error };
        throw error;
      }
    });
  } catch (error) {
    throw error instanceof NestedWorkFailed ? error.cause : error;
  }
  if ('answer' in outcome) throw outcome.answer;
  return outcome.value;
}
