/**
 * The demo school's content: published and draft items of every family, so the anonymous view
 * and an authorised view visibly differ (docs/api.md "In short"). Written through the same definitions and
 * queries the API uses.
 */
import type { FamilyDefinition } from '../school/define.js';
import {
  coupons,
  digitalProducts,
  membershipPlans,
  orders,
  subscriptions,
} from '../school/families/commerce.js';
import { comments, events, forms, pages, posts, submissions } from '../school/families/content.js';
import { courses } from '../school/families/courses.js';
import { lessons, sections } from '../school/families/curriculum.js';
import { lecturers, members, students } from '../school/families/people.js';
import { newId, toColumns } from '../school/rows.js';
import type { Row } from '../storage/contract/school.js';
import type { Store } from '../storage/store.js';

type Values = Record<string, unknown>;

/** Fills omitted fields with the definition's defaults (the API's validator does this for requests). */
function withDefaults(def: FamilyDefinition, values: Values): Values {
  const filled: Values = {};
  for (const [name, f] of Object.entries(def.fields)) {
    if (name in values) filled[name] = values[name];
    else if (f.default !== undefined) filled[name] = f.default;
    else if (f.nullable) filled[name] = null;
  }
  return filled;
}

function inserter(store: Store, schoolId: string, now: number) {
  return async (def: FamilyDefinition, values: Values, parentId?: string): Promise<string> => {
    const id = newId(def.idPrefix);
    const row: Row = {
      ...toColumns(def, withDefaults(def, values)),
      id,
      school_id: schoolId,
      created_at: now,
      updated_at: now,
    };
    if (def.parent && parentId) row[def.parent.column] = parentId;
    await store.school.insertRow(def, row);
    return id;
  };
}

export async function seedDemoContent(store: Store, schoolId: string, now: number): Promise<void> {
  const add = inserter(store, schoolId, now);
  const algebra = await add(courses, {
    title: 'Algebra I',
    description: 'Equations, step by step.',
    price_cents: 4900,
    status: 'published',
  });
  await add(courses, {
    title: 'Geometry (coming soon)',
    description: 'Shapes and proofs.',
    price_cents: 5900,
    status: 'draft',
  });
  const intro = await add(sections, { title: 'Getting started', position: 1 }, algebra);
  await add(sections, { title: 'Linear equations', position: 2 }, algebra);
  await add(
    lessons,
    {
      title: 'What is a variable?',
      kind: 'text',
      content: 'A letter that stands for a number.',
      duration_minutes: 10,
      position: 1,
    },
    intro,
  );
  await add(
    lessons,
    {
      title: 'Welcome video',
      kind: 'video',
      content: 'https://example.com/welcome.mp4',
      duration_minutes: 4,
      position: 2,
    },
    intro,
  );

  const grace = await add(students, { name: 'Grace Hopper', email: 'grace@example.com', status: 'active' });
  const alan = await add(students, {
    name: 'Alan Kay',
    email: 'alan.kay@example.com',
    status: 'suspended',
    note: 'Paused for the summer.',
  });
  await add(members, { name: 'Margaret Hamilton', email: 'margaret@example.com', role: 'instructor' });
  await add(members, { name: 'Linus Support', email: 'support@example.com', role: 'support' });
  await add(lecturers, {
    name: 'Emmy Noether',
    headline: 'Professor of algebra',
    bio: 'Emmy teaches algebra.',
    email: 'emmy@example.com',
    public_profile: true,
  });
  await add(lecturers, {
    name: 'Kurt Gödel',
    headline: 'Guest lecturer',
    email: 'kurt@example.com',
    public_profile: false,
  });

  await add(events, {
    title: 'Open day',
    description: 'Meet the lecturers.',
    starts_at: '2027-03-01T18:00:00Z',
    ends_at: '2027-03-01T20:00:00Z',
    location: 'Online',
    status: 'published',
  });
  await add(events, {
    title: 'Summer school (planning)',
    starts_at: '2027-07-01T09:00:00Z',
    status: 'draft',
  });
  const monthly = await add(membershipPlans, {
    name: 'All access',
    description: 'Every course.',
    price_cents: 1900,
    billing_interval: 'month',
    active: true,
  });
  await add(membershipPlans, {
    name: 'Founders (retired)',
    price_cents: 900,
    billing_interval: 'year',
    active: false,
  });
  await add(coupons, {
    code: 'SPRING25',
    percent_off: 25,
    max_redemptions: 100,
    expires_at: '2027-06-01T00:00:00Z',
    active: true,
  });
  await add(coupons, { code: 'STAFF100', percent_off: 100, active: false });
  await add(subscriptions, {
    student_id: grace,
    plan_id: monthly,
    status: 'active',
    started_at: '2026-09-01T00:00:00Z',
  });
  await add(subscriptions, {
    student_id: alan,
    plan_id: monthly,
    status: 'canceled',
    started_at: '2026-06-01T00:00:00Z',
    canceled_at: '2026-08-01T00:00:00Z',
  });
  await add(digitalProducts, {
    name: 'Algebra workbook (PDF)',
    price_cents: 900,
    file_url: 'https://example.com/workbook.pdf',
    status: 'published',
  });
  await add(digitalProducts, { name: 'Geometry workbook (draft)', price_cents: 900, status: 'draft' });
  await add(orders, { student_id: grace, item: 'Algebra I', amount_cents: 4900, status: 'paid' });
  await add(orders, { student_id: grace, item: 'Algebra workbook (PDF)', amount_cents: 900, status: 'paid' });
  await add(orders, { student_id: alan, item: 'Algebra I', amount_cents: 4900, status: 'refunded' });

  const welcome = await add(posts, {
    title: 'Welcome to the new term',
    body: 'Classes start on Monday.',
    status: 'published',
  });
  await add(posts, { title: 'Exam dates (draft)', body: 'To be announced.', status: 'draft' });
  await add(comments, { author_name: 'Grace', body: 'Looking forward to it!' }, welcome);
  await add(comments, { author_name: 'Alan', body: 'Will there be recordings?' }, welcome);
  await add(pages, { title: 'About us', slug: 'about', body: 'We teach mathematics.', status: 'published' });
  await add(pages, { title: 'Imprint (draft)', slug: 'imprint', status: 'draft' });
  const contact = await add(forms, {
    title: 'Contact us',
    fields: [
      { name: 'email', label: 'Your email', type: 'email' },
      { name: 'message', label: 'Message', type: 'textarea' },
    ],
    status: 'published',
  });
  await add(forms, {
    title: 'Feedback (draft)',
    fields: [{ name: 'rating', label: 'Rating', type: 'text' }],
    status: 'draft',
  });
  await add(
    submissions,
    { data: { email: 'ada@example.com', message: 'Do you offer group rates?' } },
    contact,
  );
  await add(
    submissions,
    { data: { email: 'bob@example.com', message: 'Is Algebra I self-paced?' } },
    contact,
  );
}
