/**
 * JSON schemas of a family, derived from its field definitions: what a create or update body may
 * hold, what an item and a page of items look like, and the path and query parameters. Routes
 * validate with these and /openapi.json publishes the same objects.
 */
import {
  type Static,
  type TObject,
  type TOptional,
  type TSchema,
  type TString,
  Type,
} from '@sinclair/typebox';
import { type FamilyDefinition, type FieldSpec, withArticle } from '../school/define.js';
import { httpsUrlSchema } from '../school/url-fields.js';

/** PostgreSQL `integer` is 32-bit; keep every number inside it. */
const INT_MAX = 2_000_000_000;

function baseSchema(f: FieldSpec): TSchema {
  const doc = { description: f.description };
  switch (f.kind) {
    case 'string':
      return Type.String({
        ...doc,
        minLength: f.required ? 1 : 0,
        maxLength: f.maxLength ?? 1000,
        ...(f.pattern ? { pattern: f.pattern } : {}),
        ...(f.format ? { format: f.format } : {}),
      });
    case 'text':
      return Type.String({
        ...doc,
        maxLength: f.maxLength ?? 100_000,
        ...(f.format ? { format: f.format } : {}),
      });
    case 'url':
      return httpsUrlSchema(f.description);
    case 'email':
      return Type.String({ ...doc, format: 'email', maxLength: 320 });
    case 'integer':
      return Type.Integer({ ...doc, minimum: f.minimum ?? -INT_MAX, maximum: f.maximum ?? INT_MAX });
    case 'boolean':
      return Type.Boolean(doc);
    case 'enum':
      return Type.String({ ...doc, enum: [...(f.values ?? [])] });
    case 'datetime':
      return Type.String({ ...doc, format: 'date-time' });
    case 'ref':
      return Type.String({ ...doc, minLength: 1, maxLength: 100 });
    case 'json':
      return { ...(f.schema ?? {}), ...doc } as TSchema;
  }
}

function fieldSchema(f: FieldSpec): TSchema {
  const schema = baseSchema(f);
  return f.nullable ? Type.Union([schema, Type.Null()], { description: f.description }) : schema;
}

export function exampleBody(def: FamilyDefinition): Record<string, unknown> {
  return Object.fromEntries(Object.entries(def.fields).map(([name, f]) => [name, f.example]));
}

// These schemas are built at run time from field definitions, so their static types (what the TypeBox
// type provider gives the builder's handlers) are what every family shares: a body maps field names
// to values, path parameters are strings.

/** POST body: required fields must be sent; the rest take their defaults. */
export function createBodySchema(def: FamilyDefinition): TObject<Record<string, TSchema>> {
  const properties: Record<string, TSchema> = {};
  for (const [name, f] of Object.entries(def.fields)) {
    const schema = fieldSchema(f);
    if (f.required) properties[name] = schema;
    else
      properties[name] = Type.Optional(f.default === undefined ? schema : { ...schema, default: f.default });
  }
  return Type.Object(properties, {
    additionalProperties: false,
    examples: [exampleBody(def)],
  });
}

/** PATCH body: any non-empty subset of the fields. */
export function updateBodySchema(def: FamilyDefinition): TObject<Record<string, TOptional<TSchema>>> {
  const properties = Object.fromEntries(
    Object.entries(def.fields).map(([name, f]) => [name, fieldSchema(f)]),
  );
  const [first] = Object.keys(def.fields);
  return Type.Partial(Type.Object(properties), {
    additionalProperties: false,
    minProperties: 1,
    examples: first ? [{ [first]: def.fields[first]!.example }] : [],
  });
}

/** What an item looks like on the wire, from the field examples. */
function exampleItem(def: FamilyDefinition): Record<string, unknown> {
  const item: Record<string, unknown> = { id: `${def.idPrefix}_0mwsdhf7d0000a1b2c3d4e5f6` };
  if (def.parent) item[def.parent.column] = `${def.parent.family.idPrefix}_0mwsdhf2a0000f6e5d4c3b2a1`;
  Object.assign(item, exampleBody(def));
  return { ...item, created_at: '2026-11-22T21:00:00.000Z', updated_at: '2026-11-22T21:00:00.000Z' };
}

const timestamp = (description: string) => Type.String({ format: 'date-time', description });

export function itemSchema(def: FamilyDefinition): TSchema {
  const properties: Record<string, TSchema> = {
    id: Type.String({ description: `The ${def.singular}'s id` }),
  };
  if (def.parent)
    properties[def.parent.column] = Type.String({ description: `The owning ${def.parent.family.singular}` });
  for (const [name, f] of Object.entries(def.fields)) {
    // Private fields are left out of what anonymous readers get, so they are optional.
    properties[name] = f.private ? Type.Optional(fieldSchema(f)) : fieldSchema(f);
  }
  properties.created_at = timestamp('When it was created');
  properties.updated_at = timestamp('When it last changed');
  return Type.Object(properties, {
    description: withArticle(def.singular).replace(/^a/, 'A'),
    examples: [exampleItem(def)],
  });
}

export function pageSchema(def: FamilyDefinition): TSchema {
  return Type.Object(
    {
      items: Type.Array(itemSchema(def)),
      next_cursor: Type.Union([Type.String(), Type.Null()], {
        description: 'Pass as `cursor` to get the next page; null on the last page',
      }),
    },
    { description: `A page of ${def.plural}` },
  );
}

/** Items per page when the query does not say. */
const DEFAULT_PAGE_SIZE = 20;

export const listQuerySchema = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        default: DEFAULT_PAGE_SIZE,
        description: 'Items per page (1–100)',
      }),
    ),
    cursor: Type.Optional(
      Type.String({ maxLength: 200, description: 'The `next_cursor` of the previous page' }),
    ),
  },
  { additionalProperties: false },
);

export type ListQuery = Static<typeof listQuerySchema>;

/** The page size: Ajv has already put the default in (useDefaults), which the static type cannot know. */
export const pageSize = (query: ListQuery): number => query.limit ?? DEFAULT_PAGE_SIZE;

export const schoolParam = Type.String({
  pattern: '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$',
  description: 'The school slug (see GET /api/v1/schools)',
  examples: ['demo'],
});

const idParam = (what: string) =>
  Type.String({ minLength: 1, maxLength: 100, description: `The ${what}'s id` });

/** Path parameters: the school, every ancestor's id, and (for item routes) the item's id. */
export function paramsSchema(def: FamilyDefinition, withItem: boolean): TObject<Record<string, TString>> {
  const properties: Record<string, TString> = { school: schoolParam };
  for (const ancestor of ancestors(def)) properties[ancestor.param] = idParam(ancestor.singular);
  if (withItem) properties[def.param] = idParam(def.singular);
  return Type.Object(properties);
}

/** The families above this one, outermost first. */
export function ancestors(def: FamilyDefinition): FamilyDefinition[] {
  const chain: FamilyDefinition[] = [];
  for (let p = def.parent; p; p = p.family.parent) chain.unshift(p.family);
  return chain;
}

export const errorSchema = Type.Object(
  {
    error: Type.String({ description: 'Error code', examples: ['invalid_request'] }),
    error_description: Type.String({ description: 'What went wrong and what to send instead' }),
    resource_metadata: Type.Optional(
      Type.String({
        format: 'uri',
        description: 'On a 403 to a request without a token: the protected-resource metadata (RFC 9728)',
      }),
    ),
  },
  { description: 'Error' },
);
