/**
 * The 38 scopes of the customer's interface description (docs/decisions.md "What the customer's interface description fixes"), each with the words a person reads on the consent
 * page and the area it is grouped under. Metadata, consent, OpenAPI and the API guard all read
 * this one list.
 */

export type ScopeArea = 'account' | 'courses' | 'people' | 'commerce' | 'content' | 'school';

export interface ScopeInfo {
  readonly name: string;
  readonly area: ScopeArea;
  /** Plain words, completing "This app wants to …". */
  readonly description: string;
}

export const AREA_TITLES: Readonly<Record<ScopeArea, string>> = {
  account: 'Your identity and account',
  courses: 'Courses',
  people: 'People',
  commerce: 'Sales and payments',
  content: 'Content',
  school: 'School',
};

const catalogue: readonly ScopeInfo[] = [
  { name: 'openid', area: 'account', description: 'Confirm who you are (sign you in to the app)' },
  { name: 'profile', area: 'account', description: 'See your name, username and language' },
  { name: 'email', area: 'account', description: 'See your email address' },
  { name: 'courses:read', area: 'courses', description: 'See your courses, including drafts' },
  { name: 'courses:write', area: 'courses', description: 'Create, change and delete courses' },
  { name: 'curriculum:read', area: 'courses', description: 'See course sections and lessons' },
  {
    name: 'curriculum:write',
    area: 'courses',
    description: 'Create, change and delete course sections and lessons',
  },
  { name: 'students:read', area: 'people', description: 'See your students and their enrolments' },
  { name: 'students:write', area: 'people', description: 'Add, change and remove students' },
  { name: 'members:read', area: 'people', description: 'See the members of your school team' },
  { name: 'members:write', area: 'people', description: 'Add, change and remove school team members' },
  { name: 'lecturers:read', area: 'people', description: 'See lecturers' },
  { name: 'lecturers:write', area: 'people', description: 'Add, change and remove lecturers' },
  { name: 'orders:read', area: 'commerce', description: 'See orders and payments' },
  { name: 'membership_plans:read', area: 'commerce', description: 'See membership plans' },
  {
    name: 'membership_plans:write',
    area: 'commerce',
    description: 'Create, change and delete membership plans',
  },
  { name: 'coupons:read', area: 'commerce', description: 'See coupons' },
  { name: 'coupons:write', area: 'commerce', description: 'Create, change and delete coupons' },
  { name: 'subscriptions:read', area: 'commerce', description: 'See subscriptions' },
  { name: 'subscriptions:write', area: 'commerce', description: 'Create, change and cancel subscriptions' },
  { name: 'digital_products:read', area: 'commerce', description: 'See digital products' },
  {
    name: 'digital_products:write',
    area: 'commerce',
    description: 'Create, change and delete digital products',
  },
  { name: 'posts:read', area: 'content', description: 'See posts, including drafts' },
  { name: 'posts:write', area: 'content', description: 'Write, change and delete posts' },
  { name: 'comments:read', area: 'content', description: 'See comments' },
  { name: 'pages:read', area: 'content', description: 'See pages, including drafts' },
  { name: 'pages:write', area: 'content', description: 'Create, change and delete pages' },
  { name: 'forms:read', area: 'content', description: 'See forms and what people submitted' },
  { name: 'events:read', area: 'content', description: 'See events, including drafts' },
  { name: 'events:write', area: 'content', description: 'Create, change and delete events' },
  { name: 'storage:write', area: 'content', description: 'Upload files to your school storage' },
  { name: 'school:read', area: 'school', description: 'See your school and its settings' },
  { name: 'school:write', area: 'school', description: 'Change your school and its settings' },
  { name: 'appearance:read', area: 'school', description: "See your school's look and theme" },
  { name: 'appearance:write', area: 'school', description: "Change your school's look and theme" },
  { name: 'analytics:read', area: 'school', description: 'See sales and student analytics' },
  { name: 'account:read', area: 'account', description: 'See your account details and school memberships' },
  { name: 'account:write', area: 'account', description: 'Change your account details' },
];

/** Scope names in the interface description's order (docs/decisions.md "What the customer's interface description fixes"). */
export const SCOPE_NAMES: readonly string[] = [
  'openid',
  'profile',
  'email',
  'courses:read',
  'courses:write',
  'students:read',
  'students:write',
  'members:read',
  'members:write',
  'analytics:read',
  'curriculum:read',
  'curriculum:write',
  'orders:read',
  'school:read',
  'school:write',
  'appearance:read',
  'appearance:write',
  'events:read',
  'events:write',
  'membership_plans:read',
  'membership_plans:write',
  'coupons:read',
  'coupons:write',
  'posts:read',
  'posts:write',
  'subscriptions:read',
  'subscriptions:write',
  'digital_products:read',
  'digital_products:write',
  'comments:read',
  'lecturers:read',
  'lecturers:write',
  'storage:write',
  'forms:read',
  'pages:read',
  'pages:write',
  'account:read',
  'account:write',
];

const byName = new Map(catalogue.map((s) => [s.name, s]));

export const SCOPES: readonly ScopeInfo[] = SCOPE_NAMES.map((name) => {
  const info = byName.get(name);
  if (!info) throw new Error(`scope ${name} has no catalogue entry`);
  return info;
});

export function scopeInfo(name: string): ScopeInfo | undefined {
  return byName.get(name);
}

/** Whether the scope reaches school data (every area but the person's own account). */
export function isSchoolScope(name: string): boolean {
  const area = byName.get(name)?.area;
  return area !== undefined && area !== 'account';
}

export function isKnownScope(name: string): boolean {
  return byName.has(name);
}
