import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PRUNE_MARGIN, prune } from '../../src/ops/prune.js';
import { startPruneSchedule, walksAllGrants } from '../../src/ops/prune-schedule.js';
import { upkeepSection } from '../../src/storage/expired-rows.repository.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { DeleteCounter } from './delete-counter.js';
import { addAccount, addClient, addCode, addGrant, addSession, addToken, count } from './fixtures.js';
import { GrantDeleteFault } from './grant-delete-fault.js';

const DAY = 86400;

/** Each database, and a SQLite file as the server opens it. */
const TARGETS = [
  ...DIALECTS.map((dialect) => ({ dialect, label: dialect, sqliteFile: false })),
  { dialect: 'sqlite' as const, label: 'sqlite file', sqliteFile: true },
];

for (const { dialect, label, sqliteFile } of TARGETS) {
  describe(`prune [${label}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect, { sqliteFile });
    });
    after(() => t.close());
    /** What the server's prune runs on (prune-schedule.ts). */
    const pruneDb = () => t.ctx.storage.maintenanceDb;

    it('removes exactly what is dead and never a client with a live grant', async () => {
      const db = t.ctx.db;
      const now = t.clock.now();
      const acc = await addAccount(db, now - 200 * DAY);

      // A client in use: old, never "used" by the column, but holding a live refresh token.
      const inUse = await addClient(db, 'dynamic', now - 100 * DAY);
      const liveGrant = {
        id: await addGrant(db, acc, inUse, now - 100 * DAY),
        accountId: acc,
        clientId: inUse,
      };
      const liveRefresh = await addToken(db, 'refresh_tokens', liveGrant, now - DAY, now + 29 * DAY);
      const expiredAccess = await addToken(db, 'access_tokens', liveGrant, now - DAY, now - DAY + 3600);
      // A revoked grant whose access token has not expired yet: kept until it has.
      const revoked = {
        id: await addGrant(db, acc, inUse, now - DAY, now - 60),
        accountId: acc,
        clientId: inUse,
      };
      const revokedButUnexpired = await addToken(db, 'access_tokens', revoked, now - 120, now + 3000);

      const abandoned = await addClient(db, 'dynamic', now - 31 * DAY);
      const recentlyUsed = await addClient(db, 'dynamic', now - 31 * DAY, now - DAY);
      const young = await addClient(db, 'dynamic', now - 10 * DAY);
      const integration = await addClient(db, 'integration', now - 400 * DAY);
      // Everything it had expired long ago: tokens, grant and client all go.
      const expiredAll = await addClient(db, 'dynamic', now - 40 * DAY);
      const deadGrant = {
        id: await addGrant(db, acc, expiredAll, now - 40 * DAY),
        accountId: acc,
        clientId: expiredAll,
      };
      await addToken(db, 'refresh_tokens', deadGrant, now - 40 * DAY, now - 10 * DAY);
      // A revoked grant of a recently used client with nothing left: the grant goes, the client stays.
      const revokedDead = await addGrant(db, acc, recentlyUsed, now - 5 * DAY, now - 4 * DAY);

      // Codes: long expired, expired inside the safety margin, consumed but unexpired (replay detection).
      const codeGrant = { id: await addGrant(db, acc, young, now - 60), accountId: acc, clientId: young };
      const oldCode = await addCode(db, codeGrant, now - 1000, now - 940, now - 990);
      const justExpired = await addCode(db, codeGrant, now - 70, now - 10);
      const consumed = await addCode(db, codeGrant, now - 20, now + 40, now - 15);

      const deadSession = await addSession(db, acc, now - 2 * DAY, now - DAY);
      const tooOldSession = await addSession(db, acc, now - t.config.sessionAbsoluteTtl - 1, now + 3600);
      const liveSession = await addSession(db, acc, now - 3600, now + 3600);
      await db
        .insertInto('rate_limits')
        .values([
          { key: 'old', count: 3, reset_at: now - 1 },
          { key: 'current', count: 3, reset_at: now + 30 },
        ])
        .execute();
      await db
        .insertInto('signin_throttle')
        .values(
          [
            { key: 'forgotten', failures: 3, blocked_until: now - 900, forget_at: now },
            { key: 'remembered', failures: 3, blocked_until: now - 800, forget_at: now + 100 },
          ].map((row) => ({ ...row, refused: 0 })),
        )
        .execute();

      const counts = await prune(t.ctx.storage.maintenanceStore.upkeep, t.config, now);
      assert.deepEqual(counts, {
        codes: 1,
        accessTokens: 1,
        refreshTokens: 1,
        grants: 2,
        sessions: 2,
        rateLimits: 2,
        clients: 2,
      });

      const ids = async (table: 'clients' | 'grants') =>
        (await db.selectFrom(table).select('id').execute()).map((r) => r.id).sort();
      assert.deepEqual(await ids('clients'), [inUse, recentlyUsed, young, integration].sort());
      assert.ok(!(await ids('clients')).includes(abandoned));
      assert.deepEqual(await ids('grants'), [liveGrant.id, revoked.id, codeGrant.id].sort());
      assert.ok(!(await ids('grants')).includes(revokedDead));
      const hashes = async (table: 'access_tokens' | 'refresh_tokens') =>
        (await db.selectFrom(table).select('token_hash').execute()).map((r) => r.token_hash).sort();
      assert.deepEqual(await hashes('access_tokens'), [revokedButUnexpired]);
      assert.ok(!(await hashes('access_tokens')).includes(expiredAccess));
      assert.deepEqual(await hashes('refresh_tokens'), [liveRefresh]);
      const codes = (await db.selectFrom('authorization_codes').select('code_hash').execute()).map(
        (r) => r.code_hash,
      );
      assert.deepEqual(codes.sort(), [justExpired, consumed].sort());
      assert.ok(!codes.includes(oldCode));
      const sessions = (await db.selectFrom('sessions').select('id_hash').execute()).map((r) => r.id_hash);
      assert.deepEqual(sessions, [liveSession]);
      assert.ok(!sessions.includes(deadSession) && !sessions.includes(tooOldSession));
      const limits = (await db.selectFrom('rate_limits').select('key').execute()).map((r) => r.key);
      assert.deepEqual(limits, ['current']);
      const signin = (await db.selectFrom('signin_throttle').select('key').execute()).map((r) => r.key);
      assert.deepEqual(signin, ['remembered']);
    });

    it('a second prune right after finds nothing more; a client dies only once idle and grantless', async () => {
      const db = t.ctx.db;
      const empty = await prune(t.ctx.storage.maintenanceStore.upkeep, t.config, t.clock.now());
      assert.deepEqual(Object.values(empty), [0, 0, 0, 0, 0, 0, 0]);
      // Move past every lifetime: the live refresh token, then the grants and the clients go
      // (integrations never do).
      const later = t.clock.now() + 400 * DAY + PRUNE_MARGIN;
      const counts = await prune(t.ctx.storage.maintenanceStore.upkeep, t.config, later);
      assert.equal(counts.clients, 3);
      const left = await db.selectFrom('clients').select('kind').execute();
      assert.deepEqual(
        left.map((c) => c.kind),
        ['integration'],
      );
      assert.equal((await db.selectFrom('grants').select('id').execute()).length, 0);
    });

    it('a metadata-document client is pruned like a dynamic one: idle and grantless, never while in use', async () => {
      const db = t.ctx.db;
      const now = t.clock.now() + 500 * DAY;
      const idle = await addClient(db, 'metadata_document', now - t.config.clientIdleTtl - 10);
      const used = await addClient(db, 'metadata_document', now - t.config.clientIdleTtl - 10);
      await addGrant(db, await addAccount(db, now), used, now - 10);
      const integration = await addClient(db, 'integration', now - t.config.clientIdleTtl - 10);
      const counts = await prune(t.ctx.storage.maintenanceStore.upkeep, t.config, now);
      assert.equal(counts.clients, 1);
      const left = (await db.selectFrom('clients').select('id').execute()).map((r) => r.id);
      assert.ok(!left.includes(idle));
      assert.ok(left.includes(used) && left.includes(integration));
    });

    it('deletes in bounded batches with a turn of the event loop between them, the result unchanged', async () => {
      const db = t.ctx.db;
      const now = t.clock.now() + 1000 * DAY;
      await prune(t.ctx.storage.maintenanceStore.upkeep, t.config, now); // what the tests before left behind
      const acc = await addAccount(db, now - 200 * DAY);
      const live = await addClient(db, 'dynamic', now - 100 * DAY);
      const liveGrant = { id: await addGrant(db, acc, live, now - DAY), accountId: acc, clientId: live };
      for (let i = 0; i < 7; i++) await addToken(db, 'access_tokens', liveGrant, now - 60, now + 3600);
      const dead = 25;
      for (let i = 0; i < dead; i++) {
        const client = await addClient(db, 'dynamic', now - 100 * DAY);
        const grant = {
          id: await addGrant(db, acc, client, now - 90 * DAY),
          accountId: acc,
          clientId: client,
        };
        await addToken(db, 'access_tokens', grant, now - 90 * DAY, now - 89 * DAY);
        await addToken(db, 'refresh_tokens', grant, now - 90 * DAY, now - 60 * DAY);
        await addSession(db, acc, now - 2 * DAY, now - DAY);
      }
      const counter = new DeleteCounter();
      // Counts turns of the event loop (its check phase) while the prune runs.
      let turns = 0;
      let ticking: NodeJS.Immediate = setImmediate(function tick() {
        turns++;
        ticking = setImmediate(tick);
      });
      const batchSize = 10;
      let rests = 0;
      const rest = async () => {
        rests++;
        await new Promise((resolve) => setImmediate(resolve));
      };
      let counts: Awaited<ReturnType<typeof prune>>;
      try {
        counts = await prune(upkeepSection(pruneDb().withPlugin(counter)), t.config, now, {
          batchSize,
          rest,
        });
      } finally {
        clearImmediate(ticking);
      }
      assert.ok(rests >= 5 * Math.floor(dead / batchSize), `${rests} rests`);
      assert.deepEqual(counts, {
        codes: 0,
        accessTokens: dead,
        refreshTokens: dead,
        grants: dead,
        sessions: dead,
        rateLimits: 0,
        clients: dead,
      });
      // Every statement deleted at most one batch, and the event loop ran between batches.
      assert.ok(
        counter.deletes.length >= 5 * Math.ceil(dead / batchSize),
        `${counter.deletes.length} deletes`,
      );
      assert.ok(
        Math.max(...counter.deletes) <= batchSize,
        `largest delete: ${Math.max(...counter.deletes)} rows`,
      );
      assert.ok(turns >= 5 * Math.floor(dead / batchSize), `${turns} timer turns during the prune`);
      // Nothing live touched: the live grant, its client and its tokens.
      assert.equal(await count(db, 'access_tokens'), 7);
      assert.equal(await count(db, 'refresh_tokens'), 0);
      assert.deepEqual(
        (await db.selectFrom('grants').select('id').where('id', '=', liveGrant.id).execute()).length,
        1,
      );
      assert.ok((await db.selectFrom('clients').select('id').execute()).some((c) => c.id === live));
    });

    /** Prunes what the tests before left behind, then makes 90-day-old grants of one account and client. */
    async function grantsAfterPrune(db: typeof t.ctx.db, now: number) {
      await prune(t.ctx.storage.maintenanceStore.upkeep, t.config, now);
      const acc = await addAccount(db, now - 200 * DAY);
      const client = await addClient(db, 'dynamic', now - 100 * DAY);
      return async () => ({
        id: await addGrant(db, acc, client, now - 90 * DAY),
        accountId: acc,
        clientId: client,
      });
    }

    it('a grant goes in the prune that deletes its last token, without the walk; one with a live token stays', async () => {
      const db = t.ctx.db;
      const now = t.clock.now() + 3000 * DAY;
      const grantOf = await grantsAfterPrune(db, now);
      // Every token expired: the grant goes with them.
      const lost = await grantOf();
      await addToken(db, 'access_tokens', lost, now - 90 * DAY, now - 89 * DAY);
      await addToken(db, 'refresh_tokens', lost, now - 90 * DAY, now - 60 * DAY);
      await addCode(db, lost, now - 90 * DAY, now - 90 * DAY + 60, now - 90 * DAY + 5);
      // One token expired, one live: the grant stays.
      const live = await grantOf();
      await addToken(db, 'access_tokens', live, now - 90 * DAY, now - 89 * DAY);
      const liveRefresh = await addToken(db, 'refresh_tokens', live, now - DAY, now + 29 * DAY);
      // No token at all, and none deleted by this prune: only the full walk finds it.
      const untouched = await grantOf();
      const grantIds = async () => (await db.selectFrom('grants').select('id').execute()).map((r) => r.id);

      const targeted = await prune(t.ctx.storage.maintenanceStore.upkeep, t.config, now, {
        walkAllGrants: false,
      });
      assert.equal(targeted.grants, 1);
      const left = await grantIds();
      assert.ok(!left.includes(lost.id), 'the grant that lost its last token went');
      assert.ok(left.includes(live.id) && left.includes(untouched.id));

      const walked = await prune(t.ctx.storage.maintenanceStore.upkeep, t.config, now, {
        walkAllGrants: true,
      });
      assert.equal(walked.grants, 1);
      assert.deepEqual(await grantIds(), [live.id]);
      const refresh = await db.selectFrom('refresh_tokens').select('token_hash').execute();
      assert.deepEqual(
        refresh.map((r) => r.token_hash),
        [liveRefresh],
      );
    });

    it('a prune touching more grants than it may track walks them all, finding one the targeted check would not', async () => {
      const db = t.ctx.db;
      const now = t.clock.now() + 4000 * DAY;
      const grantOf = await grantsAfterPrune(db, now);
      // Three grants lose their last token to this prune: one more than it may track.
      for (let i = 0; i < 3; i++)
        await addToken(db, 'access_tokens', await grantOf(), now - 90 * DAY, now - 89 * DAY);
      // No token at all, and none deleted by this prune: only the walk finds it.
      const untouched = await grantOf();
      const live = await grantOf();
      await addToken(db, 'refresh_tokens', live, now - DAY, now + 29 * DAY);

      const counts = await prune(t.ctx.storage.maintenanceStore.upkeep, t.config, now, {
        walkAllGrants: false,
        maxTrackedGrants: 2,
      });
      assert.equal(counts.accessTokens, 3);
      assert.equal(counts.grants, 4);
      const left = (await db.selectFrom('grants').select('id').execute()).map((r) => r.id);
      assert.ok(!left.includes(untouched.id), 'the tokenless grant no prune touched went: the walk ran');
      assert.deepEqual(left, [live.id]);
    });

    it('runs on one instance at a time (a database lock, not a timer race)', async () => {
      let inner: { ran: boolean } | undefined;
      const outer = await t.ctx.store.instances.tryAlone('prune-test', async () => {
        inner = await t.ctx.store.instances.tryAlone('prune-test', async () => 'second');
        return 'first';
      });
      assert.deepEqual(outer, { ran: true, result: 'first' });
      assert.equal(inner?.ran, false);
    });
  });
}

describe('periodic prune in the server', () => {
  it('runs every PRUNE_INTERVAL seconds and stops cleanly', async () => {
    const t = await createTestApp('sqlite', { env: { PRUNE_INTERVAL: '1' } });
    const logged: object[] = [];
    const log = {
      info: (obj: object) => logged.push(obj),
      warn: (obj: object) => logged.push(obj),
      debug: () => undefined,
    };
    const schedule = startPruneSchedule(t.ctx, log);
    try {
      const now = t.clock.now();
      const account = await addAccount(t.ctx.db, now);
      await addSession(t.ctx.db, account, now - 7200, now - 3600);
      const started = Date.now();
      while ((await t.ctx.db.selectFrom('sessions').select('id_hash').execute()).length > 0) {
        assert.ok(Date.now() - started < 3000, 'the expired session is pruned within the interval');
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(logged.length >= 1);
    } finally {
      await schedule.stop();
      await t.close();
    }
  });
});

describe("the server prune's walk over every grant (the targeted check's safety net)", () => {
  it('its first prune after start walks: a grant left with no token by a prune cut short goes', async () => {
    const t = await createTestApp('sqlite', { env: { PRUNE_INTERVAL: '1' } });
    const log = { info: () => undefined, warn: () => undefined, debug: () => undefined };
    const now = t.clock.now();
    const account = await addAccount(t.ctx.db, now - 200 * DAY);
    const client = await addClient(t.ctx.db, 'dynamic', now - 100 * DAY, now);
    const orphan = await addGrant(t.ctx.db, account, client, now - 90 * DAY);
    const schedule = startPruneSchedule(t.ctx, log);
    try {
      const started = Date.now();
      while (
        (await t.ctx.db.selectFrom('grants').select('id').where('id', '=', orphan).execute()).length > 0
      ) {
        assert.ok(Date.now() - started < 3000, 'the tokenless grant is pruned by the first prune');
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await schedule.stop();
      await t.close();
    }
  });

  it('after a prune that failed between its token deletes and its grant check, the next prune walks', async () => {
    const t = await createTestApp('sqlite', { env: { PRUNE_INTERVAL: '1' } });
    const infos: object[] = [];
    const warnings: object[] = [];
    const log = {
      info: (obj: object) => infos.push(obj),
      warn: (obj: object) => warnings.push(obj),
      debug: () => undefined,
    };
    const fault = new GrantDeleteFault();
    const ctx = {
      ...t.ctx,
      storage: {
        ...t.ctx.storage,
        maintenanceStore: {
          ...t.ctx.storage.maintenanceStore,
          upkeep: upkeepSection(t.ctx.storage.maintenanceDb.withPlugin(fault)),
        },
      },
    };
    const db = t.ctx.db;
    // The clock stands still: no GRANT_WALK_INTERVAL passes, only the first prune and a failure
    // bring a walk.
    const now = t.clock.now();
    const account = await addAccount(db, now - 200 * DAY);
    const client = await addClient(db, 'dynamic', now - 100 * DAY, now);
    await addSession(db, account, now - 7200, now - 3600);
    const until = async (what: string, done: () => Promise<boolean> | boolean) => {
      const started = Date.now();
      while (!(await done())) {
        assert.ok(Date.now() - started < 4000, what);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const grantIds = async () => (await db.selectFrom('grants').select('id').execute()).map((r) => r.id);
    const schedule = startPruneSchedule(ctx, log);
    try {
      // The first prune (a walk) has run once its sessions delete is done and it has logged.
      await until('the first prune ran', () => infos.length >= 1);
      const grant = {
        id: await addGrant(db, account, client, now - 90 * DAY),
        accountId: account,
        clientId: client,
      };
      await addToken(db, 'access_tokens', grant, now - 90 * DAY, now - 89 * DAY);
      fault.armed = true;
      // The second prune deletes the grant's last token, then fails at its grant check.
      await until('the second prune failed', () => warnings.length >= 1);
      assert.equal(await count(db, 'access_tokens'), 0);
      assert.ok((await grantIds()).includes(grant.id), 'the failed prune left the tokenless grant');
      // No prune will delete a token of it again: only a walk finds it now.
      await until(
        'the prune after the failure walks every grant',
        async () => !(await grantIds()).includes(grant.id),
      );
      assert.deepEqual(infos.at(-1), {
        pruned: {
          codes: 0,
          accessTokens: 0,
          refreshTokens: 0,
          grants: 1,
          sessions: 0,
          rateLimits: 0,
          clients: 0,
          dpopProofs: 0,
          dpopNonces: 0,
          deviceAuthorizations: 0,
        },
        walkedAllGrants: true,
      });
    } finally {
      await schedule.stop();
      await t.close();
    }
  });

  it('walks at the first prune, after a failed one, and once a day has passed (docs/deploy.md)', () => {
    assert.equal(walksAllGrants(undefined, 1000), true);
    assert.equal(walksAllGrants(1000, 1000 + 3600), false);
    assert.equal(walksAllGrants(1000, 1000 + DAY - 1), false);
    assert.equal(walksAllGrants(1000, 1000 + DAY), true);
  });
});
