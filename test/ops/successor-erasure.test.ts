import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { hashSecret } from '../../src/crypto/tokens.js';
import { startSuccessorErasure } from '../../src/ops/successor-erasure.js';
import { createTestApp } from '../helpers/app.js';
import { createPerson, refresh, register, tokensFor } from '../helpers/oauth.js';

const log = { info: () => undefined, warn: () => undefined };

describe('erasing sealed refresh successors in the server', () => {
  it('erases a rotated token’s sealed pair within a second of its grace window’s end', async () => {
    const t = await createTestApp('sqlite', { env: { REFRESH_GRACE: '1' } });
    const job = startSuccessorErasure(t.ctx, log);
    try {
      const client = await register(t);
      const first = await tokensFor(t, client, await createPerson(t));
      assert.equal((await refresh(t, client, first.refresh_token)).statusCode, 200);
      const sealed = async () =>
        (
          await t.ctx.db
            .selectFrom('refresh_tokens')
            .select('successor')
            .where('token_hash', '=', hashSecret(first.refresh_token))
            .executeTakeFirstOrThrow()
        ).successor;
      assert.ok(await sealed());
      t.clock.advance(2);
      const started = Date.now();
      while ((await sealed()) !== null) {
        assert.ok(Date.now() - started < 3000, 'erased within the job’s interval');
        await sleep(50);
      }
    } finally {
      await job.stop();
      await t.close();
    }
  });
});
