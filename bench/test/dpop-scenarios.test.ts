/**
 * The DPoP scenarios (issue 46) send requests the server accepts: every request of a short load
 * carries a fresh proof (RFC 9449 §4.2: a new jti and iat; a replayed proof would be refused), the
 * protected GET a proof with `ath` and `Authorization: DPoP`. Runs the compiled server as the bench
 * does (dist/).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { compactVerify, EmbeddedJWK } from 'jose';
import { accessTokenHash, DpopKey } from '../dpop.js';
import { Fixture } from '../fixture.js';
import { Contender } from '../measure.js';
import { SCENARIOS, type ScenarioName } from '../scenarios.js';
import { startSchoolauth } from '../targets/schoolauth.js';
import type { OAuthTarget } from '../targets/target.js';

describe('bench DPoP scenarios', { timeout: 120_000 }, () => {
  let dir: string;
  let target: OAuthTarget;
  let fixture: Fixture;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sa-dpop-'));
    target = await startSchoolauth(dir);
    fixture = await Fixture.prepare(target);
  });
  after(async () => {
    await target?.server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("signs proofs that jose verifies with the proof's own jwk, each with a new jti", async () => {
    const key = await DpopKey.generate();
    const first = key.proof('GET', 'http://127.0.0.1/api', 'token');
    const second = key.proof('GET', 'http://127.0.0.1/api', 'token');
    const { payload, protectedHeader } = await compactVerify(first, EmbeddedJWK);
    const claims = JSON.parse(new TextDecoder().decode(payload));
    assert.equal(protectedHeader.typ, 'dpop+jwt');
    assert.equal((protectedHeader.jwk as Record<string, unknown> | undefined)?.d, undefined);
    assert.equal(claims.htm, 'GET');
    assert.equal(claims.ath, accessTokenHash('token'));
    const again = JSON.parse(Buffer.from(second.split('.')[1]!, 'base64url').toString());
    assert.notEqual(again.jti, claims.jti);
  });

  for (const name of ['dpop-api', 'dpop-code', 'dpop-refresh'] as const satisfies ScenarioName[]) {
    it(`${name}: a short load is answered with 2xx only, no 401 or 400`, async () => {
      const scenario = SCENARIOS.find((s) => s.name === name)!;
      const contender = await Contender.oauth(scenario, fixture);
      assert.equal(typeof contender, 'object', `not measurable: ${String(contender)}`);
      const m = await (contender as Contender).load(4, 1);
      assert.ok(m.ok > 50, `too few 2xx answers: ${JSON.stringify(m.statusCodes)}`);
      assert.equal(m.nonOk, 0, `answers other than 2xx: ${JSON.stringify(m.statusCodes)}`);
      assert.equal(m.errors, 0);
    });
  }

  it('the DPoP GET presents a DPoP-bound token: the same token as Bearer is refused', async () => {
    const token = fixture.dpopReader?.access_token;
    assert.ok(token, 'no DPoP reader token');
    assert.equal(fixture.dpopReader?.token_type, 'DPoP');
    const response = await fetch(target.server.baseUrl + target.protectedPath, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(response.status, 401);
  });
});
