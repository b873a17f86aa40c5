/**
 * The bench's reader token (userinfo, introspection, the protected GET) is renewed before a load
 * once half of its life has passed: a full `npm run bench` outlasts an access token's hour, and
 * its protected GET once answered 401 "expired" for the whole scenario (2026-11-28T03:52Z).
 * Runs the compiled server as the bench does (dist/, built by `npm install`'s prepare script),
 * with a 4-second access-token life.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Fixture } from '../fixture.js';
import { Contender } from '../measure.js';
import { SCENARIOS } from '../scenarios.js';
import { startSchoolauth } from '../targets/schoolauth.js';
import type { OAuthTarget } from '../targets/target.js';

const LIFE_S = 4;

describe('bench reader token', { timeout: 60_000 }, () => {
  let dir: string;
  let target: OAuthTarget;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sa-reader-'));
    target = await startSchoolauth(dir, { env: { ACCESS_TOKEN_TTL: String(LIFE_S) } });
  });
  after(async () => {
    await target?.server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is renewed before a load once half its life has passed, so a load after its expiry is answered 200', async () => {
    const fixture = await Fixture.prepare(target);
    const first = fixture.reader?.access_token;
    assert.ok(first, `no reader token: ${[...fixture.details.values()].join('; ')}`);
    const api = SCENARIOS.find((s) => s.name === 'api')!;
    const contender = await Contender.oauth(api, fixture);
    assert.equal(typeof contender, 'object', String(contender));

    await sleep((LIFE_S + 0.5) * 1000);
    const old = await fetch(target.server.baseUrl + target.protectedPath, {
      headers: { authorization: `Bearer ${first}` },
    });
    assert.equal(old.status, 401, 'the first reader token should have expired by now');

    const m = await (contender as Contender).load(2, 1);
    assert.notEqual(fixture.reader?.access_token, first);
    assert.ok(m.ok > 0, `no 2xx answer: ${JSON.stringify(m.statusCodes)}`);
    assert.equal(m.nonOk, 0, `answers other than 2xx: ${JSON.stringify(m.statusCodes)}`);
  });

  it('is kept while it is young', async () => {
    const fixture = await Fixture.prepare(target);
    const first = fixture.reader?.access_token;
    await fixture.freshReader();
    assert.equal(fixture.reader?.access_token, first);
  });
});
