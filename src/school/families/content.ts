import { CRUD, type FamilyDefinition, field, publication, READ_ONLY } from '../define.js';
import { TEXT_OR_HTTPS_URL_FORMAT } from '../url-fields.js';

export const events: FamilyDefinition = {
  table: 'events',
  segment: 'events',
  param: 'event',
  singular: 'event',
  plural: 'events',
  tag: 'Events',
  idPrefix: 'evt',
  scopes: { read: 'events:read', write: 'events:write' },
  operations: CRUD,
  publicWhen: publication.publicWhen,
  fields: {
    title: field.string('Event title', 'Open day', { required: true, maxLength: 200 }),
    description: field.text('What happens', 'Meet the lecturers.', { default: '' }),
    starts_at: field.datetime('Start (RFC 3339 date-time)', '2027-03-01T18:00:00Z', { required: true }),
    ends_at: field.datetime('End (RFC 3339 date-time)', '2027-03-01T20:00:00Z', { nullable: true }),
    location: field.string('Place, or an https meeting URL', 'Online', {
      default: '',
      maxLength: 500,
      format: TEXT_OR_HTTPS_URL_FORMAT,
    }),
    status: publication.field,
  },
};

export const posts: FamilyDefinition = {
  table: 'posts',
  segment: 'posts',
  param: 'post',
  singular: 'post',
  plural: 'posts',
  tag: 'Posts',
  idPrefix: 'pst',
  scopes: { read: 'posts:read', write: 'posts:write' },
  operations: CRUD,
  publicWhen: publication.publicWhen,
  fields: {
    title: field.string('Post title', 'Welcome to the new term', { required: true, maxLength: 200 }),
    body: field.text('Post body (Markdown)', 'Classes start on Monday.', { default: '' }),
    status: publication.field,
  },
};

/** Comments readers left on a post; read-only through the API (comments:read). */
export const comments: FamilyDefinition = {
  table: 'comments',
  segment: 'comments',
  param: 'comment',
  singular: 'comment',
  plural: 'comments',
  tag: 'Comments',
  idPrefix: 'cmt',
  scopes: { read: 'comments:read' },
  operations: READ_ONLY,
  parent: { family: posts, column: 'post_id' },
  fields: {
    author_name: field.string('Name the commenter gave', 'Ada', { required: true, maxLength: 200 }),
    body: field.text('Comment text', 'Looking forward to it!', { required: true }),
  },
};

export const pages: FamilyDefinition = {
  table: 'pages',
  segment: 'pages',
  param: 'page',
  singular: 'page',
  plural: 'pages',
  tag: 'Pages',
  idPrefix: 'pag',
  scopes: { read: 'pages:read', write: 'pages:write' },
  operations: CRUD,
  publicWhen: publication.publicWhen,
  fields: {
    title: field.string('Page title', 'About us', { required: true, maxLength: 200 }),
    slug: field.string('URL path segment', 'about', {
      required: true,
      pattern: '^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$',
    }),
    body: field.text('Page body (Markdown)', 'We teach mathematics.', { default: '' }),
    status: publication.field,
  },
};

const formField = {
  type: 'object',
  required: ['name', 'label', 'type'],
  additionalProperties: false,
  properties: {
    name: { type: 'string' },
    label: { type: 'string' },
    type: { type: 'string', enum: ['text', 'email', 'textarea', 'checkbox'] },
  },
};

/** Forms are built in the school's editor; the API reads them and what people submitted (forms:read). */
export const forms: FamilyDefinition = {
  table: 'forms',
  segment: 'forms',
  param: 'form',
  singular: 'form',
  plural: 'forms',
  tag: 'Forms',
  idPrefix: 'frm',
  scopes: { read: 'forms:read' },
  operations: READ_ONLY,
  fields: {
    title: field.string('Form title', 'Contact us', { required: true, maxLength: 200 }),
    fields: field.json('The questions asked', [{ name: 'email', label: 'Your email', type: 'email' }], {
      default: [],
      schema: { type: 'array', items: formField } as never,
    }),
    status: publication.field,
  },
};

export const submissions: FamilyDefinition = {
  table: 'form_submissions',
  segment: 'submissions',
  param: 'submission',
  singular: 'form submission',
  plural: 'form submissions',
  tag: 'Forms',
  idPrefix: 'sub',
  scopes: { read: 'forms:read' },
  operations: READ_ONLY,
  parent: { family: forms, column: 'form_id' },
  fields: {
    data: field.json(
      'The answers, by question name',
      { email: 'ada@example.com' },
      {
        default: {},
        schema: { type: 'object', additionalProperties: { type: ['string', 'boolean'] } } as never,
      },
    ),
  },
};
