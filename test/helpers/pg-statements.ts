/**
 * Counts what the server sends PostgreSQL while a piece of work runs, as PostgreSQL counts it:
 * every statement is a round trip (BEGIN and COMMIT included), and a statement outside
 * BEGIN … COMMIT is a transaction of its own. node-postgres sends every statement through
 * `Client.prototype.query`, pooled connections included, so the count wraps that one method
 * for the duration of `work` (one piece of work at a time: the wrap is process-wide).
 */
import pg from 'pg';

export interface StatementCount {
  readonly transactions: number;
  readonly statements: number;
  /** The SQL of every statement, in order (for the failure message). */
  readonly sql: readonly string[];
}

function sqlOf(query: unknown): string {
  if (typeof query === 'string') return query;
  if (query && typeof query === 'object' && 'text' in query) return String(query.text);
  return '';
}

export async function countStatements(work: () => Promise<unknown>): Promise<StatementCount> {
  const original = pg.Client.prototype.query;
  const inTransaction = new WeakSet<object>();
  const sql: string[] = [];
  let transactions = 0;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const text = sqlOf(args[0]);
    const verb = text.trim().split(/\s+/, 1)[0]!.toLowerCase();
    sql.push(text);
    if (verb === 'begin' || verb === 'start') {
      inTransaction.add(this);
      transactions += 1;
    } else if (verb === 'commit' || verb === 'rollback') {
      inTransaction.delete(this);
    } else if (!inTransaction.has(this)) {
      transactions += 1;
    }
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pg.Client.prototype.query;
  try {
    await work();
  } finally {
    pg.Client.prototype.query = original;
  }
  return { transactions, statements: sql.length, sql };
}
