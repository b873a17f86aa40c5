/**
 * Resolving `{school}` in a path together with the caller's role in it: one query (the school by
 * slug, left-joined to the caller's membership).
 */
import { forbidden, notFound } from '../errors.js';
import type { Principal } from '../resource-server/principal.js';
import type { Role, School } from '../storage/schema.js';
import type { Store } from '../storage/store.js';
import { type ReadView, readView, writeDecision } from './policy.js';

export interface SchoolAccess {
  readonly school: School;
  readonly role: Role | null;
}

export async function loadSchool(store: Store, slug: string, principal: Principal): Promise<SchoolAccess> {
  if (principal.kind === 'anonymous') {
    const school = await store.school.find(slug);
    if (!school) throw notFound(`school "${slug}"`);
    return { school, role: null };
  }
  const found = await store.school.findWithRole(slug, principal.accountId);
  if (!found) throw notFound(`school "${slug}"`);
  return found;
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
