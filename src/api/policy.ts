/**
 * Who may do what inside a school (pure; tested without HTTP). A token acts as its person, so
 * after the scope check the person's membership decides:
 *
 * - owner: reads and writes everything of the school.
 * - admin: reads everything and writes everything except the school's own settings and the
 *   team directory (members), which stay with the owner.
 * - anyone else (anonymous, or a person of another school): the public view only — published
 *   courses, posts, pages, events, public lecturer profiles, active plans, the school profile
 *   and appearance — and nothing where a family has no public view. Never a write.
 */
import type { Role } from '../storage/schema.js';

export type ReadView = 'member' | 'public' | 'denied';

export const DEFAULT_WRITERS: readonly Role[] = ['owner', 'admin'];

export function readView(role: Role | null, hasPublicView: boolean): ReadView {
  if (role !== null) return 'member';
  return hasPublicView ? 'public' : 'denied';
}

export type WriteDecision = 'allowed' | 'not_member' | 'role';

export function writeDecision(role: Role | null, writers: readonly Role[] = DEFAULT_WRITERS): WriteDecision {
  if (role === null) return 'not_member';
  return writers.includes(role) ? 'allowed' : 'role';
}
