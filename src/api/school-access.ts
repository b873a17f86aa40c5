/**
 * Resolving `{school}` in a path together with the caller's role in it: one query (the school by
 * slug, left-joined to the caller's membership).
 */

import type { Kysely } from 'kysely';
import { forbidden, notFound } from '../errors.js';
import type { Principal } from '../resource-server/principal.js';
import type { Database, Role, School } from '../storage/schema.js';
import { type ReadView, readView, writeDecision } from './policy.js';

export interface SchoolAccess {
  readonly school: School;
  readonly role: Role | null;
}

export async function loadSchool(
  db: Kysely<Database>,
  slug: string,
  principal: Principal,
): Promise<SchoolAccess> {
  if (principal.kind === 'anonymous') {
    const school = await db.selectFrom('schools').selectAll().where('slug', '=', slug).executeTakeFirst();
    if (!school) throw notFound(`school "${slug}"`);
    return { school, role: null };
  }
  const row = await db
    .selectFrom('schools')
    .leftJoin('memberships', (join) =>
      join
        .onRef('memberships.school_id', '=', 'schools.id')
        .on('memberships.account_id', '=', principal.accountId),
    )
    .selectAll('schools')
    .select('memberships.role')
    .where('schools.slug', '=', slug)
    .executeTakeFirst();
  if (!row) throw notFound(`school "${slug}"`);
  const { role, ...school } = row;
  return { school, role: role ?? null };
}

/** The read view, or 403 when the caller may see nothing here. */
export function requireRead(
  access: SchoolAccess,
  hasPublicView: boolean,
  what: string,
): Exclude<ReadView, 'denied'> {
  const view = readView(access.role, hasPublicView);
  if (view === 'denied') {
    throw forbidden(`only members of school "${access.school.slug}" may see its ${what}`);
  }
  return view;
}

export function requireWrite(access: SchoolAccess, writers: readonly Role[] | undefined, what: string): void {
  const decision = writeDecision(access.role, writers);
  if (decision === 'not_member') {
    throw forbidden(`only members of school "${access.school.slug}" may change its ${what}`);
  }
  if (decision === 'role') {
    throw forbidden(
      `only the school's ${writers?.join(' or ')} may change its ${what}; your role is ${access.role}`,
    );
  }
}
