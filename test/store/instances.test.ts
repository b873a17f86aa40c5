import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS, openTestStore, type TestStore } from '../helpers/stores.js';

for (const dialect of DIALECTS) {
  describe(`store contract: instances (${dialect})`, () => {
    let t: TestStore;
    before(async () => {
      t = await openTestStore(dialect);
    });
    after(() => t.close());

    it('tryAlone runs a job, and skips it while another runs the same one', async () => {
      const other = (await t.second()).store;
      let inner: { ran: boolean } | undefined;
      const outer = await t.store.instances.tryAlone('job', async () => {
        inner = await other.instances.tryAlone('job', async () => 'second');
        return 'first';
      });
      assert.deepEqual(outer, { ran: true, result: 'first' });
      assert.equal(inner?.ran, false);
      assert.deepEqual(await other.instances.tryAlone('job', async () => 'after'), {
        ran: true,
        result: 'after',
      });
    });

    it('alone makes a second caller wait until the first one has finished', async () => {
      const other = (await t.second()).store;
      const order: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const first = t.store.instances.alone('first-start', async () => {
        order.push('first in');
        await held;
        order.push('first out');
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const second = other.instances.alone('first-start', async () => {
        order.push('second in');
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      release();
      await Promise.all([first, second]);
      assert.deepEqual(order, ['first in', 'first out', 'second in']);
    });

    // SQLite has one server process per file: nobody to hear (its watch is a no-op).
    if (dialect === 'postgres') {
      it('a watcher hears another instance announce a change of the keys', async () => {
        const other = (await t.second()).store;
        let heard = 0;
        const quiet = { info: () => undefined, warn: () => undefined };
        const watch = t.store.instances.watchKeys(() => {
          heard += 1;
        }, quiet);
        try {
          // Once on listening (anything announced before), then once per announcement.
          const deadline = Date.now() + 5000;
          while (heard < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
          await other.instances.announceKeysChanged();
          while (heard < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
          assert.equal(heard, 2);
        } finally {
          await watch.stop();
        }
      });
    }
  });
}
