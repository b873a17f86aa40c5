import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { hashSecret } from '../../src/crypto/tokens.js';
import { eraseEndedSuccessors } from '../../src/storage/refresh-tokens.repository.js';
import { DIALECTS, type TestApp } from '../helpers/app.js';
import {
  type createPerson,
  errorOf,
  oauthSuite,
  type RegisteredClient,
  refresh,
  register,
  revoke,
  type TokenResponse,
  tokensFor,
} from '../helpers/oauth.js';

for (const dialect of DIALECTS) {
  describe(`token endpoint: refresh_token grant [${dialect}]`, () => {
    let t: TestApp;
    let pub: RegisteredClient;
    let conf: RegisteredClient;
    let person: Awaited<ReturnType<typeof createPerson>>;
    before(async () => {
      ({ t, pub, conf, person } = await oauthSuite(dialect));
    });
    after(() => t.close());

    const isRevoked = async (table: 'access_tokens' | 'refresh_tokens', token: string) => {
      const row = await t.ctx.db
        .selectFrom(table)
        .select('revoked_at')
        .where('token_hash', '=', hashSecret(token))
        .executeTakeFirstOrThrow();
      return row.revoked_at !== null;
    };

    it('rotates the refresh token on every use and answers a new pair with no-store', async () => {
      const first = await tokensFor(t, pub, person);
      const res = await refresh(t, pub, first.refresh_token);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'no-store');
      const next = res.json() as TokenResponse;
      assert.notEqual(next.refresh_token, first.refresh_token);
      assert.notEqual(next.access_token, first.access_token);
      assert.match(next.refresh_token, /^sa_rt_/);
      assert.match(next.access_token, /^sa_at_/);
      assert.equal(next.token_type, 'Bearer');
      assert.equal(next.scope, first.scope);
      assert.equal(next.expires_in, t.config.accessTokenTtl);
      assert.ok(next.id_token, 'openid granted: a refreshed ID token');
      const payload = JSON.parse(Buffer.from(next.id_token.split('.')[1]!, 'base64url').toString());
      assert.equal(payload.sub, person.id);
      assert.equal(payload.nonce, undefined, 'OIDC Core §12.2: no nonce on refresh');
      const third = await refresh(t, pub, next.refresh_token);
      assert.equal(third.statusCode, 200);
    });

    it('a confidential client refreshes with its secret; without it 401 invalid_client', async () => {
      const first = await tokensFor(t, conf, person);
      assert.deepEqual(errorOf(await refresh(t, conf, first.refresh_token, { client_secret: undefined })), {
        status: 401,
        error: 'invalid_client',
      });
      assert.equal((await refresh(t, conf, first.refresh_token)).statusCode, 200);
    });

    it('may narrow the scope: the access token narrows, the next refresh token keeps the grant', async () => {
      const first = await tokensFor(t, pub, person);
      const narrowed = (
        await refresh(t, pub, first.refresh_token, { scope: 'courses:read' })
      ).json() as TokenResponse;
      assert.equal(narrowed.scope, 'courses:read');
      assert.equal(narrowed.id_token, undefined);
      const again = (await refresh(t, pub, narrowed.refresh_token)).json() as TokenResponse;
      assert.equal(
        again.scope,
        'openid profile email courses:read',
        'RFC 6749 §6: refresh token scope unchanged',
      );
    });

    it('accepts offline_access in a refresh request and leaves it out of the granted scope (OIDC Core §11)', async () => {
      const first = await tokensFor(t, pub, person);
      let token = first.refresh_token;
      for (const [scope, granted] of [
        [`${first.scope} offline_access`, first.scope],
        ['offline_access courses:read', 'courses:read'],
      ]) {
        const res = await refresh(t, pub, token, { scope: scope! });
        assert.equal(res.statusCode, 200, res.body);
        const answered = res.json() as TokenResponse;
        assert.equal(answered.scope, granted);
        token = answered.refresh_token;
      }
    });

    it('a repeat inside the grace window answers the same new pair', async () => {
      const first = await tokensFor(t, pub, person);
      const a = (await refresh(t, pub, first.refresh_token)).json() as TokenResponse;
      // Two seconds short of the window's end: the test clock follows real time too.
      t.clock.advance(t.config.refreshGrace - 2);
      const b = (await refresh(t, pub, first.refresh_token)).json() as TokenResponse;
      assert.equal(b.access_token, a.access_token);
      assert.equal(b.refresh_token, a.refresh_token);
      assert.ok(b.expires_in <= t.config.accessTokenTtl - t.config.refreshGrace + 2);
      assert.ok(b.expires_in >= t.config.accessTokenTtl - t.config.refreshGrace);
      assert.equal(await isRevoked('refresh_tokens', a.refresh_token), false);
    });

    const reusedAudits = (grantId: string) =>
      t.ctx.db
        .selectFrom('audit_events')
        .select('detail')
        .where('kind', '=', 'refresh.reused')
        .execute()
        .then((rows) =>
          rows.filter((r) => (JSON.parse(r.detail) as { grant_id?: string }).grant_id === grantId),
        );

    const grantOf = (refreshToken: string) =>
      t.ctx.db
        .selectFrom('refresh_tokens')
        .select('grant_id')
        .where('token_hash', '=', hashSecret(refreshToken))
        .executeTakeFirstOrThrow()
        .then((r) => r.grant_id);

    it('a repeat while its successor is still live answers the stored pair, every time, and the successor still works', async () => {
      const first = await tokensFor(t, pub, person);
      const grantId = await grantOf(first.refresh_token);
      const a = (await refresh(t, pub, first.refresh_token)).json() as TokenResponse;
      for (let i = 0; i < 2; i++) {
        const again = await refresh(t, pub, first.refresh_token);
        assert.equal(again.statusCode, 200, again.body);
        const b = again.json() as TokenResponse;
        assert.equal(b.access_token, a.access_token);
        assert.equal(b.refresh_token, a.refresh_token);
      }
      assert.equal(await isRevoked('access_tokens', a.access_token), false);
      assert.deepEqual(await reusedAudits(grantId), []);
      assert.equal((await refresh(t, pub, a.refresh_token)).statusCode, 200, 'the successor rotates');
    });

    it('an old refresh token repeated after its successor was itself rotated is reuse, inside the grace window: family revoked, refresh.reused audited, the one answer', async () => {
      const first = await tokensFor(t, pub, person);
      const grantId = await grantOf(first.refresh_token);
      // The client rotates R0 → R1 → R2 → R3, all within the window of R0's rotation.
      const chain: TokenResponse[] = [];
      let token = first.refresh_token;
      for (let i = 0; i < 3; i++) {
        const res = await refresh(t, pub, token);
        assert.equal(res.statusCode, 200, res.body);
        chain.push(res.json() as TokenResponse);
        token = chain[i]!.refresh_token;
      }
      t.clock.advance(1);
      // The holder of R0 alone: no R1 (nor R2, nor R3), and the family ends.
      const stolen = await refresh(t, pub, first.refresh_token);
      const unknown = await refresh(t, pub, 'sa_rt_never-issued-token');
      assert.equal(stolen.statusCode, 400);
      assert.deepEqual(stolen.json(), unknown.json(), 'the one answer for an unusable refresh token');
      for (const pair of [first, ...chain]) {
        assert.equal(await isRevoked('access_tokens', pair.access_token), true);
        assert.equal(await isRevoked('refresh_tokens', pair.refresh_token), true);
      }
      assert.equal((await reusedAudits(grantId)).length, 1);
      // The live token of the chain (R3) works no more, and neither does R1 repeated.
      assert.deepEqual(errorOf(await refresh(t, pub, chain[2]!.refresh_token)), {
        status: 400,
        error: 'invalid_grant',
      });
      assert.deepEqual(errorOf(await refresh(t, pub, chain[0]!.refresh_token)), {
        status: 400,
        error: 'invalid_grant',
      });
    });

    it('reuse after the grace window is invalid_grant and revokes the whole family', async () => {
      const first = await tokensFor(t, pub, person);
      const second = (await refresh(t, pub, first.refresh_token)).json() as TokenResponse;
      const third = (await refresh(t, pub, second.refresh_token)).json() as TokenResponse;
      t.clock.advance(t.config.refreshGrace + 1);
      assert.deepEqual(errorOf(await refresh(t, pub, first.refresh_token)), {
        status: 400,
        error: 'invalid_grant',
      });
      for (const pair of [first, second, third]) {
        assert.equal(await isRevoked('access_tokens', pair.access_token), true);
        assert.equal(await isRevoked('refresh_tokens', pair.refresh_token), true);
      }
      assert.deepEqual(errorOf(await refresh(t, pub, third.refresh_token)), {
        status: 400,
        error: 'invalid_grant',
      });
      const audit = await t.ctx.db
        .selectFrom('audit_events')
        .select('kind')
        .where('kind', '=', 'refresh.reused')
        .execute();
      assert.ok(audit.length >= 1);
    });

    /** The 43 random characters after a token's prefix and stamp. */
    const randomPart = (token: string) => token.slice(-43);

    it('an earlier refresh token cannot compute its successors: they are not an HMAC of it', async () => {
      const first = await tokensFor(t, pub, person);
      const next = (await refresh(t, pub, first.refresh_token)).json() as TokenResponse;
      const issued = new Set([randomPart(next.access_token), randomPart(next.refresh_token)]);
      // What a holder of a copy of `first` would try: HMAC(first, label), whatever the stamp.
      for (const label of ['rotation:access', 'rotation:refresh', 'access', 'refresh']) {
        for (const key of [first.refresh_token, randomPart(first.refresh_token)]) {
          const guess = createHmac('sha256', key).update(`schoolauth:${label}`).digest('base64url');
          assert.equal(issued.has(guess), false, `successor derivable with label ${label}`);
        }
      }
    });

    it('rotating the same token twice in one second gives two different pairs (fresh randomness)', async () => {
      const first = await tokensFor(t, pub, person);
      // The same token at the same clock reading: any function of the two would repeat itself.
      t.clock.freeze();
      let a: TokenResponse;
      let res: Awaited<ReturnType<typeof refresh>>;
      try {
        a = (await refresh(t, pub, first.refresh_token)).json() as TokenResponse;
        // Undo the rotation (as if it never happened) and rotate again at the same clock reading.
        await t.ctx.db
          .updateTable('refresh_tokens')
          .set({ rotated_at: null, successor: null })
          .where('token_hash', '=', hashSecret(first.refresh_token))
          .execute();
        res = await refresh(t, pub, first.refresh_token);
      } finally {
        t.clock.thaw();
      }
      assert.equal(res.statusCode, 200, res.body);
      const b = res.json() as TokenResponse;
      assert.notEqual(randomPart(b.refresh_token), randomPart(a.refresh_token));
      assert.notEqual(randomPart(b.access_token), randomPart(a.access_token));
    });

    it('keeps the grace-window pair only encrypted, in the rotated row, and erases it when the window ends', async () => {
      const first = await tokensFor(t, pub, person);
      const next = (await refresh(t, pub, first.refresh_token)).json() as TokenResponse;
      const sealed = async () =>
        (
          await t.ctx.db
            .selectFrom('refresh_tokens')
            .select('successor')
            .where('token_hash', '=', hashSecret(first.refresh_token))
            .executeTakeFirstOrThrow()
        ).successor;
      const stored = await sealed();
      assert.ok(stored, 'the rotated row keeps the sealed pair for the grace window');
      for (const token of [next.access_token, next.refresh_token]) {
        assert.equal(stored.includes(randomPart(token)), false, 'no successor in the clear');
        assert.equal(stored.includes(hashSecret(token)), false);
      }
      // Inside the window nothing is erased.
      await eraseEndedSuccessors(t.ctx.db, t.ctx.now() - t.config.refreshGrace);
      assert.ok(await sealed());
      t.clock.advance(t.config.refreshGrace + 1);
      await eraseEndedSuccessors(t.ctx.db, t.ctx.now() - t.config.refreshGrace);
      assert.equal(await sealed(), null);
      // The successor itself is unaffected: it is the live token now.
      assert.equal((await refresh(t, pub, next.refresh_token)).statusCode, 200);
    });

    it('a revoked grant erases the sealed pair of its rotated tokens at once', async () => {
      const first = await tokensFor(t, pub, person);
      const next = (await refresh(t, pub, first.refresh_token)).json() as TokenResponse;
      const before = await t.ctx.db
        .selectFrom('refresh_tokens')
        .select('successor')
        .where('token_hash', '=', hashSecret(first.refresh_token))
        .executeTakeFirstOrThrow();
      assert.ok(before.successor, 'sealed while the window is open');
      assert.equal((await revoke(t, pub, next.refresh_token)).statusCode, 200);
      const row = await t.ctx.db
        .selectFrom('refresh_tokens')
        .select(['successor', 'revoked_at'])
        .where('token_hash', '=', hashSecret(first.refresh_token))
        .executeTakeFirstOrThrow();
      assert.notEqual(row.revoked_at, null);
      assert.equal(row.successor, null);
    });

    it('concurrent refreshes of one token inside the window all answer the same new pair', async () => {
      const first = await tokensFor(t, pub, person);
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => refresh(t, pub, first.refresh_token)),
      );
      const bodies = answers.map((r) => {
        assert.equal(r.statusCode, 200, r.body);
        return r.json() as TokenResponse;
      });
      assert.equal(new Set(bodies.map((b) => b.refresh_token)).size, 1);
      assert.equal(new Set(bodies.map((b) => b.access_token)).size, 1);
      const family = await t.ctx.db
        .selectFrom('refresh_tokens')
        .select('token_hash')
        .where(
          'grant_id',
          '=',
          (
            await t.ctx.db
              .selectFrom('refresh_tokens')
              .select('grant_id')
              .where('token_hash', '=', hashSecret(first.refresh_token))
              .executeTakeFirstOrThrow()
          ).grant_id,
        )
        .execute();
      assert.equal(family.length, 2, 'exactly one successor was written');
    });

    it('scope widening is invalid_scope; an unknown scope too', async () => {
      const first = await tokensFor(t, pub, person, { scopes: ['openid', 'courses:read'] });
      for (const scope of ['openid courses:write', 'admin']) {
        assert.deepEqual(errorOf(await refresh(t, pub, first.refresh_token, { scope })), {
          status: 400,
          error: 'invalid_scope',
        });
      }
      assert.equal(
        (await refresh(t, pub, first.refresh_token)).statusCode,
        200,
        'a refused request does not spend the token',
      );
    });

    const rows: ReadonlyArray<
      [name: string, extra: Record<string, string | string[] | undefined>, status: number, error: string]
    > = [
      ['missing refresh_token', { refresh_token: undefined }, 400, 'invalid_request'],
      ['unknown refresh_token', { refresh_token: 'sa_rt_unknown' }, 400, 'invalid_grant'],
      ['an access token as refresh_token', { refresh_token: 'ACCESS' }, 400, 'invalid_grant'],
      ['a resource other than the bound one', { resource: 'https://api.example.com' }, 400, 'invalid_target'],
      ['repeated refresh_token', { refresh_token: ['a', 'b'] }, 400, 'invalid_request'],
      ['missing client_id', { client_id: undefined }, 401, 'invalid_client'],
    ];
    for (const [name, extra, status, error] of rows) {
      it(`${name} → ${status} ${error}`, async () => {
        const first = await tokensFor(t, pub, person);
        const patched = Object.fromEntries(
          Object.entries(extra).map(([k, v]) => [k, v === 'ACCESS' ? first.access_token : v]),
        );
        const res = await refresh(t, pub, first.refresh_token, patched);
        assert.deepEqual(errorOf(res), { status, error });
      });
    }

    it('a refresh token of another client is invalid_grant', async () => {
      const first = await tokensFor(t, pub, person);
      const other = await register(t);
      assert.deepEqual(errorOf(await refresh(t, other, first.refresh_token)), {
        status: 400,
        error: 'invalid_grant',
      });
    });

    it('an idle-expired refresh token is invalid_grant', async () => {
      const first = await tokensFor(t, pub, person);
      t.clock.advance(t.config.refreshTokenTtl);
      assert.deepEqual(errorOf(await refresh(t, pub, first.refresh_token)), {
        status: 400,
        error: 'invalid_grant',
      });
    });

    it('the resource binding may be repeated on refresh', async () => {
      const first = await tokensFor(t, pub, person);
      assert.equal(
        (await refresh(t, pub, first.refresh_token, { resource: t.config.issuer })).statusCode,
        200,
      );
    });
  });
}
