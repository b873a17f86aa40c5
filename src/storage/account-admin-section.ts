/**
 * The accounts section's operations for the operator and the demo seed (contract/accounts.ts):
 * the same statements on both databases; each write of several rows one transaction.
 */
import type { Kysely } from 'kysely';
import {
  countAccounts,
  findAccountByEmail,
  findSchoolBySlug,
  insertAccount,
  insertMembership,
  insertSchool,
  listAccounts,
  listMemberships,
  membershipsOf,
  updateAccount,
} from './accounts.repository.js';
import { forgetAllAppsWithin } from './connected-apps.repository.js';
import type { AccountAdmin } from './contract/accounts.js';
import { revokeAccountGrantsWithin } from './grants.repository.js';
import type { Database } from './schema.js';
import { inTransaction } from './transaction.js';

export function accountAdminSection(db: Kysely<Database>): AccountAdmin {
  return {
    findByEmail: (email) => findAccountByEmail(db, email),
    list: () => listAccounts(db),
    listMemberships: () => listMemberships(db),
    count: () => countAccounts(db),
    update: (accountId, changes, now) => updateAccount(db, accountId, changes, now),
    create: (account, slug, place) =>
      inTransaction(db, async (trx) => {
        const placed = place(await findSchoolBySlug(trx, slug));
        if (placed.created) await insertSchool(trx, placed.school);
        await insertAccount(trx, account);
        await insertMembership(trx, {
          account_id: account.id,
          school_id: placed.school.id,
          role: placed.role,
          created_at: account.created_at,
        });
        return placed;
      }),
    join: (accountId, slug, role, now, refuse) =>
      inTransaction(db, async (trx) => {
        const school = await findSchoolBySlug(trx, slug);
        const member = school && (await membershipsOf(trx, accountId)).find((m) => m.school_id === school.id);
        refuse(school, member?.role);
        await insertMembership(trx, { account_id: accountId, school_id: school!.id, role, created_at: now });
        return school!;
      }),
    disable: (accountId, now) =>
      inTransaction(db, async (trx) => {
        await updateAccount(trx, accountId, { disabled: 1 }, now);
        await trx.deleteFrom('sessions').where('account_id', '=', accountId).execute();
        // Grant first, as every write to a grant's rows (docs/security.md "Lock order").
        await revokeAccountGrantsWithin(trx, accountId, now);
      }),
    resetPassword: (accountId, passwordHash, now, keepApps) =>
      inTransaction(db, async (trx) => {
        await updateAccount(trx, accountId, { password_hash: passwordHash }, now);
        const sessions = await trx
          .deleteFrom('sessions')
          .where('account_id', '=', accountId)
          .executeTakeFirst();
        const apps = keepApps ? undefined : await forgetAllAppsWithin(trx, accountId, now);
        return { sessions: Number(sessions.numDeletedRows), apps };
      }),
  };
}
