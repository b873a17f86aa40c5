/**
 * First start of a loopback server on SQLite with an empty database (config.ts says when; docs/configuration.md `SEED_DEMO`), or
 * `schoolauth demo`: a demo school and its owner, so a developer can sign in at once, with
 * published and draft items of every API family. The password is random and shown once.
 */
import { randomBytes } from 'node:crypto';
import { createAccount } from '../accounts/accounts.js';
import type { Store } from '../storage/store.js';
import { seedDemoContent } from './content.js';

export const DEMO_SCHOOL = 'demo';
export const DEMO_OWNER_EMAIL = 'owner@demo.school';

export interface DemoSeed {
  readonly email: string;
  readonly password: string;
  readonly schoolId: string;
  readonly accountId: string;
}

/**
 * Seeds the demo school when the database has no account yet; returns what was created. Under a
 * lock: of several instances starting at once on one new database, exactly one seeds it.
 */
export function seedDemoIfEmpty(instances: Store['instances'], now: number): Promise<DemoSeed | undefined> {
  return instances.alone('demo-seed', async ({ store }) => {
    if ((await store.accounts.count()) > 0) return undefined;
    const password = randomBytes(12).toString('base64url');
    const { account, school } = await createAccount(
      store,
      {
        email: DEMO_OWNER_EMAIL,
        name: 'Demo Owner',
        password,
        school: DEMO_SCHOOL,
        schoolName: 'Demo School',
      },
      now,
    );
    await store.school.update(school.id, {
      description: 'A school seeded on first start to try schoolauth.',
    });
    await seedDemoContent(store, school.id, now);
    return { email: account.email, password, schoolId: school.id, accountId: account.id };
  });
}
