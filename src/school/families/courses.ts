import { CRUD, currency, type FamilyDefinition, field, publication } from '../define.js';

export const courses: FamilyDefinition = {
  table: 'courses',
  segment: 'courses',
  param: 'course',
  singular: 'course',
  plural: 'courses',
  tag: 'Courses',
  idPrefix: 'crs',
  scopes: { read: 'courses:read', write: 'courses:write' },
  operations: CRUD,
  publicWhen: publication.publicWhen,
  fields: {
    title: field.string('Course title', 'Algebra I', { required: true, maxLength: 200 }),
    description: field.text('What the course teaches', 'Linear equations, step by step.', { default: '' }),
    price_cents: field.integer('Price in the smallest currency unit; 0 is free', 4900, {
      default: 0,
      minimum: 0,
    }),
    currency,
    status: publication.field,
  },
};
