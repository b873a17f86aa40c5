import { CRUD, currency, type FamilyDefinition, field, publication, READ_ONLY } from '../define.js';
import { students } from './people.js';

export const membershipPlans: FamilyDefinition = {
  table: 'membership_plans',
  segment: 'membership-plans',
  param: 'plan',
  singular: 'membership plan',
  plural: 'membership plans',
  tag: 'Membership plans',
  idPrefix: 'pln',
  scopes: { read: 'membership_plans:read', write: 'membership_plans:write' },
  operations: CRUD,
  publicWhen: { column: 'active', equals: 1 },
  fields: {
    name: field.string('Plan name', 'All access', { required: true, maxLength: 200 }),
    description: field.text('What members get', 'Every course, every month.', { default: '' }),
    price_cents: field.integer('Price per billing interval, smallest currency unit', 1900, {
      required: true,
      minimum: 0,
    }),
    currency,
    billing_interval: field.enum('How often it is billed', ['month', 'year'], 'month', { default: 'month' }),
    active: field.boolean('Offered to new members (anonymous readers see active plans)', true, {
      default: false,
    }),
  },
};

export const coupons: FamilyDefinition = {
  table: 'coupons',
  segment: 'coupons',
  param: 'coupon',
  singular: 'coupon',
  plural: 'coupons',
  tag: 'Coupons',
  idPrefix: 'cpn',
  scopes: { read: 'coupons:read', write: 'coupons:write' },
  operations: CRUD,
  fields: {
    code: field.string('Code a buyer types', 'SPRING25', { required: true, pattern: '^[A-Z0-9_-]{3,40}$' }),
    percent_off: field.integer('Discount in percent', 25, { required: true, minimum: 1, maximum: 100 }),
    max_redemptions: field.integer('How often it may be used; null is unlimited', 100, {
      nullable: true,
      minimum: 1,
    }),
    expires_at: field.datetime('End of validity (RFC 3339); null never expires', '2027-06-01T00:00:00Z', {
      nullable: true,
    }),
    active: field.boolean('Whether it can be redeemed', true, { default: true }),
  },
};

export const subscriptions: FamilyDefinition = {
  table: 'subscriptions',
  segment: 'subscriptions',
  param: 'subscription',
  singular: 'subscription',
  plural: 'subscriptions',
  tag: 'Subscriptions',
  idPrefix: 'sbs',
  scopes: { read: 'subscriptions:read', write: 'subscriptions:write' },
  operations: CRUD,
  fields: {
    student_id: field.ref('The subscribed student (null once the student was removed)', 'stu_…', {
      required: true,
      nullable: true,
      ref: 'students',
    }),
    plan_id: field.ref('The membership plan (null once the plan was removed)', 'pln_…', {
      required: true,
      nullable: true,
      ref: 'membership_plans',
    }),
    status: field.enum('Subscription state', ['active', 'past_due', 'canceled'], 'active', {
      default: 'active',
    }),
    started_at: field.datetime('Start (RFC 3339)', '2027-01-01T00:00:00Z', { required: true }),
    canceled_at: field.datetime('When it was canceled (RFC 3339)', null, { nullable: true }),
  },
};

export const digitalProducts: FamilyDefinition = {
  table: 'digital_products',
  segment: 'digital-products',
  param: 'product',
  singular: 'digital product',
  plural: 'digital products',
  tag: 'Digital products',
  idPrefix: 'dpr',
  scopes: { read: 'digital_products:read', write: 'digital_products:write' },
  operations: CRUD,
  // Published products are for sale, but the listing is a back-office view: no anonymous access.
  fields: {
    name: field.string('Product name', 'Algebra workbook (PDF)', { required: true, maxLength: 200 }),
    description: field.text('What the buyer gets', '120 exercises with solutions.', { default: '' }),
    price_cents: field.integer('Price, smallest currency unit', 900, { required: true, minimum: 0 }),
    currency,
    file_url: field.url('Where the file is (e.g. a storage upload URL)', 'https://example.com/workbook.pdf', {
      default: '',
    }),
    status: publication.field,
  },
};

/** Orders come from the checkout; the API reads them (orders:read). */
export const orders: FamilyDefinition = {
  table: 'orders',
  segment: 'orders',
  param: 'order',
  singular: 'order',
  plural: 'orders',
  tag: 'Orders',
  idPrefix: 'ord',
  scopes: { read: 'orders:read' },
  operations: READ_ONLY,
  fields: {
    student_id: field.ref('The buying student (null once removed)', 'stu_…', {
      nullable: true,
      ref: students.table,
    }),
    item: field.string('What was bought', 'Algebra I', { required: true }),
    amount_cents: field.integer('Amount, smallest currency unit', 4900, { required: true, minimum: 0 }),
    currency,
    status: field.enum('Payment state', ['pending', 'paid', 'refunded'], 'paid', { required: true }),
  },
};
