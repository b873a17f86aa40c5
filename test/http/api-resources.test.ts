/** The hand-written resources (account, schools, appearance, analytics) and the public views. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertMembership, insertSchool } from '../../src/storage/accounts.repository.js';
import { ALL_SCOPES, call, type Demo, seedDemo } from '../helpers/api.js';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/app.js';
import { createPerson } from '../helpers/flow.js';
import { mintAccessToken } from '../helpers/tokens.js';

for (const dialect of DIALECTS) {
  describe(`school API resources [${dialect}]`, () => {
    let t: TestApp;
    let demo: Demo;
    let admin: string;
    before(async () => {
      t = await createTestApp(dialect);
      demo = await seedDemo(t);
      const person = await createPerson(t.ctx.store, { school: 'demo', now: t.clock.now() });
      admin = await mintAccessToken(t, { accountId: person.account.id, scopes: ALL_SCOPES });
    });
    after(() => t.close());

    it('anonymous sees published courses, posts, pages, events, public lecturers and active plans only', async () => {
      const expectations: Array<[string, string, unknown]> = [
        ['courses', 'status', 'published'],
        ['posts', 'status', 'published'],
        ['pages', 'status', 'published'],
        ['events', 'status', 'published'],
        ['lecturers', 'public_profile', true],
        ['membership-plans', 'active', true],
      ];
      for (const [segment, column, value] of expectations) {
        const url = `/api/v1/schools/demo/${segment}`;
        const anon = (await call(t, 'GET', url)).json().items as Array<Record<string, unknown>>;
        const all = (await call(t, 'GET', url, { token: demo.ownerToken })).json().items as Array<
          Record<string, unknown>
        >;
        assert.ok(
          anon.length > 0 && anon.length < all.length,
          `${segment}: demo has public and non-public items`,
        );
        for (const item of anon) assert.equal(item[column], value, segment);
        const hidden = all.find((item) => item[column] !== value)!;
        assert.equal(
          (await call(t, 'GET', `${url}/${hidden.id}`)).statusCode,
          404,
          `${segment}: a draft is not found`,
        );
      }
    });

    it('a lecturer’s email is never shown publicly', async () => {
      const anon = (await call(t, 'GET', '/api/v1/schools/demo/lecturers')).json().items;
      for (const lecturer of anon) assert.equal('email' in lecturer, false);
      const member = (
        await call(t, 'GET', '/api/v1/schools/demo/lecturers', { token: demo.ownerToken })
      ).json().items;
      for (const lecturer of member) assert.match(lecturer.email, /@/);
    });

    it('GET /api/v1/account lists the memberships by school slug', async () => {
      const now = t.clock.now();
      const person = await createPerson(t.ctx.store, { school: `zz-${dialect}`, now });
      // Ids in the reverse order of the slugs: the order rows come in is not the answer's.
      for (const [id, slug] of [
        ['sch_order_3', `aa-${dialect}`],
        ['sch_order_2', `bb-${dialect}`],
        ['sch_order_1', `cc-${dialect}`],
      ] as const) {
        await insertSchool(t.ctx.db, {
          id,
          slug,
          name: slug,
          description: '',
          settings: '{}',
          appearance: '{}',
          created_at: now,
          updated_at: now,
        });
        await insertMembership(t.ctx.db, {
          account_id: person.account.id,
          school_id: id,
          role: 'admin',
          created_at: now,
        });
      }
      const token = await mintAccessToken(t, { accountId: person.account.id, scopes: ['account:read'] });
      const me = (await call(t, 'GET', '/api/v1/account', { token })).json();
      assert.deepEqual(
        me.memberships.map((m: { school: string; role: string }) => [m.school, m.role]),
        [
          [`aa-${dialect}`, 'admin'],
          [`bb-${dialect}`, 'admin'],
          [`cc-${dialect}`, 'admin'],
          [`zz-${dialect}`, 'owner'],
        ],
      );
    });

    it('GET and PATCH /api/v1/account show and change the person, with memberships', async () => {
      const me = (await call(t, 'GET', '/api/v1/account', { token: demo.ownerToken })).json();
      assert.equal(me.email, 'owner@demo.school');
      assert.deepEqual(
        me.memberships.map((m: { school: string; role: string }) => [m.school, m.role]),
        [['demo', 'owner']],
      );
      const changed = await call(t, 'PATCH', '/api/v1/account', {
        token: demo.ownerToken,
        body: { name: 'Ada', locale: 'de-CH' },
      });
      assert.equal(changed.statusCode, 200);
      assert.equal(changed.json().name, 'Ada');
      const bad = await call(t, 'PATCH', '/api/v1/account', {
        token: demo.ownerToken,
        body: { locale: 'German' },
      });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.json().error_description, /"locale"/);
      const email = await call(t, 'PATCH', '/api/v1/account', {
        token: demo.ownerToken,
        body: { email: 'x@y.z' },
      });
      assert.match(email.json().error_description, /"email"/);
    });

    it('GET /api/v1/account answers each change of the person, a membership or a school at once', async () => {
      const now = t.clock.now();
      const person = await createPerson(t.ctx.store, { school: 'demo', now });
      const token = await mintAccessToken(t, { accountId: person.account.id, scopes: ALL_SCOPES });
      const me = async () => (await call(t, 'GET', '/api/v1/account', { token })).json();
      const schools = async () =>
        (await me()).memberships.map((m: { school: string; name: string }) => [m.school, m.name]);
      // Asked twice each time: on SQLite the second answer is the kept one.
      const twice = async (expected: unknown, read: () => Promise<unknown>) => {
        assert.deepEqual(await read(), expected);
        assert.deepEqual(await read(), expected);
      };
      await twice([['demo', 'Demo School']], schools);
      await call(t, 'PATCH', '/api/v1/account', { token, body: { name: 'Grace' } });
      await twice('Grace', async () => (await me()).name);
      const id = `sch_fresh_${dialect}`;
      await insertSchool(t.ctx.db, {
        id,
        slug: `fresh-${dialect}`,
        name: 'Fresh',
        description: '',
        settings: '{}',
        appearance: '{}',
        created_at: now,
        updated_at: now,
      });
      await twice([['demo', 'Demo School']], schools);
      await insertMembership(t.ctx.db, {
        account_id: person.account.id,
        school_id: id,
        role: 'admin',
        created_at: now,
      });
      await twice(
        [
          ['demo', 'Demo School'],
          [`fresh-${dialect}`, 'Fresh'],
        ],
        schools,
      );
      await t.ctx.db.updateTable('schools').set({ name: 'Renamed' }).where('id', '=', id).execute();
      await twice(
        [
          ['demo', 'Demo School'],
          [`fresh-${dialect}`, 'Renamed'],
        ],
        schools,
      );
      await t.ctx.db.deleteFrom('memberships').where('school_id', '=', id).execute();
      await twice([['demo', 'Demo School']], schools);
    });

    it('schools: members get settings and role, everyone else the public profile', async () => {
      const mine = (await call(t, 'GET', '/api/v1/schools', { token: admin })).json();
      assert.deepEqual(
        mine.items.map((s: { slug: string; role: string }) => [s.slug, s.role]),
        [['demo', 'admin']],
      );
      const member = (await call(t, 'GET', '/api/v1/schools/demo', { token: demo.ownerToken })).json();
      assert.equal(member.role, 'owner');
      assert.equal(member.settings.currency, 'EUR');
      const anon = (await call(t, 'GET', '/api/v1/schools/demo')).json();
      assert.deepEqual(Object.keys(anon).sort(), ['description', 'id', 'name', 'slug']);
      assert.equal((await call(t, 'GET', '/api/v1/schools/nope')).statusCode, 404);
    });

    it('only the owner changes school settings and the team; an admin may change appearance and content', async () => {
      const patch = { settings: { timezone: 'Europe/Berlin' } };
      const byAdmin = await call(t, 'PATCH', '/api/v1/schools/demo', { token: admin, body: patch });
      assert.equal(byAdmin.statusCode, 403);
      assert.equal(byAdmin.json().error, 'forbidden');
      const byOwner = await call(t, 'PATCH', '/api/v1/schools/demo', { token: demo.ownerToken, body: patch });
      assert.equal(byOwner.statusCode, 200);
      assert.equal(byOwner.json().settings.timezone, 'Europe/Berlin');
      assert.equal(byOwner.json().settings.currency, 'EUR', 'settings are merged');
      const member = { name: 'New', email: 'new@example.com' };
      assert.equal(
        (await call(t, 'POST', '/api/v1/schools/demo/members', { token: admin, body: member })).statusCode,
        403,
      );
      assert.equal(
        (await call(t, 'POST', '/api/v1/schools/demo/members', { token: demo.ownerToken, body: member }))
          .statusCode,
        201,
      );
      const look = await call(t, 'PATCH', '/api/v1/schools/demo/appearance', {
        token: admin,
        body: { theme: 'dark' },
      });
      assert.equal(look.statusCode, 200);
      assert.equal((await call(t, 'GET', '/api/v1/schools/demo/appearance')).json().theme, 'dark');
      const badColour = await call(t, 'PATCH', '/api/v1/schools/demo/appearance', {
        token: admin,
        body: { primary_color: 'red' },
      });
      assert.match(badColour.json().error_description, /"primary_color"/);
      assert.equal(
        (await call(t, 'POST', '/api/v1/schools/demo/courses', { token: admin, body: { title: 'By admin' } }))
          .statusCode,
        201,
      );
    });

    it('analytics are computed from the orders and students', async () => {
      const res = await call(t, 'GET', '/api/v1/schools/demo/analytics', { token: demo.ownerToken });
      assert.equal(res.statusCode, 200);
      const a = res.json();
      assert.deepEqual(a.students, { total: 2, active: 1 });
      assert.deepEqual(a.orders, { total: 3, paid: 2, pending: 0, refunded: 1 });
      assert.deepEqual(a.revenue, [
        { currency: 'EUR', paid_cents: 5800, refunded_cents: 4900, net_cents: 900 },
      ]);
      await call(t, 'POST', '/api/v1/schools/demo/students', {
        token: demo.ownerToken,
        body: { name: 'New', email: 'n@example.com' },
      });
      const after = (
        await call(t, 'GET', '/api/v1/schools/demo/analytics', { token: demo.ownerToken })
      ).json();
      assert.deepEqual(after.students, { total: 3, active: 2 });
    });

    it('a reference to another school’s row is refused, naming the field', async () => {
      const other = await createPerson(t.ctx.store, { now: t.clock.now() });
      const otherToken = await mintAccessToken(t, { accountId: other.account.id, scopes: ALL_SCOPES });
      const slug = (await call(t, 'GET', '/api/v1/schools', { token: otherToken })).json().items[0].slug;
      const foreign = await call(t, 'POST', `/api/v1/schools/${slug}/students`, {
        token: otherToken,
        body: { name: 'F', email: 'f@example.com' },
      });
      const plans = (
        await call(t, 'GET', '/api/v1/schools/demo/membership-plans', { token: demo.ownerToken })
      ).json().items;
      const res = await call(t, 'POST', '/api/v1/schools/demo/subscriptions', {
        token: demo.ownerToken,
        body: { student_id: foreign.json().id, plan_id: plans[0].id, started_at: '2027-01-01T00:00:00Z' },
      });
      assert.equal(res.statusCode, 400);
      assert.match(res.json().error_description, /"student_id"/);
    });

    it('deleting a student keeps their subscriptions and orders, no longer pointing at them', async () => {
      const students = (
        await call(t, 'GET', '/api/v1/schools/demo/students', { token: demo.ownerToken })
      ).json().items;
      const grace = students.find((s: { name: string }) => s.name === 'Grace Hopper');
      assert.equal(
        (await call(t, 'DELETE', `/api/v1/schools/demo/students/${grace.id}`, { token: demo.ownerToken }))
          .statusCode,
        204,
      );
      const orders = (await call(t, 'GET', '/api/v1/schools/demo/orders', { token: demo.ownerToken })).json()
        .items;
      assert.equal(orders.filter((o: { student_id: string | null }) => o.student_id === null).length, 2);
    });
  });
}
