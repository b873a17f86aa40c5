/**
 * Schools: the caller's schools, one school's profile and settings (school:read/write), and its
 * appearance (appearance:read/write). Settings and appearance are JSON objects on the school row;
 * a PATCH merges the fields sent.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import type { Principal } from '../resource-server/principal.js';
import { httpsUrlSchema } from '../school/url-fields.js';
import type { School } from '../storage/schema.js';
import { decodeSlugCursor, isoTime, slugCursor } from './codec.js';
import { type ListQuery, listQuerySchema, pageSize, schoolParam } from './schemas.js';
import { loadSchool, requireRead, requireWrite, type SchoolAccess } from './school-access.js';

const params = Type.Object({ school: schoolParam });

const settingsSchema = Type.Object(
  {
    timezone: Type.String({ minLength: 1, maxLength: 64, examples: ['Europe/Berlin'] }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', examples: ['EUR'] }),
    language: Type.String({ pattern: '^[a-z]{2}(-[A-Z]{2})?$', examples: ['en'] }),
    contact_email: Type.String({ format: 'email', examples: ['hello@example.com'] }),
  },
  { additionalProperties: false },
);

const appearanceSchema = Type.Object(
  {
    primary_color: Type.String({ pattern: '^#[0-9a-fA-F]{6}$', examples: ['#1f6feb'] }),
    theme: Type.String({ enum: ['light', 'dark'] }),
    logo_url: httpsUrlSchema('Logo image URL (e.g. a storage upload URL)'),
    font: Type.String({ maxLength: 100, examples: ['Inter'] }),
  },
  { additionalProperties: false },
);

const publicSchool = {
  id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  description: Type.String(),
};

const schoolSchema = Type.Object(
  {
    ...publicSchool,
    role: Type.Optional(Type.String({ enum: ['owner', 'admin'], description: 'Your role; members only' })),
    settings: Type.Optional(Type.Partial(settingsSchema, { description: 'Members only' })),
    created_at: Type.Optional(Type.String({ format: 'date-time' })),
    updated_at: Type.Optional(Type.String({ format: 'date-time' })),
  },
  {
    description:
      'A school; anonymous readers and non-members get the public profile (id, slug, name, description)',
  },
);

const schoolPatch = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
    settings: Type.Optional(Type.Partial(settingsSchema)),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ name: 'Demo School', settings: { timezone: 'Europe/Berlin' } }],
  },
);

const appearancePatch = Type.Partial(appearanceSchema, {
  additionalProperties: false,
  minProperties: 1,
  examples: [{ primary_color: '#0a7d32', theme: 'dark' }],
});

function schoolView(access: SchoolAccess) {
  const { school, role } = access;
  const base = { id: school.id, slug: school.slug, name: school.name, description: school.description };
  if (role === null) return base;
  return {
    ...base,
    role,
    settings: JSON.parse(school.settings),
    created_at: isoTime(school.created_at),
    updated_at: isoTime(school.updated_at),
  };
}

async function listMine(ctx: AppContext, principal: Principal, query: ListQuery) {
  if (principal.kind !== 'person') return { items: [], next_cursor: null };
  const limit = pageSize(query);
  const after = decodeSlugCursor(query.cursor);
  const all = (await ctx.store.school.membershipsOf(principal.accountId)).filter(
    (m) => after === undefined || m.slug > after,
  );
  const page = all.slice(0, limit);
  const items = page.map((m) => ({ id: m.school_id, slug: m.slug, name: m.name, role: m.role }));
  return { items, next_cursor: all.length > limit ? slugCursor(page.at(-1)!.slug) : null };
}

async function patchJson(
  ctx: AppContext,
  school: School,
  column: 'settings' | 'appearance',
  changes: object,
) {
  const merged = { ...JSON.parse(school[column]), ...changes };
  await ctx.store.school.update(school.id, { [column]: JSON.stringify(merged), updated_at: ctx.now() });
  return merged;
}

export function schoolRoutes(untyped: FastifyInstance, ctx: AppContext): void {
  // Each route's TypeBox schema (validated by Ajv, published in /openapi.json) types its handler.
  const app = untyped.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Schools'];
  app.get('/schools', {
    config: { access: { scope: 'school:read', anonymous: false } },
    schema: {
      tags,
      summary: 'List your schools',
      description: 'The schools the person is a member of, with their role.',
      querystring: listQuerySchema,
      response: {
        200: Type.Object({
          items: Type.Array(
            Type.Object({
              id: Type.String(),
              slug: Type.String(),
              name: Type.String(),
              role: Type.String({ enum: ['owner', 'admin'] }),
            }),
          ),
          next_cursor: Type.Union([Type.String(), Type.Null()]),
        }),
      },
    },
    handler: (request) => listMine(ctx, request.principal, request.query),
  });
  app.get('/schools/:school', {
    config: { access: { scope: 'school:read', anonymous: true } },
    schema: {
      tags,
      summary: 'Get a school',
      description: 'Members see settings and their role; others the public profile.',
      params,
      response: { 200: schoolSchema },
    },
    handler: async (request) =>
      schoolView(await loadSchool(ctx.store, request.params.school, request.principal)),
  });
  app.patch('/schools/:school', {
    config: { access: { scope: 'school:write', anonymous: false } },
    schema: {
      tags,
      summary: 'Change a school and its settings',
      description: 'Owner only. Settings are merged with the stored ones.',
      params,
      body: schoolPatch,
      response: { 200: schoolSchema },
    },
    handler: async (request) => {
      const access = await loadSchool(ctx.store, request.params.school, request.principal);
      requireWrite(access, ['owner'], 'settings');
      const { settings, ...fields } = request.body;
      if (settings) await patchJson(ctx, access.school, 'settings', settings);
      if (Object.keys(fields).length > 0) {
        await ctx.store.school.update(access.school.id, { ...fields, updated_at: ctx.now() });
      }
      return schoolView(await loadSchool(ctx.store, access.school.slug, request.principal));
    },
  });
  appearanceRoutes(app, ctx);
}

function appearanceRoutes(untyped: FastifyInstance, ctx: AppContext): void {
  const app = untyped.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Appearance'];
  const response = { 200: Type.Partial(appearanceSchema, { description: "The school's look" }) };
  app.get('/schools/:school/appearance', {
    config: { access: { scope: 'appearance:read', anonymous: true } },
    schema: {
      tags,
      summary: "Get a school's appearance",
      description: 'Public: anyone may read it.',
      params,
      response,
    },
    handler: async (request) => {
      const access = await loadSchool(ctx.store, request.params.school, request.principal);
      requireRead(access, true, 'appearance');
      return JSON.parse(access.school.appearance);
    },
  });
  app.patch('/schools/:school/appearance', {
    config: { access: { scope: 'appearance:write', anonymous: false } },
    schema: {
      tags,
      summary: "Change a school's appearance",
      description: 'Owner or admin. Merged with the stored values.',
      params,
      body: appearancePatch,
      response,
    },
    handler: async (request) => {
      const access = await loadSchool(ctx.store, request.params.school, request.principal);
      requireWrite(access, undefined, 'appearance');
      return patchJson(ctx, access.school, 'appearance', request.body);
    },
  });
}
