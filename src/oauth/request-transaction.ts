/**
 * One transaction per request on PostgreSQL (issue 22 item 4, docs/performance.md "PostgreSQL"):
 * the reads a request decides on (client authentication, the code or token lookup) and its
 * writes run on one connection inside one BEGIN … COMMIT, so PostgreSQL counts one transaction
 * instead of one per read.
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
 * request's work in a new transaction (inTransaction: at most 3 attempts, then 503), reads and
 * all, and nothing answers before what it answers for has committed (docs/security.md "Lock
 * order"). SQLite runs the work as before, on the database itself (its driver shares read
 * transactions and commits in groups; sqlite/README.md).
 */
import type { Kysely } from 'kysely';
import { ApiError, OAuthError } from '../errors.js';
import { dialectOf } from '../storage/dialect.js';
import type { Database } from '../storage/schema.js';
import { inTransaction, NestedWorkFailed } from '../storage/transaction.js';

const isAnswer = (error: unknown): boolean => error instanceof OAuthError || error instanceof ApiError;

export async function inRequestTransaction<T>(
  db: Kysely<Database>,
  work: (db: Kysely<Database>) => Promise<T>,
): Promise<T> {
  if (dialectOf(db) !== 'postgres') return work(db);
  let outcome: { value: T } | { answer: unknown };
  try {
    outcome = await inTransaction(db, async (trx) => {
      try {
        return { value: await work(trx) };
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
