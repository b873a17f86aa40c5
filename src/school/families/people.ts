import { CRUD, type FamilyDefinition, field } from '../define.js';

export const students: FamilyDefinition = {
  table: 'students',
  segment: 'students',
  param: 'student',
  singular: 'student',
  plural: 'students',
  tag: 'Students',
  idPrefix: 'stu',
  scopes: { read: 'students:read', write: 'students:write' },
  operations: CRUD,
  fields: {
    name: field.string('Full name', 'Grace Hopper', { required: true, maxLength: 200 }),
    email: field.email('Email address', 'grace@example.com', { required: true }),
    status: field.enum('Enrolment state', ['active', 'suspended'], 'active', { default: 'active' }),
    note: field.text('Private note for the school team', 'Prefers evening sessions.', { default: '' }),
  },
};

/** The school's team directory (who teaches, edits, supports); sign-in accounts are separate. */
export const members: FamilyDefinition = {
  table: 'members',
  segment: 'members',
  param: 'member',
  singular: 'member',
  plural: 'members',
  tag: 'Members',
  idPrefix: 'mem',
  scopes: { read: 'members:read', write: 'members:write' },
  operations: CRUD,
  // Changing who is on the team is the owner's call.
  writers: ['owner'],
  fields: {
    name: field.string('Full name', 'Alan Turing', { required: true, maxLength: 200 }),
    email: field.email('Email address', 'alan@example.com', { required: true }),
    role: field.enum('Role in the team', ['editor', 'instructor', 'support'], 'editor', {
      default: 'editor',
    }),
  },
};

export const lecturers: FamilyDefinition = {
  table: 'lecturers',
  segment: 'lecturers',
  param: 'lecturer',
  singular: 'lecturer',
  plural: 'lecturers',
  tag: 'Lecturers',
  idPrefix: 'lec',
  scopes: { read: 'lecturers:read', write: 'lecturers:write' },
  operations: CRUD,
  publicWhen: { column: 'public_profile', equals: 1 },
  fields: {
    name: field.string('Full name', 'Emmy Noether', { required: true, maxLength: 200 }),
    headline: field.string('One line under the name', 'Professor of algebra', {
      default: '',
      maxLength: 200,
    }),
    bio: field.text('Biography (Markdown)', 'Emmy teaches abstract algebra.', { default: '' }),
    email: field.email('Contact email; never shown publicly', 'emmy@example.com', {
      required: true,
      private: true,
    }),
    public_profile: field.boolean('Whether the profile is shown to anonymous readers', true, {
      default: false,
    }),
  },
};
