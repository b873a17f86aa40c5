/** A second app instance on the same PostgreSQL schema as a test app: two instances, one database. */
import type { FastifyInstance } from 'fastify';
import { createApp } from '../../src/app.js';
import type { AppContext } from '../../src/context.js';
import { KeyStore } from '../../src/signing-keys/key-store.js';
import { openStorage } from '../../src/storage/connect.js';
import { PG_URL, type TestApp } from '../helpers/app.js';

export async function secondInstance(t: TestApp): Promise<{ app: FastifyInstance; close(): Promise<void> }> {
  const storage = await openStorage(PG_URL!, { schema: t.ctx.storage.schema!, poolSize: 3 });
  const keys = new KeyStore(storage, {
    idTokenTtl: t.config.idTokenTtl,
    keyEncryptionSecret: t.config.keyEncryptionSecret,
    now: t.clock.now,
  });
  await keys.reload();
  const ctx: AppContext = {
    config: t.config,
    storage,
    store: storage.store,
    keys,
    now: t.clock.now,
  };
  const app = await createApp(ctx);
  await app.ready();
  return {
    app,
    async close() {
      await app.close();
      await storage.close();
    },
  };
}
