import { CRUD, type FamilyDefinition, field } from '../define.js';
import { TEXT_OR_HTTPS_URL_FORMAT } from '../url-fields.js';
import { courses } from './courses.js';

/** A course's curriculum: sections, each holding ordered lessons. */
export const sections: FamilyDefinition = {
  table: 'course_sections',
  segment: 'sections',
  param: 'section',
  singular: 'section',
  plural: 'sections',
  tag: 'Curriculum',
  idPrefix: 'sec',
  scopes: { read: 'curriculum:read', write: 'curriculum:write' },
  operations: CRUD,
  parent: { family: courses, column: 'course_id' },
  fields: {
    title: field.string('Section title', 'Getting started', { required: true, maxLength: 200 }),
    position: field.integer('Order within the course (ascending)', 1, { default: 0, minimum: 0 }),
  },
};

export const lessons: FamilyDefinition = {
  table: 'lessons',
  segment: 'lessons',
  param: 'lesson',
  singular: 'lesson',
  plural: 'lessons',
  tag: 'Curriculum',
  idPrefix: 'les',
  scopes: { read: 'curriculum:read', write: 'curriculum:write' },
  operations: CRUD,
  parent: { family: sections, column: 'section_id' },
  fields: {
    title: field.string('Lesson title', 'What is a variable?', { required: true, maxLength: 200 }),
    kind: field.enum('Kind of lesson', ['text', 'video', 'quiz', 'download'], 'text', { default: 'text' }),
    content: field.text('Lesson body (Markdown), or an https media URL', 'A variable stands for a number.', {
      default: '',
      format: TEXT_OR_HTTPS_URL_FORMAT,
    }),
    duration_minutes: field.integer('Expected duration', 10, { default: 0, minimum: 0, maximum: 10000 }),
    position: field.integer('Order within the section (ascending)', 1, { default: 0, minimum: 0 }),
  },
};
