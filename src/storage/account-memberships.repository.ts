/** The account with the schools it belongs to: what GET /api/v1/account answers from. */
import { prepared } from './prepared.js';
import type { Role } from './schema.js';

export const accountWithMemberships = prepared((db, accountId: string) =>
  db
    .selectFrom('accounts')
    .leftJoin('memberships', 'memberships.account_id', 'accounts.id')
    .leftJoin('schools', 'schools.id', 'memberships.school_id')
    .select([
      'accounts.id',
      'accounts.email',
      'accounts.name',
      'accounts.locale',
      'accounts.created_at',
      'accounts.updated_at',
    ])
    .select(['schools.id as school_id', 'schools.slug', 'schools.name as school_name', 'memberships.role'])
    .where('accounts.id', '=', accountId),
);

/** One row per membership (one row with null membership columns when there is none). */
export type AccountRow = Awaited<ReturnType<typeof accountWithMemberships.all>>[number];

/** A row the left joins filled: a membership (its role) in a school (its id, slug and name). */
export type MembershipRow = AccountRow & { school_id: string; slug: string; school_name: string; role: Role };
