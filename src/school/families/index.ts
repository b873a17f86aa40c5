/** Every generic resource family of the school API, in the order /openapi.json lists them. */
import type { FamilyDefinition } from '../define.js';
import { coupons, digitalProducts, membershipPlans, orders, subscriptions } from './commerce.js';
import { comments, events, forms, pages, posts, submissions } from './content.js';
import { courses } from './courses.js';
import { lessons, sections } from './curriculum.js';
import { lecturers, members, students } from './people.js';

export const FAMILIES: readonly FamilyDefinition[] = [
  courses,
  sections,
  lessons,
  students,
  members,
  lecturers,
  events,
  membershipPlans,
  coupons,
  posts,
  comments,
  subscriptions,
  digitalProducts,
  orders,
  forms,
  submissions,
  pages,
];
