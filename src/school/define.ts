/**
 * The vocabulary of a resource family definition. A family is data, not code: its table, path,
 * scopes, fields and what anonymous may see. src/api/builder.ts turns each definition into
 * routes, queries, validation and OpenAPI, so every family behaves the same way.
 */
import type { TSchema } from '@sinclair/typebox';
import type { ApiTableName } from '../storage/api-schema.js';
import type { Role } from '../storage/schema.js';

export type FieldKind =
  | 'string'
  | 'text'
  | 'url'
  | 'email'
  | 'integer'
  | 'boolean'
  | 'enum'
  | 'datetime'
  | 'json'
  | 'ref';

export interface FieldSpec {
  readonly kind: FieldKind;
  readonly description: string;
  /** Must be sent on create (otherwise `default` applies). */
  readonly required?: boolean;
  /** Value stored when a create omits the field. */
  readonly default?: unknown;
  /** May be null (kept null on create when omitted). */
  readonly nullable?: boolean;
  readonly values?: readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  /** For kinds `string` and `text`: a JSON Schema format, e.g. url-fields.ts `text-or-https-url`. */
  readonly format?: string;
  /** For kind `json`: the JSON schema of the value. */
  readonly schema?: TSchema;
  /** For kind `ref`: the table whose row (in the same school) the id names. */
  readonly ref?: ApiTableName;
  /** Hidden from anonymous readers (e.g. a lecturer's email). */
  readonly private?: boolean;
  readonly example: unknown;
}

export type Operation = 'list' | 'get' | 'create' | 'update' | 'delete';

export interface FamilyDefinition {
  /** Table name (migration 0030). */
  readonly table: ApiTableName;
  /** Path segment of the collection, e.g. `courses`. */
  readonly segment: string;
  /** Path parameter naming one item, e.g. `course`; also what a child family calls its parent. */
  readonly param: string;
  /** Words for summaries and errors. */
  readonly singular: string;
  readonly plural: string;
  /** OpenAPI tag. */
  readonly tag: string;
  readonly scopes: { readonly read: string; readonly write?: string };
  readonly operations: readonly Operation[];
  readonly fields: Readonly<Record<string, FieldSpec>>;
  /** The owning family and the column that points at it (nested paths). */
  readonly parent?: { readonly family: FamilyDefinition; readonly column: string };
  /** What anonymous readers (and people outside the school) may see; absent = nothing. */
  readonly publicWhen?: { readonly column: string; readonly equals: string | number };
  /** Roles that may write; default owner and admin. */
  readonly writers?: readonly Role[];
  /** Id prefix of new rows. */
  readonly idPrefix: string;
}

/**
 * The noun with its indefinite article, "an event", "a course": by the first letter's sound. A
 * "u" followed by one consonant and a vowel sounds "you" ("a user", "a unit"); any other vowel
 * start takes "an" ("an order", "an upload").
 */
export function withArticle(noun: string): string {
  return `${/^(?:[aeio]|u(?![^aeiou][aeiou]))/i.test(noun) ? 'an' : 'a'} ${noun}`;
}

type Options = Omit<FieldSpec, 'kind' | 'description' | 'example'>;

function make(kind: FieldKind) {
  return (description: string, example: unknown, options: Options = {}): FieldSpec => ({
    kind,
    description,
    example,
    ...options,
  });
}

/** Field constructors: `field.string('Course title', 'Algebra I', { required: true })`. */
export const field = {
  string: make('string'),
  text: make('text'),
  /** A link or file a page may load (url-fields.ts): an absolute https URL, or "" for none. */
  url: make('url'),
  email: make('email'),
  integer: make('integer'),
  boolean: make('boolean'),
  datetime: make('datetime'),
  json: make('json'),
  ref: make('ref'),
  enum: (
    description: string,
    values: readonly string[],
    example: string,
    options: Options = {},
  ): FieldSpec => ({
    kind: 'enum',
    description,
    example,
    values,
    ...options,
  }),
} as const;

export const CRUD: readonly Operation[] = ['list', 'get', 'create', 'update', 'delete'];
export const READ_ONLY: readonly Operation[] = ['list', 'get'];

/** `draft` / `published`, the common publication switch; anonymous sees published items. */
export const publication = {
  field: field.enum(
    'Publication state; anonymous readers see published items only',
    ['draft', 'published'],
    'published',
    {
      default: 'draft',
    },
  ),
  publicWhen: { column: 'status', equals: 'published' },
} as const;

export const currency = field.string('ISO 4217 currency code', 'EUR', {
  default: 'EUR',
  pattern: '^[A-Z]{3}$',
});
