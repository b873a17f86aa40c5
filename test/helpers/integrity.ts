/**
 * What no fault may leave behind (crash, database outage, full disk): a grant without its code,
 * a token without its grant, a rotated refresh token without its successor, or a grant with two
 * live refresh tokens (two successors of one rotation).
 */
import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/storage/schema.js';

export async function assertNothingHalfWritten(db: Kysely<Database>): Promise<void> {
  const grants = await db.selectFrom('grants').select('id').execute();
  const withCode = new Set(
    (await db.selectFrom('authorization_codes').select('grant_id').execute()).map((r) => r.grant_id),
  );
  for (const { id } of grants) assert.ok(withCode.has(id), `grant ${id} has its code`);
  const orphans = await db
    .selectFrom('refresh_tokens')
    .select('token_hash')
    .where('grant_id', 'not in', db.selectFrom('grants').select('id'))
    .execute();
  assert.equal(orphans.length, 0, 'no token without its grant');
  const tokens = await db
    .selectFrom('refresh_tokens')
    .select(['token_hash', 'grant_id', 'created_at', 'rotated_at', 'revoked_at'])
    .execute();
  for (const row of tokens.filter((t) => t.rotated_at !== null)) {
    const successor = tokens.find(
      (t) =>
        t.grant_id === row.grant_id && t.token_hash !== row.token_hash && t.created_at >= row.rotated_at!,
    );
    assert.ok(successor, 'a rotated refresh token always has its successor (rotation is atomic)');
  }
  const live = new Map<string, number>();
  for (const t of tokens.filter((t) => t.rotated_at === null && t.revoked_at === null)) {
    live.set(t.grant_id, (live.get(t.grant_id) ?? 0) + 1);
  }
  for (const [grant, count] of live) assert.ok(count <= 1, `grant ${grant} has ${count} live refresh tokens`);
}
